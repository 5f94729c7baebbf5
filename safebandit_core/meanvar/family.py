"""The mean-variance model (MV-CBP) as a :class:`~safebandit_core.model.Family`: settings → one scan → a Run.

MV-CUCB and MV-UCB are two lanes of one composed model (:func:`make_model`): every chosen
policy plays the same Bernoulli outcomes of every seed in one scan. Per-round outputs:
``action`` (−1 for ``x_0``), ``default``, ``reward``, ``regret`` (round t's share of ``T·R̃_T``,
eq. (4), see :mod:`.env`), ``slack`` (``t·MV̂_t − (1 − α)·MV_0·t``) and ``mv_path`` (``MV̂_t``);
derived: ``cum_regret`` (``t·R̃_t``), ``default_pulls`` (default pulls up to t) and ``baseline``
(``(1 − α)·MV_0·t``). :func:`run_on_stream` replays one policy on a given T×K table through the
very same model.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from .. import device as dev
from .. import model as M
from .. import results, runner, shapes
from ..settings import SettingsError, check_choice
from .env import EnvParams, draw_bernoulli, make_env
from .fields import FIELDS
from .policies import LABELS, NAMES, MVParams, make_policy
from .settings import (
    MV_BASE,
    MVSettings,
    arm_means,
    arm_variances,
    assumption_ok,
    baseline_regret,
    check_mv_numbers,
    memory_bytes,
    warnings_for,
)

OUTPUT_FIELDS = ("action", "default", "reward", "slack", "mv_path", "regret", "cum_regret")
TRACED = ("alpha", "mu0", "rho")


@functools.cache
def make_model(policies: tuple[str, ...], K: int, source: str = "bernoulli") -> runner.Model:
    """One lane per policy over the same draws (``"bernoulli"``, or ``"table"`` for a given stream); cached.

    ``K`` is the compiled width; a run of K′ ≤ K arms pads the rest (the true K′ is traced), so the
    settings' K uses ``shapes.bucket(K′)`` and moving K inside a bucket reuses this model.
    """
    for p in policies:
        check_choice("policy", p, NAMES)
    lanes = [M.Lane(make_policy(p, K), 1) for p in policies]
    return M.compose(make_env(source), lanes, name=f"mv[{','.join(policies)}]K{K}:{source}")


def make_params(alpha: float, mu0: float, rho: float, horizon: int, means: Any, variances: Any, dtype: Any,
                n_lanes: int, table: Any = None, width: int | None = None) -> tuple[EnvParams, tuple[MVParams, ...]]:
    """``(env, (lane rows, ...))`` as arrays of ``dtype``; every lane gets the same one row.

    ``width`` ≥ K pads the arms (means, variances, table columns) with zeros up to a compiled width.
    """
    cast = lambda x: jnp.asarray(x, dtype=dtype)
    K = len(means)
    pad = lambda a: shapes.zero_pad(a, np.shape(a)[:-1] + (width or K,))
    row = MVParams(alpha=cast([alpha]), mu0=cast([mu0]), rho=cast([rho]), horizon=cast([horizon]), K=cast([K]))
    env = EnvParams(mu0=cast(mu0), rho=cast(rho), means=cast(pad(means)), variances=cast(pad(variances)), K=cast(K),
                    table=None if table is None else cast(pad(table)))
    return env, (row,) * n_lanes


def params(s: MVSettings, precision: str) -> tuple[EnvParams, tuple[MVParams, ...]]:
    """The traced params of one run of ``s`` on One-size-fits-all's arms (:func:`.settings.arm_means`)."""
    return make_params(s.alpha, s.mu0, s.rho, s.T, arm_means(s.K), arm_variances(s.K), dev.dtype_of(precision),
                       len(s.policies), width=shapes.bucket(s.K))


def _model(s: MVSettings, precision: str) -> runner.Model:
    return make_model(tuple(s.policies), shapes.bucket(s.K), "bernoulli")


def cumulative(regret: np.ndarray) -> np.ndarray:
    """``t·R̃_t``: the running sum of the per-round ``regret`` over the last axis, summed in float64."""
    return np.cumsum(regret, axis=-1, dtype=np.float64).astype(regret.dtype)


