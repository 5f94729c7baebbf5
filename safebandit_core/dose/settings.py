"""Settings of the dose model (Safety by Design) as data: one frozen dataclass, validated once."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import jax
import jax.numpy as jnp

from .. import device as dev
from .. import shapes
from ..settings import (
    SettingsError,
    check_choice,
    check_int_range,
    check_nonnegative,
    check_open_unit,
    check_positive,
)
from . import curves
from .policies import LABELS, NAMES, DoseParams, first_dose, policy_numbers

OUTPUT_KEYS = ("alpha", "reward", "cost", "cost_mean", "est_upper", "true_upper", "regret")
MAX_D = 4096
MAX_T = 1_000_000
MAX_SEEDS = 1000
GRID_FIELDS = ("tau", "delta", "delta_prime", "kappa_r", "kappa_c", "S", "L", "lam", "eps", "g_power", "g_ec50",
               "g_hill")


def check_numbers(tau: float, delta: float, delta_prime: float, kappa_r: float, kappa_c: float, eps: float,
                  g: str, g_power: float = 2.0, g_ec50: float = 0.5, g_hill: float = 2.0) -> None:
    """The numbers of the safety rule, the noise, ε and the dose curve (shared by every dose-type model)."""
    check_positive("tau", tau)
    check_open_unit("delta", delta)
    check_open_unit("delta_prime", delta_prime)
    check_nonnegative("kappa_r", kappa_r)
    check_nonnegative("kappa_c", kappa_c)
    if not (isinstance(eps, (int, float)) and 0.0 <= eps <= 1.0):
        raise SettingsError("eps", "in [0, 1]", eps)
    curves.validate(g, g_power, g_ec50, g_hill)


def check_replay_numbers(tau: float, delta: float, delta_prime: float, lam: float, eps: float) -> None:
    """The numbers a replay of a fitted model takes from its user (the noise comes from the fit)."""
    check_positive("tau", tau)
    check_open_unit("delta", delta)
    check_open_unit("delta_prime", delta_prime)
    check_positive("lam", lam)
    if not (isinstance(eps, (int, float)) and 0.0 <= eps <= 1.0):
        raise SettingsError("eps", "in [0, 1]", eps)


def check_rule(s: Any, max_d: int, max_t: int, max_seeds: int) -> None:
    """The fields every dose-type settings class shares: policies, d, T, seeds, base seed, the numbers of
    :func:`check_numbers` and the precision; :class:`SettingsError` names the first out of range."""
    if not s.policies:
        raise SettingsError("policies", "at least one of " + ", ".join(NAMES))
    for name in s.policies:
        check_choice("policy", name, NAMES)
    if len(set(s.policies)) != len(s.policies):
        raise SettingsError("policies", "a list without repeats", list(s.policies))
    check_int_range("d", s.d, 1, max_d)
    check_int_range("T", s.T, 1, max_t)
    check_int_range("seeds", s.seeds, 1, max_seeds)
    check_int_range("base_seed", s.base_seed, 0, 2**31 - 1 - max_seeds)
    check_numbers(s.tau, s.delta, s.delta_prime, s.kappa_r, s.kappa_c, s.eps, s.g, s.g_power, s.g_ec50, s.g_hill)
    check_choice("precision", s.precision, ("auto", *dev.PRECISIONS))


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
        check_rule(self, MAX_D, MAX_T, MAX_SEEDS)
        check_positive("S", self.S)
        check_positive("L", self.L)
        check_positive("lam", self.lam)
        check_int_range("refresh_every", self.refresh_every, 1)
        return self

    def resolved_precision(self, device: str | None = None) -> str:
        """The precision a run uses: float64 on the CPU, float32 on a GPU unless set."""
        return dev.default_precision(device) if self.precision == "auto" else self.precision

    @property
    def labels(self) -> list[str]:
        """Display names of the chosen policies, in order."""
        return [LABELS[p] for p in self.policies]


def policy_params(s: DoseSettings, dtype: jnp.dtype, policies: tuple[str, ...] | None = None) -> DoseParams:
    """The policies' traced numbers with a leading axis over ``policies`` (default: the settings' policies)."""
    g1, g2 = curves.params_of(s.g, s.g_power, s.g_ec50, s.g_hill)
    rows = []
    for name in policies or s.policies:
        b_scale, eps = policy_numbers(name, s.eps)
        rows.append(DoseParams(s.tau, s.delta, s.delta_prime, s.kappa_r, s.kappa_c, s.S, s.L, s.lam, eps, b_scale,
                               g1, g2, s.d))
    return jax.tree.map(lambda *xs: jnp.asarray(xs, dtype=dtype), *rows)


def memory_bytes(s: DoseSettings) -> int:
    """A generous estimate of the memory a run needs (state, outputs, one chunk of draws)."""
    runs = len(s.policies) * s.seeds
    item = 8 if s.precision in ("auto", "float64") else 4
    width = shapes.bucket(s.d)
    return runs * (3 * width * width * item + len(OUTPUT_KEYS) * s.T * item + 1000 * width * item)


def first_safe_dose(s: DoseSettings) -> float:
    """HPC-UCB's round-1 dose α₁ = g⁻¹(min(1, τ/(b_δ + S L)))."""
    p = jax.tree.map(lambda v: v[0], policy_params(s, jnp.float64, ("hpucb",)))
    return float(first_dose(curves.get(s.g), p))


def warnings_for(s: DoseSettings) -> list[str]:
    """Plain-language warnings about settings that run but are unlikely to teach much."""
    out = []
    b = s.kappa_c * math.sqrt(2 * math.log(1 / s.delta))
    a1 = first_safe_dose(s)
    if a1 < 0.02:
        out.append(
            f"HPC-UCB starts almost at zero: its round-1 safe dose is {a1:.4f}, because before any data it must allow "
            f"for the noise margin b_δ = κ_c·√(2 log 1/δ) = {b:.2f} and the parameter bound S·L = {s.S * s.L:.3g}, "
            f"which dwarf τ = {s.tau:g}. It doses more only as it learns the cost, which can take most of the run. "
            "Raise τ, lower the cost noise κ_c, or raise δ."
        )
    if s.tau > 10 * (b + s.S * s.L):
        out.append(f"τ = {s.tau:g} is so large that every dose is safe: the constraint never binds. "
                   "Lower τ to see it work.")
    return out


S000_BASE = DoseSettings(policies=("hpucb", "on_expectation"), d=5, T=10_000, tau=0.5, delta=0.01, delta_prime=0.05,
                         kappa_r=1.0, kappa_c=1.0, S=1.0, L=1.0, lam=1.0, g="linear", eps=0.5, seeds=5)
"""Safety by Design's synthetic set-up: the base of its presets (:mod:`safebandit_core.presets`) and of the dose
sweeps."""
