"""The replay of a fitted dose model as a :class:`~safebandit_core.model.Family` (Safety by Design §7): logged contexts
plus the fitted θ*, μ* become the environment; HPC-UCB, On-Expectation and ε-Greedy play it.

The one replay both the battery experiment and a user's log go through (:func:`make_family`). It runs the
dose model with the ``contexts`` stream source (:func:`safebandit_core.dose.family.make_model`): the
contexts and the truth are the fit's, rewards and costs get Gaussian noise of the fitted std κ_r, κ_c
drawn per seed (bootstrapped residuals are not offered: the model's noise is Gaussian by construction).
The contexts are the log's rows in order (row t mod n for a horizon longer than the log), or rows
drawn uniformly with replacement from a seed of their own (``order="resample"``): the same draw for
every seed, so seeds differ in noise only. A grid (over τ, say) shares the T × d context table
across its cells (:data:`GRID_AXES`).

The algorithm's constants come from the fit: ``S`` = max(‖θ*‖, ‖μ*‖), so Assumption 2.2 holds exactly for
the replayed truth; ``L`` = the largest norm of a replayed context; ``κ_r``, ``κ_c`` = the residual RMS.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from .. import device as dev
from .. import model as M
from .. import runner, shapes
from ..dose import curves
from ..dose import family as dose_family
from ..dose.env import EnvParams, Stream
from ..dose.policies import LABELS
from ..dose.settings import DoseSettings, first_safe_dose, warnings_for
from ..dose.settings import memory_bytes as dose_memory_bytes
from ..settings import SettingsError

MAX_CONTEXT_BYTES = 2 * 2**30
TABLE_BLOCK = 1024
"""The T × d context table handed to the device is padded with zero rows to a multiple of this many rounds. No
round reads them (a page's masked last chunk reads them and drops its outputs), and moving T inside a block
changes no traced shape, so it compiles and traces nothing new. The memory check counts the T true rows: the
padding adds less than a block."""
POLICY_COLUMNS = ("policy", "label", "violation_rate", "violation_rate_lo", "violation_rate_hi", "violations",
                  "cum_regret_mean", "cum_regret_std", "cum_regret_lo", "cum_regret_hi", "min_slack",
                  "final_dose_mean", "final_safe_dose_mean")
"""The summary columns of a replay's per-policy rows (as JSON: :func:`safebandit_core.jsondoc.rows_of`)."""
FINAL_SHARE = 0.1
REFRESH_EVERY = DoseSettings.refresh_every
GRID_AXES = (EnvParams(0, 0, 0, 0, 0, 0, 0, stream=None), 0)
"""The runner's in_axes prefix of a grid: every number varies by cell, the context stream is shared."""
TRACED: tuple[str, ...] = ("tau", "delta", "delta_prime", "lam", "eps")
ORDERS: tuple[str, ...] = ("log", "resample")
AXES: tuple[M.Axis, ...] = (
    M.Axis("tau", "τ", "cost limit", 0.01, 2.0, (0.05, 0.1, 0.2, 0.4), log=True),
    M.Axis("delta", "δ", "allowed violation probability", 1e-4, 0.5, (0.01, 0.05, 0.1), log=True),
    M.Axis("delta_prime", "δ′", "estimation confidence", 1e-4, 0.5, (0.01, 0.05, 0.1), log=True),
    M.Axis("eps", "ε", "exploration probability", 0.0, 1.0, (0.1, 0.5, 0.9)),
)


@dataclasses.dataclass(frozen=True, eq=False)
class FittedEnv:
    """A fitted dose environment: the contexts to replay (in log order), θ*, μ*, the noise levels, S, L and g."""

    X: np.ndarray  # (n, d) float64 replayed contexts
    theta: np.ndarray  # (d,) float64 θ*
    mu: np.ndarray  # (d,) float64 μ*
    kappa_r: float
    kappa_c: float
    S: float
    L: float
    g: str = "linear"
    g_power: float = 2.0
    g_ec50: float = 0.5
    g_hill: float = 2.0

    @classmethod
    def of(cls, X: np.ndarray, theta: np.ndarray, mu: np.ndarray, kappa_r: float, kappa_c: float,
           **curve: Any) -> FittedEnv:
        """The environment with S = max(‖θ*‖, ‖μ*‖) and L = the largest context norm (:func:`max_norm`)."""
        S = float(max(np.linalg.norm(theta), np.linalg.norm(mu)))
        return cls(X=X, theta=theta, mu=mu, kappa_r=float(kappa_r), kappa_c=float(kappa_c), S=S, L=max_norm(X),
                   **curve)

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    def g_of(self, dose: np.ndarray) -> np.ndarray:
        """g(dose) in numpy (the identity returns ``dose`` itself)."""
        p1, p2 = curves.params_of(self.g, self.g_power, self.g_ec50, self.g_hill)
        return curves.get(self.g).g(dose, p1, p2)


def max_norm(X: np.ndarray) -> float:
    """The largest row norm of ``X`` (the L of Assumption 2.2), or 1 when every row is 0."""
    norms = np.linalg.norm(X, axis=1)
    return float(norms.max()) if norms.size and norms.max() > 0 else 1.0


def replay_rows(n: int, T: int, order: str = "log", seed: int = 0) -> np.ndarray:
    """Which logged row each of the T replay rounds uses: t mod n (``log``), or uniform draws (``resample``)."""
    if order not in ORDERS:
        raise SettingsError("order", "one of " + ", ".join(ORDERS), order)
    if order == "log":
        return np.arange(T) % n
    return np.random.default_rng(seed).integers(0, n, size=T)


def table_rounds(T: int) -> int:
    """The rounds of the padded context table of a T-round replay: T rounded up to a multiple of :data:`TABLE_BLOCK`."""
    return -(-T // TABLE_BLOCK) * TABLE_BLOCK


def contexts(env: FittedEnv, rows: np.ndarray, dtype: Any = np.float64) -> np.ndarray:
    """The T × d contexts of the replay rounds ``rows``."""
    return np.asarray(env.X[rows], dtype=dtype)


def dose_settings(s: Any, env: FittedEnv, T: int) -> DoseSettings:
    """The dose-model settings of a replay: d, κ, S, L and g from the fit; the policies, τ, δ, δ′, λ, ε, seeds and
    precision from the replay's settings ``s``."""
    return DoseSettings(
        policies=tuple(s.policies), d=env.d, T=T, tau=s.tau, delta=s.delta, delta_prime=s.delta_prime,
        kappa_r=env.kappa_r, kappa_c=env.kappa_c, S=env.S, L=env.L, lam=s.lam, g=env.g, g_power=env.g_power,
        g_ec50=env.g_ec50, g_hill=env.g_hill, eps=s.eps, seeds=s.seeds, base_seed=s.base_seed,
        precision=s.precision or "auto", refresh_every=REFRESH_EVERY,
    ).validate()


def check_context_bytes(T: int, d: int, precision: str) -> None:
    """Raise :class:`SettingsError` naming T when the T × d context table is too large to hand to the device."""
    item = np.dtype(dev.dtype_of(precision)).itemsize
    need = T * d * item
    if need > MAX_CONTEXT_BYTES:
        most = MAX_CONTEXT_BYTES // (d * item)
        raise SettingsError("T", f"at most {most:,} with d = {d} (the contexts would take {need / 2**30:.1f} GiB)", T)


def first_dose_regret(env: FittedEnv, rows: np.ndarray, first_dose: float, true_upper: np.ndarray) -> float:
    """The regret of playing HPC-UCB's round-1 dose every round: what it pays if it never learns.

    ``true_upper`` is one seed's true safe dose per round (the same for every policy and seed).
    """
    rate = (env.X @ env.theta)[rows[: true_upper.shape[-1]]]
    return float(((env.g_of(true_upper) - env.g_of(first_dose)) * rate).sum())


def make_family(settings_cls: type, env_of: Callable[[Any], FittedEnv], rounds: Callable[[Any], int] = lambda s: s.T,
                order_of: Callable[[Any], tuple[str, int]] = lambda s: ("log", 0)) -> M.Family:
    """The replay family of ``settings_cls`` (kind ``settings_cls.KIND``) over the environments ``env_of(settings)``.

    ``rounds(settings)`` is the horizon (it may refuse an unresolved one); ``order_of(settings)`` the replay
    order and its seed. Summaries add, to the dose model's violation rate and slack, the mean dose and true
    safe dose over the last 10 % of rounds, HPC-UCB's round-1 dose, the regret of staying there, and how many
    times the replay goes through the log (``passes``).
    """

    def rows(s: Any, env: FittedEnv) -> np.ndarray:
        return replay_rows(env.n, rounds(s), *order_of(s))

    def model(s: Any, precision: str) -> runner.Model:
        env = env_of(s)
        return dose_family.make_model(env.d, env.g, REFRESH_EVERY, precision, "contexts", len(s.policies))

    def params(s: Any, precision: str) -> Any:
        env = env_of(s)
        d = dose_settings(s, env, rounds(s))
        check_context_bytes(d.T, d.d, precision)
        dtype, padded = dev.dtype_of(precision), table_rounds(d.T)
        zeros = jnp.zeros((padded,), dtype)
        table = shapes.zero_pad(contexts(env, rows(s, env), dtype), (padded, d.d))
        stream = Stream(jnp.asarray(table), zeros, zeros, zeros, jnp.asarray(env.theta, dtype),
                        jnp.asarray(env.mu, dtype))
        return dose_family.params(d, precision, stream)

    def summarize(s: Any, out: dict[str, np.ndarray]) -> dict[str, Any]:
        env = env_of(s)
        a1 = first_safe_dose(dose_settings(s, env, rounds(s)))
        tail = max(1, int(math.ceil(FINAL_SHARE * out["alpha"].shape[-1])))
        return {**dose_family.summarize(s, out),
                "final_dose_mean": float(out["alpha"][:, -tail:].mean()),
                "final_safe_dose_mean": float(out["true_upper"][:, -tail:].mean()),
                "first_safe_dose": a1, "first_dose_regret": first_dose_regret(env, rows(s, env), a1,
                                                                              out["true_upper"][0]),
                "passes": rounds(s) / env.n}

    def memory_bytes(s: Any) -> int:
        T, d = rounds(s), env_of(s).d
        precision = s.precision or "auto"
        item = 8 if precision in ("auto", "float64") else 4
        shape = DoseSettings(policies=tuple(s.policies), d=d, T=T, seeds=s.seeds, precision=precision)
        return T * d * item + dose_memory_bytes(shape)

    def warnings(s: Any) -> list[str]:
        env = env_of(s)
        return warnings_for(dose_settings(s, env, s.T if s.T is not None else env.n))

    return M.Family(
        kind=settings_cls.KIND,
        settings_cls=settings_cls,
        labels=LABELS,
        policies=lambda s: tuple(s.policies),
        model=model,
        params=params,
        axes=AXES,
        traced=TRACED,
        grid_axes=GRID_AXES,
        derive=dose_family.derive,
        summarize=summarize,
        memory_bytes=memory_bytes,
        warnings=warnings,
    )
