"""Context vectors of logged data: rows or previous steps as JSON, embedded (the battery experiment, wide logs).

Safety by Design (§7) feeds "all available information from the previous five time steps, formatted
as a JSON object" to Gemma and uses its 2048-dimensional embedding as the context X_t. Here the
JSON window is :func:`window_json`; :class:`HashEmbedder` turns it into a vector with no model
and no dependency (deterministic feature hashing), and :class:`SentenceEmbedder` uses a
locally installed sentence-transformers model instead when one is available.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import math
import os
import re
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from . import cache

WINDOW_FIELDS: dict[str, int | None] = {
    "comment": None,
    "type": None,
    "duration": 1,
    "current_mean": 3,
    "voltage_start": 3,
    "voltage_end": 3,
    "temperature_mean": 2,
    "temperature_max": 2,
}
"""Per-step fields of a window, in JSON key order, with decimals kept (None: text as is).

Units: duration s, current A (positive = discharge), voltage V, temperature °C. Absolute
time and date are left out: they identify a step without describing the cell's state.
"""

WINDOW_KEY = "previous_steps"
HASH_EMBEDDER = "hash"
SENTENCE_EMBEDDER = "sentence-transformers"

_WORD = re.compile(r"[^\W\d_]+|\d+")
_TEXT_TOKEN = re.compile(r"(?P<number>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(?P<word>[^\W\d]\w*)")


class EmbedderUnavailable(RuntimeError):
    """An embedder cannot be built here (package missing, or no local copy of the model)."""


class Embedder(Protocol):
    """Anything that maps texts to an ``(n, dim)`` float64 array; ``name`` identifies it."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into rows of a float64 array."""
        ...


def window_json(steps: pd.DataFrame, i: int, k: int = 5) -> str:
    """JSON of the ``k`` steps before position ``i`` (rows ``i-k .. i-1``), most recent first.

    The object is ``{"previous_steps": [step i-1, step i-2, ...]}`` with the keys of
    ``WINDOW_FIELDS`` in that order and numbers rounded as listed there; near the start of the
    table the list is shorter. Most recent first keeps "one step back" at list position 0.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1 (got {k})")
    if not 0 <= i <= len(steps):
        raise IndexError(f"i must be in 0..{len(steps)} (got {i})")
    fragments = _step_fragments(steps.iloc[max(0, i - k) : i])
    return _window(fragments, len(fragments), k)


def embed_windows(steps: pd.DataFrame, rows: Sequence[int] | np.ndarray, embedder: Embedder, k: int = 5) -> np.ndarray:
    """Embed ``window_json(steps, i, k)`` for every position ``i`` in ``rows``; ``(len(rows), dim)``.

    Each step is serialised once and windows are joined from those pieces, so 10^4 windows
    cost little more than the embedder itself.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1 (got {k})")
    positions = np.asarray(rows, dtype=np.int64).ravel()
    if positions.size and (positions.min() < 0 or positions.max() > len(steps)):
        raise IndexError(f"rows must lie in 0..{len(steps)}")
    fragments = _step_fragments(steps)
    texts = [_window(fragments, int(i), k) for i in positions]
    return embedder.embed(texts)


