"""Linear algebra of the linear bandits: rank-one inverse updates and exact refreshes.

- Sherman–Morrison: (A + x xᵀ)⁻¹ = A⁻¹ − (A⁻¹x)(A⁻¹x)ᵀ / (1 + xᵀA⁻¹x), O(d²) per round instead
  of the O(d³) factorisation the paper's experiments use (Safety by Design §7).
- Ellipsoid maximum (Safety by Design Appendix C, Lemma 6): max_{θ: ‖θ − θ̂‖_A ≤ β} ⟨x, θ⟩ = ⟨x, θ̂⟩ + β‖x‖_{A⁻¹};
  the minimum is ⟨x, θ̂⟩ − β‖x‖_{A⁻¹}. The dose policy forms both from ``A⁻¹x`` (:mod:`.dose.policies`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from . import device as _device  # noqa: F401  (float64 on before any array is built)


def sherman_morrison(a_inv: jax.Array, x: jax.Array, ax: jax.Array | None = None) -> jax.Array:
    """(A + x xᵀ)⁻¹ from a symmetric A⁻¹ and x; pass ``ax = A⁻¹x`` when it is already known.

    x = 0 leaves A⁻¹ unchanged exactly, so a masked (zeroed) update is a no-op.
    """
    ax = a_inv @ x if ax is None else ax
    return a_inv - jnp.outer(ax, ax) / (1.0 + x @ ax)


def exact_inverse(a: jax.Array) -> jax.Array:
    """A⁻¹ of a symmetric positive definite A through its Cholesky factor (the periodic refresh)."""
    chol = jax.scipy.linalg.cho_factor(a, lower=True)
    return jax.scipy.linalg.cho_solve(chol, jnp.eye(a.shape[0], dtype=a.dtype))
