"""Conservative mean-variance bandits (seed 001 §4): MV-CUCB (Algorithm 2) and MV-UCB.

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

**MV-UCB** (Sani, Lazaric and Munos 2012; BASELINES.md §5): the same index with
``log(1/δ)``, ``δ = 1/T²``, under the root instead of ``log(12 K m³)``, and no check (it never
plays ``x_0``). Each arm is pulled once first, in index order (index +∞ while unpulled).

**Regret** — the mean-variance pseudo-regret of eq. (4), with ``x_*`` the best regular arm by
true ``MV`` and the default arm counted as an arm of mean ``μ_0`` and variance 0::

    R̃_T = (1/T) Σ_{x ≠ x_*} N_{x,T} Δ_x  +  (2/T²) Σ_x Σ_{y ≠ x} N_{x,T} N_{y,T} Γ_{x,y}²,
    Δ_x = MV_{x_*} − MV_x,  Γ_{x,y} = μ_x − μ_y,  x, y over the K regular arms and x_0.

The quantity reported is the cumulative form ``T·R̃_T`` that the paper's figures plot. Since
``Σ_x Σ_y N_x N_y (μ_x − μ_y)² = 2 T Σ_s (μ_{x_s} − μ̄_T)²`` (μ̄_T the mean of the played arms'
true means), the "exploration risk" term of eq. (4) is 4× the variance of the mixture of the
played means, and::

    T·R̃_T = Σ_{s ≤ T} Δ_{x_s}  +  4 · M2_T,      M2_T = Σ_{s ≤ T} (μ_{x_s} − μ̄_T)².

``M2`` is updated by Welford's rule, ``M2_t = M2_{t−1} + (μ_{x_t} − μ̄_{t−1})(μ_{x_t} − μ̄_t)``
(the same value as the double sum, without its cancellation), so the per-round contribution
``regret_t = Δ_{x_t} + 4 (μ_{x_t} − μ̄_{t−1})(μ_{x_t} − μ̄_t)`` is ≥ Δ_{x_t} and its cumulative sum
is ``T·R̃_T`` at every T. ``Δ_0 = MV_* − ρ μ_0`` is reported as it is (negative when the
default arm beats every regular arm).

All statistics are incremental: per-arm counts, sums and sums of squares; the path's running
sum and sum of squares; no re-scan of the path.
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ..runner import Model, run
from ..settings import SettingsError, check_choice, check_open_unit, check_positive

POLICIES = ("mvcucb", "mvucb")
OUTPUT_FIELDS = ("action", "default", "reward", "slack", "mv_path", "regret", "cum_regret")
RISK_BOUND = 2.0  # the exploration risk of one pull, bounded by 2 for rewards in [0, 1] (App. F, eq. (3))


class MVParams(NamedTuple):
    """Traced settings of one run (batch them on axis 0 for a sweep)."""

    alpha: jax.Array  # () tolerance α in (0, 1)
    mu0: jax.Array  # () default arm's reward μ_0 in (0, 1]
    rho: jax.Array  # () weight ρ > 0 of the mean in MV = ρ μ − σ²
    horizon: jax.Array  # () T, for MV-UCB's δ = 1/T²
    means: jax.Array  # (K,) true arm means μ_i (regret, Bernoulli draws)
    variances: jax.Array  # (K,) true arm variances σ_i² (regret only)
    table: jax.Array | None = None  # (T, K) pre-drawn outcomes for stream runs; None in simulation


class MVState(NamedTuple):
    """One policy's state after ``t`` rounds; every statistic is a running total."""

    t: jax.Array  # () int32 rounds played
    m: jax.Array  # () int32 regular pulls (MV-CUCB's counter m)
    counts: jax.Array  # (K,) int32 pulls N_i of each regular arm
    sums: jax.Array  # (K,) Σ rewards of arm i
    sumsqs: jax.Array  # (K,) Σ squared rewards of arm i
    path_sum: jax.Array  # () Σ_s r_s over every round, default pulls paying μ_0
    path_sumsq: jax.Array  # () Σ_s r_s²
    gap_sum: jax.Array  # () Σ_s Δ_{x_s}
    mix_mean: jax.Array  # () μ̄_t, mean of the played arms' true means
    mix_m2: jax.Array  # () M2_t = Σ_s (μ_{x_s} − μ̄_t)²


