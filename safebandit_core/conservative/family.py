"""The conservative-bandit family of One-size-fits-all: every chosen policy in one scan, and one run on a given stream.

:data:`FAMILY` composes the environment (:mod:`.env`) with one lane per policy, so every policy of
a seed plays the same Bernoulli outcomes (common random numbers). Per round each policy reports
``action`` (arm index, −1 for x_0; for CCCB the lowest index of the super arm), ``default``,
``reward``, ``slack`` and ``regret`` (plus ``super``, the super arm as a bit mask, for CCCB).
:func:`run_on_stream` replays one policy on an explicit table of outcomes through the very same
composed model, so the cross-checks against a reference check the code the batched runs use.

The model is compiled for widths, not sizes: K arms run at ``shapes.bucket(K)`` and, for CLB and CCCB,
d coordinates at ``shapes.bucket(d)``; the instance is padded (mean 0, zero feature rows and columns)
and the true K and d are traced, so moving K or d inside a bucket reuses the compiled model.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import device as dev
from .. import model as M
from .. import runner, shapes
from ..results import aggregate
from ..settings import SettingsError, check_int_range, check_open_unit, check_positive
from .env import DRAWS, EnvParams, make_env
from .fields import FIELDS
from .instances import make_instance
from .policies import make_params, make_policy, policy_params
from .settings import (
    CMAB_BASE,
    FEATURES,
    LABELS,
    MAX_CCCB_ARMS,
    SUPER_ARMS,
    ConservativeSettings,
    check_lam,
    check_mu0,
    check_policy,
    default_S,
)

GRID_FIELDS = ("alpha", "mu0", "lam", "S", "L")
"""The settings a grid may vary in one compiled call (the rest fixes shapes or the stream)."""
BYTES_PER_ROUND = 160
"""Memory per policy, seed and round: the outputs plus the tidy frame built from them (generous)."""


@functools.cache
def make_model(problem: str, policies: tuple[str, ...], K: int, d: int | None = None, m: int = 1,
               source: str = "bernoulli") -> runner.Model:
    """One scan of every policy in ``policies`` (one lane each) on the same outcomes (cached per shape).

    ``K`` and ``d`` are compiled widths; a run of fewer arms or coordinates pads them (:func:`params`).
    """
    for p in policies:
        check_policy(problem, p)
    lanes = [M.Lane(make_policy(problem, p, K, d, m), 1) for p in policies]
    return M.compose(make_env(m, source), lanes, name=f"conservative-{problem}-{'-'.join(policies)}-{source}")


def _lanes(policy: Any, n: int) -> tuple[Any, ...]:
    """``n`` lanes of one row each of the same policy params."""
    row = jax.tree.map(lambda v: v[None], policy)
    return tuple(row for _ in range(n))


def widths(s: ConservativeSettings) -> tuple[int, int | None]:
    """The compiled widths of a run: ``bucket(K)`` arms and, for CLB and CCCB, ``bucket(d)`` coordinates."""
    return shapes.bucket(s.K), None if s.dim is None else shapes.bucket(s.dim)


def params(s: ConservativeSettings, precision: str) -> tuple[EnvParams, tuple[Any, ...]]:
    """``(env, (policy rows, ...))``: the traced params of one run (the instance of ``s``, padded to its widths)."""
    inst = make_instance(s)
    dtype = dev.dtype_of(precision)
    width, dim_width = widths(s)
    env = EnvParams(mu0=jnp.asarray(inst.mu0, dtype), means=jnp.asarray(shapes.zero_pad(inst.means, (width,)), dtype),
                    K=jnp.asarray(s.K, dtype))
    return env, _lanes(policy_params(s, inst, dtype, width, dim_width), len(s.policy_list()))


def _model(s: ConservativeSettings, precision: str) -> runner.Model:
    return make_model(s.problem, s.policy_list(), *widths(s), s.size)


def derive(s: ConservativeSettings, out: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Running totals: cumulative regret and reward, N_0(t) (``default_pulls``) and (1 − α)·μ_0·t (``baseline_line``).

    ``baseline_line`` uses the settings' α and μ_0 (of the base settings for a grid).
    """
    t = np.arange(1, out["regret"].shape[-1] + 1)
    line = (1 - s.alpha) * make_instance(s).mu0 * t
    return {
        "cum_regret": np.cumsum(out["regret"], axis=-1, dtype=np.float64),
        "default_pulls": np.cumsum(out["default"], axis=-1).astype(np.int64),
        "cum_reward": np.cumsum(out["reward"], axis=-1, dtype=np.float64),
        "baseline_line": np.broadcast_to(line, out["regret"].shape),
    }


