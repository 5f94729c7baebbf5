"""Ridge statistics over regular plays, shared by every linear policy of the package (ALGORITHMS.md §2.1).

LinUCB (:mod:`.clb`), C2UCB (:mod:`.cccb`), CLUCB, CLUCB2 and C3UCB (:mod:`.baselines`) keep the same
statistics and differ only in their radius and their selection:

- ``V = λI + Σ x xᵀ`` and ``b = Σ r x`` over the base arms of regular plays only (semi-bandit:
  every arm of a played super arm), ``θ̂ = V⁻¹ b``;
- every round the fit is recomputed from ``V`` by a Cholesky factorisation ``V = C Cᵀ``
  (exact solves: no drift, cheap for small d): ``θ̂``, the widths ``‖x_i‖_{V⁻¹} = ‖C⁻¹ x_i‖``,
  the whitened arms ``C⁻¹ Xᵀ`` and ``log det V = 2 Σ log C_jj``;
- optimism over the ellipsoid (:func:`linear_ucb`): scores ``⟨x_i, θ̂⟩ + β ‖x_i‖_{V⁻¹}`` with a
  radius β (:func:`oful_radius`, GenCB's; :func:`determinant_radius`, the baselines'), then a
  selection (one arm, or the top-m super arm).

The arms' features are known to the agent, so they are policy params (``params.arms``). Their shape
is a compiled width: zero rows after the true K arms, zero columns after the true d coordinates. A zero
coordinate leaves V's block of the true ones, θ̂ and every ‖x‖_{V⁻¹} as they are; ``log det V``
counts the true coordinates only, the radii read the true d and K (``params.d``, ``params.K``) and
the padded arms score −∞.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from ..shapes import first_max, within
from .gencb import Params, StandardPolicy


class RidgeState(NamedTuple):
    """Ridge statistics over regular plays."""

    gram: jax.Array  # (d, d) V = λI + Σ x xᵀ
    moment: jax.Array  # (d,) b = Σ r x
    counts: jax.Array  # (K,) plays of each base arm (float)


class RidgeFit(NamedTuple):
    """The ridge estimate seen through the K base arms."""

    mean: jax.Array  # (K,) ⟨x_i, θ̂⟩
    width: jax.Array  # (K,) ‖x_i‖_{V⁻¹}
    logdet: jax.Array  # () log det V
    white: jax.Array  # (d, K) C⁻¹ Xᵀ with V = C Cᵀ; (K,) its diagonal when the arms are one-hot


class Ridge(NamedTuple):
    """How a linear policy keeps and fits its statistics (full features here, one-hot in :mod:`.cmab`)."""

    init: Callable[[Params], NamedTuple]
    fit: Callable[[Params, NamedTuple], RidgeFit]
    update: Callable[[Params, NamedTuple, jax.Array, jax.Array], NamedTuple]
    dim: int  # the compiled dimension of θ (the true one is params.d)


class LinInfo(NamedTuple):
    """Confidence bounds a linear policy used this round (read by the baselines' rules)."""

    ucb: jax.Array  # (K,) ⟨x_i, θ̂⟩ + β ‖x_i‖_{V⁻¹}; −∞ for padding
    mean: jax.Array  # (K,) ⟨x_i, θ̂⟩
    width: jax.Array  # (K,) ‖x_i‖_{V⁻¹}
    beta: jax.Array  # () the radius β
    white: jax.Array  # see RidgeFit.white


Radius = Callable[[Params, RidgeFit, jax.Array], jax.Array]
Select = Callable[[jax.Array], jax.Array]


def full_ridge(K: int, d: int) -> Ridge:
    """Ridge regression on the feature rows ``params.arms`` (K, d), both compiled widths."""

    def init(params: Params) -> RidgeState:
        dtype = params.mu0.dtype
        return RidgeState(gram=params.lam * jnp.eye(d, dtype=dtype), moment=jnp.zeros(d, dtype),
                          counts=jnp.zeros(K, dtype))

    def fit(params: Params, state: RidgeState) -> RidgeFit:
        chol = jnp.linalg.cholesky(state.gram)
        theta = jax.scipy.linalg.cho_solve((chol, True), state.moment)
        white = jax.scipy.linalg.solve_triangular(chol, params.arms.T, lower=True)
        return RidgeFit(mean=params.arms @ theta, width=jnp.sqrt(jnp.sum(white * white, axis=0)),
                        logdet=2 * jnp.sum(jnp.where(within(params.d, d), jnp.log(jnp.diag(chol)), 0)),
                        white=white)

    def update(params: Params, state: RidgeState, mask: jax.Array, obs: jax.Array) -> RidgeState:
        x = params.arms
        return RidgeState(gram=state.gram + (x.T * mask) @ x, moment=state.moment + x.T @ (mask * obs),
                          counts=state.counts + mask)

    return Ridge(init=init, fit=fit, update=update, dim=d)


def joint_norm(white: jax.Array, v: jax.Array) -> jax.Array:
    """``‖Σ_i v_i x_i‖_{V⁻¹}`` from the whitened arms of a :class:`RidgeFit`."""
    return jnp.linalg.norm(white @ v) if white.ndim == 2 else jnp.linalg.norm(white * v)


def oful_radius(per_arm: bool = False) -> Radius:
    """ALGORITHMS.md §2.1: ``β_m = sqrt(d · log(2 m² (1 + m·scale·L²/λ))) + sqrt(λ)·S`` with the true d.

    ``scale`` = 1 for GenCB-CLB (Algorithm 4, line 5); ``per_arm``: ``scale`` = K, the true number of
    base arms, for GenCB-CCCB (Algorithm 5, line 6).
    """

    def radius(params: Params, fit: RidgeFit, m: jax.Array) -> jax.Array:
        scale = params.K if per_arm else 1
        inner = 2 * m * m * (1 + m * scale * params.L ** 2 / params.lam)
        return jnp.sqrt(params.d * jnp.log(inner)) + jnp.sqrt(params.lam) * params.S

    return radius


def determinant_radius(params: Params, fit: RidgeFit, m: jax.Array) -> jax.Array:
    """BASELINES.md §2 (σ = 1): ``β = sqrt(2 log(1/δ) + log det V − d log λ) + sqrt(λ)·S`` with the true d."""
    inner = 2 * jnp.log(1 / params.delta) + fit.logdet - params.d * jnp.log(params.lam)
    return jnp.sqrt(inner) + jnp.sqrt(params.lam) * params.S


def argmax_mask(scores: jax.Array) -> jax.Array:
    """One-hot mask of ``argmax scores`` (ties → lowest index)."""
    return jax.nn.one_hot(first_max(scores), scores.shape[0], dtype=scores.dtype)


def linear_ucb(ridge: Ridge, radius: Radius, select: Select = argmax_mask) -> StandardPolicy:
    """Optimism over the ridge ellipsoid: scores ``⟨x_i, θ̂⟩ + β ‖x_i‖_{V⁻¹}`` (−∞ for padding), action
    ``select(scores)``."""

    def act(params: Params, state: NamedTuple, m: jax.Array) -> tuple[jax.Array, LinInfo]:
        fit = ridge.fit(params, state)
        beta = radius(params, fit, m)
        ucb = jnp.where(within(params.K, fit.mean.shape[0]), fit.mean + beta * fit.width, -jnp.inf)
        return select(ucb), LinInfo(ucb=ucb, mean=fit.mean, width=fit.width, beta=beta, white=fit.white)

    return StandardPolicy(init=ridge.init, act=act, update=ridge.update)

