"""MV-CUCB (One-size-fits-all, Algorithm 2) and MV-UCB (Sani, Lazaric and Munos 2012) as pure functions.

Arms have rewards in [0, 1]; arm ``i`` has mean-variance ``MV_i = ρ μ_i − σ_i²``. The default
arm ``x_0`` pays the constant ``μ_0``, so ``MV_0 = ρ μ_0`` with variance 0. The learner's own
sample-path mean-variance after ``t`` rounds (default pulls included, each paying ``μ_0``) is
``MV̂_t(A) = ρ·mean(r_1..r_t) − var(r_1..r_t)`` with the 1/t variance; the constraint, eq. (5), is
``MV̂_t(A) ≥ (1 − α)·MV_0`` at every t, and its slack is reported as
``t·MV̂_t(A) − (1 − α)·MV_0·t``.

**MV-CUCB** (ALGORITHMS.md §2.2): at round t it plays a regular arm only when
``(t − 1)·MV̂_{t−1}(A) − 2 ≥ (1 − α)·MV_0·t`` (``MV̂_0 := 0``, so round 1 plays ``x_0``); then
``m ← m + 1`` and it plays ``argmax_i MV̂_i + (5 + ρ)·sqrt(log(12 K m³) / (2 N_i))`` with
``MV̂_i = ρ μ̂_i − σ̂_i²`` (1/N_i variance), unpulled arms first (index +∞), ties to the lowest
index. Under ``ρ > 2/(α μ_0)`` the constraint holds on every sample path (Theorem 5).

**MV-UCB** (BASELINES.md §5): the same index with ``log(1/δ)``, ``δ = 1/T²``, under the root
instead of ``log(12 K m³)``, and no check (it never plays ``x_0``). Each arm is pulled once
first, in index order (index +∞ while unpulled).

The two differ only in their :class:`Rule` (the check and the log term), looked up in
:data:`RULES` when the policy is built. All statistics are incremental: per-arm counts, sums and
sums of squares; the path's running sum and sum of squares; no re-scan of the path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from ..model import Policy
from ..shapes import first_max, within

NAMES = ("mvcucb", "mvucb")
LABELS = {"mvcucb": "MV-CUCB", "mvucb": "MV-UCB"}
RISK_BOUND = 2.0  # the exploration risk of one pull, bounded by 2 for rewards in [0, 1] (App. F, eq. (3))


class MVParams(NamedTuple):
    """A policy's traced numbers (batch them on axis 0 for a lane or a sweep)."""

    alpha: jax.Array  # () tolerance α in (0, 1)
    mu0: jax.Array  # () default arm's reward μ_0 in (0, 1]
    rho: jax.Array  # () weight ρ > 0 of the mean in MV = ρ μ − σ²
    horizon: jax.Array  # () T, for MV-UCB's δ = 1/T²
    K: jax.Array  # () the true number of regular arms; arms from K on are padding, never played


class MVState(NamedTuple):
    """One policy's state after ``t`` rounds; every statistic is a running total."""

    t: jax.Array  # () int32 rounds played
    m: jax.Array  # () int32 regular pulls (MV-CUCB's counter m)
    counts: jax.Array  # (K,) int32 pulls N_i of each regular arm
    sums: jax.Array  # (K,) Σ rewards of arm i
    sumsqs: jax.Array  # (K,) Σ squared rewards of arm i
    path_sum: jax.Array  # () Σ_s r_s over every round, default pulls paying μ_0
    path_sumsq: jax.Array  # () Σ_s r_s²


class MVAction(NamedTuple):
    """What a policy plays, and its pull counts before the round (eq. (4)'s regret reads them)."""

    arm: jax.Array  # () int32 the regular arm played, −1 for the default arm x_0
    counts: jax.Array  # (K,) int32 pulls N_i of each regular arm before this round


class Rule(NamedTuple):
    """What sets a policy apart: when it may explore, and the log term ``L`` under its root."""

    explore: Callable[[MVParams, MVState], jax.Array]
    log_term: Callable[[MVParams, MVState], jax.Array]


def path_total_mv(s: jax.Array, q: jax.Array, t: jax.Array, rho: jax.Array) -> jax.Array:
    """``t·MV̂_t = ρ Σ r − (Σ r² − (Σ r)²/t)`` from the running sums; 0 at t = 0."""
    safe_t = jnp.maximum(t, 1).astype(s.dtype)
    return rho * s - (q - jnp.where(t > 0, s * s / safe_t, 0.0))


def baseline(p: MVParams, t: jax.Array, dtype: Any) -> jax.Array:
    """``(1 − α)·MV_0·t``: the constraint's right-hand side times t."""
    return (1.0 - p.alpha) * (p.rho * p.mu0) * t.astype(dtype)


