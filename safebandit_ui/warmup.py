"""Compute every page's opening runs once per server, in the background, before the first visitor arrives.

:func:`start` runs once per process, whoever calls it first: :mod:`.serve` (what ``make run`` starts)
when the server starts, before anyone visits, or ``app.py`` (then a no-op). A daemon thread runs, on the
default device and in this order: each model family's default settings (with the charts its page draws from
them: :func:`.model_page.warm_charts`), each model page's scrub chart
(its grid and figure), the *Your data* page's built-in example, every audience scenario of the Present
page (:mod:`safebandit_core.scenarios`) and every run of every lesson scene
(:mod:`safebandit_core.lessons`); each goes into the shared :mod:`.store` through :func:`.live.warm`,
under the very key the page with untouched controls asks for and in the page's own chunks, so the first
visitor of any of them waits no longer than the next. With JAX's persistent compilation cache
(:func:`safebandit_core.device.enable_compile_cache`) a restarted server reads the compiled functions
back from disk instead of compiling them again. Before the runs it imports what a page's first run would
(:func:`preload`); at its start and its end it takes what is loaded out of each rerun's garbage collection
(:func:`settle_heap`). When it is done it prints one line, :data:`DONE`, to the server's log.

The server's background work stops in order with its process: :func:`stop` (run at exit by :mod:`.stopping`,
before JAX's own exit hook and before the sessions' threads are waited for) stops computing ahead
(:func:`.ahead.stop`), sets a flag the warm-up thread reads between jobs and waits for its job in flight, then
waits for every run still being computed in the shared store (a page's, whose session Streamlit has told to
stop, or a scrub grid's), each wait bounded. No thread is then inside JAX when the interpreter finalises (one
that is gets cut off inside XLA and takes the process down: "terminate called ... FATAL: exception not
rethrown", a signal instead of exit 0).
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import os
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from safebandit_core import device, families, lessons, scenarios

from . import ahead, live, model_page, registry, scrub, stopping, store

OFF_ENV = "SAFEBANDIT_WARMUP"
"""``SAFEBANDIT_WARMUP=0`` turns the warm-up off (the test suite does, so tests time only what they run)."""
DONE = "safebandit: warm-up finished"
JOIN_S = 60.0
"""How long exit waits for the background work in flight, in all. One job is one run: a few seconds on a 2-core
machine when compiled from scratch, so the wait is always long enough in practice; the bound only keeps a wedged
job from holding exit forever."""
POLL_S = 0.05
"""How often exit looks again whether the store's runs in flight have ended."""


SCRUB = "scrub:"
"""Name prefix of a job that stores a model page's scrub chart (:func:`.scrub.warm`) rather than a run."""


class Job(NamedTuple):
    """One run to store: a name for the log, and what the page passes to :func:`.live.run` for it; ``page``: a
    model page's opening, whose page also computes the family's warnings for these settings and draws its charts
    (both made here too)."""

    name: str
    settings: Any
    extra: Any = None
    simulate: Callable[..., Any] | None = None
    page: bool = False


def defaults(device_id: str) -> list[Any]:
    """Each family's default settings as its page starts them: base seed 0 and the device's precision (families
    whose page needs more than its settings, e.g. a fitted data set, say ``warmup=False`` in their app entry,
    :class:`.registry.Entry`, and compile on first use)."""
    precision = device.default_precision(device_id)
    out = []
    for fam in families.FAMILIES.values():
        if not registry.entry(fam.kind).warmup:
            continue
        s = fam.settings_cls()
        fields = {f.name for f in dataclasses.fields(s)}
        change = {k: v for k, v in (("precision", precision), ("base_seed", 0)) if k in fields}
        if "policies" in fields:  # the page names its policies even where the default "()" means all of them
            change["policies"] = tuple(fam.policies(s))
        out.append(dataclasses.replace(s, **change))
    return out


def openings(device_id: str) -> list[Job]:
    """The openings of the pages that need more than their settings (the *Your data* page's built-in example,
    fitted): what their app entries' ``opening`` gives for the device's precision."""
    precision = device.default_precision(device_id)
    return [Job(e.kind, families.resolve(e.opening)(precision)) for e in registry.ENTRIES.values() if e.opening]


def presentation(device_id: str) -> list[Job]:
    """Every audience scenario as the Present page opens it (base seed 0, the device's precision)."""
    precision = device.default_precision(device_id)
    return [Job(f"present:{sc.key}", sc.settings(0, precision)) for sc in scenarios.every()]


def lesson_runs(device_id: str) -> list[Job]:
    """Every run of every lesson scene, as the Lessons page asks for it (base seed 0, the device's precision)."""
    base = lessons.Base(0, device.default_precision(device_id))
    return [Job(f"lesson:{scene.slug}", job.settings, *live.in_chunks(job.cells, job.rounds))
            for scene in lessons.scenes() for job in scene.jobs(base)]


