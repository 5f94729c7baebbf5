"""HPC-UCB beside 3+3, BOIN and the CRM on the very same patients (CLINICAL.md §4 (b), §5).

Trial r is round-by-round the dose model's stream of seed ``seed + r`` (:func:`..dose.family.draw_stream`):
patient i brings ``(X_i, ξ^c_i)`` and, at dose α, the cost ``g(α)·W_i`` with ``W_i = ⟨X_i, μ*⟩ + ξ^c_i``.
The designs see only DLTs at their K doses ``α_j = j/K``; their tolerance ``u_i = P(W > W_i)`` comes from
the same patient, so ``u_i < p_j`` exactly when that patient's cost at dose j exceeds τ (common random
numbers are exact). HPC-UCB runs ``T = N`` rounds on the same stream keys and doses continuously.

``P(W > z)`` is computed one way for both ``u`` and ``p`` (:func:`exceedance`: Gauss–Jacobi quadrature over
``T = ⟨X, μ*⟩`` whose law is a scaled Beta), so the DLT rule holds to the last bit.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from scipy import special, stats

from .. import device, families
from ..dose import curves
from ..dose.env import clairvoyant, draw_round, draw_truth
from ..dose.family import env_params
from ..dose.settings import DoseSettings
from ..results import interval95
from ..settings import SettingsError, check_int_range
from . import oc, rules, scenarios
from .api import MAX_COHORT, MAX_COHORTS, MAX_TRIALS, PEAK_FACTOR, DoseFindingResult, check_fits, check_inputs
from .designs import DESIGNS, Options, boin_tables, crm_tables, patients_needed, simulate_all

MAX_D = 50
"""The largest context dimension of the comparison (the quadrature of ``P(W > z)`` is checked up to it)."""
SEEDS_PER_RUN = 250
"""Trials per HPC-UCB run, the last run padded with extra seeds (dropped) so every run has one compiled shape;
trial r is seed ``seed + r`` whatever the split."""
MAX_BANDIT_TRIALS = 10_000
"""At most this many trials: HPC-UCB runs every trial's N rounds."""


def _nodes(kappa_c: float) -> int:
    """Gauss–Jacobi nodes for a cost noise κ_c: the integrand's scale is κ_c, so more nodes when it is small."""
    return int(min(1000, max(32, math.ceil(20.0 / kappa_c))))


def exceedance(z: np.ndarray, kappa_c: float, d: int) -> np.ndarray:
    """``P(W > z)`` for ``W = T + ξ``, ``(T+1)/2 ~ Beta((d−1)/2, (d−1)/2)`` (T = ±1 for d = 1), ``ξ ~ N(0, κ_c²)``.

    Vectorised over ``z``; strictly decreasing in z wherever W has a density, so ``u = P(W > W_i)`` and
    ``p_j = P(W > τ/g(α_j))`` compare exactly as ``W_i`` and ``τ/g(α_j)`` do.
    """
    z = np.asarray(z, dtype=np.float64)
    if d == 1:
        if kappa_c == 0.0:
            return 0.5 * (1.0 > z) + 0.5 * (-1.0 > z)
        return 0.5 * (special.ndtr((1.0 - z) / kappa_c) + special.ndtr((-1.0 - z) / kappa_c))
    a = (d - 1) / 2.0
    if kappa_c == 0.0:
        return stats.beta.sf((z + 1.0) / 2.0, a, a)
    t, w = special.roots_jacobi(_nodes(kappa_c), a - 1.0, a - 1.0)
    w = w / w.sum()
    flat = z.reshape(-1)
    out = np.empty(flat.shape, dtype=np.float64)
    step = 8192
    for start in range(0, flat.size, step):
        part = flat[start:start + step]
        out[start:start + step] = special.ndtr((t[None, :] - part[:, None]) / kappa_c) @ w
    return out.reshape(z.shape)


def dose_truth(K: int, tau: float, kappa_c: float, d: int, g: str = "linear", g_power: float = 2.0,
               g_ec50: float = 0.5, g_hill: float = 2.0) -> np.ndarray:
    """The DLT probability ``p_j = P(W > τ/g(α_j))`` of the doses ``α_j = j/K``, by :func:`exceedance`."""
    g_values = curves.evaluate(g, np.arange(1, K + 1) / K, g_power, g_ec50, g_hill)
    return exceedance(tau / g_values, kappa_c, d)


@dataclasses.dataclass(frozen=True)
class Patients:
    """The trials' patients as the dose model draws them: per trial r (seed ``seed + r``) and patient i."""

    W: np.ndarray  # (R, U) ⟨X_i, μ*⟩ + ξ^c_i: the cost at dose α is g(α)·W_i
    x_theta: np.ndarray  # (R, U) ⟨X_i, θ*⟩: the reward's mean at dose α is g(α)·⟨X_i, θ*⟩
    g_star: np.ndarray  # (R, U) g(α*_i): the all-knowing rule's dose effect (true margin b_δ)
    u: np.ndarray  # (R, U) the tolerance P(W > W_i)