def summarize(s: ConservativeSettings, out: dict[str, np.ndarray]) -> dict[str, Any]:
    """Default pulls N_0 at the last round (``default_pulls_mean``, ``_std``, and the 95 % interval ``_lo``, ``_hi``
    over seeds), the cumulative regret's range over seeds, the smallest slack over every seed and round, and the
    mean cumulative reward."""
    cum = np.sum(out["regret"], axis=-1, dtype=np.float64)
    n0 = np.sum(out["default"], axis=-1)
    return {
        **aggregate(n0, "default_pulls", 0.0),
        "cum_regret_min": float(np.min(cum)), "cum_regret_max": float(np.max(cum)),
        "min_slack": float(np.min(out["slack"])),
        "cum_reward_mean": float(np.mean(np.sum(out["reward"], axis=-1, dtype=np.float64))),
    }


def memory_bytes(s: ConservativeSettings) -> int:
    """A generous estimate of the memory a run needs: per-round outputs and every run's state (at its widths)."""
    K, dim = widths(s)
    d = dim or K
    state = 8 * (3 * d * d + 2 * K * d + 8 * K)
    return len(s.policy_list()) * s.seeds * (s.T * BYTES_PER_ROUND + state)


def resolved(s: ConservativeSettings) -> ConservativeSettings:
    """The settings with the instance's μ_0 and ‖θ*‖ bound filled in where they were left to the default."""
    inst = make_instance(s)
    return dataclasses.replace(s, mu0=inst.mu0, S=inst.S)


def baseline(s: ConservativeSettings) -> float:
    """μ_best − (1 − α)·μ_0: regret per round of a learner earning exactly the baseline (One-size-fits-all §5)."""
    inst = make_instance(s)
    return float(inst.best - (1 - s.alpha) * inst.mu0)


def draw_stream(s: ConservativeSettings, seed_index: int = 0) -> dict[str, np.ndarray]:
    """The T×K table of outcomes seed ``seed_index`` of a run of ``s`` sees (for replays and cross-checks)."""
    precision = FAMILY.precision_of(s)
    env_p = params(s, precision)[0]
    key = runner.seed_keys(s.base_seed + seed_index, 1)[0]
    table = jax.vmap(lambda t: DRAWS["bernoulli"](env_p, key, t).outcomes[: s.K])(jnp.arange(s.T))
    return {"rewards": np.asarray(table)}