def assumption_ok(alpha: float, mu0: float, rho: float) -> bool:
    """True when MV-CUCB's guarantee applies: ``ρ > 2/(α μ_0)``, i.e. ``α·MV_0 > 2`` (Theorem 5)."""
    return bool(rho > RISK_BOUND / (alpha * mu0))


def assumption_text(alpha: float, mu0: float, rho: float) -> str:
    """One plain sentence saying whether the mean-variance constraint is guaranteed."""
    need = RISK_BOUND / (alpha * mu0)
    if assumption_ok(alpha, mu0, rho):
        return (f"The constraint is guaranteed on every run: ρ = {rho:g} exceeds "
                f"2/(α·μ₀) = {need:.4g}.")
    return (f"The constraint is NOT guaranteed: ρ must exceed 2/(α·μ₀) = {need:.4g}, "
            f"but ρ = {rho:g}; MV-CUCB still runs, and its slack may go negative.")


def path_total_mv(s: jax.Array, q: jax.Array, t: jax.Array, rho: jax.Array) -> jax.Array:
    """``t·MV̂_t = ρ Σ r − (Σ r² − (Σ r)²/t)`` from the running sums; 0 at t = 0."""
    safe_t = jnp.maximum(t, 1).astype(s.dtype)
    return rho * s - (q - jnp.where(t > 0, s * s / safe_t, 0.0))


def init_state(K: int, dtype: Any) -> MVState:
    """The state before round 1: nothing pulled, every total 0."""
    zero = jnp.zeros((), dtype)
    izero = jnp.zeros((), jnp.int32)
    return MVState(t=izero, m=izero, counts=jnp.zeros((K,), jnp.int32), sums=jnp.zeros((K,), dtype),
                   sumsqs=jnp.zeros((K,), dtype), path_sum=zero, path_sumsq=zero, gap_sum=zero,
                   mix_mean=zero, mix_m2=zero)


def arm_index(policy: str, params: MVParams, state: MVState) -> jax.Array:
    """Optimistic mean-variance index of every regular arm, +∞ for unpulled ones.

    ``MV̂_i + (5 + ρ)·sqrt(L / (2 N_i))`` with ``L = log(12 K m³)`` (MV-CUCB, m counting this
    pull) or ``L = log(1/δ) = 2 log T`` (MV-UCB).
    """
    dtype = state.sums.dtype
    K = state.counts.shape[0]
    n = jnp.maximum(state.counts, 1).astype(dtype)
    mean = state.sums / n
    var = state.sumsqs / n - mean * mean
    mv_hat = params.rho * mean - var
    if policy == "mvcucb":
        m = (state.m + 1).astype(dtype)
        log_term = math.log(12.0 * K) + 3.0 * jnp.log(m)
    else:
        log_term = 2.0 * jnp.log(params.horizon.astype(dtype))
    width = (5.0 + params.rho) * jnp.sqrt(log_term / (2.0 * n))
    return jnp.where(state.counts > 0, mv_hat + width, jnp.inf)


