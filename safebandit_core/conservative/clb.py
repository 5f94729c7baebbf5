"""Linear bandits (One-size-fits-all §3.2, Algorithm 4): LinUCB/OFUL as GenCB-CLB's standard policy.

LinUCB (Abbasi-Yadkori et al. 2011): play ``argmax_i ⟨x_i, θ̂⟩ + β_m ‖x_i‖_{V⁻¹}`` (ties → lowest
index) over the ridge statistics of :mod:`.ridge`, with the radius of ALGORITHMS.md §2.1,
``β_m = sqrt(d · log(2 m² (1 + m L²/λ))) + sqrt(λ)·S``.
"""

from __future__ import annotations

from .gencb import StandardPolicy
from .ridge import full_ridge, linear_ucb, oful_radius


def linucb(K: int, d: int) -> StandardPolicy:
    """LinUCB/OFUL with GenCB-CLB's radius β_m (One-size-fits-all, Algorithm 4); K and d are compiled widths."""
    return linear_ucb(full_ridge(K, d), oful_radius())
