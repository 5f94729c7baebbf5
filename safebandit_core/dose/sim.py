"""The dose model end to end: settings → compiled model → runner → tidy results.

``simulate`` runs every chosen policy on every seed in ONE compiled, vmapped scan (the policies
differ only in traced numbers, see :mod:`.policies`), so all of them see the same stream.
``run_on_stream`` replays one policy on an explicit stream through the very same step function.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterator
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from .. import device as dev
from .. import results, runner
from ..settings import (
    SettingsError,
    check_choice,
    check_int_range,
    check_nonnegative,
    check_open_unit,
    check_positive,
)
from . import curves
from .env import Obs, Stream, Truth, clairvoyant, draw_round, draw_truth, feedback, pseudo_regret
from .policies import LABELS, NAMES, DoseParams, first_dose, make_policy, policy_numbers

OUTPUT_KEYS = ("alpha", "reward", "cost", "cost_mean", "est_upper", "true_upper", "regret")
MAX_D = 4096
MAX_T = 1_000_000
MAX_SEEDS = 1000


@dataclasses.dataclass(frozen=True)
class DoseSettings:
    """Every setting of a dose-model run; a run is fully determined by these."""

    KIND: ClassVar[str] = "dose"

    policies: tuple[str, ...] = ("hpucb", "on_expectation", "eps_greedy")
    d: int = 5
    T: int = 2000
    tau: float = 0.5
    delta: float = 0.05
    delta_prime: float = 0.05
    kappa_r: float = 0.3
    kappa_c: float = 0.3
    S: float = 1.0
    L: float = 1.0
    lam: float = 1.0
    g: str = "linear"
    g_power: float = 2.0
    g_ec50: float = 0.5
    g_hill: float = 2.0
    eps: float = 0.5
    seeds: int = 5
    base_seed: int = 0
    precision: str = "auto"
    refresh_every: int = 1000

    def validate(self) -> DoseSettings:
        """Raise :class:`SettingsError` naming the first field out of range; return self."""
        if not self.policies:
            raise SettingsError("policies", "at least one of " + ", ".join(NAMES))
        for name in self.policies:
            check_choice("policy", name, NAMES)
        if len(set(self.policies)) != len(self.policies):
            raise SettingsError("policies", "a list without repeats", list(self.policies))
        check_int_range("d", self.d, 1, MAX_D)
        check_int_range("T", self.T, 1, MAX_T)
        check_int_range("seeds", self.seeds, 1, MAX_SEEDS)
        check_int_range("base_seed", self.base_seed, 0, 2**31 - 1 - MAX_SEEDS)
        check_positive("tau", self.tau)
        check_open_unit("delta", self.delta)
        check_open_unit("delta_prime", self.delta_prime)
        check_nonnegative("kappa_r", self.kappa_r)
        check_nonnegative("kappa_c", self.kappa_c)
        check_positive("S", self.S)
        check_positive("L", self.L)
        check_positive("lam", self.lam)
        if not (0.0 <= self.eps <= 1.0):
            raise SettingsError("eps", "in [0, 1]", self.eps)
        curves.validate(self.g, self.g_power, self.g_ec50, self.g_hill)
        check_choice("precision", self.precision, ("auto", *dev.PRECISIONS))
        check_int_range("refresh_every", self.refresh_every, 1)
        return self

    def resolved_precision(self, device: str | None = None) -> str:
        """The precision a run uses: float64 on the CPU, float32 on a GPU unless set."""
        return dev.default_precision(device) if self.precision == "auto" else self.precision

    @property
    def labels(self) -> list[str]:
        """Display names of the chosen policies, in order."""
        return [LABELS[p] for p in self.policies]


def params_for(s: DoseSettings, dtype: jnp.dtype, policies: tuple[str, ...] | None = None) -> DoseParams:
    """Traced numbers with a leading axis over ``policies`` (default: the settings' policies)."""
    g1, g2 = curves.params_of(s.g, s.g_power, s.g_ec50, s.g_hill)
    rows = []
    for name in policies or s.policies:
        b_scale, eps = policy_numbers(name, s.eps)
        rows.append(DoseParams(s.tau, s.delta, s.delta_prime, s.kappa_r, s.kappa_c, s.S, s.L, s.lam, eps, b_scale,
                               g1, g2))
    return jax.tree.map(lambda *xs: jnp.asarray(xs, dtype=dtype), *rows)


SOURCES = ("synthetic", "stream", "contexts")


@functools.cache
def make_model(d: int, g: str, refresh_every: int, dtype_name: str, source: str) -> runner.Model:
    """The compiled-once model for one shape and stream source.

    ``source``: ``"synthetic"`` (everything drawn from the key; params are DoseParams),
    ``"stream"`` (everything given: params are (DoseParams, Stream)), or ``"contexts"``
    (contexts and truth given, noises and coins drawn from the key: params are
    (DoseParams, Stream) with the Stream's noise fields unused — the battery replay).
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)} (got {source!r})")
    curve = curves.get(g)
    policy = make_policy(curve)
    dtype = dev.dtype_of(dtype_name)
    given = source != "synthetic"

    def init(params: Any, key: jax.Array):
        p = params[0] if given else params
        truth = Truth(params[1].theta, params[1].mu) if given else draw_truth(key, d, dtype)
        return policy.init(p, d, dtype), truth

    def draw(params: Any, key: jax.Array, t: jax.Array):
        if source == "stream":
            st: Stream = params[1]
            return Obs(st.X[t], st.xi_r[t], st.xi_c[t], st.u_eps[t]), t
        if source == "contexts":
            drawn = draw_round(params[0], key, t, 1, dtype)
            return drawn._replace(x=params[1].X[t]), t
        return draw_round(params, key, t, d, dtype), t

    def step(params: Any, carry: Any, obs_t: Any):
        p = params[0] if given else params
        state, truth = carry
        obs, t = obs_t
        alpha, info = policy.act(p, state, obs.x, obs.u_eps, t)
        r, c = feedback(curve, p, truth, obs, alpha)
        state = policy.update(p, state, obs.x, alpha, r, c, t, info)
        upper, alpha_star = clairvoyant(curve, p, truth, obs.x)
        out = {
            "alpha": alpha,
            "reward": r,
            "cost": c,
            "cost_mean": curve.g(alpha, p.g1, p.g2) * (obs.x @ truth.mu),
            "est_upper": info["est_upper"],
            "true_upper": upper,
            "regret": pseudo_regret(curve, p, truth, obs.x, alpha, alpha_star),
            "_x": policy.masked_context(p, obs.x, alpha),
        }
        return (state, truth), out

    def refresh(params: Any, carry: Any, block_outs: dict[str, jax.Array]):
        state, truth = carry
        return policy.refresh(state, block_outs["_x"]), truth

    return runner.Model(init=init, draw=draw, step=step, name=f"dose-{g}-d{d}-{dtype_name}", refresh=refresh,
                        block=refresh_every)


def memory_bytes(s: DoseSettings) -> int:
    """A generous estimate of the memory a run needs (state, outputs, one chunk of draws)."""
    runs = len(s.policies) * s.seeds
    item = 8 if s.precision in ("auto", "float64") else 4
    return runs * (3 * s.d * s.d * item + len(OUTPUT_KEYS) * s.T * item + 1000 * s.d * item)


def check_fits(s: DoseSettings, device: str | None = None) -> None:
    """Raise :class:`SettingsError` naming T when the run would not fit in the device's memory (half of it)."""
    dev.check_fits(memory_bytes(s), memory_bytes(dataclasses.replace(s, T=0)), device, "T", s.T,
                   f"d = {s.d}, {s.seeds} seeds and {len(s.policies)} polic{'y' if len(s.policies) == 1 else 'ies'}")


def first_safe_dose(s: DoseSettings) -> float:
    """HPC-UCB's round-1 dose α₁ = g⁻¹(min(1, τ/(b_δ + S L)))."""
    p = jax.tree.map(lambda v: v[0], params_for(s, jnp.float64, ("hpucb",)))
    return float(first_dose(curves.get(s.g), p))


def warnings_for(s: DoseSettings) -> list[str]:
    """Plain-language warnings about settings that run but are unlikely to teach much."""
    out = []
    b = s.kappa_c * math.sqrt(2 * math.log(1 / s.delta))
    a1 = first_safe_dose(s)
    if a1 < 0.02:
        out.append(
            f"τ = {s.tau:g} leaves almost no safe dose: the round-1 safe dose is {a1:.4f} because the realized-cost "
            f"margin b_δ = κ_c·√(2 log 1/δ) = {b:.2f} dwarfs τ. Raise τ, lower the cost noise κ_c, or raise δ."
        )
    if s.tau > 10 * (b + s.S * s.L):
        out.append(f"τ = {s.tau:g} is so large that every dose is safe: the constraint never binds. "
                   "Lower τ to see it work.")
    return out


def simulate(s: DoseSettings, device: str | None = None, chunk: int | None = None) -> Iterator[runner.Chunk]:
    """Run every policy on every seed; yield :class:`runner.Chunk` s with outputs shaped (policy, seed, t)."""
    s.validate()
    check_fits(s, device)
    precision = s.resolved_precision(device)
    dtype = dev.dtype_of(precision)
    model = make_model(s.d, s.g, s.refresh_every, precision, "synthetic")
    params = params_for(s, dtype)
    keys = runner.seed_keys(s.base_seed, s.seeds)
    yield from runner.run_chunks(model, params, keys, s.T, chunk=chunk, grid=True, device=device)


def simulate_on_contexts(s: DoseSettings, X: Any, theta: Any, mu: Any, device: str | None = None,
                         chunk: int | None = None) -> Iterator[runner.Chunk]:
    """Every policy × seed on GIVEN contexts and truth (T×d, d, d), with noises drawn per seed.

    This is the replay of a fitted real-data model (the battery experiment): the contexts are the
    data's, the rewards and costs come from θ, μ with Gaussian noise of std κ_r, κ_c.
    """
    s.validate()
    X = np.asarray(X)
    if X.shape != (s.T, s.d):
        raise SettingsError("X", f"an array of shape (T, d) = ({s.T}, {s.d})", X.shape)
    check_fits(s, device)
    precision = s.resolved_precision(device)
    dtype = dev.dtype_of(precision)
    zeros = jnp.zeros((s.T,), dtype)
    stream = Stream(jnp.asarray(X, dtype), zeros, zeros, zeros, jnp.asarray(theta, dtype), jnp.asarray(mu, dtype))
    model = make_model(s.d, s.g, s.refresh_every, precision, "contexts")
    keys = runner.seed_keys(s.base_seed, s.seeds)
    yield from runner.run_chunks(model, (params_for(s, dtype), stream), keys, s.T, chunk=chunk, grid=(0, None),
                                 device=device)


def run(s: DoseSettings, device: str | None = None) -> dict[str, np.ndarray]:
    """:func:`simulate` to the end; outputs shaped (policy, seed, T)."""
    return runner.final(simulate(s, device)).outputs


def run_on_stream(policy: str, X: Any, xi_r: Any, xi_c: Any, theta: Any, mu: Any, *, tau: float, delta: float,
                  delta_prime: float, kappa_r: float, kappa_c: float, S: float, L: float, lam: float = 1.0,
                  g: str = "linear", eps: float = 0.5, seed: int = 0, g_power: float = 2.0, g_ec50: float = 0.5,
                  g_hill: float = 2.0, refresh_every: int = 1000, u_eps: Any = None,
                  device: str | None = None) -> dict[str, np.ndarray]:
    """Run one policy on an explicit stream and return length-T numpy arrays.

    ``X`` (T×d) contexts, ``xi_r``/``xi_c`` (T) noises, ``theta``/``mu`` (d) the truth. Keys of the
    result: ``alpha, reward, cost, est_upper, true_upper, regret`` (and ``violation``). Float64
    inputs are computed in float64, anything else in float32. ε-Greedy explores at round t ≥ 2
    when ``u_eps[t] < eps``; without ``u_eps`` the coins are drawn from ``seed`` (uniform on
    [0,1)), so the same call gives the same run.
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise SettingsError("X", "a T×d array", X.shape)
    T, d = X.shape
    precision = "float64" if X.dtype == np.float64 else "float32"
    dtype = dev.dtype_of(precision)
    s = DoseSettings(policies=(policy,), d=d, T=T, tau=tau, delta=delta, delta_prime=delta_prime, kappa_r=kappa_r,
                     kappa_c=kappa_c, S=S, L=L, lam=lam, g=g, g_power=g_power, g_ec50=g_ec50, g_hill=g_hill, eps=eps,
                     seeds=1, base_seed=0, precision=precision, refresh_every=refresh_every).validate()
    for name, arr in (("xi_r", xi_r), ("xi_c", xi_c)):
        if np.shape(arr) != (T,):
            raise SettingsError(name, f"an array of length T = {T}", np.shape(arr))
    for name, arr in (("theta", theta), ("mu", mu)):
        if np.shape(arr) != (d,):
            raise SettingsError(name, f"an array of length d = {d}", np.shape(arr))
    if u_eps is None:
        u_eps = jax.random.uniform(jax.random.PRNGKey(seed), (T,), dtype)
    elif np.shape(u_eps) != (T,):
        raise SettingsError("u_eps", f"an array of length T = {T}", np.shape(u_eps))
    stream = Stream(*(jnp.asarray(a, dtype) for a in (X, xi_r, xi_c, u_eps, theta, mu)))
    p = jax.tree.map(lambda v: v[0], params_for(s, dtype))
    model = make_model(d, g, refresh_every, precision, "stream")
    out = runner.run(model, (p, stream), jax.random.PRNGKey(seed)[None], T, device=device)
    res = {k: np.asarray(out[k][0]) for k in OUTPUT_KEYS}
    res["violation"] = res["cost"] > tau
    return res


def tidy_frame(s: DoseSettings, outputs: dict[str, np.ndarray]) -> pd.DataFrame:
    """One row per (policy, seed, round): the outputs plus cumulative regret, violation and slack τ − C_t."""
    frame = results.tidy({k: outputs[k] for k in OUTPUT_KEYS}, s.labels, base_seed=s.base_seed)
    frame["violation"] = frame["cost"] > s.tau
    frame["slack"] = s.tau - frame["cost"]
    frame["cum_regret"] = frame.groupby(["policy", "seed"], observed=True)["regret"].cumsum()
    return frame


def summary(s: DoseSettings, outputs: dict[str, np.ndarray]) -> pd.DataFrame:
    """Per policy: violation rate (with a 95 % interval over seeds), final cumulative regret mean/std."""
    rows = []
    for i, (name, label) in enumerate(zip(s.policies, s.labels, strict=True)):
        viol = outputs["cost"][i] > s.tau  # (S, t)
        rate_per_seed = viol.mean(axis=1)
        cum = outputs["regret"][i].sum(axis=1)
        m, lo, hi = results.interval95(rate_per_seed, 0.0, 1.0)
        rows.append({
            "policy": name,
            "label": label,
            "rounds": int(viol.shape[1]),
            "violation_rate": float(viol.mean()),
            "violation_rate_lo": lo,
            "violation_rate_hi": hi,
            "violations": int(viol.sum()),
            "cum_regret_mean": float(cum.mean()),
            "cum_regret_std": float(cum.std(ddof=1)) if cum.size > 1 else 0.0,
            "min_slack": float((s.tau - outputs["cost"][i]).min()),
        })
    return pd.DataFrame(rows)


GRID_FIELDS = ("tau", "delta", "delta_prime", "kappa_r", "kappa_c", "S", "L", "lam", "eps", "g_power", "g_ec50",
               "g_hill")


def grid_settings(base: DoseSettings, overrides: list[dict[str, float]]) -> list[DoseSettings]:
    """One validated settings per override dict; only numeric (traced) fields may vary in a grid."""
    out = []
    for o in overrides:
        bad = sorted(set(o) - set(GRID_FIELDS))
        if bad:
            raise SettingsError(bad[0], "fixed across a sweep (sweepable: " + ", ".join(GRID_FIELDS) + ")")
        out.append(dataclasses.replace(base, **o).validate())
    return out


def simulate_grid(base: DoseSettings, overrides: list[dict[str, float]], device: str | None = None,
                  chunk: int | None = None) -> Iterator[runner.Chunk]:
    """Every policy × every settings row in one compiled, vmapped scan (a sweep).

    Outputs have shape (rows × policies, seeds, t), row-major: index ``i * P + j`` is settings row
    ``i`` with policy ``j``. Shapes (d, T, seeds, the curve's kind) are shared by the whole grid.
    """
    rows = grid_settings(base, overrides)
    n = len(rows) * len(base.policies)
    check_fits(dataclasses.replace(base, seeds=base.seeds * max(1, n // len(base.policies))), device)
    precision = base.resolved_precision(device)
    dtype = dev.dtype_of(precision)
    params = jax.tree.map(lambda *xs: jnp.concatenate(xs), *(params_for(r, dtype) for r in rows))
    model = make_model(base.d, base.g, base.refresh_every, precision, "synthetic")
    keys = runner.seed_keys(base.base_seed, base.seeds)
    yield from runner.run_chunks(model, params, keys, base.T, chunk=chunk, grid=True, device=device)


def run_grid(base: DoseSettings, overrides: list[dict[str, float]], device: str | None = None,
             chunk: int | None = None) -> dict[str, np.ndarray]:
    """:func:`simulate_grid` to the end."""
    return runner.final(simulate_grid(base, overrides, device, chunk)).outputs