def policy_step(policy: str, params: MVParams, state: MVState, outcomes: jax.Array
                ) -> tuple[MVState, dict[str, jax.Array]]:
    """Play one round of ``policy`` against this round's outcomes of the K regular arms."""
    dtype = state.sums.dtype
    t = state.t + 1
    mv0 = params.rho * params.mu0
    baseline = (1.0 - params.alpha) * mv0 * t.astype(dtype)
    if policy == "mvcucb":
        prev_total = path_total_mv(state.path_sum, state.path_sumsq, state.t, params.rho)
        explore = prev_total - RISK_BOUND >= baseline
    else:
        explore = jnp.asarray(True)
    arm = jnp.argmax(arm_index(policy, params, state)).astype(jnp.int32)
    reward = jnp.where(explore, outcomes[arm], params.mu0).astype(dtype)
    hit = (jnp.arange(state.counts.shape[0]) == arm) & explore

    path_sum = state.path_sum + reward
    path_sumsq = state.path_sumsq + reward * reward
    total = path_total_mv(path_sum, path_sumsq, t, params.rho)

    mv_true = params.rho * params.means - params.variances
    mu_played = jnp.where(explore, params.means[arm], params.mu0)
    gap = jnp.max(mv_true) - jnp.where(explore, mv_true[arm], mv0)
    d_before = mu_played - state.mix_mean
    mix_mean = state.mix_mean + d_before / t.astype(dtype)
    risk = d_before * (mu_played - mix_mean)
    gap_sum = state.gap_sum + gap
    mix_m2 = state.mix_m2 + risk

    new = MVState(t=t, m=state.m + explore.astype(jnp.int32), counts=state.counts + hit.astype(jnp.int32),
                  sums=state.sums + jnp.where(hit, reward, 0.0),
                  sumsqs=state.sumsqs + jnp.where(hit, reward * reward, 0.0),
                  path_sum=path_sum, path_sumsq=path_sumsq, gap_sum=gap_sum, mix_mean=mix_mean, mix_m2=mix_m2)
    out = {
        "action": jnp.where(explore, arm, -1),
        "default": jnp.logical_not(explore),
        "reward": reward,
        "slack": total - baseline,
        "mv_path": total / t.astype(dtype),
        "regret": gap + 4.0 * risk,
        "cum_regret": gap_sum + 4.0 * mix_m2,
    }
    return new, out


def draw_table(params: MVParams, key: jax.Array, t: jax.Array) -> jax.Array:
    """Round ``t`` (0-based) of a pre-drawn stream: row ``t`` of ``params.table``."""
    return params.table[t]


def draw_bernoulli(params: MVParams, key: jax.Array, t: jax.Array) -> jax.Array:
    """Round ``t`` of a Bernoulli stream: every arm's outcome, from ``fold_in(key, t)``."""
    u = jax.random.uniform(jax.random.fold_in(key, t), params.means.shape, dtype=params.means.dtype)
    return (u < params.means).astype(params.means.dtype)


@functools.cache
def make_model(policies: tuple[str, ...], K: int, source: str = "bernoulli") -> Model:
    """The runner's model: every policy in ``policies`` plays the same stream, in one scan.

    ``source`` is ``"bernoulli"`` (outcomes drawn per round) or ``"table"`` (``params.table``).
    Output keys are ``"<policy>/<field>"`` with fields :data:`OUTPUT_FIELDS`. Cached, so a
    compiled runner is reused across calls with the same shapes.
    """
    for p in policies:
        check_choice("policy", p, POLICIES)
    check_choice("source", source, ("bernoulli", "table"))

    def init(params: MVParams, key: jax.Array) -> tuple[MVState, ...]:
        return tuple(init_state(K, params.mu0.dtype) for _ in policies)

    def step(params: MVParams, carry: tuple[MVState, ...], obs: jax.Array):
        states, outs = [], {}
        for policy, state in zip(policies, carry, strict=True):
            state, out = policy_step(policy, params, state, obs)
            states.append(state)
            outs.update({f"{policy}/{k}": v for k, v in out.items()})
        return tuple(states), outs

    draw = draw_table if source == "table" else draw_bernoulli
    return Model(init=init, draw=draw, step=step, name=f"mv[{','.join(policies)}]K{K}:{source}")


