"""The one memo of the battery replay: tables read, embeddings and fitted problems, per process.

Everything the replay derives from its data is deterministic, so it is computed once per input and
kept here: a NASA table (keyed by the file's path, size and modification time, or by the bytes'
digest), the embedded windows (keyed by the embedder and a digest of the texts) and the fitted
problem (keyed by the table, the embedder, ``dim`` and ``fit_lam``). A refit with another ridge reuses
the embeddings; a second run, page visit or grid cell reuses the whole fit. The memo holds read-only
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