def derive(s: MVSettings, out: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``cum_regret`` (``t·R̃_t``, the running sum of ``regret``), ``default_pulls`` and ``baseline``."""
    n = out["regret"].shape[-1]
    line = (1.0 - s.alpha) * s.mv0 * np.arange(1, n + 1)
    return {"cum_regret": cumulative(out["regret"]), "default_pulls": np.cumsum(out["default"], axis=-1),
            "baseline": np.broadcast_to(line, out["regret"].shape)}


def summarize(s: MVSettings, out: dict[str, np.ndarray]) -> dict[str, Any]:
    """One policy's columns over the rounds done so far.

    ``default_pulls_mean``: default pulls per run; ``cum_regret_min``, ``cum_regret_max``: the range of
    ``T·R̃_T`` (eq. (4)) over seeds at the last round done (its mean and std are the shared
    ``cum_regret_mean``, ``cum_regret_std``); ``min_slack``: the smallest slack over every seed and round;
    ``assumption_ok``: ``ρ > 2/(α μ_0)``.
    """
    final = results.seed_finals({"regret": out["regret"]})["cum_regret"]  # the values cum_regret_mean averages
    return {"t_done": int(out["action"].shape[-1]), "default_pulls_mean": float(out["default"].sum(axis=-1).mean()),
            "cum_regret_min": float(final.min()), "cum_regret_max": float(final.max()),
            "min_slack": float(out["slack"].min()),
            "assumption_ok": assumption_ok(s.alpha, s.mu0, s.rho)}


def draw_stream(s: MVSettings, seed_index: int = 0) -> dict[str, np.ndarray]:
    """The T×K Bernoulli table seed ``seed_index`` of a run of ``s`` sees (for replays and cross-checks)."""
    dtype = dev.dtype_of(FAMILY.precision_of(s))
    key = runner.seed_keys(s.base_seed + seed_index, 1)[0]
    env_p = params(s, FAMILY.precision_of(s))[0]
    table = jax.vmap(lambda t: draw_bernoulli(env_p, key, t).outcomes[: s.K])(jnp.arange(s.T))
    return {"rewards": np.asarray(table, dtype=dtype)}


def _on_stream(s: MVSettings, policy: str, st: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return run_on_stream(policy, st["rewards"], alpha=s.alpha, mu0=s.mu0, rho=s.rho, means=arm_means(s.K),
                         variances=arm_variances(s.K))


def _sweep_base() -> MVSettings:
    """One-size-fits-all's synthetic mean-variance set-up."""
    return MV_BASE


FAMILY = M.Family(
    kind=MVSettings.KIND,
    settings_cls=MVSettings,
    example=MVSettings(K=5, T=150, seeds=2, rho=60.0, base_seed=1),
    labels=LABELS,
    policies=lambda s: tuple(s.policies),
    model=_model,
    params=params,
    axes=(
        M.Axis("alpha", "α", "tolerated loss", 0.01, 0.5, (0.05, 0.1, 0.15)),
        M.Axis("rho", "ρ", "weight of the mean in MV = ρμ − σ²", 0.5, 300.0, (10.0, 30.0, 60.0), log=True),
    ),
    traced=TRACED,
    scrub=(M.Scrub("rho", "ρ", "weight of the mean in MV = ρμ − σ²",
                   (0.5, 1.0, 2.0, 3.0, 5.0, 7.5, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0, 75.0, 100.0, 125.0,
                    150.0, 200.0, 250.0, 300.0),
                   (M.Panel("cum_regret", "T·R̃ₜ (mean-variance lost so far)", "T·R̃ {:,.1f}"),
                    M.Panel("slack", "slack t·MV̂ₜ − (1 − α)·MV₀·t (worst run)", "smallest slack {:,.2f}",
                            how="min", final="min"),
                    M.Panel("default_pulls", "default-arm pulls N₀(t)", "{:,.0f} default pulls"))),),
    derive=derive,
    summarize=summarize,
    memory_bytes=memory_bytes,
    warnings=warnings_for,
    baseline=lambda s: baseline_regret(s),
    stream=lambda s, i: draw_stream(s, i),
    on_stream=lambda s, p, st: _on_stream(s, p, st),
    regret_name="T·R̃ (cumulative MV regret)",
    baseline_name="baseline (1 − α)·MV₀",
    command="meanvar",
    cli="safebandit_core.meanvar.cli",
    command_aliases=("mv",),
    fields=FIELDS,
    sweep_base=_sweep_base,
    aliases=("mv",),
    untagged=True,
    audience="safebandit_core.meanvar.audience:MODEL",
)


def arm_table(run_: M.Run, cell: int | None = None) -> pd.DataFrame:
    """Every arm on the mean-variance plane, with its mean pulls per run for each policy.

    Rows: the default arm (``arm = −1``, mean ``μ_0``, variance 0) then arms 0..K−1. Columns:
    arm, kind (default/regular), mean, variance, mv (``ρ μ − σ²``), best (the regular arm with the
    highest MV), then ``pulls_<policy>`` for each policy. ``cell`` picks a grid cell.
    """
    s = run_.settings if cell is None else dataclasses.replace(run_.settings, **run_.cells[cell])
    mu = arm_means(s.K)
    var = arm_variances(s.K)
    mv = s.rho * mu - var
    table = pd.DataFrame({
        "arm": np.arange(-1, s.K),
        "kind": ["default"] + ["regular"] * s.K,
        "mean": np.concatenate([[s.mu0], mu]),
        "variance": np.concatenate([[0.0], var]),
        "mv": np.concatenate([[s.mv0], mv]),
        "best": np.concatenate([[False], np.arange(s.K) == int(np.argmax(mv))]),
    })
    for policy in run_.policies:
        actions = run_.policy_outputs(policy, cell)["action"]
        counts = np.bincount(actions.reshape(-1) + 1, minlength=s.K + 1)
        table[f"pulls_{policy}"] = counts / max(actions.shape[0], 1)
    return table


def _check_stream_args(policy: str, table: np.ndarray, alpha: float, mu0: float, rho: float) -> None:
    check_choice("policy", policy, NAMES)
    if table.ndim != 2 or table.shape[0] < 1 or table.shape[1] < 1:
        raise SettingsError("rewards", "a T×K table with T ≥ 1 and K ≥ 1", table.shape)
    if not (np.all(np.isfinite(table)) and np.all((table >= 0.0) & (table <= 1.0))):
        raise SettingsError("rewards", "a table of values in [0, 1]")
    check_mv_numbers(alpha, mu0, rho)


def _arm_truth(table: np.ndarray, means: Any, variances: Any) -> tuple[np.ndarray, np.ndarray]:
    """The arms' true means and variances: given, Bernoulli ``μ(1 − μ)`` from given means, or the table's."""
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


def run_on_stream(policy: str, rewards: Any, *, alpha: float, mu0: float, rho: float, means: Any = None,
                  variances: Any = None, device: str | None = "cpu", width: int | None = None
                  ) -> dict[str, np.ndarray]:
    """Run ``policy`` (``"mvcucb"`` or ``"mvucb"``) once on a given T×K table of outcomes.

    Row ``t`` holds every arm's outcome at round ``t + 1``; the table becomes the environment's
    ``table`` and its ``draw`` indexes it, so this is the batched code path on one stream.
    ``means``/``variances`` are the arms' true values for the regret: with ``means`` given,
    ``variances`` default to the Bernoulli ``μ(1 − μ)``; with neither, the table's column means
    and 1/T variances stand in. Float64 tables run in float64, float32 tables in float32.

    Returns length-T arrays ``action`` (−1 for ``x_0``), ``default``, ``reward``, ``slack``
    (``t·MV̂_t − (1 − α)·MV_0·t``), ``mv_path`` (``MV̂_t``), ``regret`` (per-round contribution)
    and ``cum_regret`` (``t·R̃_t`` of eq. (4)). ``device`` picks the JAX device (the CPU by
    default, where float64 is fast). ``width`` > K runs the table padded with never-played arms
    through the model compiled at that width (the padding check: the same run).
    """
    raw = np.asarray(rewards)
    dtype = np.float32 if raw.dtype == np.float32 else np.float64
    table = raw.astype(dtype)
    _check_stream_args(policy, table, alpha, mu0, rho)
    mu, var = _arm_truth(table, means, variances)
    T, K = table.shape
    width = shapes.stream_width("width", width, K)
    p = make_params(alpha, mu0, rho, T, mu, var, dtype, 1, table=table, width=width)
    outs = runner.run(make_model((policy,), width, "table"), p, jax.random.PRNGKey(0)[None], T, device=device)
    res = {k: v[0, 0] for k, v in outs.items()}
    res["cum_regret"] = cumulative(res["regret"])
    return {k: res[k] for k in OUTPUT_FIELDS}
