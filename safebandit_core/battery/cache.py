"""The one memo of the battery replay: tables read, embeddings and fitted problems, per process.

Everything the replay derives from its data is deterministic, so it is computed once per input and
kept here: a NASA table (keyed by the file's path, size and modification time, or by the bytes'
digest), the embedded windows (keyed by the embedder and a digest of the texts) and the fitted
problem (keyed by the table, the embedder, ``dim`` and ``fit_lam``). A refit with another ridge reuses
the embeddings; a second run, page visit or grid cell reuses the whole fit. The memo holds read-only
values up to :data:`MAX_BYTES` in all (measured by :func:`nbytes`), least recently used first out; a
value larger than that is handed back but not kept. :func:`clear` forgets everything.
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
MAX_BYTES = 1024 * 2**20


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


class Memo:
    """A thread-safe least-recently-used memo bounded by the bytes of what it holds."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = int(max_bytes)
        self._items: collections.OrderedDict[Hashable, tuple[Any, int]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value of ``key``, made by ``make()`` on a miss (outside the lock, so misses run in parallel)."""
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit[0]
        value = make()
        size = nbytes(value)
        if size > self.max_bytes:  # larger than the whole memo: the caller gets it, the memo keeps what it has
            return value
        with self._lock:
            self._items[key] = (value, size)
            self._items.move_to_end(key)
            total = sum(s for _, s in self._items.values())
            while total > self.max_bytes:
                _, (_, gone) = self._items.popitem(last=False)
                total -= gone
        return value

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


MEMO = Memo(MAX_BYTES)


def clear() -> None:
    """Forget every memoised table, embedding and fitted problem (e.g. before a cold benchmark)."""
    MEMO.clear()
