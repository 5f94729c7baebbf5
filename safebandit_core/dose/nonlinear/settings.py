"""Settings of non-linear HPC-UCB runs (Safety by Design §6) as data: one frozen dataclass, validated once."""

from __future__ import annotations

import dataclasses
import math
from typing import ClassVar

from ... import device as dev
from ... import shapes
from ...settings import check_choice, check_int_range
from ..settings import check_rule
from .classes import KINDS
from .policy import LABELS

OUTPUT_KEYS = ("alpha", "est_upper", "true_upper", "reward", "cost", "regret", "set_r", "set_c", "fit_r", "fit_c",
               "true_in_r", "true_in_c")
MAX_SIZE = 4096
MAX_D = 4096
MAX_T = 1_000_000
MAX_SEEDS = 1000
MAX_HIDDEN = 256
GRID_FIELDS = ("tau", "delta", "delta_prime", "kappa_r", "kappa_c", "eps", "g_power", "g_ec50", "g_hill")


@dataclasses.dataclass(frozen=True)
class NonlinearSettings:
    """Every setting of a non-linear HPC-UCB run; a run is fully determined by these.

    Both classes (F^r, F^c) are ``size`` members of ``function_class`` in ``d`` dimensions, drawn
    from ``base_seed`` (so every seed of a run shares them, and the true members); seed i's
    contexts, noises and coins come from PRNGKey(base_seed + i). ``hidden`` is the mlp's width.
    """

    KIND: ClassVar[str] = "nonlinear"

    policies: tuple[str, ...] = ("hpucb", "on_expectation", "eps_greedy")
    function_class: str = "linear-grid"
    size: int = 64
    d: int = 5
    T: int = 2000
    tau: float = 0.5
    delta: float = 0.05
    delta_prime: float = 0.05
    kappa_r: float = 0.3
    kappa_c: float = 0.3
    g: str = "linear"
    g_power: float = 2.0
    g_ec50: float = 0.5
    g_hill: float = 2.0
    eps: float = 0.5
    seeds: int = 5
    base_seed: int = 0
    precision: str = "auto"
    hidden: int = 8

    def validate(self) -> NonlinearSettings:
        """Raise :class:`SettingsError` naming the first field out of range; return self."""
        check_choice("function_class", self.function_class, KINDS)
        check_int_range("size", self.size, 1, MAX_SIZE)
        check_int_range("hidden", self.hidden, 1, MAX_HIDDEN)
        check_rule(self, MAX_D, MAX_T, MAX_SEEDS)
        return self

    def resolved_precision(self, device: str | None = None) -> str:
        """The precision a run uses: float64 on the CPU, float32 on a GPU unless set."""
        return dev.default_precision(device) if self.precision == "auto" else self.precision

    @property
    def labels(self) -> list[str]:
        """Display names of the chosen policies, in order."""
        return [LABELS[p] for p in self.policies]


def memory_bytes(s: NonlinearSettings) -> int:
    """A generous estimate of a run's memory: per run the two |F|×|F| distance matrices, the outputs
    (|F|, d and the hidden width at their compiled widths, ``shapes.bucket``)."""
    runs = len(s.policies) * s.seeds
    item = 8 if s.precision in ("auto", "float64") else 4
    n, d, hidden = shapes.bucket(s.size), shapes.bucket(s.d), shapes.bucket(s.hidden)
    per_run = (2 * n * n + 4 * n) * item + 2 * len(OUTPUT_KEYS) * s.T * item
    members = 2 * n * (d * (hidden + 1) + 2 * hidden + 2) * 8
    return runs * per_run + members


def warnings_for(s: NonlinearSettings) -> list[str]:
    """Plain-language warnings about settings that run but are unlikely to teach much."""
    out = []
    b = s.kappa_c * math.sqrt(2 * math.log(1 / s.delta))
    z1 = min(1.0, s.tau / (b + 1.0))
    if z1 < 0.02:
        out.append(f"HPC-UCB starts almost at zero: round 1 plays g⁻¹({z1:.4f}), because before any data it must allow "
                   f"for the noise margin b_δ = κ_c·√(2 log 1/δ) = {b:.2f} and a cost of up to 1, which dwarf "
                   f"τ = {s.tau:g}. It doses more only as it learns the cost. Raise τ, lower the cost noise κ_c, or "
                   "raise δ.")
    if s.tau > 10 * (b + 1.0):
        out.append(f"τ = {s.tau:g} is so large that every dose is safe: the constraint never binds. "
                   "Lower τ to see it work.")
    if s.size > 1024:
        out.append(f"|F| = {s.size} keeps two {s.size}×{s.size} distance matrices per run and updates them every "
                   "round: expect a slow run without a GPU.")
    return out
