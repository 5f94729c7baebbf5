"""The expected-reward conservative baselines of One-size-fits-all's experiments, as rules of the GenCB wrapper.

Each baseline is a standard policy (the A_S that proposes) plus its own check (a
:data:`~.gencb.Rule`), read exactly as BASELINES.md §1–4 and §7 fix them. Every check is a
lower confidence bound on the *expected* reward of the past regular plays plus the candidate,
where GenCB uses the rewards actually received. Conventions: δ = 1/T (``params.delta``);
σ = R = 1; ``B = S_θ = params.S``; argmax ties → lowest index; the default arm wins an exact tie
where the paper's argmax includes it (ConUCB, CLUCB), and loses it where the rule is a strict
``<`` (C3UCB) or a ``≥`` (CLUCB2), as each section states.

- ConUCB (Wu et al. 2016; §1): UCB indices with the union-bound width
  ``Δ_i = sqrt(2 log(K s³/δ)/s)`` (W1), LCBs ``max(0, μ̂_i − Δ_i)`` (0 for an arm never pulled);
  ``J = argmax over {x_0, 1..K}`` with x_0's index μ_0; play J iff it is a regular arm and
  ``μ_0 N_0 + Σ_i N_i λ_i + λ_J − (1 − α)μ_0 t ≥ 0``.
- CLUCB (Kazerouni et al. 2017; §2): LinUCB with the determinant radius
  ``β = sqrt(2 log(1/δ) + log det V − d log λ) + sqrt(λ)S``; the optimistic arm x′ (x_0 if its
  UCB ≤ μ_0) is played iff ``⟨θ̂, z + x′⟩ − β‖z + x′‖_{V⁻¹} + N_0 μ_0 ≥ (1 − α)μ_0 t`` with z the sum of
  the features of past regular plays (the joint bound). On CMAB: one-hot features, V diagonal.
- CLUCB2 (Garcelon et al. 2020; §3, the standard reading): budget of a candidate x is
  ``r_S − M(m) + ⟨θ̂, x⟩ − β‖x‖_{V⁻¹} + N_0 μ_0 − (1 − α)μ_0 t`` with
  ``M(n) = sqrt(2 (n + 1) log(sqrt(n + 1)/δ))``; play the largest UCB among candidates with
  budget ≥ 0 if that UCB ≥ μ_0, else x_0.
- C3UCB (Zhang, Li and Liu 2019; §4): C2UCB with the determinant radius proposes the top-m super
  arm A; x_0 if ``Σ_{e∈A} U_e < μ_0``; else play A iff
  ``Σ_e N_e Lo_e + Σ_{e∈A} Lo_e + N_0 μ_0 ≥ (1 − α) t μ_0`` with ``Lo_e = max(0, ⟨x_e, θ̂⟩ − β‖x_e‖_{V⁻¹})``
  recomputed every round (the per-base-arm form, not CLUCB's joint bound).

Shapes are compiled widths (:mod:`.ridge`): a padded arm has UCB −∞, so it never enters a max or
an argmax, and no count, mean or lower bound (all zero there) adds to a sum.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..model import Policy
from ..shapes import first_max
from .cccb import top_m
from .cmab import UCBInfo, UCBState, onehot_ridge, ucb
from .gencb import Ledger, Params, State, wrap
from .ridge import LinInfo, determinant_radius, full_ridge, joint_norm, linear_ucb


def conucb_width(params: Params, n: jax.Array, m: jax.Array) -> jax.Array:
    """ConUCB's union-bound width (W1): ``sqrt(2 log(K s³/δ) / s)`` after s pulls, K the true arm count."""
    return jnp.sqrt(2 * jnp.log(params.K * n ** 3 / params.delta) / n)


def conucb_rule(params: Params, state: UCBState, mask: jax.Array, info: UCBInfo, ledger: Ledger,
                line: jax.Array) -> tuple[jax.Array, jax.Array]:
    """ConUCB's check (BASELINES.md §1, steps 3–5)."""
    optimistic = jnp.max(info.index) > params.mu0
    lcb = jnp.where(state.counts > 0, jnp.maximum(0, info.mean - info.width), 0)
    budget = ledger.bank0 + state.counts @ lcb + mask @ lcb
    return optimistic & (budget >= line), mask


def clucb_rule(params: Params, state: State, mask: jax.Array, info: LinInfo, ledger: Ledger,
               line: jax.Array) -> tuple[jax.Array, jax.Array]:
    """CLUCB's check with the joint lower bound on ``z + x′`` (BASELINES.md §2, steps 2–5)."""
    optimistic = jnp.max(info.ucb) > params.mu0
    v = state.counts + mask
    lower = info.mean @ v - info.beta * joint_norm(info.white, v)
    return optimistic & (lower + ledger.bank0 >= line), mask


def clucb2_rule(params: Params, state: State, mask: jax.Array, info: LinInfo, ledger: Ledger,
                line: jax.Array) -> tuple[jax.Array, jax.Array]:
    """CLUCB2's constrained selection (BASELINES.md §3): the most optimistic arm whose budget is ≥ 0."""
    n = ledger.m.astype(params.mu0.dtype) + 1
    martingale = jnp.sqrt(2 * n * jnp.log(jnp.sqrt(n) / params.delta))
    lcb = info.mean - info.beta * info.width
    budget = ledger.r_s - martingale + lcb + ledger.bank0 - line
    feasible = budget >= 0
    score = jnp.where(feasible, info.ucb, -jnp.inf)
    j = first_max(score)
    go = feasible[j] & (score[j] >= params.mu0)
    return go, jax.nn.one_hot(j, mask.shape[0], dtype=mask.dtype)


def c3ucb_rule(params: Params, state: State, mask: jax.Array, info: LinInfo, ledger: Ledger,
               line: jax.Array) -> tuple[jax.Array, jax.Array]:
    """C3UCB's check with per-base-arm lower bounds through f = sum (BASELINES.md §4, steps 2–5)."""
    optimistic = mask @ jnp.where(mask > 0, info.ucb, 0) >= params.mu0  # padding's −∞ kept out of the product
    lo = jnp.maximum(0, info.mean - info.beta * info.width)
    return optimistic & (state.counts @ lo + mask @ lo + ledger.bank0 >= line), mask


def conucb(K: int) -> Policy:
    """ConUCB (known μ_0, width W1) over K regular arms."""
    return wrap(ucb(K, conucb_width), conucb_rule)


def clucb_multiarmed(K: int) -> Policy:
    """CLUCB on CMAB: one-hot features (d = K), ‖θ*‖ ≤ params.S."""
    return wrap(linear_ucb(onehot_ridge(K), determinant_radius), clucb_rule)


def clucb(K: int, d: int) -> Policy:
    """CLUCB over K arms in R^d."""
    return wrap(linear_ucb(full_ridge(K, d), determinant_radius), clucb_rule)


def clucb2(K: int, d: int) -> Policy:
    """CLUCB2 (Garcelon et al.) over K arms in R^d."""
    return wrap(linear_ucb(full_ridge(K, d), determinant_radius), clucb2_rule)


def c3ucb(K: int, d: int, m: int) -> Policy:
    """C3UCB over K base arms in R^d with super arms of size m."""
    return wrap(linear_ucb(full_ridge(K, d), determinant_radius, top_m(m)), c3ucb_rule)