def jobs(device_id: str) -> list[Job]:
    """Everything the warm-up stores, in order: the model pages first (most visitors start there), their scrub
    charts, then the other pages' openings."""
    models = defaults(device_id)
    return ([Job(type(s).KIND, s, page=True) for s in models] + [Job(f"{SCRUB}{type(s).KIND}", s) for s in models
                                                      if families.of(s).scrub]
            + openings(device_id) + presentation(device_id) + lesson_runs(device_id))


def settle_heap() -> None:
    """Collect the garbage, then move every object still alive into the collector's permanent generation.

    Streamlit collects all generations after every script run (``runner.postScriptGC``), which walks every tracked
    object of the process: with JAX, plotly, pandas and the warm-up's runs loaded that took 0.5 s of each rerun on
    a 2-core machine. The imported modules and the warm-up's stored runs live as long as the server, so the
    collector need not walk them again (:func:`gc.freeze`); objects made later are still collected as before, and
    a frozen object that loses its last reference is still freed (only a frozen object caught in a reference cycle
    would stay until the process ends).
    """
    gc.collect()
    gc.freeze()


PRELOAD = ("pandas.io.formats.style", "plotly.io._json", "streamlit.emojis", "streamlit.material_icon_names")
"""Modules a page's first run imports besides the page specs: pandas' table styler (which loads jinja2), plotly's
JSON encoder, and the icon names Streamlit checks the navigation's icons against."""


def preload() -> None:
    """Import what a model page's first run would: each family's page spec (and through it the page renderer, the
    tools and the downloads) and :data:`PRELOAD`. On a 2-core machine that was 0.5-1 s of the first visitor's
    wait."""
    for fam in families.FAMILIES.values():
        spec = registry.entry(fam.kind).spec
        if spec:
            families.resolve(spec)
    for module in PRELOAD:
        importlib.import_module(module)


_STOP = threading.Event()
"""Set by :func:`stop`: the warm-up starts no further job."""


def _warm(device_id: str, status: dict[str, Any], halt: threading.Event = _STOP) -> None:
    """Run each warm-up job in turn into the shared store, until all are done or ``halt`` is set."""
    start_time = time.perf_counter()
    try:
        preload()
        todo = jobs(device_id)
    except Exception as err:  # a warm-up failure must never take the server down; the page reports it
        todo, status["failed"]["jobs"] = [], str(err)
    settle_heap()  # the modules loaded so far
    for job in todo:
        if halt.is_set():
            status["stopped"] = True
            break
        status["now"] = job.name
        try:
            if job.name.startswith(SCRUB):
                scrub.warm(job.settings, device_id)
            else:
                live.warm(job.settings, device_id, job.extra, job.simulate)
            if job.page:  # the warnings compile small JAX programs too
                families.of(job.settings).warnings(job.settings)
                model_page.warm_charts(job.settings, device_id)
            if job.name not in status["done"]:
                status["done"].append(job.name)
        except Exception as err:  # as above
            status["failed"][job.name] = str(err)
    status["now"] = None
    status["seconds"] = time.perf_counter() - start_time
    if status.get("stopped"):
        return
    settle_heap()  # Streamlit's modules and the stored runs
    failed = f"; failed: {', '.join(status['failed'])}" if status["failed"] else ""
    print(f"{DONE} in {status['seconds']:.1f} s ({', '.join(status['done'])}){failed}", flush=True)


_LOCK = threading.Lock()
_STATUS: dict[str, Any] = {}
_THREAD: list[threading.Thread] = []


def start() -> dict[str, Any]:
    """Start the warm-up thread (once per server process, whoever calls first; with the warm-up off only the
    ordered stop at exit, :func:`stop`, is set up); returns its live status dict."""
    with _LOCK:
        if _STATUS:
            return _STATUS
        _STATUS.update({"done": [], "failed": {}, "now": None, "cache": device.COMPILE_CACHE})
        stopping.on_stop(stop)  # armed now that JAX is imported: runs before JAX's exit hook
        if os.environ.get(OFF_ENV, "1") != "0":
            dev = device.default_device_id()
            thread = threading.Thread(target=_warm, args=(dev, _STATUS), name="safebandit-warmup", daemon=True)
            _THREAD.append(thread)
            thread.start()
        return _STATUS


def stop(timeout: float = JOIN_S) -> bool:
    """Stop the server's background work in order and wait, up to ``timeout`` s in all, until no run is left in
    flight: computing ahead first (it would start new runs), then the warm-up (no further job; its job in flight
    ends), then every run the shared store is computing. True once all have ended. Safe to call more than once."""
    deadline = time.monotonic() + timeout
    _STOP.set()
    done = ahead.stop(timeout)
    for thread in _THREAD:
        thread.join(max(0.0, deadline - time.monotonic()))
    while store.store().busy() and time.monotonic() < deadline:
        time.sleep(POLL_S)
    return done and not any(t.is_alive() for t in _THREAD) and not store.store().busy()
