"""Settings of One-size-fits-all's conservative bandits (CMAB, CLB, CCCB) as data: the registries and one frozen
dataclass.

The problems and the policies that fit each (ALGORITHMS.md §2, BASELINES.md §1–4): GenCB, the
problem's expected-reward baseline(s) and the unconstrained standard policy.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

from .. import device as _device
from ..settings import SettingsError, check_choice, check_int_range, check_open_unit, check_positive

PROBLEMS: tuple[str, ...] = ("cmab", "clb", "cccb")
POLICIES: dict[str, tuple[str, ...]] = {
    "cmab": ("gencb", "conucb", "clucb", "ucb"),
    "clb": ("gencb", "clucb", "clucb2", "linucb"),
    "cccb": ("gencb", "c3ucb", "c2ucb"),
}
BASELINE: dict[str, str] = {"cmab": "conucb", "clb": "clucb", "cccb": "c3ucb"}
UNCONSTRAINED: dict[str, str] = {"cmab": "ucb", "clb": "linucb", "cccb": "c2ucb"}
LABELS: dict[str, str] = {
    "gencb": "GenCB", "conucb": "ConUCB", "clucb": "CLUCB", "clucb2": "CLUCB2", "c3ucb": "C3UCB",
    "ucb": "UCB", "linucb": "LinUCB", "c2ucb": "C2UCB",
}
FEATURES: dict[str, bool] = {"cmab": False, "clb": True, "cccb": True}
"""Whether a problem's arms have features (d is used)."""
SUPER_ARMS: dict[str, bool] = {"cmab": False, "clb": False, "cccb": True}
"""Whether a problem plays super arms of m base arms (m is used)."""

MAX_CCCB_ARMS = 62  # the super arm travels as an int64 bit mask
MAX_T = 1_000_000
MAX_SEEDS = 1_000
MAX_K = 1_000
MAX_D = 64


def check_policy(problem: str, policy: str, field: str = "policy") -> None:
    """Require a known problem and a policy that fits it."""
    check_choice("problem", problem, PROBLEMS)
    check_choice(field, policy, POLICIES[problem])


def mu0_range(problem: str, m: int) -> float:
    """Upper end of μ_0's open range: 1, or m for CCCB (a super arm's mean is at most m)."""
    return float(m) if SUPER_ARMS[problem] else 1.0


def check_mu0(problem: str, mu0: Any, m: int) -> None:
    """Require ``0 < μ_0 < 1`` (``0 < μ_0 < m`` for CCCB)."""
    hi = mu0_range(problem, m)
    if hi == 1.0:
        check_open_unit("mu0", mu0)
    elif not (isinstance(mu0, (int, float)) and math.isfinite(mu0) and 0.0 < mu0 < hi):
        raise SettingsError("mu0", f"in (0, {hi:g}) for CCCB with super arms of size m = {m}", mu0)


def check_lam(lam: Any, L: float) -> None:
    """Require the papers' ``λ ≥ max(1, L²)`` (Algorithms 4 and 5)."""
    check_positive("lam", lam)
    if lam < max(1.0, L * L):
        raise SettingsError("lam", f">= max(1, L²) = {max(1.0, L * L):g}", lam)


def default_S(problem: str, K: int) -> float:
    """‖θ*‖ bound when none is given: √K for CMAB (one-hot CLUCB, means in [0, 1]), else 1."""
    return 1.0 if FEATURES[problem] else math.sqrt(K)


@dataclasses.dataclass(frozen=True)
class ConservativeSettings:
    """One conservative-bandit experiment (One-size-fits-all §5). ``None`` fields take the documented defaults.

    ``policies``: empty means GenCB, the problem's expected-reward baseline and its unconstrained
    policy. ``d`` (feature dimension) is used by CLB and CCCB, ``m`` (super arm size) by CCCB.
    ``mu0`` None: derived from the instance (:mod:`.instances`). ``S`` None: √K for CMAB, 1 otherwise.
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
        return self.m if SUPER_ARMS[self.problem] else 1

    @property
    def dim(self) -> int | None:
        """Feature dimension, None for CMAB."""
        return self.d if FEATURES[self.problem] else None

    @property
    def labels(self) -> list[str]:
        """Display names of the policies to run, in order."""
        return [LABELS[p] for p in self.policy_list()]

    def validate(self) -> ConservativeSettings:
        """Raise :class:`SettingsError` naming the first field out of its allowed range; else return self."""
        check_choice("problem", self.problem, PROBLEMS)
        if not isinstance(self.policies, tuple):
            raise SettingsError("policies", "a tuple of policy names", self.policies)
        for p in self.policies:
            check_choice("policies", p, POLICIES[self.problem])
        if len(set(self.policies)) != len(self.policies):
            raise SettingsError("policies", "names without repeats", self.policies)
        check_int_range("K", self.K, 2, MAX_CCCB_ARMS if SUPER_ARMS[self.problem] else MAX_K)
        if FEATURES[self.problem]:
            check_int_range("d", self.d, 1, MAX_D)
        if SUPER_ARMS[self.problem]:
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


CMAB_BASE = ConservativeSettings(problem="cmab", K=72, alpha=0.05, mu0=0.7, T=100_000, seeds=50)
"""One-size-fits-all's synthetic CMAB set-up (horizon 10⁵, 50 runs): the base of its presets
(:mod:`safebandit_core.presets`) and, with K = 24, of the conservative sweeps."""
