"""The server's ordered stop: what runs when its process exits, before the interpreter finalises.

Each session's script runs in a thread of its own (Streamlit's), and the pages, the warm-up and computing ahead run
JAX in threads. An interpreter that finalises while one of them is inside XLA, or still importing it, is taken down
by a signal ("terminate called ... FATAL: exception not rethrown", or a segmentation fault) instead of exiting 0. So
``app.py`` and every page name their thread here first thing on every run (:func:`session_thread`; Streamlit runs
the page a fresh server's first visitor opens on its own, without ``app.py``), background work says how it stops
(:func:`on_stop`: the warm-up's :func:`.warmup.stop`, which stops computing ahead first), and when the main thread
ends, before any atexit hook (JAX's clears its backends), :func:`stop` runs those in order, then waits for the
sessions' threads, which Streamlit has told to stop when it stopped the server; every wait is bounded. Then the
server's process (``streamlit run app.py``, :func:`serving`) ends at once (``os._exit``) with the status the
interpreter would have given (1 after an uncaught exception in the main thread, else 0): everything it holds is
done, and what is left, finalising an interpreter while XLA's own threads still run, is where the signal came from.
Any other process (a test run under AppTest) finalises as usual, and so does a server with
``SAFEBANDIT_HARD_EXIT=0``. This module imports nothing of the app, so a script can name its thread before anything
else is imported.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable
from types import TracebackType

JOIN_S = 60.0
"""How long exit waits, in all, for the background work and the sessions' runs in flight (a run is seconds; the
bound only keeps a wedged one from holding exit forever)."""

_LOCK = threading.Lock()
_THREADS: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_STOPS: list[Callable[[float], bool]] = []
_ARMED: list[bool] = []
HARD_EXIT_ENV = "SAFEBANDIT_HARD_EXIT"
_FAILED: list[bool] = []
"""Set when an exception reached the main thread uncaught (the exit status is then 1)."""
_HOOKED: list[bool] = []
"""Set once :func:`_at_exit` is registered with ``threading``'s shutdown (which keeps no second copy to unregister)."""
_EXCEPTHOOK = sys.excepthook


def _note_failure(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    """sys.excepthook: remember that the process is failing, then report as Python does."""
    _FAILED.append(True)
    _EXCEPTHOOK(kind, value, tb)


def arm() -> None:
    """Have :func:`stop` run when the main thread ends, before any atexit hook (JAX's clears its backends, which under
    a thread still inside XLA ends the process by a signal). ``threading`` runs what ``_register_atexit`` names when
    the main thread ends, before the interpreter's atexit hooks, whatever was imported after; where that hook is
    missing, the stop is registered with atexit again (the last registered runs first). Once per process."""
    if sys.excepthook is not _note_failure:
        sys.excepthook = _note_failure
    if _HOOKED:
        return
    register = getattr(threading, "_register_atexit", None)
    if register is not None:
        _HOOKED.append(True)
        try:
            register(_at_exit)
            return
        except RuntimeError:  # the interpreter is already shutting down
            _HOOKED.clear()
    atexit.unregister(_at_exit)
    atexit.register(_at_exit)


def session_thread() -> None:
    """Name the calling thread (a session's script run) as one exit waits for; the first call arms :func:`stop`."""
    with _LOCK:
        _THREADS.add(threading.current_thread())
        if not _ARMED:
            _ARMED.append(True)
            arm()


def on_stop(stop_fn: Callable[[float], bool]) -> None:
    """Run ``stop_fn(seconds_left)`` at exit (once, however often this is called), after those named before it,
    before the sessions' threads are waited for; it returns True once its work has ended. Arms :func:`stop` anew."""
    with _LOCK:
        if stop_fn not in _STOPS:
            _STOPS.append(stop_fn)
        _ARMED[:] = [True]
        arm()


def stop(timeout: float = JOIN_S) -> bool:
    """Stop the background work in order, then wait for every session's thread but the caller's, up to ``timeout``
    s in all; True once everything has ended."""
    deadline = time.monotonic() + timeout
    with _LOCK:
        stops, threads = list(_STOPS), [t for t in _THREADS if t is not threading.current_thread()]
    ended = True
    for stop_fn in stops:
        ended = stop_fn(max(0.0, deadline - time.monotonic())) and ended
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return ended and not any(t.is_alive() for t in threads)


def serving(argv: list[str] | None = None) -> bool:
    """Whether this process is the app's Streamlit server: ``streamlit run app.py`` (and ``make run``, which runs
    that command in-process) hands the script its own argv, ``[path of app.py, script arguments…]``; a process that
    runs the app under AppTest keeps its own (pytest's)."""
    argv = sys.argv if argv is None else argv
    return bool(argv) and os.path.basename(argv[0]) == "app.py"


def exit_status() -> int:
    """The status this process exits with: 1 after an uncaught exception in the main thread, else 0."""
    return 1 if _FAILED else 0


def _at_exit() -> None:
    """At exit: the ordered stop, then (unless ``SAFEBANDIT_HARD_EXIT=0``) the end of the process, output flushed."""
    stop()
    if os.environ.get(HARD_EXIT_ENV, "1") == "0" or not serving():
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(exit_status())
