"""One process-wide result store: a run is computed once per settings and shared by every session.

A classroom of 30 opening the same page with the default settings computes once: results are
keyed by the run's settings (kind included), device and precision, kept in an LRU bounded in bytes
(:func:`budget_bytes`: ``SAFEBANDIT_STORE_MB``, else an eighth of the machine's memory, at most
2 GB) and in entries, and returned as plain data (numpy arrays and frames, never JAX arrays).
Each entry is measured (:func:`safebandit_core.memo.nbytes`) when stored and again when read,
since a run derives some outputs on first read; the least recently used go first, and a run larger
than the whole budget is handed to its caller (and to whoever waited for it) but not kept. A request for a run
that another session is computing right now waits for it instead of computing it again. Runs above a
size threshold are *heavy*: at most :data:`HEAVY_SLOTS` of them compute at once across the
server, the others wait their turn with a visible message, so one session's paper-size preset run
does not freeze everybody else's pages.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from safebandit_core import settings as core_settings
from safebandit_core.memo import nbytes

MAX_ENTRIES = 512
"""At most this many entries, whatever their bytes. The byte budget is the real bound; 48 entries, the bound before,
were spent by the warm-up (about 34) and two model pages' explorations, after which a third page's warmed run and
scrub grid had been dropped and were computed again while its visitor moved the knob."""
BUDGET_ENV = "SAFEBANDIT_STORE_MB"
BUDGET_SHARE, BUDGET_FLOOR_MB, BUDGET_CAP_MB = 8, 256, 512
"""Without ``SAFEBANDIT_STORE_MB`` the store may hold 1/8 of the machine's memory, at least 256 MB (a small machine
still keeps the warm-up's runs) and at most 512 MB, so that a classroom's server stays under 2 GB."""
RUN_ENV = "SAFEBANDIT_RUN_MB"
RUN_DEFAULT_MB = 160
"""Without ``SAFEBANDIT_RUN_MB`` one run of the server may need at most 160 MB by its family's estimate (a run takes
about 2.5 times its estimate while it computes): every page's default run fits many times over, and a link asking
for ``T=100000`` with 50 seeds is refused with the largest T allowed instead of taking gigabytes."""
HEAVY_SLOTS = 1
HEAVY_WORK = 30_000_000
"""Policy-rounds (× d for the dose model's d×d work, see :func:`work`) above which a run is heavy."""


def physical_bytes() -> int | None:
    """The memory this process may use: the machine's, or its container's limit where that is lower (None: unknown)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = None
    with contextlib.suppress(OSError):  # no cgroup v2 limit file: the machine's memory is the bound
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        if limit.isdigit():
            total = min(int(limit), total or int(limit))
    return total


def _megabytes(environ: Mapping[str, str], name: str, default_mb: int, what: str) -> int:
    """The whole number of MB the variable ``name`` gives (1 to the machine's memory), in bytes; unset, or a bad value
    (named on stderr with the allowed range), gives ``default_mb``."""
    text = environ.get(name, "").strip()
    if not text:
        return default_mb * 2**20
    top = (physical_bytes() or 2**50) // 2**20
    if not text.isdigit() or not 1 <= int(text) <= top:
        shown = text if len(text) <= 24 else text[:24] + "…"
        print(f"{name}={shown} ignored: it is a whole number of MB from 1 to {top:,}; {what} {default_mb:,} MB.",
              file=sys.stderr)
        return default_mb * 2**20
    return int(text) * 2**20


def budget_bytes(environ: Mapping[str, str] = os.environ) -> int:
    """The store's budget in bytes: ``SAFEBANDIT_STORE_MB`` (a whole number of MB), else 1/8 of the memory
    (:func:`physical_bytes`) within [256 MB, 512 MB]. A bad setting is named on stderr and the default used."""
    machine = physical_bytes()
    default_mb = BUDGET_CAP_MB if machine is None else min(BUDGET_CAP_MB, max(BUDGET_FLOOR_MB,
                                                                              machine // BUDGET_SHARE // 2**20))
    return _megabytes(environ, BUDGET_ENV, default_mb, "the result store keeps up to")


def run_budget_bytes(environ: Mapping[str, str] = os.environ) -> int:
    """The most memory one run of the server may need, by its family's estimate: ``SAFEBANDIT_RUN_MB``, else
    :data:`RUN_DEFAULT_MB`. A bad setting is named on stderr and the default used."""
    return _megabytes(environ, RUN_ENV, RUN_DEFAULT_MB, "one run may take up to")


def run_limit() -> int:
    """This server's cap on one run (:func:`run_budget_bytes` of the environment, read once per process): what the
    pages pass to :meth:`safebandit_core.model.Family.check_fits` for every run a visitor sizes."""
    if not _RUN_LIMIT:
        _RUN_LIMIT.append(run_budget_bytes())
    return _RUN_LIMIT[0]


_RUN_LIMIT: list[int] = []


@dataclasses.dataclass
class Entry:
    """A finished run, how long it took to compute the first time and the bytes it holds."""

    value: Any
    seconds: float
    hits: int = 0
    nbytes: int = 0


@dataclasses.dataclass
class _Computing:
    """A key being computed: ``done`` is set when it ends, ``entry`` holds its result unless it raised (so a run too
    large to keep still reaches every visitor who waited for it)."""

    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    entry: Entry | None = None


class Store:
    """A thread-safe LRU of finished runs, bounded in bytes (``max_bytes``) and entries, with one lock per key
    being computed."""

    def __init__(self, max_entries: int = MAX_ENTRIES, heavy_slots: int = HEAVY_SLOTS,
                 max_bytes: int | None = None) -> None:
        self.max_entries = max_entries
        self.max_bytes = budget_bytes() if max_bytes is None else int(max_bytes)
        self._entries: collections.OrderedDict[str, Entry] = collections.OrderedDict()
        self._lock = threading.Lock()
        self._computing: dict[str, _Computing] = {}
        self._heavy = threading.BoundedSemaphore(heavy_slots)
        self.heavy_waiting = 0
        self.computed = 0
        self.rates: dict[str, float] = {}
        self._bounds: set[str] = set()  # kinds whose speed is only a bound so far (``learn(..., bound=True)``)

    def estimate(self, kind: str, units: int) -> float | None:
        """Seconds a run of ``units`` work units of ``kind`` should take, from the last one computed (None: unknown)."""
        rate = self.rates.get(kind)
        return None if rate is None else rate * units

    def learn(self, kind: str, units: int, seconds: float, fastest: bool = False, bound: bool = False) -> None:
        """Remember how fast ``kind`` ran (seconds per work unit): a moving average, or with ``fastest`` the
        quickest seen (a first run that compiled, or read its program from disk, then counts only until the next).
        With ``bound`` the time may include compiling (a run of one chunk cannot tell): it stands only while nothing
        better is known, and the next measured speed replaces it instead of being averaged with it."""
        rate = seconds / max(units, 1)
        with self._lock:
            old = self.rates.get(kind)
            if bound:
                if old is None or kind in self._bounds:
                    self.rates[kind] = rate if old is None else min(old, rate)
                    self._bounds.add(kind)
                return
            if old is None or kind in self._bounds:
                self.rates[kind] = rate
                self._bounds.discard(kind)
            else:
                self.rates[kind] = min(old, rate) if fastest else 0.5 * (old + rate)

    def busy(self) -> bool:
        """Whether a run is being computed now, for a page or in the background (what :mod:`.ahead` waits out)."""
        with self._lock:
            return bool(self._computing)

    @property
    def nbytes(self) -> int:
        """The bytes held now, as last measured (at most ``max_bytes``)."""
        with self._lock:
            return sum(e.nbytes for e in self._entries.values())

    def _fit(self) -> None:
        """Drop the least recently used entries until both bounds hold (call with the lock held)."""
        total = sum(e.nbytes for e in self._entries.values())
        while self._entries and (total > self.max_bytes or len(self._entries) > self.max_entries):
            _, gone = self._entries.popitem(last=False)
            total -= gone.nbytes

    def peek(self, key: str) -> Entry | None:
        """The stored entry for ``key`` (counted as a hit, and measured again: a run grows when its derived
        outputs are first read), or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            entry.hits += 1
        size = nbytes(entry.value)
        with self._lock:
            if size != entry.nbytes and self._entries.get(key) is entry:
                entry.nbytes = size
                self._fit()
        return entry

    def get_or_compute(self, key: str, compute: Callable[[], Any], *, heavy: bool = False,
                       on_wait: Callable[[str], None] | None = None) -> tuple[Entry, bool]:
        """The entry for ``key``, computing it with ``compute()`` if nobody has; returns (entry, was_stored).

        If another thread is computing the same key, wait for it (``on_wait`` says so once) and take its result,
        also one too large to keep. A heavy run first takes one of the server's heavy slots, waiting in line if all
        are busy. If the computation raises, nothing is stored and the error reaches this caller only (a waiter
        then computes it itself).
        """
        while True:
            entry = self.peek(key)
            if entry is not None:
                return entry, True
            with self._lock:
                busy = self._computing.get(key)
                if busy is None:
                    mine = self._computing[key] = _Computing()
                    break
            while not busy.done.wait(0.5):  # a script thread waiting here still answers Streamlit's stop/rerun
                if on_wait is not None:
                    on_wait("The same run is being computed for another visitor; waiting for it…")
            if busy.entry is not None:
                return self.peek(key) or busy.entry, True
        try:
            if heavy:
                if not self._heavy.acquire(blocking=False):
                    with self._lock:
                        self.heavy_waiting += 1
                    while not self._heavy.acquire(timeout=0.5):
                        if on_wait is not None:
                            on_wait("Another large run is computing on this server; yours starts when it ends…")
                    with self._lock:
                        self.heavy_waiting -= 1
            try:
                start = time.perf_counter()
                value = compute()
                entry = Entry(value=value, seconds=time.perf_counter() - start)
            finally:
                if heavy:
                    self._heavy.release()
            entry.nbytes = nbytes(value)
            with self._lock:
                self.computed += 1
                if entry.nbytes <= self.max_bytes:  # a larger one goes to this caller and its waiters only
                    self._entries[key] = entry
                    self._entries.move_to_end(key)
                    self._fit()
            mine.entry = entry
            return entry, False
        finally:
            with self._lock:
                self._computing.pop(key, None)
            mine.done.set()

    def clear(self) -> None:
        """Forget every stored run (tests)."""
        with self._lock:
            self._entries.clear()
            self.computed = 0


@st.cache_resource(show_spinner=False)
def store() -> Store:
    """The server's one store (shared by every session)."""
    return Store()


def key_of(settings: Any, device: str, extra: Any = None) -> str:
    """The store key of a run: its settings (with their kind), the device and anything else that changes it."""
    data = core_settings.to_dict(settings) if dataclasses.is_dataclass(settings) else settings
    return json.dumps({"settings": data, "device": device, "extra": extra}, sort_keys=True, default=str)


def kind_of(settings: Any) -> str:
    """The kind a run's speed is learned and looked up under: its settings' ``KIND`` (else their class's name)."""
    return getattr(settings, "KIND", type(settings).__name__)


def work(settings: Any) -> int:
    """Policy-rounds of a run (times d where a round does d-dimensional work), for the heavy-run limit."""
    policies = getattr(settings, "policies", ()) or (1, 1, 1)
    n = len(policies) * int(getattr(settings, "seeds", 1)) * int(getattr(settings, "T", 1))
    return n * max(1, int(getattr(settings, "d", None) or getattr(settings, "dim", 1) or 1) // 8)
