"""The server's ordered stop: what runs when its process exits, before the interpreter finalises.

Each session's script runs in a thread of its own (Streamlit's), and the pages, the warm-up and computing ahead run
JAX in threads. An interpreter that finalises while one of them is inside XLA is taken down by a signal
("terminate called ... FATAL: exception not rethrown", or a segmentation fault) instead of exiting 0. So ``app.py``
names its thread here first thing on every run (:func:`session_thread`), background work says how it stops
(:func:`on_stop`: the warm-up's :func:`.warmup.stop`, which stops computing ahead first), and at exit :func:`stop`
runs those in order, then waits for the sessions' threads, which Streamlit has told to stop when it stopped the
server; every wait is bounded. This module imports nothing of the app, so ``app.py`` can name its thread before
anything else is imported.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from collections.abc import Callable

JOIN_S = 60.0
"""How long exit waits, in all, for the background work and the sessions' runs in flight (a run is seconds; the
bound only keeps a wedged one from holding exit forever)."""

_LOCK = threading.Lock()
_THREADS: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_STOPS: list[Callable[[float], bool]] = []
_ARMED: list[bool] = []


def arm() -> None:
    """Register :func:`stop` to run at exit, again if it already was: atexit runs the last registered first, so
    arming once JAX is imported makes the stop run before JAX's own exit hook (which clears its backends)."""
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


def _at_exit() -> None:
    stop()
