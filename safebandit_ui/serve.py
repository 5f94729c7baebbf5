"""The server as ``make run`` starts it: the core imported and the warm-up begun before the first visitor.

``streamlit run app.py`` runs ``app.py`` only when a browser connects, so the first visitor of a
fresh server would wait for JAX and the whole core to import and for the default shapes to load or
compile. ``python -m safebandit_ui.serve [streamlit options]`` does that work first: it imports the
core, starts :mod:`.warmup` (which prints one line to the log when it is done), then hands over to
Streamlit's own command line with ``run app.py`` and the options given (``--server.port 8501``...).
The options are Streamlit's; nothing else is read from the command line. When Streamlit stops (its
own handlers turn Ctrl-C and SIGTERM into a clean server stop), the warm-up is stopped and its job in
flight waited for, so the process exits 0.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from .approot import app_root


def _exit_cleanly(signum: int, frame: Any) -> None:
    """Ctrl-C or SIGTERM before Streamlit has installed its own handlers: an ordinary exit with status 0 (which
    waits for the warm-up's job in flight) instead of a KeyboardInterrupt traceback or death by the signal."""
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> None:
    """Import the core, start the warm-up, then serve ``app.py`` with Streamlit's options ``argv``."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _exit_cleanly)
    import safebandit_core.families  # noqa: F401  (the whole core: app.py's imports are then free)
    import safebandit_core.presets  # noqa: F401

    from . import warmup

    warmup.start()
    from streamlit.web import cli

    root = app_root()
    os.chdir(root)  # Streamlit reads .streamlit/config.toml from the working directory
    sys.argv = ["streamlit", "run", str(root / "app.py"), *(sys.argv[1:] if argv is None else argv)]
    try:
        cli.main()  # Streamlit's own SIGINT/SIGTERM handlers stop the server, then this returns (or exits)
    finally:
        warmup.stop()  # the job in flight ends before the interpreter does (atexit would too; this is explicit)


if __name__ == "__main__":
    main()
