"""Scenarios of a dose-finding trial (CLINICAL.md §4, §5): the true DLT probabilities and the true MTD.

A scenario is either a truth vector ``p`` as given (every published table), or derived from the
heteroscedastic dose model (ALGORITHMS.md §1): K doses ``α_j = j/K``, a DLT at dose j when the cost
``g(α_j)(⟨X, μ*⟩ + ξ^c) > τ``, with X uniform on the sphere S^{d−1} and ``ξ^c ~ N(0, κ_c²)``. Then
``T = ⟨X, μ*⟩`` has ``(T+1)/2 ~ Beta((d−1)/2, (d−1)/2)`` whatever μ* (‖μ*‖ = 1), and
``p_j = ∫ Φ̄((τ/g(α_j) − t)/κ_c) f_T(t) dt``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import integrate, special, stats

from ..dose import curves

MAX_DOSES = 20


@dataclasses.dataclass(frozen=True)
class Standard:
    """A scenario of the kind published operating-characteristics tables use: its name (for the command line and
    links), its words, the true chance of a DLT at each dose and the target φ."""

    name: str
    title: str
    truth: tuple[float, ...]
    target: float


STANDARD: dict[str, Standard] = {s.name: s for s in (
    Standard("mtd-4-of-6", "Six doses, the right dose is the 4th (target 0.3)",
             (0.05, 0.10, 0.20, 0.30, 0.45, 0.60), 0.30),
    Standard("mtd-2-of-5", "Five doses, the right dose is the 2nd (target 0.25)", (0.10, 0.25, 0.40, 0.55, 0.70), 0.25),
    Standard("mtd-top-of-5", "Five doses, the right dose is the top one (target 0.3)",
             (0.02, 0.05, 0.10, 0.18, 0.30), 0.30),
    Standard("all-too-toxic", "Five doses, all too toxic (target 0.3)", (0.45, 0.55, 0.65, 0.75, 0.85), 0.30),
)}
"""The shipped standard scenarios by name, the first the default (``dosefinding --scenario NAME``, the page's
picker)."""


def _exceed(z: float, kappa_c: float, d: int) -> float:
    """``P(T + ξ > z)`` for ``T = ⟨X, μ*⟩`` with X uniform on S^{d−1} and ``ξ ~ N(0, κ_c²)``."""
    if d == 1:  # T = ±1 with probability ½ each
        if kappa_c == 0.0:
            return 0.5 * float(1.0 > z) + 0.5 * float(-1.0 > z)
        return 0.5 * float(stats.norm.sf((z - 1.0) / kappa_c) + stats.norm.sf((z + 1.0) / kappa_c))
    a = (d - 1) / 2.0
    if kappa_c == 0.0:
        return float(stats.beta.sf((z + 1.0) / 2.0, a, a))
    # f_T(t) = (1+t)^{a−1} (1−t)^{a−1} / (2^{2a−1} B(a, a)); quad's algebraic weight takes the end behaviour
    scale = math.exp(-(2 * a - 1) * math.log(2.0) - special.betaln(a, a))
    value, _ = integrate.quad(lambda t: stats.norm.sf((z - t) / kappa_c), -1.0, 1.0, weight="alg",
                              wvar=(a - 1.0, a - 1.0), epsabs=1e-13, epsrel=1e-12, limit=200)
    return scale * value


def truth_from_dose_model(K: int, tau: float, kappa_c: float, d: int, g: str = "linear", g_power: float = 2.0,
                          g_ec50: float = 0.5, g_hill: float = 2.0) -> np.ndarray:
    """The DLT probability of each of K doses ``α_j = j/K`` under the dose model (CLINICAL.md §4 (b)), with the
    dose model's settings names (τ, κ_c, d and the curve g)."""
    doses = np.arange(1, K + 1) / K
    g_values = curves.evaluate(g, doses, g_power, g_ec50, g_hill)
    return np.array([_exceed(tau / gv, kappa_c, d) for gv in g_values])


def true_mtd(p: np.ndarray, target: float) -> int:
    """The true MTD ``argmin_j |p_j − φ|`` (1-based, lowest on ties), or 0 when ``p_1 > 1.4φ`` (none acceptable)."""
    p = np.asarray(p, dtype=np.float64)
    if p[0] > 1.4 * target:
        return 0
    return int(np.argmin(np.abs(p - target))) + 1