def draw_patients(s: DoseSettings, trials: int, per_trial: int) -> Patients:
    """Patients ``0..per_trial−1`` of seeds ``s.base_seed + r``, r < trials: the draws of the dose model's stream
    (the same numbers :func:`..dose.family.draw_stream` gives), in float64."""
    dtype = jnp.float64
    p = env_params(s, dtype)
    curve = curves.get(s.g)
    keys = jax.vmap(jax.random.PRNGKey)(s.base_seed + jnp.arange(trials, dtype=jnp.int64))

    def one(key: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        truth = draw_truth(key, s.d, dtype)
        obs = jax.vmap(lambda t: draw_round(p, key, t, s.d, dtype))(jnp.arange(per_trial))
        _, alpha_star = clairvoyant(curve, p, truth, obs.x)
        return obs.x @ truth.mu + obs.xi_c, obs.x @ truth.theta, curve.g(alpha_star, p.g1, p.g2)

    W, x_theta, g_star = (np.asarray(a) for a in jax.jit(jax.vmap(one))(keys))
    return Patients(W, x_theta, g_star, exceedance(W, s.kappa_c, s.d))


def designs_on(u: np.ndarray, truth: np.ndarray, target: float, cohort: int, cohorts: int, seed: int,
               designs: Sequence[str]) -> DoseFindingResult:
    """The designs' trials on given tolerances ``u`` (R, ≥ max(N, 6K)) with the defaults of :func:`.api.simulate`."""
    chosen = tuple(designs)
    p = check_inputs(truth, target, cohort, cohorts, u.shape[0], seed, chosen)
    K, N = p.size, cohort * cohorts
    s = rules.getprior(rules.default_halfwidth(target), target, rules.default_prior_mtd(K), K)
    start = time.perf_counter()
    out = simulate_all(jnp.asarray(u), jnp.asarray(p), jnp.float64(target), boin_tables(target, N),
                       crm_tables(s, target, cohort), Options(cohort, cohorts, chosen, None, 1, False, False))
    host = {name: {f: np.asarray(getattr(t, f)) for f in ("mtd", "n", "y", "doses")} for name, t in out.items()}
    true = scenarios.true_mtd(p, target)
    return DoseFindingResult(
        truth=p, target=float(target), cohort=cohort, cohorts=cohorts, trials=u.shape[0], seed=seed,
        designs=chosen, true_mtd=true, skeleton=s, boin=rules.boin_boundaries(target, N),
        characteristics={k: oc.characteristics(h["mtd"], h["n"], h["y"], p, target, true) for k, h in host.items()},
        mtd={k: h["mtd"] for k, h in host.items()}, n={k: h["n"] for k, h in host.items()},
        y={k: h["y"] for k, h in host.items()}, doses={k: h["doses"] for k, h in host.items()},
        tolerances=np.asarray(u), seconds=time.perf_counter() - start, device=device.describe(None))


def _figures(violations: np.ndarray, treated: np.ndarray, regret: np.ndarray) -> dict[str, Any]:
    """Violation rate over all treated patients (delta-method interval over trials) and the mean cumulative
    pseudo-regret per trial (normal interval)."""
    rate, lo, hi = oc._ratio95(violations, treated, 1.0, 1.0)
    r_mean, r_lo, r_hi = interval95(regret)
    return {"violation_rate": rate, "violation_rate_ci95": [lo, hi], "cum_regret_mean": r_mean,
            "cum_regret_ci95": [r_lo, r_hi], "treated": float(treated.mean())}


@dataclasses.dataclass(frozen=True)
class BanditComparison:
    """HPC-UCB and the designs on the same trials of the dose model (CLINICAL.md §4 (b)).

    ``figures[name]`` for ``"hpucb"`` and each design: ``violation_rate`` (share of the patients it treats whose
    cost exceeds τ; for a design that is its DLT rate), ``cum_regret_mean`` (pseudo-regret per trial over the
    N patients of HPC-UCB's horizon; a patient a stopped trial leaves untreated gets dose 0), their 95 %
    intervals and ``treated`` (mean patients treated per trial among those N).
    """

    result: DoseFindingResult
    settings: DoseSettings
    K: int
    alpha: np.ndarray  # (R, N) HPC-UCB's dose of each patient
    cost: np.ndarray  # (R, N) HPC-UCB's realized cost of each patient
    patients: Patients
    figures: dict[str, dict[str, Any]]
    seconds: float

    @property
    def delta(self) -> float:
        """HPC-UCB's allowed violation probability δ (= the designs' target φ)."""
        return float(self.settings.delta)

    def bandit_path(self, trial: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Trial ``trial`` of HPC-UCB: each patient's continuous dose in [0, 1] and whether its cost exceeded τ."""
        check_int_range("trial", trial, 0, self.alpha.shape[0] - 1)
        return self.alpha[trial], self.cost[trial] > self.settings.tau


def extra_bytes(K: int, cohort: int, cohorts: int) -> int:
    """What HPC-UCB and the dose model's patients add to the designs' memory, per trial, at the peak: HPC-UCB's
    dose and cost per round (float64) and the patients' four numbers per enrolled slot, times the run's
    :data:`.api.PEAK_FACTOR`."""
    N, U = cohort * cohorts, patients_needed(K, cohort, cohorts)
    return int(PEAK_FACTOR * (N * 8 * 2 + U * 8 * 4))


def call_line(K: int, tau: float, kappa_c: float, d: int, delta: float, cohort: int, cohorts: int, trials: int,
              seed: int) -> str:
    """The Python lines that run the same comparison (:func:`compare`): the dose model's patients are drawn by the
    bandit's own stream, so no command-line flag set gives them."""
    return ("from safebandit_core.dosefinding import bandit\n\n"
            f"both = bandit.compare(K={int(K)}, tau={float(tau)!r}, kappa_c={float(kappa_c)!r}, d={int(d)}, "
            f"delta={float(delta)!r}, cohort={int(cohort)}, cohorts={int(cohorts)}, trials={int(trials)}, "
            f"seed={int(seed)})\nprint(both.figures['hpucb'])")


def compare(K: int = 5, tau: float = 0.25, kappa_c: float = 0.3, d: int = 5, delta: float = 0.3, cohort: int = 3,
            cohorts: int = 10, trials: int = 1000, seed: int = 0, designs: Sequence[str] = DESIGNS,
            g: str = "linear", kappa_r: float = 0.3) -> BanditComparison:
    """Run HPC-UCB for N = cohort·cohorts rounds and the designs (target φ = δ) on the same ``trials`` trials.

    Bad input raises :class:`SettingsError` naming the field and its range (cohorts as the designs take them, and
    no more trials than fit in half the device's memory).
    """
    check_int_range("K", K, 1, scenarios.MAX_DOSES)
    check_int_range("d", d, 1, MAX_D)
    check_int_range("trials", trials, 1, min(MAX_TRIALS, MAX_BANDIT_TRIALS))
    check_int_range("seed", seed, 0, 2**31 - 1 - SEEDS_PER_RUN - trials)
    check_int_range("cohort", cohort, 1, MAX_COHORT)
    check_int_range("cohorts", cohorts, 1, MAX_COHORTS)
    check_fits(K, cohort, cohorts, trials, extra=extra_bytes(K, cohort, cohorts))
    N = cohort * cohorts
    base = DoseSettings(policies=("hpucb",), d=d, T=N, tau=tau, delta=delta, kappa_r=kappa_r, kappa_c=kappa_c,
                        g=g, seeds=1, base_seed=seed, precision="float64").validate()
    truth = dose_truth(K, tau, kappa_c, d, g)
    if np.any(np.diff(truth) <= 0):
        raise SettingsError("tau", f"such that the {K} doses' DLT probabilities increase strictly "
                            f"(they are {', '.join(f'{v:.4g}' for v in truth)}): lower τ or raise κ_c",
                            tau)
    start = time.perf_counter()
    U = patients_needed(K, cohort, cohorts)
    pts = draw_patients(base, trials, U)
    result = designs_on(pts.u, truth, delta, cohort, cohorts, seed, designs)
    alpha, cost, regret = [], [], []
    for first in range(0, trials, SEEDS_PER_RUN):
        keep = min(SEEDS_PER_RUN, trials - first)
        out = families.run(dataclasses.replace(base, seeds=SEEDS_PER_RUN, base_seed=seed + first)).outputs
        alpha.append(out["alpha"][0, :keep])
        cost.append(out["cost"][0, :keep])
        regret.append(out["regret"][0, :keep])
    alpha_all, cost_all, regret_all = (np.concatenate(a, axis=0) for a in (alpha, cost, regret))
    figures = {"hpucb": _figures((cost_all > tau).sum(axis=1), np.full(trials, N), regret_all.sum(axis=1))}
    g_levels = curves.evaluate(g, np.arange(0, K + 1) / K)
    for name in result.designs:
        doses = result.doses[name][:, :N]
        g_given = g_levels[doses]
        over = (g_given * pts.W[:, :N] > tau) & (doses > 0)
        reg = ((pts.g_star[:, :N] - g_given) * pts.x_theta[:, :N]).sum(axis=1)
        figures[name] = _figures(over.sum(axis=1), (doses > 0).sum(axis=1), reg)
    return BanditComparison(result=result, settings=base, K=K, alpha=alpha_all, cost=cost_all, patients=pts,
                            figures=figures, seconds=time.perf_counter() - start)
