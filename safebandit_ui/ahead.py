"""Compute ahead: the runs a step or two from the safety knob a visitor is moving, while they read the charts.

A step of a model page's knob (τ, δ, α, ρ: the fields of its family's scrub axes) asks for a new run, its frames
and its charts: 0.2-0.4 s of a 2-core server's time before the page sends anything. After each model page's run,
:func:`after` queues the settings one slider step further in the direction the visitor moved, one step back, and
two steps further (:func:`neighbours`) on the server's one background worker, which computes each through the
shared :mod:`.store` under the very key the page asks for, and prepares what the page draws from it (the page passes
that work in). The visitor's next step then finds its run and charts made: the page only sends them.

Bounded so a class costs the server little: one worker per process; a job starts only while no run is being
computed anywhere on the server (:meth:`.store.Store.busy`: a page's run, a scrub grid, the warm-up) and no model
page is being drawn (:func:`drawing`), so a class's own pages always go first; none for :data:`SETTLE_S` after a
page run in which no knob moved, while the browser draws that page's new charts; a short queue, newest request
first, whose oldest requests are dropped, as are a visitor's waiting requests once they ask for new ones (they have
moved on); and only runs the server expects to take at most
:data:`.live.LIVE_AFTER_S` (a long run streams on its page instead). ``SAFEBANDIT_AHEAD=0`` turns it off (the test
suite does, so a test's counts of computed runs are its own).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import dataclasses
import decimal
import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from safebandit_core import families
from safebandit_core.fields import Field
from safebandit_core.model import Family, Run
from safebandit_core.settings import SettingsError

from . import live, store

OFF_ENV = "SAFEBANDIT_AHEAD"
"""``SAFEBANDIT_AHEAD=0`` turns computing ahead off."""
QUEUE = 4
"""Jobs waiting at most; a newer request pushes out the oldest."""
IDLE_POLL_S = 0.05
"""How often a job waiting for the server to be idle looks again."""
SETTLE_S = 0.5
"""After a page run in which no knob moved (a first visit, a reload, T or a size changed), seconds no job starts: the
browser draws that page's new charts first (measured: the neighbours computed at once made a T change's page settle
0.1-0.15 s later), and the visitor reads them before stepping a knob. After a knob step the next jobs start at once,
so a visitor stepping on finds the next run made."""
HISTORY = 32
"""The keys of the last jobs done and failed that a worker remembers (for the tests and a look at a live server)."""
JOIN_S = 10.0
"""How long exit waits for the job in flight (one short run)."""

_log = logging.getLogger(__name__)


def enabled(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether this server computes ahead (on unless :data:`OFF_ENV` is ``0``)."""
    return environ.get(OFF_ENV, "1") != "0"


def knobs(family: Family) -> list[Field]:
    """The slider fields of ``family``'s scrub axes, its first (the page's default knob) first."""
    sliders = {f.target: f for f in family.fields if f.widget == "slider"}
    return [sliders[a.field] for a in family.scrub if a.field in sliders]


def _decimals(step: float) -> int:
    """The decimals a step is written with (0.005: 3), to which a slider's values are rounded."""
    return max(0, -int(decimal.Decimal(repr(step)).as_tuple().exponent))


def stepped(field: Field, value: float, sign: int) -> float | None:
    """The value ``sign`` slider steps from ``value`` (negative: down) as the browser's slider sends it (rounded to
    the step's decimals); None past an end of the slider, or when ``value`` is off the slider's steps (a restored
    run)."""
    places = _decimals(field.step)
    index = (value - field.lo) / field.step
    if abs(index - round(index)) > 1e-6:
        return None
    nxt = round(field.lo + (round(index) + sign) * field.step, places)
    return nxt if field.lo <= nxt <= field.hi else None


def moved_knobs(family: Family, settings: Any, previous: Mapping[str, float] | None) -> list[Field]:
    """The knobs of ``family`` whose value in ``settings`` differs from ``previous`` (this session's last run)."""
    return [f for f in knobs(family) if previous is not None and previous.get(f.target) is not None
            and getattr(settings, f.target) is not None and previous[f.target] != getattr(settings, f.target)]


def neighbours(family: Family, settings: Any, previous: Mapping[str, float] | None) -> list[Any]:
    """The valid settings a step or two of a knob away from ``settings``: for each knob that moved since
    ``previous`` (the knob values of this session's last run), one step further the same way, one step back, then
    two steps further (so a visitor stepping on finds the step after next already being made, with two steps' time
    to make it); when none moved, one step either side of the first knob."""
    fields = knobs(family)
    moved = moved_knobs(family, settings, previous)
    out = []
    for f in moved or fields[:1]:
        value = getattr(settings, f.target)
        if value is None:
            continue
        way = -1 if previous is not None and f in moved and value < previous[f.target] else 1
        for sign in (way, -way, 2 * way) if f in moved else (way, -way):
            nxt = stepped(f, float(value), sign)
            if nxt is None:
                continue
            try:
                out.append(dataclasses.replace(settings, **{f.target: nxt}).validate())
            except SettingsError:
                continue
    return out


def knob_values(family: Family, settings: Any) -> dict[str, float]:
    """The knobs' values in ``settings`` (what :func:`neighbours` compares with next time)."""
    return {f.target: getattr(settings, f.target) for f in knobs(family)}


@dataclasses.dataclass(frozen=True)
class Job:
    """One run to compute ahead: its settings and device, what to prepare from the finished run, and who asked for it
    (``source``: a visitor's session, or None)."""

    settings: Any
    device: str
    prepare: Callable[[Run], None]
    source: str | None = None

    @functools.cached_property
    def key(self) -> str:
        """The store key the page asks for (made once: the queue compares keys on every request)."""
        return store.key_of(self.settings, self.device)


