"""The one memo of the battery replay: tables read, embeddings and fitted problems, per process.

Everything the replay derives from its data is deterministic, so it is computed once per input and
kept here: a NASA table (keyed by the file's path, size and modification time, or by the bytes'
digest), the embedded windows (keyed by the embedder and a digest of the texts) and the fitted
problem (keyed by the table, the embedder, ``dim`` and ``fit_lam``). A refit with another ridge reuses
the embeddings; a second run, page visit or grid cell reuses the whole fit. The memo holds read-only
values up to :data:`MAX_BYTES`, least recently used first out; :func:`clear` forgets everything.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np
import pandas as pd

V = TypeVar("V")
MAX_BYTES = 1024 * 2**20


def nbytes(value: Any) -> int:
    """The memory a memoised value holds: arrays, tables, and dataclasses or tuples of them."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, pd.DataFrame):
        return int(value.memory_usage(index=True, deep=False).sum())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(nbytes(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, tuple):
        return sum(nbytes(v) for v in value)
    return 0


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
        with self._lock:
            self._items[key] = (value, size)
            self._items.move_to_end(key)
            total = sum(s for _, s in self._items.values())
            while total > self.max_bytes and len(self._items) > 1:
                _, (_, gone) = self._items.popitem(last=False)
                total -= gone
        return value

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
