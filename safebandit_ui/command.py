"""The ``safebandit`` command an installed package provides: every core command, plus ``app``.

``safebandit dose --T 2000 --json`` is ``python -m safebandit_core dose --T 2000 --json``;
``safebandit app [streamlit options]`` serves the dashboard (:mod:`.serve`) from wherever the
package is installed. The core's command line knows nothing of Streamlit, so the one command
that needs it is added here, at the front end.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


class _App:
    """``safebandit app``: serve the dashboard, with Streamlit's own options passed through."""

    NAME = "app"
    HELP = "serve the dashboard in a browser (Streamlit options such as --server.port 8080 pass through)"

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("streamlit_options", nargs=argparse.REMAINDER,
                            help="options for Streamlit's server, e.g. --server.port 8080")

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        from . import serve

        serve.main(list(args.streamlit_options))
        return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``safebandit`` command; returns the exit code."""
    from safebandit_core import cli

    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == [_App.NAME] and not {"-h", "--help"} & set(args[1:]):
        # Streamlit's options (--server.port ...) are not ours to parse: they go through untouched.
        return _App.run(argparse.Namespace(streamlit_options=args[1:]))
    return cli.main(args, prog="safebandit", extra=(_App,))


if __name__ == "__main__":
    sys.exit(main())