_PAGES = [0]
_PAGES_LOCK = threading.Lock()


@contextlib.contextmanager
def drawing() -> Iterator[None]:
    """Mark a model page's script run in progress; computing ahead waits while any is."""
    with _PAGES_LOCK:
        _PAGES[0] += 1
    try:
        yield
    finally:
        with _PAGES_LOCK:
            _PAGES[0] -= 1


def server_busy() -> bool:
    """Whether a run is being computed or a model page drawn anywhere on this server."""
    return _PAGES[0] > 0 or store.store().busy()


class Worker:
    """One background thread that computes queued :class:`Job` s, newest request first, each only once ``busy()``
    (default :func:`server_busy`) says the server is idle."""

    def __init__(self, queue: int = QUEUE, busy: Callable[[], bool] | None = None) -> None:
        self._jobs: collections.deque[Job] = collections.deque(maxlen=queue)
        self._cv = threading.Condition()
        self._busy = busy or server_busy
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._quiet_until = 0.0
        self.running = False
        self.done: collections.deque[str] = collections.deque(maxlen=HISTORY)
        self.failed: collections.deque[str] = collections.deque(maxlen=HISTORY)

    def submit(self, jobs: list[Job], settle_s: float = 0.0, replace: str | None = None) -> None:
        """Queue ``jobs`` ahead of everything waiting (in their order); a job already waiting moves up. ``replace``: a
        source whose waiting jobs are dropped first (its visitor has moved on); ``settle_s``: seconds from now in which
        no job starts (its page is being drawn)."""
        if self._stop.is_set():
            return
        with self._cv:
            if settle_s > 0:
                self._quiet_until = max(self._quiet_until, time.monotonic() + settle_s)
            keys = {job.key for job in jobs}
            kept = [job for job in self._jobs if job.key not in keys and (replace is None or job.source != replace)]
            self._jobs.clear()
            self._jobs.extend((jobs + kept)[: self._jobs.maxlen])  # the oldest requests fall off the end
            if self._thread is None and self._jobs:
                self._thread = threading.Thread(target=self._loop, name="safebandit-ahead", daemon=True)
                self._thread.start()
            self._cv.notify()

    def pending(self) -> list[str]:
        """The keys waiting, next first (the job in flight, if any, is :attr:`running`)."""
        with self._cv:
            return [job.key for job in self._jobs]

    def _loop(self) -> None:
        while not self._stop.is_set():
            with self._cv:
                while not self._jobs and not self._stop.is_set():
                    self._cv.wait()
                if self._stop.is_set():
                    return
            wait = self._quiet_until - time.monotonic()  # a page's new charts are being drawn
            if wait > 0 or self._busy():
                self._stop.wait(IDLE_POLL_S)
                continue
            with self._cv:
                if not self._jobs:
                    continue
                job = self._jobs.popleft()
                self.running = True
            try:
                self._run(job)
            finally:
                self.running = False

    def _run(self, job: Job) -> None:
        shared = store.store()
        s = job.settings
        estimate = shared.estimate(store.kind_of(s), store.work(s))
        if shared.peek(job.key) is None and (estimate is None or estimate > live.LIVE_AFTER_S):
            return  # a run of unknown or long duration: its page computes it (streaming) if it is asked for
        try:
            computed = live.warm(s, job.device)
            entry = shared.peek(job.key)
            if entry is not None:
                if computed:
                    live.made_ahead(entry.value)
                job.prepare(entry.value)
            self.done.append(job.key)
        except Exception:  # a failure ahead must reach nobody: the page computes the run itself if asked
            _log.warning("computing ahead failed for %s", job.key, exc_info=True)
            self.failed.append(job.key)

    def stop(self, timeout: float = JOIN_S) -> bool:
        """Take no further job and wait up to ``timeout`` s for the one in flight; True once the thread has ended."""
        self._stop.set()
        with self._cv:
            self._jobs.clear()
            self._cv.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True


_LOCK = threading.Lock()
_WORKER: list[Worker] = []


def worker() -> Worker:
    """The process's one worker (made on first use; stopped at exit, before JAX's own exit hook clears the
    backends, so no run is cut off inside XLA)."""
    with _LOCK:
        if not _WORKER:
            _WORKER.append(Worker())
            atexit.register(_WORKER[0].stop)
        return _WORKER[0]


def stop(timeout: float = JOIN_S) -> bool:
    """Stop the process's worker, if one was made, waiting up to ``timeout`` s for its job in flight; True once no
    worker thread is left (the server's shutdown, :func:`.warmup.stop`, calls it first)."""
    with _LOCK:
        made = list(_WORKER)
    return all(w.stop(timeout) for w in made)


def after(settings: Any, device: str, previous: Mapping[str, float] | None,
          prepare: Callable[[Any, Run], None], source: str | None = None) -> None:
    """Queue the runs a knob step or two from ``settings`` (:func:`neighbours`), each followed by ``prepare(settings,
    run)`` (a page's views and charts); nothing when computing ahead is off or the model has no knob.

    ``source`` (the visitor's session) replaces that visitor's waiting jobs; after a run in which no knob moved, no
    job starts for :data:`SETTLE_S` (the page's new charts are drawn first)."""
    if not enabled():
        return
    family = families.of(settings)
    jobs = [Job(n, device, lambda run, n=n: prepare(n, run), source) for n in neighbours(family, settings, previous)]
    stepped_knob = bool(moved_knobs(family, settings, previous))
    worker().submit(jobs, settle_s=0.0 if stepped_knob else SETTLE_S, replace=source)
