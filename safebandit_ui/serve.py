"""The server as ``make run`` starts it: the core imported and the warm-up begun before the first visitor.

``streamlit run app.py`` runs ``app.py`` only when a browser connects, so the first visitor of a
fresh server would wait for JAX and the whole core to import and for the default shapes to load or
compile. ``python -m safebandit_ui.serve [streamlit options]`` does that work first: it imports the
core, starts :mod:`.warmup` (which prints one line to the log when it is done), then hands over to
Streamlit's own command line with ``run app.py`` and the options given (``--server.port 8501``...).
The options are Streamlit's; nothing else is read from the command line. When Streamlit stops (its
own handlers turn Ctrl-C and SIGTERM into a clean server stop), the background work is stopped in order and
the runs in flight waited for (:func:`.stopping.stop`), so the process exits 0.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from typing import Any

from . import plot
from .approot import app_root

GONE = "a browser closed its connection while the server was opening or closing it (a tab closed or reloaded); " \
       "nothing failed"
"""What the log says instead of a traceback when a browser leaves in the middle of a websocket's handshake."""


class ClientGone(logging.Filter):
    """Turns the web server's traceback for a browser that left mid-connection into one line at INFO.

    When a tab closes or reloads while its websocket is being accepted or closed (it happens on a loaded server),
    Streamlit's endpoint raises starlette's ``WebSocketDisconnected`` and the web server logs it as an exception in
    the application. The visitor is gone and nothing failed, so a classroom's log should not read as an error;
    any other exception passes unchanged.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and type(exc).__name__ in ("WebSocketDisconnected", "WebSocketDisconnect") \
                and type(exc).__module__.startswith("starlette"):
            record.msg, record.args, record.exc_info, record.exc_text = GONE, (), None, None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def _exit_cleanly(signum: int, frame: Any) -> None:
    """Ctrl-C or SIGTERM before Streamlit has installed its own handlers: an ordinary exit with status 0 (which
    waits for the runs in flight) instead of a KeyboardInterrupt traceback or death by the signal."""
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> None:
    """Import the core, start the warm-up, then serve ``app.py`` with Streamlit's options ``argv``."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _exit_cleanly)
    import safebandit_core.families  # noqa: F401  (the whole core, loaded before the first visitor instead of for them)
    import safebandit_core.presets  # noqa: F401

    from . import stopping, warmup

    warmup.start()
    logging.getLogger("uvicorn.error").addFilter(ClientGone())
    from streamlit.web import cli

    from . import stprivate

    stprivate.skip_direct_run_hint()
    root = app_root()
    plot.provide_script(root)  # before Streamlit's start-up looks for the static folder
    os.chdir(root)  # Streamlit reads .streamlit/config.toml from the working directory
    sys.argv = ["streamlit", "run", str(root / "app.py"), *(sys.argv[1:] if argv is None else argv)]
    try:
        cli.main()  # Streamlit's own SIGINT/SIGTERM handlers stop the server, then this returns (or exits)
    finally:
        stopping.stop()  # the runs in flight end before the interpreter does (atexit would too; this is explicit)


if __name__ == "__main__":
    main()