class HashEmbedder:
    """Deterministic feature hashing of a (JSON) text into ``dim`` dimensions, rows of unit norm.

    A JSON text is walked leaf by leaf: a number at path ``p`` adds ``s(p) * f(v)`` to bucket
    ``h(p)``, with ``f(v) = sign(v) * log(1 + |v|)`` so volts, amperes, seconds and degrees land
    on comparable scales; a string at ``p`` adds ``s(t)`` for each word token ``t``, both as
    ``p=word`` and as the bare word. Other text falls back to word counts, with each number
    keyed by the word before it and its occurrence count. ``h`` and the sign ``s`` come from
    BLAKE2b of the seed and the feature name, never Python's salted ``hash``, so vectors agree
    across processes. A text with no features embeds to the zero row.
    """

    def __init__(self, dim: int = 2048, seed: int = 0) -> None:
        if dim < 1:
            raise ValueError(f"dim must be at least 1 (got {dim})")
        self.dim = int(dim)
        self.seed = int(seed)
        self.name = HASH_EMBEDDER

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into an ``(len(texts), dim)`` float64 array with unit-norm rows."""
        flat: list[int] = []
        values: list[float] = []
        for row, text in enumerate(texts):
            offset = row * self.dim
            for key, value in _features(text):
                bucket, sign = _bucket(key, self.dim, self.seed)
                flat.append(offset + bucket)
                values.append(sign * value)
        out = np.bincount(
            np.asarray(flat, dtype=np.int64),
            weights=np.asarray(values, dtype=np.float64),
            minlength=len(texts) * self.dim,
        ).reshape(len(texts), self.dim)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


class SentenceEmbedder:
    """A sentence-transformers model loaded from local files only (never downloaded).

    ``model_name_or_path`` is a model directory or the name of a model already in the local
    Hugging Face cache. Offline mode is forced (``HF_HUB_OFFLINE=1``, ``local_files_only``).
    Rows are unit norm; ``dim`` is the model's own embedding size.
    """

    def __init__(self, model_name_or_path: str, batch_size: int = 32) -> None:
        if importlib.util.find_spec("sentence_transformers") is None:
            raise EmbedderUnavailable(
                "sentence-transformers is not installed; install it and a local model, "
                f"or use the '{HASH_EMBEDDER}' embedder"
            )
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        from sentence_transformers import SentenceTransformer

        try:
            self._model = SentenceTransformer(model_name_or_path, local_files_only=True)
        except Exception as err:  # the library raises OSError, ValueError or its own types
            raise EmbedderUnavailable(
                f"no local copy of sentence-transformers model {model_name_or_path!r}: {err}"
            ) from err
        self.batch_size = int(batch_size)
        self.dim = int(self._model.get_sentence_embedding_dimension())
        self.name = f"{SENTENCE_EMBEDDER}:{model_name_or_path}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into an ``(len(texts), dim)`` float64 array with unit-norm rows."""
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float64).reshape(len(texts), self.dim)


class CachedEmbedder:
    """An embedder whose results are memoised in :data:`safebandit_core.data.cache.MEMO` (embeddings are
    deterministic).

    The key is the inner embedder's name, size and seed with a BLAKE2b digest of the texts, so a
    refit with another ridge, or a second page visit, reuses the vectors of the same table. The
    vectors are returned read-only.
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The inner embedder's ``(len(texts), dim)`` array, computed once per distinct input."""
        digest = hashlib.blake2b(digest_size=16)
        for text in texts:
            digest.update(text.encode())
            digest.update(b"\0")
        key = ("embedding", self.name, self.dim, getattr(self.inner, "seed", None), len(texts), digest.hexdigest())
        return cache.MEMO.get(key, lambda: _read_only(self.inner.embed(texts)))


def _read_only(vectors: Any) -> np.ndarray:
    out = np.asarray(vectors, dtype=np.float64)
    out.setflags(write=False)
    return out


def available_embedders() -> list[str]:
    """Embedder kinds usable here: always ``"hash"``; ``"sentence-transformers"`` if installed.

    A sentence-transformers embedder is named ``"sentence-transformers:<model dir or name>"``
    when passed to :func:`make_embedder`.
    """
    kinds = [HASH_EMBEDDER]
    if importlib.util.find_spec("sentence_transformers") is not None:
        kinds.append(SENTENCE_EMBEDDER)
    return kinds


