"""The dose model as a :class:`~safebandit_core.model.Family`: settings → one composed scan → a Run.

All chosen policies (HPC-UCB, On-Expectation, ε-Greedy) are ONE lane: the same policy function
vmapped over their traced numbers (:mod:`.policies`), so they see the same draws in one scan.
:func:`run_on_stream` replays one policy on an explicit stream through the very same model.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import device as dev
from .. import model as M
from .. import runner, shapes
from ..results import interval95
from ..settings import SettingsError
from . import curves
from .env import EnvParams, Stream, make_env
from .fields import FIELDS
from .policies import LABELS, NAMES, make_policy
from .settings import (
    GRID_FIELDS,
    OUTPUT_KEYS,
    S000_BASE,
    DoseSettings,
    memory_bytes,
    policy_params,
    warnings_for,
)


@functools.cache
def make_model(width: int, g: str, refresh_every: int, precision: str, source: str, n_policies: int
               ) -> runner.Model:
    """The compiled-once model for one width and stream source (see :class:`.env.EnvParams`).

    A synthetic run of dimension d uses the width ``shapes.bucket(d)`` (zero coordinates after d, the
    true d traced), so moving d inside a bucket reuses the compiled model.
    """
    curve = curves.get(g)
    env = make_env(curve, width, dev.dtype_of(precision), source)
    return M.compose(env, [M.Lane(make_policy(curve, width), n_policies)],
                     name=f"dose-{g}-w{width}-{precision}-{source}", block=refresh_every,
                     round_cost=max(1, width // 8) ** 2)


def env_params(s: DoseSettings, dtype: jnp.dtype, stream: Stream | None = None) -> EnvParams:
    """The environment's numbers of a run (and its given stream)."""
    g1, g2 = curves.params_of(s.g, s.g_power, s.g_ec50, s.g_hill)
    cast = lambda v: jnp.asarray(v, dtype)
    return EnvParams(cast(s.tau), cast(s.delta), cast(s.kappa_r), cast(s.kappa_c), cast(g1), cast(g2), cast(s.d),
                     stream)


def params(s: DoseSettings, precision: str, stream: Stream | None = None) -> Any:
    """``(env, (policy rows,))``: the traced params of one run."""
    dtype = dev.dtype_of(precision)
    return env_params(s, dtype, stream), (policy_params(s, dtype),)


def _model(s: DoseSettings, precision: str) -> runner.Model:
    return make_model(shapes.bucket(s.d), s.g, s.refresh_every, precision, "synthetic", len(s.policies))


