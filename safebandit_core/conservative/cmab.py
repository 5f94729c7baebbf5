"""Multi-armed bandits (One-size-fits-all §3.1, Algorithm 3): UCB as a standard policy.

UCB (Auer et al. 2002) as GenCB-CMAB's A_S: play ``argmax_i μ̂_i + sqrt(2 log m / N_i)``
(ALGORITHMS.md §2.1), an arm never pulled having index +∞, ties → lowest index. The width is a
parameter so that ConUCB (:mod:`.baselines`) reuses the same counts and means with its own width.

Also the one-hot ridge: the multi-armed case of a linear bandit (features e_1..e_K, d = K),
where ``V = diag(λ + N_i)`` and everything has a closed form (BASELINES.md §2, multi-armed
specialization); CLUCB on CMAB runs on it.

``K`` below is the compiled width; the true arm count is ``params.K`` and the arms after it are
padding (never pulled: index −∞, no share of ``log det V``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from ..shapes import first_max, within
from .gencb import Params, StandardPolicy
from .ridge import Ridge, RidgeFit


class UCBState(NamedTuple):
    """Per-arm statistics of regular plays."""

    counts: jax.Array  # (K,) N_i (float)
    sums: jax.Array  # (K,) Σ rewards of arm i


class UCBInfo(NamedTuple):
    """Indices a UCB policy used this round."""

    index: jax.Array  # (K,) μ̂_i + width_i; +∞ for an arm never pulled, −∞ for padding
    mean: jax.Array  # (K,) μ̂_i (0 for an arm never pulled)
    width: jax.Array  # (K,) confidence width (+∞ for an arm never pulled)


Width = Callable[[Params, jax.Array, jax.Array], jax.Array]
"""``width(params, n, m)``: confidence widths for pull counts ``n`` ≥ 1 (K,) at horizon ``m``."""


def ucb_width(params: Params, n: jax.Array, m: jax.Array) -> jax.Array:
    """UCB1's width ``sqrt(2 log m / N_i)`` (One-size-fits-all, Algorithm 3, line 5)."""
    return jnp.sqrt(2 * jnp.log(m) / n)


def counts_init(K: int) -> Callable[[Params], UCBState]:
    """The ``init`` of per-arm statistics over K arms: no plays yet."""

    def init(params: Params) -> UCBState:
        zeros = jnp.zeros(K, params.mu0.dtype)
        return UCBState(counts=zeros, sums=zeros)

    return init


def update_counts(params: Params, state: UCBState, mask: jax.Array, obs: jax.Array) -> UCBState:
    """Add the played arm's reward (bandit feedback)."""
    return UCBState(counts=state.counts + mask, sums=state.sums + mask * obs)


def ucb(K: int, width: Width = ucb_width) -> StandardPolicy:
    """UCB over K arms with the given width (default: UCB1, GenCB-CMAB's A_S)."""

    def act(params: Params, state: UCBState, m: jax.Array) -> tuple[jax.Array, UCBInfo]:
        pulled = state.counts > 0
        n = jnp.where(pulled, state.counts, 1)
        mean = jnp.where(pulled, state.sums / n, 0)
        w = jnp.where(pulled, width(params, n, m), jnp.inf)
        index = jnp.where(within(params.K, K), mean + w, -jnp.inf)
        mask = jax.nn.one_hot(first_max(index), K, dtype=params.mu0.dtype)
        return mask, UCBInfo(index=index, mean=mean, width=w)

    return StandardPolicy(init=counts_init(K), act=act, update=update_counts)


def onehot_ridge(K: int) -> Ridge:
    """Ridge regression with one-hot features in closed form: ``θ̂_i = Σ r / (λ + N_i)``,
    ``‖e_i‖_{V⁻¹} = 1/sqrt(λ + N_i)``, ``log det V = Σ log(λ + N_i)`` over the true arms."""

    def fit(params: Params, state: UCBState) -> RidgeFit:
        diag = params.lam + state.counts
        width = 1 / jnp.sqrt(diag)
        logdet = jnp.sum(jnp.where(within(params.K, K), jnp.log(diag), 0))
        return RidgeFit(mean=state.sums / diag, width=width, logdet=logdet, white=width)

    return Ridge(init=counts_init(K), fit=fit, update=update_counts, dim=K)
