"""The fixed numbers of the three designs, computed once on the host in float64 (CLINICAL.md §2, §3).

- BOIN (Liu & Yuan 2015): the interval ends λe, λd and the count boundaries e(n), b(n), x(n) for n = 1..N;
- CRM (O'Quigley 1990, dfcrm): the ``getprior`` skeleton and the 2001-point grid of the log-power ``a``.

Everything here is plain NumPy/SciPy: the jitted designs (:mod:`.designs`) take these tables as arrays.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import stats

POSTERIOR_CUTOFF = 0.95
"""BOIN eliminates a dose when ``P(p > φ | y, n) > 0.95`` under a Beta(1, 1) prior."""
ROUND_EPS = 1e-12
"""When ``λd·n`` is an integer up to this much, ``b(n) = round(λd·n) + 1`` (as BOIN 2.7.2 computes it)."""


def boin_lambdas(target: float) -> tuple[float, float]:
    """BOIN's escalation and de-escalation ends ``(λe, λd)`` for ``φ1 = 0.6φ``, ``φ2 = 1.4φ`` (closed form)."""
    phi1, phi2 = 0.6 * target, 1.4 * target
    lam_e = math.log((1 - phi1) / (1 - target)) / math.log(target * (1 - phi1) / (phi1 * (1 - target)))
    lam_d = math.log((1 - target) / (1 - phi2)) / math.log(phi2 * (1 - target) / (target * (1 - phi2)))
    return lam_e, lam_d


def over_target(target: float, y: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``P(p > φ | y of n)`` under a Beta(1, 1) prior: ``1 − BetaCDF(φ; y+1, n−y+1)``."""
    return stats.beta.sf(target, np.asarray(y) + 1.0, np.asarray(n) - np.asarray(y) + 1.0)


class BoinBoundaries(NamedTuple):
    """BOIN's count boundaries for ``n = 0..N`` (index n; entry 0 unused). ``eliminate[n]`` is ``n + 1`` where
    x(n) is undefined (n < 3, or no count y ≤ n reaches the cutoff), so ``y ≥ eliminate[n]`` never holds there."""

    lambda_e: float
    lambda_d: float
    escalate: np.ndarray  # (N+1,) int: escalate when y <= escalate[n]
    deescalate: np.ndarray  # (N+1,) int: de-escalate when y >= deescalate[n] (already min(b, x))
    eliminate: np.ndarray  # (N+1,) int: eliminate when y >= eliminate[n]
    defined: np.ndarray  # (N+1,) bool: whether x(n) is defined


def boin_boundaries(target: float, max_n: int) -> BoinBoundaries:
    """e(n), b(n) and x(n) for ``n = 1..max_n`` exactly as CLINICAL.md §2 fixes them."""
    lam_e, lam_d = boin_lambdas(target)
    ns = np.arange(max_n + 1)
    esc = np.floor(lam_e * ns).astype(np.int64)
    scaled = lam_d * ns
    near = np.abs(np.round(scaled) - scaled) < ROUND_EPS
    de = np.where(near, np.round(scaled) + 1, np.ceil(scaled)).astype(np.int64)
    elim = ns + 1
    defined = np.zeros(max_n + 1, dtype=bool)
    for n in range(3, max_n + 1):
        ys = np.arange(1, n + 1)
        hit = np.nonzero(over_target(target, ys, np.full_like(ys, n)) > POSTERIOR_CUTOFF)[0]
        if hit.size:
            elim[n] = ys[hit[0]]
            defined[n] = True
    de = np.where(defined, np.minimum(de, elim), de)
    return BoinBoundaries(lam_e, lam_d, esc, de, elim, defined)


def boin_select_table(target: float, max_n: int) -> np.ndarray:
    """``(max_n+1, max_n+1)`` bool: whether a dose with y DLTs of n patients counts as over-toxic in BOIN's MTD
    selection (``n ≥ 3`` and ``P(p > φ | y, n) > 0.95``), indexed ``[n, y]`` (False where y > n)."""
    n, y = np.meshgrid(np.arange(max_n + 1), np.arange(max_n + 1), indexing="ij")
    valid = (y <= n) & (n >= 3)
    prob = over_target(target, np.where(valid, y, 0), np.where(valid, n, 1))
    return valid & (prob > POSTERIOR_CUTOFF)


def getprior(halfwidth: float, target: float, prior_mtd: int, K: int) -> np.ndarray:
    """dfcrm's ``getprior(δ, φ, ν, K)`` for the empiric model (Lee & Cheung 2009): ``s_ν = φ`` and
    ``log s_{k±1}`` from ``log s_k`` by the ratio ``r = log(φ−δ)/log(φ+δ)``; ``prior_mtd`` ν is 1-based."""
    r = math.log(target - halfwidth) / math.log(target + halfwidth)
    logs = np.empty(K)
    logs[prior_mtd - 1] = math.log(target)
    for k in range(prior_mtd - 1, 0, -1):
        logs[k - 1] = r * logs[k]
    for k in range(prior_mtd - 1, K - 1):
        logs[k + 1] = logs[k] / r
    return np.exp(logs)


def default_halfwidth(target: float) -> float:
    """getprior's halfwidth δ: dfcrm's usual 0.05, halved targets' distance to 0 or 1 when closer (it needs
    ``0 < φ − δ`` and ``φ + δ < 1``)."""
    return min(0.05, target / 2, (1 - target) / 2)


def default_prior_mtd(K: int) -> int:
    """dfcrm's usual prior guess of the MTD, ``ν = ⌈K/2⌉``."""
    return math.ceil(K / 2)


GRID_LO, GRID_STEP, GRID_POINTS = -10.0, 0.01, 2001
PRIOR_VAR = 1.34
"""The CRM's prior ``a ~ N(0, 1.34)``, evaluated on ``a_g = −10 + 0.01 g``, ``g = 0..2000``."""


def crm_grid() -> tuple[np.ndarray, np.ndarray]:
    """The grid ``a_g`` and its log prior with trapezoid weights, ``log t_g − a_g²/2.68`` (t = ½ at both ends)."""
    a = GRID_LO + GRID_STEP * np.arange(GRID_POINTS)
    t = np.ones(GRID_POINTS)
    t[[0, -1]] = 0.5
    return a, np.log(t) - a**2 / (2 * PRIOR_VAR)
