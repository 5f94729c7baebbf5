"""A least-recently-used memo bounded by bytes, and the measure of what a held value takes.

One mechanism for every process-wide cache of derived values: the data memo of the logged-data and
battery replays (:mod:`safebandit_core.data.cache`), the shared result store's entry sizes
(``safebandit_ui.store``) and the per-run figures of the pages (``safebandit_ui.pagekit.per_run``).
"""

from __future__ import annotations

import collections
import dataclasses
import threading
import types
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import pandas as pd

V = TypeVar("V")


def nbytes(value: Any) -> int:
    """The memory a held value takes: its arrays (numpy or JAX), tables (deep, strings included), texts and bytes,
    found through dicts, lists, tuples, sets and the attributes of dataclasses (cached properties too).

    Each object counts once, however often it is referenced; functions, classes and modules count nothing.
    """
    seen: set[int] = set()
    todo, total = [value], 0
    while todo:
        v = todo.pop()
        if id(v) in seen or v is None or isinstance(v, bool | int | float | complex | type | types.ModuleType) \
                or callable(v):
            continue
        seen.add(id(v))
        if isinstance(v, pd.DataFrame | pd.Series | pd.Index):
            usage = v.memory_usage(deep=True)
            total += int(usage.sum() if isinstance(usage, pd.Series) else usage)
        elif hasattr(v, "nbytes") and hasattr(v, "shape"):
            total += int(v.nbytes)
        elif isinstance(v, str | bytes | bytearray | memoryview):
            total += len(v)
        elif isinstance(v, dict):
            todo.extend(v.keys())
            todo.extend(v.values())
        elif isinstance(v, list | tuple | set | frozenset):
            todo.extend(v)
        elif dataclasses.is_dataclass(v):
            todo.extend(getattr(v, f.name, None) for f in dataclasses.fields(v))
            todo.extend(getattr(v, "__dict__", {}).values())
    return total


WAIT_S = 30.0
"""How long a miss waits for another thread making the same value before it makes the value itself."""


class Memo:
    """A thread-safe least-recently-used memo bounded by the bytes of what it holds (measured by ``measure``) and,
    when ``max_items`` is given, by its number of entries. ``made`` counts the values made on a miss."""

    def __init__(self, max_bytes: float, max_items: int | None = None,
                 measure: Callable[[Any], int] = nbytes) -> None:
        self.max_bytes = max_bytes
        self.max_items = max_items
        self.measure = measure
        self.made = 0
        self._items: collections.OrderedDict[Hashable, tuple[Any, int]] = collections.OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[Hashable, tuple[threading.Event, int]] = {}  # key -> (done, the thread making it)

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value of ``key``, made by ``make()`` on a miss (outside the lock, so misses of different keys run in
        parallel). A miss of a key another thread is making waits for its value instead of making it again (if that
        thread's ``make`` raised, its value was too large to keep, or it takes over :data:`WAIT_S`, the waiter makes
        its own)."""
        while True:
            with self._lock:
                hit = self._items.get(key)
                if hit is not None:
                    self._items.move_to_end(key)
                    return hit[0]
                busy = self._making.get(key)
                me = threading.get_ident()
                if busy is None or busy[1] == me:  # a make() that asks for its own key makes it again, not deadlock
                    done = threading.Event()
                    if busy is None:
                        self._making[key] = (done, me)
                    break
            if not busy[0].wait(WAIT_S):  # the maker is stuck: make it here rather than wait for ever
                done = threading.Event()
                break
            # then look again: kept, being made by yet another thread, or to make here
        try:
            value = make()
            size = self.measure(value)
            with self._lock:
                self.made += 1
                if size > self.max_bytes:  # larger than the whole memo: the caller gets it, the memo keeps what it has
                    return value
                self._items[key] = (value, size)
                self._items.move_to_end(key)
                total = sum(s for _, s in self._items.values())
                while total > self.max_bytes or (self.max_items is not None and len(self._items) > self.max_items):
                    _, (_, gone) = self._items.popitem(last=False)
                    total -= gone
            return value
        finally:
            with self._lock:
                if self._making.get(key, (None,))[0] is done:
                    del self._making[key]
            done.set()

    def held_bytes(self) -> int:
        """The bytes of everything held now (at most ``max_bytes``)."""
        with self._lock:
            return sum(s for _, s in self._items.values())

    def keys(self) -> list[Hashable]:
        """The keys held now, oldest first."""
        with self._lock:
            return list(self._items)

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            self._items.clear()
