"""Compile every page's default shapes once per server, in the background, before the first visitor arrives.

:func:`start` runs once per process, whoever calls it first: :mod:`.serve` (what ``make run`` starts)
when the server starts, before anyone visits, or ``app.py`` (then a no-op). A daemon thread runs each
model family's default settings, then each model's first audience scenario (the Present page's first
screen, a board demo's opening), then each model's scrub chart (its grid and figure), on the default
device and puts the results into the shared
:mod:`.store`, under the keys the pages with untouched controls ask for. With JAX's persistent
compilation cache (:func:`safebandit_core.device.enable_compile_cache`) a restarted server reads the
compiled functions back from disk instead of compiling them again. When it is done it prints one
line, :data:`DONE`, to the server's log.

The thread stops cleanly with its process: :func:`stop` (registered with :mod:`atexit`, and called by
:mod:`.serve` when Streamlit returns after Ctrl-C or SIGTERM) sets a flag the thread reads between jobs
and waits for the job in flight. Without it an interpreter that finalises while the daemon thread is
inside an XLA compile aborts ("terminate called ... FATAL: exception not rethrown", exit 134).
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import threading
import time
from typing import Any

from safebandit_core import device, families, scenarios

from . import scrub, store

OFF_ENV = "SAFEBANDIT_WARMUP"
"""``SAFEBANDIT_WARMUP=0`` turns the warm-up off (the test suite does, so tests time only what they run)."""
DONE = "safebandit: warm-up finished"
JOIN_S = 60.0
"""How long exit waits for the job in flight. One job is one model's default run: a few seconds on a 2-core
machine when compiled from scratch (the whole warm-up takes about 15 s then, 4 s with the compile cache warm),
so the wait is always long enough in practice; the bound only keeps a wedged job from holding exit forever."""


def defaults(device_id: str) -> list[Any]:
    """Each family's default settings as its page starts them: base seed 0 and the device's precision (families
    whose page needs more than its settings, e.g. a fitted data set, say ``warmup=False`` and compile on first use)."""
    precision = device.default_precision(device_id)
    out = []
    for fam in families.FAMILIES.values():
        if not fam.warmup:
            continue
        s = fam.settings_cls()
        fields = {f.name for f in dataclasses.fields(s)}
        change = {k: v for k, v in (("precision", precision), ("base_seed", 0)) if k in fields}
        if "policies" in fields:  # the page names its policies even where the default "()" means all of them
            change["policies"] = tuple(fam.policies(s))
        out.append(dataclasses.replace(s, **change))
    return out


def presentation(device_id: str) -> list[tuple[str, Any]]:
    """``(name, settings)`` of each model's first audience scenario, as the Present page opens it (base seed 0)."""
    precision = device.default_precision(device_id)
    first = {}
    for sc in scenarios.SCENARIOS:
        first.setdefault(sc.kind, sc)
    return [(f"present:{sc.key}", sc.settings(0, precision)) for sc in first.values()]


_STOP = threading.Event()
"""Set by :func:`stop`: the warm-up starts no further job."""


def _warm(device_id: str, status: dict[str, Any], halt: threading.Event = _STOP) -> None:
    """Run each warm-up job in turn into the shared store, until all are done or ``halt`` is set."""
    start_time = time.perf_counter()
    shared = store.store()
    jobs = [(type(s).KIND, s) for s in defaults(device_id)] + presentation(device_id)
    jobs += [(f"scrub:{type(s).KIND}", s) for s in defaults(device_id) if families.of(s).scrub]
    for kind, s in jobs:
        if halt.is_set():
            status["stopped"] = True
            break
        status["now"] = kind
        try:
            if kind.startswith("scrub:"):
                scrub.warm(s, device_id)
            else:
                shared.get_or_compute(store.key_of(s, device_id), lambda s=s: families.run(s, device_id))
            status["done"].append(kind)
        except Exception as err:  # a warm-up failure must never take the server down; the page reports it
            status["failed"][kind] = str(err)
    status["now"] = None
    status["seconds"] = time.perf_counter() - start_time
    if status.get("stopped"):
        return
    failed = f"; failed: {', '.join(status['failed'])}" if status["failed"] else ""
    print(f"{DONE} in {status['seconds']:.1f} s ({', '.join(status['done'])}){failed}", flush=True)


_LOCK = threading.Lock()
_STATUS: dict[str, Any] = {}
_THREAD: list[threading.Thread] = []


def start() -> dict[str, Any]:
    """Start the warm-up thread (once per server process, whoever calls first); returns its live status dict."""
    with _LOCK:
        if _STATUS:
            return _STATUS
        _STATUS.update({"done": [], "failed": {}, "now": None, "cache": device.COMPILE_CACHE})
        if os.environ.get(OFF_ENV, "1") != "0":
            dev = device.default_device_id()
            thread = threading.Thread(target=_warm, args=(dev, _STATUS), name="safebandit-warmup", daemon=True)
            _THREAD.append(thread)
            atexit.register(stop)  # registered after JAX's exit hook (which clears the backends): runs before it
            thread.start()
        return _STATUS


def stop(timeout: float = JOIN_S) -> bool:
    """Start no further warm-up job and wait up to ``timeout`` s for the one in flight; True once it has ended
    (or none was started). Safe to call more than once, from atexit and from :mod:`.serve`."""
    _STOP.set()
    for thread in _THREAD:
        thread.join(timeout)
    return not any(t.is_alive() for t in _THREAD)