def make_params(alpha: float, mu0: float, rho: float, horizon: int, means: Any, variances: Any,
                dtype: Any, table: Any = None) -> MVParams:
    """Build :class:`MVParams` as arrays of ``dtype`` (the run's precision)."""
    def cast(x: Any) -> jax.Array:
        return jnp.asarray(x, dtype=dtype)

    return MVParams(alpha=cast(alpha), mu0=cast(mu0), rho=cast(rho), horizon=cast(horizon),
                    means=cast(means), variances=cast(variances),
                    table=None if table is None else cast(table))


def _check_stream_args(policy: str, table: np.ndarray, alpha: float, mu0: float, rho: float) -> None:
    check_choice("policy", policy, POLICIES)
    if table.ndim != 2 or table.shape[0] < 1 or table.shape[1] < 1:
        raise SettingsError("rewards", "a T×K table with T ≥ 1 and K ≥ 1", table.shape)
    if not (np.all(np.isfinite(table)) and np.all((table >= 0.0) & (table <= 1.0))):
        raise SettingsError("rewards", "a table of values in [0, 1]")
    check_open_unit("alpha", alpha)
    check_positive("mu0", mu0)
    if mu0 > 1.0:
        raise SettingsError("mu0", "in (0, 1]", mu0)
    check_positive("rho", rho)


def _arm_truth(table: np.ndarray, means: Any, variances: Any) -> tuple[np.ndarray, np.ndarray]:
    K = table.shape[1]
    if means is None:
        if variances is not None:
            raise SettingsError("variances", "given only together with means")
        return table.mean(axis=0), table.var(axis=0)
    mu = np.asarray(means, dtype=np.float64)
    if mu.shape != (K,) or not np.all((mu >= 0.0) & (mu <= 1.0)):
        raise SettingsError("means", f"K = {K} numbers in [0, 1]")
    if variances is None:
        return mu, mu * (1.0 - mu)
    var = np.asarray(variances, dtype=np.float64)
    if var.shape != (K,) or not np.all(np.isfinite(var) & (var >= 0.0)):
        raise SettingsError("variances", f"K = {K} finite numbers ≥ 0")
    return mu, var


def run_mv_on_stream(policy: str, rewards: Any, *, alpha: float, mu0: float, rho: float,
                     means: Any = None, variances: Any = None, device: str | None = "cpu"
                     ) -> dict[str, np.ndarray]:
    """Run ``policy`` (``"mvcucb"`` or ``"mvucb"``) once on a pre-drawn T×K table of outcomes.

    Row ``t`` holds every arm's outcome at round ``t + 1``; the table becomes ``params.table``
    and the runner's ``draw`` indexes it, so this is the batched code path on one stream.
    ``means``/``variances`` are the arms' true values for the regret: with ``means`` given,
    ``variances`` default to the Bernoulli ``μ(1 − μ)``; with neither, the table's column means
    and 1/T variances stand in. Float64 tables run in float64, float32 tables in float32.

    Returns length-T arrays ``action`` (−1 for ``x_0``), ``default``, ``reward``, ``slack``
    (``t·MV̂_t − (1 − α)·MV_0·t``), ``mv_path`` (``MV̂_t``), ``regret`` (per-round contribution)
    and ``cum_regret`` (``t·R̃_t`` of eq. (4)); see the module docstring. ``device`` picks the
    JAX device (the CPU by default, where float64 is fast).
    """
    raw = np.asarray(rewards)
    dtype = np.float32 if raw.dtype == np.float32 else np.float64
    table = raw.astype(dtype)
    _check_stream_args(policy, table, alpha, mu0, rho)
    mu, var = _arm_truth(table, means, variances)
    T, K = table.shape
    params = make_params(alpha, mu0, rho, T, mu, var, dtype, table=table)
    model = make_model((policy,), K, "table")
    keys = jax.random.PRNGKey(0)[None]
    outs = run(model, params, keys, T, device=device)
    return {k: outs[f"{policy}/{k}"][0] for k in OUTPUT_FIELDS}
