"""Shape buckets: the sizes a person moves (the context dimension d) are padded up to a few compiled widths.

Moving d inside a bucket then costs no compilation: the padded coordinates are zero, which leaves
every estimate unchanged (a zero coordinate adds nothing to ⟨x, θ̂⟩, to ‖x‖_{Σ⁻¹} or to Σ's block of
the true coordinates), and the confidence radius reads the true d as a traced number.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from . import device as _device  # noqa: F401  (float64 on before any array is built)
from .settings import check_int_range

LINEAR_FROM = 64
"""Up to this width the buckets are powers of two; above it, multiples of :data:`STEP`."""
STEP = 32
"""Above :data:`LINEAR_FROM` a width is the next multiple of this: at most (1 + 32/n)² more work per round
(the default 72 arms run at 96, not 128), and a slider moved by a few units stays inside its width."""


def bucket(n: int) -> int:
    """The compiled width for a true size ``n`` ≥ 1: the next power of two up to 64, then the next multiple of 32."""
    if n < 1:
        raise ValueError(f"a size must be at least 1 (got {n})")
    if n <= LINEAR_FROM:
        return 1 << (n - 1).bit_length()
    return -(-n // STEP) * STEP


def within(n: Any, width: int) -> Any:
    """(width,) bool: True below the true size ``n`` (traced), False for the padding of a compiled width.

    Padded arms or members score −∞ (never an argmax, a top-m or a max) and padded coordinates are zero.
    """
    return jnp.arange(width) < n


def first_max(x: Any) -> Any:
    """``jnp.argmax(x, axis=-1)`` (the first largest entry; the first NaN where there is one) as two plain reductions.

    Inside a round of a scan XLA's CPU backend runs ``argmax``, a reduction over (value, index) pairs, one element
    at a time: on the 96 arms of Figure 1 (a)'s CMAB it was the costliest op of the round. A max, then a min over
    the indices that reach it, vectorise.
    """
    top = jnp.max(x, axis=-1, keepdims=True)
    width = x.shape[-1]
    hit = (x == top) | jnp.isnan(x)
    return jnp.min(jnp.where(hit, jnp.arange(width), width), axis=-1)


def zero_pad(a: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` with zeros appended along each axis up to ``shape`` (each at least ``a``'s own size)."""
    a = np.asarray(a)
    return np.pad(a, [(0, n - k) for k, n in zip(a.shape, shape, strict=True)])


def stream_width(field: str, width: int | None, size: int) -> int:
    """The width an explicit-stream run of true size ``size`` compiles at: ``size`` itself unless ``width`` is
    given (the padding checks), which must be an integer of at least ``size`` (:class:`SettingsError`)."""
    if width is None:
        return size
    check_int_range(field, width, size)
    return width
