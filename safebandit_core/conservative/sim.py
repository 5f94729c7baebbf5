"""Batched simulations of seed 001's conservative bandit problems (CMAB, CLB, CCCB), for pages, CLI and sweeps.

Settings are a frozen :class:`ConservativeSettings`; :func:`make_instance` builds the problem
instance from them (deterministically from ``base_seed``); :func:`simulate` runs every chosen
policy over ``seeds`` Bernoulli reward streams with the one runner and yields partial results;
:func:`tidy_frame` and :func:`summary` turn results into tidy pandas frames; :func:`sweep` runs a
grid of (α, μ_0) in one compiled call per policy (``runner.run(..., grid=True)``).

Instances (see :func:`describe_instance` for the sentence a page shows):

- CMAB: seed 001's preset, K Bernoulli arms with means in equal steps from 0.8 down to 0.2.
- CLB and CCCB (d ≥ 2): with ``u_i``, ``v`` uniform on the unit sphere of R^{d−1}, radii
  ``ρ_i ~ U[1/2, 1]`` and ``s = min(S, 1/L)``, the arms are ``x_i = ρ_i L (1, u_i)/√2`` and
  ``θ* = s (1, v)/√2``, so ``‖x_i‖ ≤ L``, ``‖θ*‖ ≤ S`` and every mean
  ``⟨x_i, θ*⟩ = ρ_i L s (1 + ⟨u_i, v⟩)/2`` lies in [0, 1] (the first coordinate acts as an
  intercept). For d = 1: ``x_i = L ρ_i`` with ``ρ_i ~ U[0, 1]`` and ``θ* = s``. The random radii keep
  the arms' norms distinct, so the first optimistic pick is not decided by rounding.
- μ_0, when not given: ``μ_best − (μ_best − μ_worst)/6`` rounded to 3 decimals, with μ_best and μ_worst
  the best and worst (super) arm means (for CCCB, the sums of the top-m and bottom-m base means).
  On seed 001's CMAB means this is its μ_0 = 0.7.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from .. import device as _device
from .. import runner
from ..settings import SettingsError, check_choice, check_int_range, check_open_unit, check_positive
from .gencb import Params
from .stream import (
    BASELINE,
    LABELS,
    MAX_CCCB_ARMS,
    POLICIES,
    PROBLEMS,
    UNCONSTRAINED,
    check_lam,
    check_mu0,
    default_S,
    make_model,
    make_params,
    mu0_range,
)

# Memory per policy, seed and round: the outputs plus the tidy frame built from them (generous).
BYTES_PER_ROUND = 160
MAX_T = 1_000_000
MAX_SEEDS = 1_000
MAX_K = 1_000
MAX_D = 64


@dataclasses.dataclass(frozen=True)
class ConservativeSettings:
    """One conservative-bandit experiment (seed 001 §5). ``None`` fields take the documented defaults.

    ``policies``: empty means GenCB, the problem's expected-reward baseline and its unconstrained
    policy. ``d`` (feature dimension) is used by CLB and CCCB, ``m`` (super arm size) by CCCB.
    ``mu0`` None: derived from the instance (module docstring). ``S`` None: √K for CMAB, 1 otherwise.
    ``precision`` None: the device's default (float64 on the CPU, float32 on a GPU).
    """

    KIND: ClassVar[str] = "conservative"

    problem: str = "cmab"
    policies: tuple[str, ...] = ()
    K: int = 72
    d: int = 5
    m: int = 2
    alpha: float = 0.05
    mu0: float | None = None
    T: int = 10_000
    seeds: int = 5
    base_seed: int = 0
    lam: float = 1.0
    S: float | None = None
    L: float = 1.0
    precision: str | None = None

    def policy_list(self) -> tuple[str, ...]:
        """The policies to run (the default trio when ``policies`` is empty)."""
        if self.policies:
            return tuple(self.policies)
        return ("gencb", BASELINE[self.problem], UNCONSTRAINED[self.problem])

    @property
    def size(self) -> int:
        """Arms per play: m for CCCB, 1 otherwise."""
        return self.m if self.problem == "cccb" else 1

    @property
    def dim(self) -> int | None:
        """Feature dimension, None for CMAB."""
        return None if self.problem == "cmab" else self.d

    def validate(self) -> ConservativeSettings:
        """Raise :class:`SettingsError` naming the first field out of its allowed range; else return self."""
        check_choice("problem", self.problem, PROBLEMS)
        if not isinstance(self.policies, tuple):
            raise SettingsError("policies", "a tuple of policy names", self.policies)
        for p in self.policies:
            check_choice("policies", p, POLICIES[self.problem])
        if len(set(self.policies)) != len(self.policies):
            raise SettingsError("policies", "names without repeats", self.policies)
        check_int_range("K", self.K, 2, MAX_CCCB_ARMS if self.problem == "cccb" else MAX_K)
        if self.problem != "cmab":
            check_int_range("d", self.d, 1, MAX_D)
        if self.problem == "cccb":
            check_int_range("m", self.m, 1, self.K)
        check_open_unit("alpha", self.alpha)
        if self.mu0 is not None:
            check_mu0(self.problem, self.mu0, self.size)
        check_int_range("T", self.T, 1, MAX_T)
        check_int_range("seeds", self.seeds, 1, MAX_SEEDS)
        check_int_range("base_seed", self.base_seed, 0, 2**31 - 1 - MAX_SEEDS)
        check_positive("L", self.L)
        check_lam(self.lam, self.L)
        if self.S is not None:
            check_positive("S", self.S)
        if self.precision is not None:
            check_choice("precision", self.precision, _device.PRECISIONS)
        return self


@dataclasses.dataclass(frozen=True, eq=False)
class Instance:
    """A problem instance: true means (and features), the default arm's μ_0."""

    means: np.ndarray  # (K,) base-arm means
    arms: np.ndarray | None  # (K, d) features (CLB, CCCB)
    theta: np.ndarray | None  # (d,) θ*
    mu0: float
    mu0_given: bool  # False when derived from the means
    best: float  # best (super) arm mean
    worst: float  # worst (super) arm mean
    S: float  # the ‖θ*‖ bound the policies use


