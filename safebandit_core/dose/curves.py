"""Dose-response curves g : [0,1] → [0,1], strictly increasing, g(0)=0, g(1)=1, with exact inverses.

- ``linear``: g(α) = α.
- ``power``: g(α) = α^p, p in [0.1, 10] (p < 1 saturating, p > 1 slow start).
- ``emax`` (Hill/Emax, rescaled so g(1)=1): with c = EC50ⁿ,
  g(α) = αⁿ (c + 1) / (c + αⁿ), inverse g⁻¹(z) = (z c / (c + 1 − z))^{1/n};
  EC50 in (0, 10], Hill coefficient n in [0.1, 10].

The curve's kind is static (it fixes the code); its two numbers ``p1, p2`` are traced, so a
sweep over them needs no recompilation. ``p1`` is p (power) or EC50 (emax); ``p2`` is n (emax).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np

from .. import device as _device  # noqa: F401  (float64 on before any array is built)
from ..settings import SettingsError

KINDS = ("linear", "power", "emax")
POWER_RANGE = (0.1, 10.0)
EC50_RANGE = (0.0, 10.0)
HILL_RANGE = (0.1, 10.0)


class Curve(NamedTuple):
    """A dose curve as two pure functions of (dose, p1, p2)."""

    g: Callable
    g_inv: Callable


def _lin(a, p1, p2):
    return a


def _pow(a, p1, p2):
    return a**p1


def _pow_inv(z, p1, p2):
    return z ** (1.0 / p1)


def _emax(a, p1, p2):
    c = p1**p2
    an = a**p2
    return an * (c + 1.0) / (c + an)


def _emax_inv(z, p1, p2):
    c = p1**p2
    return (z * c / (c + 1.0 - z)) ** (1.0 / p2)


CURVES: dict[str, Curve] = {
    "linear": Curve(_lin, _lin),
    "power": Curve(_pow, _pow_inv),
    "emax": Curve(_emax, _emax_inv),
}


def get(kind: str) -> Curve:
    """The curve of a kind (``linear``, ``power``, ``emax``)."""
    if kind not in CURVES:
        raise SettingsError("g", "one of " + ", ".join(KINDS), kind)
    return CURVES[kind]


POWER_TEXT = f"in [{POWER_RANGE[0]}, {POWER_RANGE[1]}]"
EC50_TEXT = f"in ({EC50_RANGE[0]}, {EC50_RANGE[1]}]"
HILL_TEXT = f"in [{HILL_RANGE[0]}, {HILL_RANGE[1]}]"


def _check_power(power: float, ec50: float, hill: float) -> None:
    if not (POWER_RANGE[0] <= power <= POWER_RANGE[1]):
        raise SettingsError("g_power", POWER_TEXT, power)


def _check_emax(power: float, ec50: float, hill: float) -> None:
    if not (EC50_RANGE[0] < ec50 <= EC50_RANGE[1]):
        raise SettingsError("g_ec50", EC50_TEXT, ec50)
    if not (HILL_RANGE[0] <= hill <= HILL_RANGE[1]):
        raise SettingsError("g_hill", HILL_TEXT, hill)


CHECKS: dict[str, Callable[[float, float, float], None]] = {"power": _check_power, "emax": _check_emax}
NUMBERS: dict[str, Callable[[float, float, float], tuple[float, float]]] = {
    "linear": lambda power, ec50, hill: (1.0, 1.0),
    "power": lambda power, ec50, hill: (float(power), 1.0),
    "emax": lambda power, ec50, hill: (float(ec50), float(hill)),
}
"""Per curve kind: the check of its parameters, and its traced numbers (p1, p2)."""


def validate(kind: str, power: float, ec50: float, hill: float) -> None:
    """Check the curve's parameters; raise :class:`SettingsError` naming the one out of range. A parameter the
    curve does not use must still be a finite number (it is kept in the settings and may be used later)."""
    get(kind)
    for field, value, allowed in (("g_power", power, POWER_TEXT), ("g_ec50", ec50, EC50_TEXT),
                                  ("g_hill", hill, HILL_TEXT)):
        if isinstance(value, bool) or not (isinstance(value, (int, float)) and math.isfinite(value)):
            raise SettingsError(field, allowed, value)
    CHECKS.get(kind, lambda *_: None)(power, ec50, hill)


def params_of(kind: str, power: float, ec50: float, hill: float) -> tuple[float, float]:
    """The traced (p1, p2) of a curve."""
    get(kind)
    return NUMBERS[kind](power, ec50, hill)


def evaluate(kind: str, doses: np.ndarray, power: float = 2.0, ec50: float = 0.5, hill: float = 2.0) -> np.ndarray:
    """g on a grid of doses, as numpy (for the page's small plot of the chosen curve)."""
    p1, p2 = params_of(kind, power, ec50, hill)
    return np.asarray(get(kind).g(jnp.asarray(doses, dtype=jnp.float64), p1, p2))


GRID_POINTS = 101


def on_grid(kind: str, power: float = 2.0, ec50: float = 0.5, hill: float = 2.0, points: int = GRID_POINTS
            ) -> tuple[np.ndarray, np.ndarray]:
    """The doses ``points`` evenly spaced in [0, 1] and g at each (the page's small plot of the chosen curve)."""
    doses = np.linspace(0.0, 1.0, points)
    return doses, evaluate(kind, doses, power, ec50, hill)


def effect(settings: Any, doses: np.ndarray) -> np.ndarray:
    """g(α) of the curve a settings object (any dose-type one) chose, at each dose."""
    return evaluate(settings.g, doses, settings.g_power, settings.g_ec50, settings.g_hill)