def make_embedder(spec: str | Embedder, dim: int = 2048, seed: int = 0) -> Embedder:
    """Resolve ``"hash"`` or ``"sentence-transformers:<model>"`` (or pass an embedder through)."""
    if not isinstance(spec, str):
        return spec
    if spec == HASH_EMBEDDER:
        return HashEmbedder(dim=dim, seed=seed)
    kind, _, model = spec.partition(":")
    if kind == SENTENCE_EMBEDDER and model:
        return SentenceEmbedder(model)
    raise EmbedderUnavailable(f"unknown embedder {spec!r}: use '{HASH_EMBEDDER}' or '{SENTENCE_EMBEDDER}:<model>'")


def _step_fragments(steps: pd.DataFrame) -> list[str]:
    """One JSON object per step with the ``WINDOW_FIELDS`` keys, in table order."""
    missing = [c for c in WINDOW_FIELDS if c not in steps.columns]
    if missing:
        raise KeyError(f"steps lack the columns {missing} needed for a window")
    columns = []
    for name, decimals in WINDOW_FIELDS.items():
        if decimals is None:
            columns.append(steps[name].astype(str).tolist())
        else:
            columns.append(steps[name].astype(np.float64).round(decimals).tolist())
    names = list(WINDOW_FIELDS)
    return [json.dumps(dict(zip(names, values, strict=True))) for values in zip(*columns, strict=True)]


def _window(fragments: list[str], i: int, k: int) -> str:
    """``{"previous_steps": [...]}`` from the fragments of positions ``i-1`` down to ``i-k``."""
    recent = fragments[max(0, i - k) : i][::-1]
    return '{"' + WINDOW_KEY + '": [' + ", ".join(recent) + "]}"


@functools.lru_cache(maxsize=1 << 16)
def _bucket(key: str, dim: int, seed: int) -> tuple[int, float]:
    """Bucket and sign of a feature name: BLAKE2b, stable across processes and platforms."""
    digest = hashlib.blake2b(key.encode(), digest_size=8, key=(seed % 2**64).to_bytes(8, "little")).digest()
    word = int.from_bytes(digest, "little")
    return (word >> 1) % dim, 1.0 if word & 1 else -1.0


def _squash(value: float) -> float | None:
    """``sign(v) * log(1 + |v|)``, or None for a value that is not a finite float."""
    try:
        number = float(value)
    except OverflowError:
        return None
    return math.copysign(math.log1p(abs(number)), number) if math.isfinite(number) else None


def _features(text: str) -> list[tuple[str, float]]:
    """(feature name, value) pairs of one text; JSON is walked, anything else tokenised."""
    try:
        document = json.loads(text)
    except ValueError:
        return _text_features(text)
    out: list[tuple[str, float]] = []
    _walk(document, "", out)
    return out


def _walk(node: Any, path: str, out: list[tuple[str, float]]) -> None:
    """Append the features of a parsed JSON ``node`` found at ``path`` to ``out``."""
    if isinstance(node, dict):
        for key, child in node.items():
            _walk(child, f"{path}.{key}" if path else str(key), out)
    elif isinstance(node, list):
        for index, child in enumerate(node):
            _walk(child, f"{path}.{index}", out)
    elif isinstance(node, bool) or node is None:
        out.append((f"{path}={json.dumps(node)}", 1.0))
    elif isinstance(node, (int, float)):
        squashed = _squash(node)
        if squashed is not None:
            out.append((path, squashed))
    else:
        for word in _WORD.findall(str(node).lower()):
            out.append((f"{path}={word}", 1.0))
            out.append((f"word={word}", 1.0))


def _text_features(text: str) -> list[tuple[str, float]]:
    """Word counts, and each number keyed by the word before it and how often that word led one."""
    out: list[tuple[str, float]] = []
    last_word = ""
    seen: dict[str, int] = {}
    for match in _TEXT_TOKEN.finditer(text):
        word = match.group("word")
        if word is not None:
            last_word = word.lower()
            out.append((f"word={last_word}", 1.0))
            continue
        ordinal = seen.get(last_word, 0)
        seen[last_word] = ordinal + 1
        squashed = _squash(float(match.group("number")))
        if squashed is not None:
            out.append((f"{last_word}#{ordinal}", squashed))
    return out