def _on_stream(s: ConservativeSettings, policy: str, st: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    inst = make_instance(s)
    m = s.m if s.problem == "cccb" else None
    return run_on_stream(s.problem, policy, st["rewards"], alpha=s.alpha, mu0=inst.mu0, means=inst.means,
                         arms=inst.arms, m=m, S=inst.S, L=s.L, lam=s.lam, delta=1.0 / s.T)


def _sweep_base() -> ConservativeSettings:
    """One-size-fits-all's synthetic CMAB set-up with K = 24."""
    return dataclasses.replace(CMAB_BASE, K=24)


FAMILY = M.Family(
    kind=ConservativeSettings.KIND,
    settings_cls=ConservativeSettings,
    example=ConservativeSettings(problem="clb", K=6, d=3, T=150, seeds=2, alpha=0.1),
    labels=LABELS,
    policies=lambda s: s.policy_list(),
    model=_model,
    params=params,
    axes=(
        M.Axis("alpha", "α", "tolerated loss", 0.001, 0.5, (0.01, 0.05, 0.1), log=True),
        M.Axis("mu0", "μ₀", "default arm's reward (below 1; below m for a CCCB super arm)", 0.01, 9.99,
               (0.5, 0.6, 0.7)),
    ),
    traced=GRID_FIELDS,
    scrub=(M.Scrub("alpha", "α", "tolerated loss",
                   (0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.125, 0.15, 0.175, 0.2, 0.25,
                    0.3, 0.35, 0.4, 0.45, 0.5),
                   (M.Panel("cum_regret", "reward lost so far", "reward lost {:,.1f}"),
                    M.Panel("slack", "slack Σ r − (1 − α)·μ₀·t (worst run)", "smallest slack {:,.2f}", how="min",
                            final="min"),
                    M.Panel("default_pulls", "default-arm pulls N₀(t)", "{:,.0f} default pulls"))),),
    derive=derive,
    summarize=summarize,
    memory_bytes=memory_bytes,
    resolved=resolved,
    baseline=baseline,
    stream=lambda s, i: draw_stream(s, i),
    on_stream=lambda s, p, st: _on_stream(s, p, st),
    command="conservative",
    cli="safebandit_core.conservative.cli",
    fields=FIELDS,
    sweep_base=_sweep_base,
    aliases=("gencb",),
    untagged=True,
    audience="safebandit_core.conservative.audience:MODEL",
)


def decode_super(bits: np.ndarray, K: int, m: int) -> np.ndarray:
    """Bit masks (T,) → sorted base-arm indices (T, m); a row of −1 where x_0 was played."""
    held = (bits[:, None] >> np.arange(K)) & 1
    order = np.argsort(-held, axis=1, kind="stable")[:, :m]
    return np.where(bits[:, None] == 0, -1, np.sort(order, axis=1)).astype(np.int64)


def _float_array(name: str, value: Any, shape: tuple[int | None, ...], allowed: str) -> np.ndarray:
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise SettingsError(name, allowed) from None
    ok = a.ndim == len(shape) and all(s is None or s == n for s, n in zip(shape, a.shape, strict=True))
    if not (ok and np.isfinite(a).all()):
        raise SettingsError(name, allowed, f"array of shape {a.shape}")
    return a


def _true_means(problem: str, K: int, means: Any, arms: Any, theta: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """(means, arms) of a stream run: CMAB needs the means; CLB and CCCB the arms and θ* (or the means)."""
    if not FEATURES[problem]:
        if means is None:
            raise SettingsError("means", f"the K = {K} true arm means (needed for the regret)")
        return _float_array("means", means, (K,), f"a length-{K} array of finite floats"), None
    if arms is None:
        raise SettingsError("arms", f"a K×d array of features with K = {K}")
    x = _float_array("arms", arms, (K, None), f"a {K}×d array of finite floats with d >= 1")
    d = x.shape[1]
    if d < 1:
        raise SettingsError("arms", f"a {K}×d array of finite floats with d >= 1", f"shape {x.shape}")
    if means is not None:
        return _float_array("means", means, (K,), f"a length-{K} array of finite floats"), x
    if theta is not None:
        return x @ _float_array("theta", theta, (d,), f"a length-{d} array of finite floats"), x
    raise SettingsError("theta", f"a length-{d} array (or pass means) to measure the regret")


def _stream_widths(K: int, d: int | None, width: int | None, dim_width: int | None) -> tuple[int, int | None]:
    """The widths of a stream run: K and d themselves unless given (at least K and d; no ``dim_width`` on CMAB)."""
    width = shapes.stream_width("width", width, K)
    if d is None:
        if dim_width is not None:
            raise SettingsError("dim_width", "None on CMAB (its arms have no features)", dim_width)
        return width, None
    return width, shapes.stream_width("dim_width", dim_width, d)


def run_on_stream(
    problem: str,
    policy: str,
    rewards: Any,
    *,
    alpha: float,
    mu0: float,
    means: Any = None,
    arms: Any = None,
    theta: Any = None,
    m: int | None = None,
    S: float | None = None,
    L: float = 1.0,
    lam: float = 1.0,
    delta: float | None = None,
    device: str | None = "cpu",
    width: int | None = None,
    dim_width: int | None = None,
) -> dict[str, np.ndarray]:
    """One run of a conservative policy on an explicit T×K table of outcomes, in float64.

    ``problem`` is ``"cmab"``, ``"clb"`` or ``"cccb"``. ``rewards[t, k]`` is what base arm k pays if
    played at round t + 1 (any floats in [0, 1]). CMAB needs ``means`` (K,); CLB and CCCB need
    ``arms`` (K, d) and ``theta`` (d,) or ``means``; CCCB needs ``m``, the super arm size. ``S``
    defaults to √K for CMAB (one-hot CLUCB) and 1 otherwise; ``delta`` to 1/T. Returns length-T
    arrays ``action`` (−1 for x_0; CCCB: lowest index of the super arm), ``default``, ``reward``,
    ``slack``, ``regret`` and, for CCCB, ``super_arm`` (T, m) sorted, a row of −1 for x_0. Runs the
    composed model of the batched simulations with the ``"table"`` source. ``width`` > K (and, for
    CLB and CCCB, ``dim_width`` > d) runs the same table padded with never-played arms (and zero
    feature coordinates) through the model compiled at those widths: the padding check, the same run.
    Bad arguments raise SettingsError naming them.
    """
    check_policy(problem, policy)
    table = _float_array("rewards", rewards, (None, None), "a T×K array of finite floats with T >= 1 and K >= 2")
    T, K = table.shape
    if T < 1 or K < 2:
        raise SettingsError("rewards", "a T×K array of finite floats with T >= 1 and K >= 2", f"shape {table.shape}")
    check_open_unit("alpha", alpha)
    check_positive("L", L)
    check_lam(lam, L)
    S = default_S(problem, K) if S is None else S
    check_positive("S", S)
    delta = 1.0 / T if delta is None else delta
    if not (isinstance(delta, (int, float)) and 0.0 < delta <= 1.0):
        raise SettingsError("delta", "in (0, 1]", delta)
    if SUPER_ARMS[problem]:
        if K > MAX_CCCB_ARMS:
            raise SettingsError("rewards", f"at most {MAX_CCCB_ARMS} base arms (columns) for CCCB", K)
        check_int_range("m", m, 1, K)
    elif m not in (None, 1):
        raise SettingsError("m", "None or 1 outside CCCB", m)
    size = m if SUPER_ARMS[problem] else 1
    check_mu0(problem, mu0, size)
    mu, x = _true_means(problem, K, means, arms, theta)
    width, dim_width = _stream_widths(K, None if x is None else x.shape[1], width, dim_width)
    model = make_model(problem, (policy,), width, dim_width, size, "table")
    f64 = jnp.float64
    env = EnvParams(mu0=jnp.asarray(mu0, f64), means=jnp.asarray(shapes.zero_pad(mu, (width,)), f64),
                    K=jnp.asarray(K, f64), table=jnp.asarray(shapes.zero_pad(table, (T, width)), f64))
    pol = make_params(alpha=alpha, mu0=mu0, K=K, arms=x, lam=lam, S=S, L=L, delta=delta, dtype=f64, width=width,
                      dim_width=dim_width)
    out = runner.run(model, (env, _lanes(pol, 1)), runner.seed_keys(0, 1), T, device=device)
    res = {k: np.asarray(v[0, 0]) for k, v in out.items()}
    result = {
        "action": res["action"].astype(np.int64),
        "default": res["default"].astype(bool),
        "reward": res["reward"].astype(np.float64),
        "slack": res["slack"].astype(np.float64),
        "regret": res["regret"].astype(np.float64),
    }
    if SUPER_ARMS[problem]:
        result["super_arm"] = decode_super(res["super"].astype(np.int64), K, size)
    return result
