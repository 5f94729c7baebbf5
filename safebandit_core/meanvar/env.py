"""The mean-variance environment of One-size-fits-all §4–5: Bernoulli arms (or a given table) and eq. (4).

Round ``t``'s outcomes of all K regular arms are drawn from ``fold_in(key, t)`` (Bernoulli with
the true means), or read from row ``t`` of a given T×K table; every policy of a run faces the
same outcomes (common random numbers). A pull of arm ``i`` pays its outcome, a pull of the
default arm ``x_0`` pays ``μ_0``. The true means and variances are the environment's params.

**Regret** — the mean-variance pseudo-regret of eq. (4), with ``x_*`` the best regular arm by
true ``MV`` and the default arm counted as an arm of mean ``μ_0`` and variance 0::

    R̃_T = (1/T) Σ_{x ≠ x_*} N_{x,T} Δ_x  +  (2/T²) Σ_x Σ_{y ≠ x} N_{x,T} N_{y,T} Γ_{x,y}²,
    Δ_x = MV_{x_*} − MV_x,  Γ_{x,y} = μ_x − μ_y,  x, y over the K regular arms and x_0.

The quantity reported is the cumulative form ``T·R̃_T`` that the paper's figures plot. Since
``Σ_x Σ_y N_x N_y (μ_x − μ_y)² = 2 T Σ_s (μ_{x_s} − μ̄_T)²`` (μ̄_T the mean of the played arms'
true means), the "exploration risk" term of eq. (4) is 4× the variance of the mixture of the
played means, and::

    T·R̃_T = Σ_{s ≤ T} Δ_{x_s}  +  4 · M2_T,      M2_T = Σ_{s ≤ T} (μ_{x_s} − μ̄_T)².

``M2`` grows by Welford's rule, ``M2_t = M2_{t−1} + (μ_{x_t} − μ̄_{t−1})(μ_{x_t} − μ̄_t)`` (the same
value as the double sum, without its cancellation), so the per-round contribution
``regret_t = Δ_{x_t} + 4 (μ_{x_t} − μ̄_{t−1})(μ_{x_t} − μ̄_t)`` is ≥ Δ_{x_t} and its cumulative sum
is ``T·R̃_T`` at every T. The environment keeps no per-policy state, so ``μ̄_{t−1}`` is the
count-weighted mean ``(Σ_i N_i μ_i + N_0 μ_0)/(t − 1)`` of the pull counts the action carries.
``Δ_0 = MV_* − ρ μ_0`` is reported as it is (negative when the default arm beats every regular arm).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from ..model import Env
from ..settings import check_choice
from ..shapes import within
from .policies import MVAction


class EnvParams(NamedTuple):
    """The environment's numbers (traced) and, for a given stream, its table."""

    mu0: jax.Array  # () the default arm's reward μ_0
    rho: jax.Array  # () weight ρ of the mean in MV = ρ μ − σ²
    means: jax.Array  # (K,) true arm means μ_i (Bernoulli draws, regret)
    variances: jax.Array  # (K,) true arm variances σ_i² (regret only)
    K: jax.Array  # () the true arm count: arms from K on pad a compiled width (mean 0, never played)
    table: jax.Array | None = None  # (T, K) given outcomes; None when drawn


class Obs(NamedTuple):
    """One round: every regular arm's outcome, and the round's 0-based index."""

    outcomes: jax.Array  # (K,) outcomes in [0, 1]
    t: jax.Array  # () int, 0-based round (= rounds played before it)


def draw_bernoulli(p: EnvParams, key: jax.Array, t: jax.Array) -> Obs:
    """Round ``t`` of a Bernoulli stream: every arm's outcome, from ``fold_in(key, t)``."""
    u = jax.random.uniform(jax.random.fold_in(key, t), p.means.shape, dtype=p.means.dtype)
    return Obs((u < p.means).astype(p.means.dtype), t)


def draw_table(p: EnvParams, key: jax.Array, t: jax.Array) -> Obs:
    """Round ``t`` (0-based) of a given stream: row ``t`` of ``p.table``."""
    return Obs(p.table[t], t)


DRAWS = {"bernoulli": draw_bernoulli, "table": draw_table}


def reward_of(p: EnvParams, obs: Obs, action: MVAction) -> jax.Array:
    """The reward received: the played arm's outcome, or ``μ_0`` for the default arm."""
    arm = jnp.maximum(action.arm, 0)
    return jnp.where(action.arm >= 0, obs.outcomes[arm], p.mu0).astype(p.means.dtype)


def regret_contribution(p: EnvParams, obs: Obs, action: MVAction) -> jax.Array:
    """``Δ_{x_t} + 4 (μ_{x_t} − μ̄_{t−1})(μ_{x_t} − μ̄_t)``: round t's share of ``T·R̃_T`` (eq. (4))."""
    dtype = p.means.dtype
    explore = action.arm >= 0
    arm = jnp.maximum(action.arm, 0)
    mv_true = p.rho * p.means - p.variances
    mv0 = p.rho * p.mu0
    mu_played = jnp.where(explore, p.means[arm], p.mu0)
    best = jnp.max(jnp.where(within(p.K, mv_true.shape[0]), mv_true, -jnp.inf))
    gap = best - jnp.where(explore, mv_true[arm], mv0)
    n_regular = jnp.sum(action.counts)
    played_sum = jnp.sum(action.counts.astype(dtype) * p.means) + (obs.t - n_regular).astype(dtype) * p.mu0
    mix_before = jnp.where(obs.t > 0, played_sum / jnp.maximum(obs.t, 1).astype(dtype), 0.0)
    d_before = mu_played - mix_before
    mix_after = mix_before + d_before / (obs.t + 1).astype(dtype)
    return gap + 4.0 * (d_before * (mu_played - mix_after))


def make_env(source: str = "bernoulli") -> Env:
    """The environment drawing Bernoulli outcomes (``"bernoulli"``) or reading ``p.table`` (``"table"``)."""
    check_choice("source", source, tuple(DRAWS))
    draw = DRAWS[source]

    def init(p: EnvParams, key: jax.Array) -> tuple[()]:
        return ()

    def feedback(p: EnvParams, truth: tuple[()], obs: Obs, action: MVAction) -> jax.Array:
        return reward_of(p, obs, action)

    def report(p: EnvParams, truth: tuple[()], obs: Obs, action: MVAction, reward: jax.Array
               ) -> dict[str, jax.Array]:
        return {"action": action.arm, "default": action.arm < 0, "reward": reward,
                "regret": regret_contribution(p, obs, action)}

    return Env(init=init, draw=draw, feedback=feedback, report=report)