def _extremes(means: np.ndarray, size: int) -> tuple[float, float]:
    srt = np.sort(means)
    return float(srt[-size:].sum()), float(srt[:size].sum())


def derived_mu0(best: float, worst: float, hi: float) -> float:
    """μ_0 one sixth of the way down from the best (super) arm mean to the worst, 3 decimals, inside (0, hi)."""
    return float(min(max(round(best - (best - worst) / 6, 3), 1e-3), hi - 1e-3))


def make_instance(settings: ConservativeSettings) -> Instance:
    """The instance of ``settings`` (validated first); deterministic in ``base_seed``."""
    settings.validate()
    K, L = settings.K, settings.L
    S = default_S(settings.problem, K) if settings.S is None else settings.S
    arms = theta = None
    if settings.problem == "cmab":
        means = np.linspace(0.8, 0.2, K)
    else:
        rng = np.random.default_rng(settings.base_seed)
        d, s = settings.d, min(S, 1.0 / L)
        if d == 1:
            arms = L * rng.uniform(0.0, 1.0, size=(K, 1))
            theta = np.array([s])
        else:
            u = rng.normal(size=(K, d - 1))
            u /= np.linalg.norm(u, axis=1, keepdims=True)
            v = rng.normal(size=d - 1)
            v /= np.linalg.norm(v)
            rho = rng.uniform(0.5, 1.0, size=(K, 1))
            arms = rho * L * np.hstack([np.ones((K, 1)), u]) / math.sqrt(2)
            theta = s * np.concatenate([[1.0], v]) / math.sqrt(2)
        means = np.clip(arms @ theta, 0.0, 1.0)
    best, worst = _extremes(means, settings.size)
    given = settings.mu0 is not None
    mu0 = float(settings.mu0) if given else derived_mu0(best, worst, mu0_range(settings.problem, settings.size))
    return Instance(means=means, arms=arms, theta=theta, mu0=mu0, mu0_given=given, best=best, worst=worst, S=S)


