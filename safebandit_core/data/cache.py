"""The one memo of prepared data, per process: tables read, embeddings and fits of every data family.

Everything a data family's ``prepare`` derives from its data is deterministic, so it is computed once per
input and kept here, keyed by content: a NASA table (by the file's path, size and modification time, or
by the bytes' digest), a user's log (by its bytes' hash), the embedded windows (by the embedder and a
digest of the texts) and the fits (by the data's key and what the fit depends on). A refit with another
ridge reuses the embeddings; a second run, page visit or grid cell reuses the whole fit, and a run's
settings find their data here by its hash. The memo holds read-only
values up to :data:`MAX_BYTES` in all (measured by :func:`nbytes`), least recently used first out; a
value larger than that is handed back but not kept (:class:`safebandit_core.memo.Memo`).
:func:`clear` forgets everything.
"""

from __future__ import annotations

from ..memo import Memo, nbytes

__all__ = ["MAX_BYTES", "MEMO", "Memo", "clear", "nbytes"]

MAX_BYTES = 1024 * 2**20
MEMO = Memo(MAX_BYTES)


def clear() -> None:
    """Forget every memoised table, embedding and fitted problem (e.g. before a cold benchmark)."""
    MEMO.clear()
