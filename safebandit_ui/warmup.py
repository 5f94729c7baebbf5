"""Compute every page's opening runs once per server, in the background, before the first visitor arrives.

:func:`start` runs once per process, whoever calls it first: :mod:`.serve` (what ``make run`` starts)
when the server starts, before anyone visits, or ``app.py`` (then a no-op). A daemon thread runs, on
the default device and in this order: each model family's default settings, the *Your data* page's
built-in example, every audience scenario of the Present page (:mod:`safebandit_core.scenarios`) and
every run of every lesson scene (:mod:`safebandit_core.lessons`); each goes into the shared
:mod:`.store` through :func:`.live.warm`, under the very key the page with untouched controls asks
for and in the page's own chunks, so the first visitor of any of them waits no longer than the
next. With JAX's persistent compilation cache (:func:`safebandit_core.device.enable_compile_cache`)
a restarted server reads the compiled functions back from disk instead of compiling them again.
When it is done it prints one line, :data:`DONE`, to the server's log.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from safebandit_core import device, families, lessons, logged, scenarios

from . import live

OFF_ENV = "SAFEBANDIT_WARMUP"
"""``SAFEBANDIT_WARMUP=0`` turns the warm-up off (the test suite does, so tests time only what they run)."""
DONE = "safebandit: warm-up finished"
SKIP = ("battery", "logged")
"""Families whose page needs more than its settings (a fitted data set): not run from their default settings; the
*Your data* page's built-in example is its own job (:func:`your_data`)."""


class Job(NamedTuple):
    """One run to store: a name for the log, and what the page passes to :func:`.live.run` for it."""

    name: str
    settings: Any
    extra: Any = None
    simulate: Callable[..., Any] | None = None


def defaults(device_id: str) -> list[Any]:
    """Each family's default settings as its page starts them: base seed 0 and the device's precision."""
    precision = device.default_precision(device_id)
    out = []
    for kind, fam in families.FAMILIES.items():
        if kind in SKIP:
            continue
        s = fam.settings_cls()
        fields = {f.name for f in dataclasses.fields(s)}
        change = {k: v for k, v in (("precision", precision), ("base_seed", 0)) if k in fields}
        if "policies" in fields:  # the page names its policies even where the default "()" means all of them
            change["policies"] = tuple(fam.policies(s))
        out.append(dataclasses.replace(s, **change))
    return out


def your_data(device_id: str) -> Job:
    """The *Your data* page's opening: the built-in example log, fitted, replayed with the default settings."""
    s = logged.LoggedSettings(base_seed=0, precision=device.default_precision(device_id), file=logged.EXAMPLE_FILE)
    return Job("logged", *live.on_data(logged.prepare(s)))


def presentation(device_id: str) -> list[Job]:
    """Every audience scenario as the Present page opens it (base seed 0, the device's precision)."""
    precision = device.default_precision(device_id)
    return [Job(f"present:{sc.key}", sc.settings(0, precision)) for sc in scenarios.SCENARIOS]


def lesson_runs(device_id: str) -> list[Job]:
    """Every run of every lesson scene, as the Lessons page asks for it (base seed 0, the device's precision)."""
    base = lessons.Base(0, device.default_precision(device_id))
    return [Job(f"lesson:{scene.slug}", job.settings, *live.in_chunks(job.cells, job.rounds))
            for scene in lessons.SCENES for job in scene.jobs(base)]


def jobs(device_id: str) -> list[Job]:
    """Everything the warm-up stores, in order: the model pages first (most visitors start there)."""
    return ([Job(type(s).KIND, s) for s in defaults(device_id)] + [your_data(device_id)]
            + presentation(device_id) + lesson_runs(device_id))


def _warm(device_id: str, status: dict[str, Any]) -> None:
    start_time = time.perf_counter()
    try:
        todo = jobs(device_id)
    except Exception as err:  # a warm-up failure must never take the server down; the page reports it
        todo, status["failed"]["jobs"] = [], str(err)
    for job in todo:
        status["now"] = job.name
        try:
            live.warm(job.settings, device_id, job.extra, job.simulate)
            if job.name not in status["done"]:
                status["done"].append(job.name)
        except Exception as err:  # as above
            status["failed"][job.name] = str(err)
    status["now"] = None
    status["seconds"] = time.perf_counter() - start_time
    failed = f"; failed: {', '.join(status['failed'])}" if status["failed"] else ""
    print(f"{DONE} in {status['seconds']:.1f} s ({', '.join(status['done'])}){failed}", flush=True)


_LOCK = threading.Lock()
_STATUS: dict[str, Any] = {}


def start() -> dict[str, Any]:
    """Start the warm-up thread (once per server process, whoever calls first); returns its live status dict."""
    with _LOCK:
        if _STATUS:
            return _STATUS
        _STATUS.update({"done": [], "failed": {}, "now": None, "cache": device.COMPILE_CACHE})
        if os.environ.get(OFF_ENV, "1") != "0":
            dev = device.default_device_id()
            threading.Thread(target=_warm, args=(dev, _STATUS), name="safebandit-warmup", daemon=True).start()
        return _STATUS