def describe_instance(settings: ConservativeSettings) -> str:
    """One plain-language sentence about the instance, for a page or the command line."""
    inst = make_instance(settings)
    K = settings.K
    if settings.problem == "cmab":
        what = (f"{K} Bernoulli arms with means in equal steps from 0.8 down to 0.2 (seed 001's preset)")
        best = f"best mean {inst.best:.3f}"
    else:
        shape = f"{K} arms in R^{settings.d}" if settings.problem == "clb" else f"{K} base arms in R^{settings.d}"
        what = (f"{shape} drawn from seed {settings.base_seed} with Bernoulli rewards of mean ⟨x, θ*⟩ "
                f"between {inst.means.min():.3f} and {inst.means.max():.3f} (‖x‖ ≤ {settings.L:g}, "
                f"‖θ*‖ ≤ {inst.S:g})")
        if settings.problem == "cccb":
            what += f"; a super arm is any {settings.m} of them and pays the sum of their rewards"
        best = ("best super arm mean" if settings.problem == "cccb" else "best mean") + f" {inst.best:.3f}"
    how = ("set by you" if inst.mu0_given
           else "one sixth of the way down from the best mean to the worst, as in seed 001's CMAB preset")
    return f"{settings.problem.upper()}: {what}; {best}; the default arm pays μ₀ = {inst.mu0:g} ({how})."


def instance_params(settings: ConservativeSettings, inst: Instance, dtype: Any, alpha: Any = None,
                    mu0: Any = None) -> Params:
    """Runner params of an instance (``alpha``/``mu0`` override the settings'; δ = 1/T)."""
    return make_params(alpha=settings.alpha if alpha is None else alpha, mu0=inst.mu0 if mu0 is None else mu0,
                       means=inst.means, arms=inst.arms, lam=settings.lam, S=inst.S, L=settings.L,
                       delta=1.0 / settings.T, dtype=dtype)


@dataclasses.dataclass
class SimResult:
    """Results so far: ``outputs[policy][key]`` has shape (seeds, t_done)."""

    settings: ConservativeSettings
    instance: Instance
    t_done: int
    outputs: dict[str, dict[str, np.ndarray]]
    device: str
    precision: str
    seconds: float

    @property
    def done(self) -> bool:
        return self.t_done >= self.settings.T

    @property
    def fraction(self) -> float:
        return self.t_done / self.settings.T


def resolve_precision(settings: ConservativeSettings, device: str | None) -> str:
    """The settings' precision, else the device's default."""
    return settings.precision or _device.default_precision(device)


def simulate(settings: ConservativeSettings, device: str | None = None,
             chunk: int | None = None) -> Iterator[SimResult]:
    """Run every policy of ``settings`` on the same ``seeds`` streams, yielding results after each chunk.

    Seed i uses key ``PRNGKey(base_seed + i)``; round t's outcomes are drawn from ``fold_in(key, t)``,
    so every policy of a seed sees the same outcomes whatever the chunking.
    """
    policies = settings.policy_list()
    _device.check_fits(len(policies) * settings.seeds * settings.T * BYTES_PER_ROUND, 0, device, "T", settings.T,
                       f"{settings.seeds} seeds and {len(policies)} polic{'y' if len(policies) == 1 else 'ies'}")
    inst = make_instance(settings)
    precision = resolve_precision(settings, device)
    params = instance_params(settings, inst, _device.dtype_of(precision))
    keys = runner.seed_keys(settings.base_seed, settings.seeds)
    label = _device.describe(device)
    gens = [runner.run_chunks(make_model(settings.problem, p, settings.K, settings.dim, settings.size),
                              params, keys, settings.T, chunk=chunk, device=device) for p in policies]
    start = time.perf_counter()
    for chunks in zip(*gens, strict=True):
        yield SimResult(settings=settings, instance=inst, t_done=chunks[0].t_done,
                        outputs={p: c.outputs for p, c in zip(policies, chunks, strict=True)}, device=label,
                        precision=precision, seconds=time.perf_counter() - start)


def run_all(settings: ConservativeSettings, device: str | None = None) -> SimResult:
    """:func:`simulate` to the end."""
    return runner.final(simulate(settings, device=device))


