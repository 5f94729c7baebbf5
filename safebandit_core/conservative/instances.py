"""Problem instances of One-size-fits-all's conservative bandits, built deterministically from the settings.

- CMAB: One-size-fits-all's preset, K Bernoulli arms with means in equal steps from 0.8 down to 0.2.
- CLB and CCCB (d ≥ 2): with ``u_i``, ``v`` uniform on the unit sphere of R^{d−1}, radii
  ``ρ_i ~ U[1/2, 1]`` and ``s = min(S, 1/L)``, the arms are ``x_i = ρ_i L (1, u_i)/√2`` and
  ``θ* = s (1, v)/√2``, so ``‖x_i‖ ≤ L``, ``‖θ*‖ ≤ S`` and every mean
  ``⟨x_i, θ*⟩ = ρ_i L s (1 + ⟨u_i, v⟩)/2`` lies in [0, 1] (the first coordinate acts as an
  intercept). For d = 1: ``x_i = L ρ_i`` with ``ρ_i ~ U[0, 1]`` and ``θ* = s``. The random radii keep
  the arms' norms distinct, so the first optimistic pick is not decided by rounding. The draws use
  ``numpy.random.default_rng(base_seed)``.
- μ_0, when not given: ``μ_best − (μ_best − μ_worst)/6`` rounded to 3 decimals, with μ_best and μ_worst
  the best and worst (super) arm means (for CCCB, the sums of the top-m and bottom-m base means).
  On One-size-fits-all's CMAB means this is its μ_0 = 0.7.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .settings import FEATURES, SUPER_ARMS, ConservativeSettings, default_S, mu0_range


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


def linear_arms(rng: np.random.Generator, K: int, d: int, L: float, s: float) -> tuple[np.ndarray, np.ndarray]:
    """Arms (K, d) with ‖x_i‖ ≤ L and θ* (d,) with ‖θ*‖ = s, as the module docstring draws them."""
    if d == 1:
        return L * rng.uniform(0.0, 1.0, size=(K, 1)), np.array([s])
    u = rng.normal(size=(K, d - 1))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = rng.normal(size=d - 1)
    v /= np.linalg.norm(v)
    rho = rng.uniform(0.5, 1.0, size=(K, 1))
    arms = rho * L * np.hstack([np.ones((K, 1)), u]) / math.sqrt(2)
    return arms, s * np.concatenate([[1.0], v]) / math.sqrt(2)


def make_instance(settings: ConservativeSettings) -> Instance:
    """The instance of ``settings`` (validated first); deterministic in ``base_seed``."""
    settings.validate()
    K, L = settings.K, settings.L
    S = default_S(settings.problem, K) if settings.S is None else settings.S
    arms = theta = None
    if FEATURES[settings.problem]:
        rng = np.random.default_rng(settings.base_seed)
        arms, theta = linear_arms(rng, K, settings.d, L, min(S, 1.0 / L))
        means = np.clip(arms @ theta, 0.0, 1.0)
    else:
        means = np.linspace(0.8, 0.2, K)
    best, worst = _extremes(means, settings.size)
    given = settings.mu0 is not None
    mu0 = float(settings.mu0) if given else derived_mu0(best, worst, mu0_range(settings.problem, settings.size))
    return Instance(means=means, arms=arms, theta=theta, mu0=mu0, mu0_given=given, best=best, worst=worst, S=S)


def describe_instance(settings: ConservativeSettings) -> str:
    """One plain-language sentence about the instance, for a page or the command line."""
    inst = make_instance(settings)
    K, problem = settings.K, settings.problem
    if FEATURES[problem]:
        shape = f"{K} base arms in R^{settings.d}" if SUPER_ARMS[problem] else f"{K} arms in R^{settings.d}"
        what = (f"{shape} drawn from seed {settings.base_seed} with Bernoulli rewards of mean ⟨x, θ*⟩ "
                f"between {inst.means.min():.3f} and {inst.means.max():.3f} (‖x‖ ≤ {settings.L:g}, "
                f"‖θ*‖ ≤ {inst.S:g})")
    else:
        what = (f"{K} Bernoulli arms with means in equal steps from 0.8 down to 0.2 (the preset of "
                "One-size-fits-all conservative bandits)")
    if SUPER_ARMS[problem]:
        what += f"; a super arm is any {settings.m} of them and pays the sum of their rewards"
    best = ("best super arm mean" if SUPER_ARMS[problem] else "best mean") + f" {inst.best:.3f}"
    how = ("set by you" if inst.mu0_given
           else "one sixth of the way down from the best mean to the worst, as in the CMAB preset of "
                "One-size-fits-all conservative bandits")
    return f"{problem.upper()}: {what}; {best}; the default arm pays μ₀ = {inst.mu0:g} ({how})."
