"""The server as ``make run`` starts it: the core imported and the warm-up begun before the first visitor.

``streamlit run app.py`` runs ``app.py`` only when a browser connects, so the first visitor of a
fresh server would wait for JAX and the whole core to import and for the default shapes to load or
compile. ``python -m safebandit_ui.serve [streamlit options]`` does that work first: it imports the
core, starts :mod:`.warmup` (which prints one line to the log when it is done), then hands over to
Streamlit's own command line with ``run app.py`` and the options given (``--server.port 8501``...).
The options are Streamlit's; nothing else is read from the command line.
"""

from __future__ import annotations

import os
import sys

from .approot import app_root


def main(argv: list[str] | None = None) -> None:
    """Import the core, start the warm-up, then serve ``app.py`` with Streamlit's options ``argv``."""
    import safebandit_core.families  # noqa: F401  (the whole core: app.py's imports are then free)
    import safebandit_core.presets  # noqa: F401

    from . import warmup

    warmup.start()
    from streamlit.web import cli

    root = app_root()
    os.chdir(root)  # Streamlit reads .streamlit/config.toml from the working directory
    sys.argv = ["streamlit", "run", str(root / "app.py"), *(sys.argv[1:] if argv is None else argv)]
    cli.main()


if __name__ == "__main__":
    main()