def tidy_frame(result: SimResult) -> pd.DataFrame:
    """One row per (policy, seed, round): action, default, reward, slack, regret and running totals.

    ``t`` is 1-based; ``default_pulls`` is N_0(t); ``baseline_line`` is (1 − α)·μ_0·t.
    """
    s, inst = result.settings, result.instance
    frames = []
    for policy, out in result.outputs.items():
        n_seeds, t_done = out["reward"].shape
        t = np.arange(1, t_done + 1)
        frames.append(pd.DataFrame({
            "policy": policy,
            "seed": np.repeat(s.base_seed + np.arange(n_seeds), t_done),
            "t": np.tile(t, n_seeds),
            "action": out["action"].reshape(-1).astype(np.int64),
            "default": out["default"].reshape(-1).astype(bool),
            "reward": out["reward"].reshape(-1).astype(np.float64),
            "slack": out["slack"].reshape(-1).astype(np.float64),
            "regret": out["regret"].reshape(-1).astype(np.float64),
            "cum_regret": np.cumsum(out["regret"], axis=1, dtype=np.float64).reshape(-1),
            "default_pulls": np.cumsum(out["default"], axis=1).reshape(-1).astype(np.int64),
            "cum_reward": np.cumsum(out["reward"], axis=1, dtype=np.float64).reshape(-1),
            "baseline_line": np.tile((1 - s.alpha) * inst.mu0 * t, n_seeds),
        }))
    return pd.concat(frames, ignore_index=True)


def _summarize(out: dict[str, np.ndarray]) -> dict[str, float]:
    cum = np.sum(out["regret"], axis=-1, dtype=np.float64)
    return {
        "default_pulls_mean": float(np.mean(np.sum(out["default"], axis=-1))),
        "cum_regret_mean": float(np.mean(cum)),
        "cum_regret_std": float(np.std(cum)),
        "cum_regret_min": float(np.min(cum)),
        "cum_regret_max": float(np.max(cum)),
        "min_slack": float(np.min(out["slack"])),
        "cum_reward_mean": float(np.mean(np.sum(out["reward"], axis=-1, dtype=np.float64))),
    }


def summary(result: SimResult) -> pd.DataFrame:
    """One row per policy at the last round done: default pulls N_0, cumulative regret (mean, std over
    seeds with ddof 0, min, max), the smallest slack over every seed and round, mean cumulative reward."""
    rows = [{"policy": p, "label": LABELS[p], "t": result.t_done, **_summarize(out)}
            for p, out in result.outputs.items()]
    return pd.DataFrame(rows)


def grid_params(settings: ConservativeSettings, alphas: Sequence[float], mu0s: Sequence[float] | None = None,
                precision: str = "float64") -> tuple[Params, list[tuple[float, float]]]:
    """Params batched over every (α, μ_0) pair (μ_0 default: the instance's), for ``runner.run(..., grid=True)``."""
    inst = make_instance(settings)
    mu0s = [inst.mu0] if mu0s is None else list(mu0s)
    pairs = list(itertools.product(list(alphas), mu0s))
    for a, m0 in pairs:
        dataclasses.replace(settings, alpha=a, mu0=m0).validate()
    one = instance_params(settings, inst, _device.dtype_of(precision))
    G = len(pairs)
    batched = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (G,) + x.shape), one)
    dtype = _device.dtype_of(precision)
    batched = batched._replace(alpha=jnp.asarray([a for a, _ in pairs], dtype),
                               mu0=jnp.asarray([m0 for _, m0 in pairs], dtype))
    return batched, pairs


def sweep(settings: ConservativeSettings, alphas: Sequence[float], mu0s: Sequence[float] | None = None,
          device: str | None = None) -> pd.DataFrame:
    """Every policy over the grid (α, μ_0) ∈ alphas × mu0s, one compiled call per policy.

    Returns one row per (policy, alpha, mu0) with the :func:`summary` columns and ``seconds`` (the
    wall time of that policy's whole grid, compilation included).
    """
    precision = resolve_precision(settings, device)
    params, pairs = grid_params(settings, alphas, mu0s, precision)
    keys = runner.seed_keys(settings.base_seed, settings.seeds)
    rows = []
    for p in settings.policy_list():
        model = make_model(settings.problem, p, settings.K, settings.dim, settings.size)
        start = time.perf_counter()
        out = runner.run(model, params, keys, settings.T, grid=True, device=device)
        seconds = time.perf_counter() - start
        for g, (a, m0) in enumerate(pairs):
            rows.append({"policy": p, "label": LABELS[p], "alpha": a, "mu0": m0,
                         **_summarize({k: v[g] for k, v in out.items()}), "seconds": seconds})
    return pd.DataFrame(rows)