def _cucb_explore(p: MVParams, s: MVState) -> jax.Array:
    """MV-CUCB's check ``(t − 1)·MV̂_{t−1}(A) − 2 ≥ (1 − α)·MV_0·t`` at round ``t = s.t + 1``."""
    prev_total = path_total_mv(s.path_sum, s.path_sumsq, s.t, p.rho)
    return prev_total - RISK_BOUND >= baseline(p, s.t + 1, s.sums.dtype)


def _always(p: MVParams, s: MVState) -> jax.Array:
    """MV-UCB has no check: it always plays a regular arm."""
    return jnp.asarray(True)


def _cucb_log(p: MVParams, s: MVState) -> jax.Array:
    """``log(12 K m³)`` with m counting this pull and K the true arm count."""
    m = (s.m + 1).astype(s.sums.dtype)
    return jnp.log(12.0 * p.K.astype(s.sums.dtype)) + 3.0 * jnp.log(m)


def _ucb_log(p: MVParams, s: MVState) -> jax.Array:
    """``log(1/δ) = 2 log T`` with δ = 1/T²."""
    return 2.0 * jnp.log(p.horizon.astype(s.sums.dtype))


RULES: dict[str, Rule] = {"mvcucb": Rule(_cucb_explore, _cucb_log), "mvucb": Rule(_always, _ucb_log)}


def init_state(K: int, dtype: Any) -> MVState:
    """The state before round 1: nothing pulled, every total 0."""
    zero = jnp.zeros((), dtype)
    izero = jnp.zeros((), jnp.int32)
    return MVState(t=izero, m=izero, counts=jnp.zeros((K,), jnp.int32), sums=jnp.zeros((K,), dtype),
                   sumsqs=jnp.zeros((K,), dtype), path_sum=zero, path_sumsq=zero)


def arm_index(rule: Rule, p: MVParams, s: MVState) -> jax.Array:
    """Optimistic mean-variance index of every regular arm, +∞ for unpulled ones, −∞ for padding.

    ``MV̂_i + (5 + ρ)·sqrt(L / (2 N_i))`` with the rule's ``L``; arms from ``p.K`` on are the padding
    of a compiled width (:mod:`safebandit_core.shapes`) and are never the argmax.
    """
    dtype = s.sums.dtype
    n = jnp.maximum(s.counts, 1).astype(dtype)
    mean = s.sums / n
    var = s.sumsqs / n - mean * mean
    mv_hat = p.rho * mean - var
    bonus = (5.0 + p.rho) * jnp.sqrt(rule.log_term(p, s) / (2.0 * n))
    index = jnp.where(s.counts > 0, mv_hat + bonus, jnp.inf)
    return jnp.where(within(p.K, s.counts.shape[0]), index, -jnp.inf)


def make_policy(name: str, K: int) -> Policy:
    """MV-CUCB (``"mvcucb"``) or MV-UCB (``"mvucb"``) over a compiled width of K arms (``p.K`` of them real).

    ``obs`` is the round's :class:`~safebandit_core.meanvar.env.Obs` (every arm's outcome), the
    action an :class:`MVAction` and the feedback the reward received (``μ_0`` on a default pull).
    ``report`` gives the path's ``slack`` (``t·MV̂_t − (1 − α)·MV_0·t``) and ``mv_path`` (``MV̂_t``).
    """
    rule = RULES[name]

    def init(p: MVParams) -> MVState:
        return init_state(K, p.mu0.dtype)

    def act(p: MVParams, s: MVState, obs: Any) -> tuple[MVAction, dict[str, jax.Array]]:
        explore = rule.explore(p, s)
        arm = first_max(arm_index(rule, p, s)).astype(jnp.int32)
        return MVAction(arm=jnp.where(explore, arm, -1).astype(jnp.int32), counts=s.counts), {}

    def update(p: MVParams, s: MVState, obs: Any, action: MVAction, reward: jax.Array) -> MVState:
        explore = action.arm >= 0
        hit = jnp.arange(K) == action.arm
        return MVState(t=s.t + 1, m=s.m + explore.astype(jnp.int32), counts=s.counts + hit.astype(jnp.int32),
                       sums=s.sums + jnp.where(hit, reward, 0.0),
                       sumsqs=s.sumsqs + jnp.where(hit, reward * reward, 0.0),
                       path_sum=s.path_sum + reward, path_sumsq=s.path_sumsq + reward * reward)

    def report(p: MVParams, s: MVState, action: MVAction, info: dict[str, jax.Array]) -> dict[str, jax.Array]:
        dtype = s.sums.dtype
        total = path_total_mv(s.path_sum, s.path_sumsq, s.t, p.rho)
        return {"slack": total - baseline(p, s.t, dtype), "mv_path": total / s.t.astype(dtype)}

    return Policy(init=init, act=act, update=update, report=report)
