"""Operating characteristics of a design over R trials (CLINICAL.md §5), with Monte-Carlo 95 % intervals.

Percentages over trials (selection, none, PCS) are means of per-trial indicators with the normal 95 %
interval of :func:`safebandit_core.results.interval95`; the ratios over all patients (% treated above the
true MTD, the DLT rate) use the delta method for a ratio of sums. Intervals are clipped to the range of
the quantity.

``cum_regret`` (the shared schema's regret) is the dose-finding pseudo-regret of a trial: over its
patients, how much farther the DLT probability of the dose each was given lies from the target than that of
the closest dose, ``Σ_j n_j |p_j − φ| − N_r min_j |p_j − φ|`` (0 when everyone gets the closest dose).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..results import interval95


def _ratio95(num: np.ndarray, den: np.ndarray, scale: float, hi: float) -> tuple[float, float, float]:
    """``scale·Σnum/Σden`` and its delta-method 95 % interval over trials, clipped to [0, hi]."""
    num, den = num.astype(np.float64), den.astype(np.float64)
    ratio = num.sum() / den.sum()
    if num.size < 2:
        return scale * ratio, scale * ratio, scale * ratio
    resid = num - ratio * den
    half = 1.96 * resid.std(ddof=1) / np.sqrt(num.size) / den.mean()
    return scale * ratio, max(0.0, scale * (ratio - half)), min(hi, scale * (ratio + half))


def _pct(flags: np.ndarray) -> tuple[float, list[float]]:
    m, lo, hi = interval95(100.0 * flags.astype(np.float64), 0.0, 100.0)
    return m, [lo, hi]


def characteristics(mtd: np.ndarray, n: np.ndarray, y: np.ndarray, p: np.ndarray, target: float,
                    true: int) -> dict[str, Any]:
    """The figures of CLINICAL.md §5 for one design from its trials' MTDs (R,) and counts n, y (R, K), for the
    truth ``p`` and its true MTD ``true`` (1-based, 0 = none)."""
    R, K = n.shape
    sel = [_pct(mtd == j) for j in range(1, K + 1)]
    none, none_ci = _pct(mtd == 0)
    pcs, pcs_ci = _pct(mtd == true)
    per_trial = n.sum(axis=1)
    above = per_trial if true == 0 else n[:, true:].sum(axis=1)
    above_pct, above_lo, above_hi = _ratio95(above, per_trial, 100.0, 100.0)
    rate, rate_lo, rate_hi = _ratio95(y.sum(axis=1), per_trial, 1.0, 1.0)
    gap = np.abs(np.asarray(p, dtype=np.float64) - target)
    regret = n @ gap - per_trial * gap.min()
    r_mean, r_lo, r_hi = interval95(regret)
    return {
        "cum_regret_mean": r_mean, "cum_regret_std": float(regret.std(ddof=1)) if R > 1 else 0.0,
        "cum_regret_ci95": [r_lo, r_hi],
        "select_pct": [s[0] for s in sel], "select_pct_ci95": [[s[1][0] for s in sel], [s[1][1] for s in sel]],
        "none_pct": none, "none_pct_ci95": none_ci,
        "patients": n.mean(axis=0).tolist(), "dlts": y.mean(axis=0).tolist(),
        "total_patients": float(per_trial.mean()), "total_dlts": float(y.sum(axis=1).mean()),
        "pcs": pcs, "pcs_ci95": pcs_ci,
        "pct_patients_above_mtd": above_pct, "pct_patients_above_mtd_ci95": [above_lo, above_hi],
        "dlt_rate": rate, "dlt_rate_ci95": [rate_lo, rate_hi],
    }


FIGURES = ("select_pct", "select_pct_ci95", "none_pct", "none_pct_ci95", "patients", "dlts", "total_patients",
           "total_dlts", "pcs", "pcs_ci95", "pct_patients_above_mtd", "pct_patients_above_mtd_ci95", "dlt_rate",
           "dlt_rate_ci95")
"""The operating characteristics a design reports, in order (beside the shared ``cum_regret_*``)."""
