"""Contextual combinatorial bandits (One-size-fits-all §3.3, Algorithm 5): C2UCB as a standard policy.

A super arm is a set of ``m`` base arms and pays ``f(A, w) = Σ_{e∈A} w_e`` (f = sum, as in the
paper's experiments). C2UCB (Qin, Chen and Zhu 2014) as GenCB-CCCB's A_S: the oracle for the sum
is the top-m base arms by ``w̄_e = ⟨x_e, θ̂⟩ + β ‖x_e‖_{V⁻¹}`` (stable: ties → lowest index) with
the radius of ALGORITHMS.md §2.1, ``β = sqrt(d · log(2 m_t² (1 + m_t K L²/λ))) + sqrt(λ)·S``
(``m_t`` the regular-play counter); semi-bandit feedback adds every ``x_e x_eᵀ`` to V and every
``w_{t,e} x_e`` to b (the ridge of :mod:`.ridge`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .gencb import StandardPolicy
from .ridge import Select, full_ridge, linear_ucb, oful_radius


def top_m(m: int) -> Select:
    """The sum oracle: a 0/1 mask of the ``m`` largest scores (ties → lowest index)."""

    def select(scores: jax.Array) -> jax.Array:
        _, idx = jax.lax.top_k(scores, m)
        return jnp.zeros_like(scores).at[idx].set(1)

    return select


def c2ucb(K: int, d: int, m: int) -> StandardPolicy:
    """C2UCB with GenCB-CCCB's radius over K base arms in R^d, super arms of size m (Algorithm 5).

    K and d are compiled widths; padded arms score −∞, so the top m (m ≤ the true K) are true arms.
    """
    return linear_ucb(full_ridge(K, d), oful_radius(per_arm=True), top_m(m))
