"""Settings of the mean-variance model (One-size-fits-all §4–5, MV-CBP) as data, and the arms of the paper.

The K arm means are One-size-fits-all's arithmetic sequence from 0.8 down to 0.2, rewards are Bernoulli
with variance ``μ(1 − μ)``, and the default arm pays ``μ_0``. MV-CUCB's guarantee needs
``ρ > 2/(α μ_0)`` (ALGORITHMS.md §2.2); other values still run, and the result says so plainly.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from .. import device as _device
from ..settings import SettingsError, check_choice, check_int_range, check_open_unit, check_positive
from .policies import NAMES, RISK_BOUND

# Memory per policy, seed and round: the outputs plus the tidy frame built from them (generous).
BYTES_PER_ROUND = 160
MAX_K = 1000
MAX_T = 10_000_000
MAX_SEEDS = 10_000
MAX_RHO = 1e6
MAX_SEED_VALUE = 2**31 - 1


@dataclasses.dataclass(frozen=True)
class MVSettings:
    """One MV-CBP experiment: policies, arms, constraint, horizon, seeds and precision.

    ``precision`` None means the device's default (float64 on the CPU, float32 on a GPU).
    """

    KIND: ClassVar[str] = "meanvar"

    policies: tuple[str, ...] = NAMES
    K: int = 24
    alpha: float = 0.1
    mu0: float = 0.7
    rho: float = 30.0
    T: int = 10_000
    seeds: int = 20
    base_seed: int = 0
    precision: str | None = None

    def validate(self) -> MVSettings:
        """Raise :class:`SettingsError` naming the first field out of its allowed range; return self."""
        if not (isinstance(self.policies, tuple) and self.policies
                and len(set(self.policies)) == len(self.policies)):
            raise SettingsError("policies", "a non-empty tuple of distinct names from " + ", ".join(NAMES),
                                self.policies)
        for p in self.policies:
            check_choice("policies", p, NAMES)
        check_int_range("K", self.K, 1, MAX_K)
        check_mv_numbers(self.alpha, self.mu0, self.rho)
        if self.rho > MAX_RHO:
            raise SettingsError("rho", f"in (0, {MAX_RHO:g}]", self.rho)
        check_int_range("T", self.T, 1, MAX_T)
        check_int_range("seeds", self.seeds, 1, MAX_SEEDS)
        check_int_range("base_seed", self.base_seed, 0, MAX_SEED_VALUE - self.seeds)
        if self.precision is not None:
            check_choice("precision", self.precision, _device.PRECISIONS)
        return self

    @property
    def mv0(self) -> float:
        """The default arm's mean-variance ``MV_0 = ρ μ_0``."""
        return self.rho * self.mu0


def check_mv_numbers(alpha: float, mu0: float, rho: float) -> None:
    """α in (0, 1), μ₀ in (0, 1] and ρ > 0, each named on failure."""
    check_open_unit("alpha", alpha)
    check_positive("mu0", mu0)
    if mu0 > 1.0:
        raise SettingsError("mu0", "in (0, 1]", mu0)
    check_positive("rho", rho)


def arm_means(K: int) -> np.ndarray:
    """One-size-fits-all's arm means: an arithmetic sequence from 0.8 down to 0.2 (0.8 alone when K = 1)."""
    return np.linspace(0.8, 0.2, K)


def arm_variances(K: int) -> np.ndarray:
    """Bernoulli variances ``μ(1 − μ)`` of :func:`arm_means`."""
    mu = arm_means(K)
    return mu * (1.0 - mu)


def best_mv(s: MVSettings) -> float:
    """``MV* = max_i ρ μ_i − σ_i²``, the best regular arm's mean-variance."""
    return float(np.max(s.rho * arm_means(s.K) - arm_variances(s.K)))


def baseline_regret(s: MVSettings) -> float:
    """``MV* − (1 − α)·MV_0``: regret per round of a learner whose path earns exactly the baseline (One-size-fits-all
    §5)."""
    return best_mv(s) - (1 - s.alpha) * s.mv0


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


def warnings_for(s: MVSettings) -> list[str]:
    """The plain warning when ``ρ ≤ 2/(α μ_0)``: the constraint is then not guaranteed."""
    return [] if assumption_ok(s.alpha, s.mu0, s.rho) else [assumption_text(s.alpha, s.mu0, s.rho)]


def memory_bytes(s: MVSettings) -> int:
    """A generous estimate of a run's memory: :data:`BYTES_PER_ROUND` per policy, seed and round."""
    return len(s.policies) * s.seeds * s.T * BYTES_PER_ROUND


MV_BASE = MVSettings(K=24, alpha=0.05, mu0=0.7, rho=10.0, T=100_000, seeds=50)
"""One-size-fits-all's synthetic mean-variance set-up (horizon 10⁵, 50 runs, as :data:`.CMAB_BASE` of the
conservative family): the base of its presets (:mod:`safebandit_core.presets`) and of the mean-variance sweeps."""