def derive(s: DoseSettings, out: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Cumulative regret, violation (C_t > τ) and the per-round slack τ − C_t."""
    return {"cum_regret": np.cumsum(out["regret"], axis=-1), "violation": out["cost"] > s.tau,
            "slack": s.tau - out["cost"]}


def summarize(s: DoseSettings, out: dict[str, np.ndarray]) -> dict[str, Any]:
    """Violation rate (with a 95 % interval over seeds), count and the smallest slack τ − C_t."""
    viol = out["cost"] > s.tau
    m, lo, hi = interval95(viol.mean(axis=-1), 0.0, 1.0)
    return {"violation_rate": float(viol.mean()), "violation_rate_lo": lo, "violation_rate_hi": hi,
            "violations": int(viol.sum()), "min_slack": float((s.tau - out["cost"]).min())}


def _on_stream(s: DoseSettings, policy: str, st: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return run_on_stream(policy, st["X"], st["xi_r"], st["xi_c"], st["theta"], st["mu"], tau=s.tau, delta=s.delta,
                         delta_prime=s.delta_prime, kappa_r=s.kappa_r, kappa_c=s.kappa_c, S=s.S, L=s.L, lam=s.lam,
                         g=s.g, eps=s.eps, g_power=s.g_power, g_ec50=s.g_ec50, g_hill=s.g_hill,
                         refresh_every=s.refresh_every, u_eps=st["u_eps"])


AXES: tuple[M.Axis, ...] = (
    M.Axis("tau", "τ", "safety threshold", 0.01, 5.0, (0.1, 0.2, 0.5, 1.0), log=True),
    M.Axis("delta", "δ", "allowed violation probability", 1e-4, 0.5, (0.01, 0.05, 0.1), log=True),
    M.Axis("delta_prime", "δ′", "estimation confidence", 1e-4, 0.5, (0.01, 0.05, 0.1), log=True),
    M.Axis("kappa_c", "κ_c", "cost noise", 0.0, 3.0, (0.1, 0.3, 1.0)),
    M.Axis("eps", "ε", "exploration probability", 0.0, 1.0, (0.1, 0.5, 0.9)),
)
"""The sweepable settings of every dose-type model (the linear and the non-linear one)."""

PANELS: tuple[M.Panel, ...] = (
    M.Panel("cum_regret", "benefit lost so far", "benefit lost {:,.1f}"),
    M.Panel("violation", "share of rounds over τ so far", "{:.1%} of rounds over τ", how="running"),
    M.Panel("est_upper", "estimated safe dose α̂max_t (running mean)", "mean safe dose {:.2f}", how="running"),
)
SCRUB: tuple[M.Scrub, ...] = (
    M.Scrub("tau", "τ", "cost limit", (0.05, *(round(0.1 * k, 1) for k in range(1, 21))), PANELS),
    M.Scrub("delta", "δ", "allowed violation probability",
            (0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.06, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25,
             0.3, 0.35, 0.4, 0.45, 0.5), PANELS),
)
"""The knobs of every dose-type model, scrubbed in the browser: τ (0.05 to 2) and δ (0.001 to 0.5)."""


def _sweep_base() -> DoseSettings:
    """Safety by Design's synthetic set-up."""
    return S000_BASE


FAMILY = M.Family(
    kind="dose",
    settings_cls=DoseSettings,
    example=DoseSettings(T=120, d=3, seeds=2, refresh_every=40, base_seed=3),
    labels=LABELS,
    policies=lambda s: tuple(s.policies),
    model=_model,
    params=params,
    axes=AXES,
    traced=GRID_FIELDS,
    scrub=SCRUB,
    derive=derive,
    summarize=summarize,
    memory_bytes=memory_bytes,
    warnings=warnings_for,
    stream=lambda s, i: draw_stream(s, i),
    on_stream=lambda s, p, st: _on_stream(s, p, st),
    baseline_name="",
    command="dose",
    cli="safebandit_core.dose.cli",
    fields=FIELDS,
    sweep_base=_sweep_base,
    untagged=True,
    audience="safebandit_core.dose.audience:MODEL",
)


def run_on_stream(policy: str, X: Any, xi_r: Any, xi_c: Any, theta: Any, mu: Any, *, tau: float, delta: float,
                  delta_prime: float, kappa_r: float, kappa_c: float, S: float, L: float, lam: float = 1.0,
                  g: str = "linear", eps: float = 0.5, seed: int = 0, g_power: float = 2.0, g_ec50: float = 0.5,
                  g_hill: float = 2.0, refresh_every: int = 1000, u_eps: Any = None,
                  device: str | None = None, width: int | None = None) -> dict[str, np.ndarray]:
    """Run one policy on an explicit stream and return length-T numpy arrays.

    ``X`` (T×d) contexts, ``xi_r``/``xi_c`` (T) noises, ``theta``/``mu`` (d) the truth. Keys of the
    result: ``alpha, reward, cost, est_upper, true_upper, regret`` (and ``violation``). Float64
    inputs are computed in float64, anything else in float32. ε-Greedy explores at round t ≥ 2
    when ``u_eps[t] < eps``; without ``u_eps`` the coins are drawn from ``seed`` (uniform on
    [0,1)), so the same call gives the same run. ``width`` > d runs the stream padded with zero
    coordinates through the model compiled at that width (the padding check: the same numbers).
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise SettingsError("X", "a T×d array", X.shape)
    if policy not in NAMES:
        raise SettingsError("policy", "one of " + ", ".join(NAMES), policy)
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
    width = shapes.stream_width("width", width, d)
    pad = lambda a: shapes.zero_pad(a, np.shape(a)[:-1] + (width,))
    stream = Stream(*(jnp.asarray(a, dtype) for a in (pad(X), xi_r, xi_c, u_eps, pad(theta), pad(mu))))
    model = make_model(width, g, refresh_every, precision, "stream", 1)
    out = runner.run(model, params(s, precision, stream), jax.random.PRNGKey(seed)[None], T, device=device)
    res = {k: np.asarray(out[k][0, 0]) for k in OUTPUT_KEYS}
    res["violation"] = res["cost"] > tau
    return res


def draw_stream(s: DoseSettings, seed_index: int = 0) -> dict[str, np.ndarray]:
    """The explicit stream that seed ``seed_index`` of ``simulate(s)`` sees (for replays and checks)."""
    from .env import draw_round, draw_truth

    precision = FAMILY.precision_of(s)
    dtype = dev.dtype_of(precision)
    key = runner.seed_keys(s.base_seed + seed_index, 1)[0]
    p = env_params(s, dtype)
    obs = jax.vmap(lambda t: draw_round(p, key, t, s.d, dtype))(jnp.arange(s.T))
    truth = draw_truth(key, s.d, dtype)
    return {"X": np.asarray(obs.x), "xi_r": np.asarray(obs.xi_r), "xi_c": np.asarray(obs.xi_c),
            "u_eps": np.asarray(obs.u_eps), "theta": np.asarray(truth.theta), "mu": np.asarray(truth.mu)}
