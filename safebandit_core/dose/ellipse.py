"""The cost estimate's confidence ellipse, round by round, for a two-dimensional dose model (d = 2).

HPC-UCB's pessimistic cost is the largest ⟨X_t, μ⟩ over the ellipsoid
``{μ : ‖μ − μ̂_t‖_{Σ_t} ≤ β^c_t}`` (ALGORITHMS.md §1.1). For d = 2 that set is an ellipse in the plane,
and watching it shrink around the true μ* is the clearest picture of what the algorithm learns.

:func:`ellipses` rebuilds Σ_t, μ̂_t and β^c_t exactly from one seed's explicit stream (its contexts)
and the run's doses and costs, with the same formulas as :mod:`.policies`, in float64 numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..settings import SettingsError
from . import curves
from .family import draw_stream

POINTS = 96


def ellipses(run: Any, policy: str, seed_index: int, rounds: Sequence[int]) -> dict[str, Any]:
    """The estimate μ̂_t, the ellipse's outline and β^c_t at each round t of ``rounds`` (1-based), and the true μ*.

    The data at round t are the informative rounds before it (g(α_s) > 0), with targets C_s / g(α_s).
    Returns ``{"rounds", "centers" (n, 2), "outlines" (n, POINTS, 2), "beta" (n,), "mu" (2,)}``.
    """
    s = run.settings
    if s.d != 2:
        raise SettingsError("d", "2 for the confidence ellipse (it is a picture in the plane)", s.d)
    stream = draw_stream(s, seed_index)
    i = run.policies.index(policy)
    alpha = np.asarray(run.outputs["alpha"][i, seed_index], dtype=np.float64)
    cost = np.asarray(run.outputs["cost"][i, seed_index], dtype=np.float64)
    g = curves.evaluate(s.g, alpha, s.g_power, s.g_ec50, s.g_hill)
    used = g > 0
    X = np.asarray(stream["X"], dtype=np.float64) * used[:, None]
    y = np.where(used, cost / np.where(used, g, 1.0), 0.0)
    grams = np.cumsum(X[:, :, None] * X[:, None, :], axis=0)  # after round s
    sums = np.cumsum(y[:, None] * X, axis=0)
    counts = np.cumsum(used)
    angle = np.linspace(0.0, 2 * np.pi, POINTS)
    circle = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    centers, outlines, betas = [], [], []
    for t in rounds:
        k = int(t) - 1  # data strictly before round t
        gram = s.lam * np.eye(2) + (grams[k - 1] if k > 0 else 0.0)
        b = sums[k - 1] if k > 0 else np.zeros(2)
        n = int(counts[k - 1]) if k > 0 else 0
        center = np.linalg.solve(gram, b)
        rad = np.sqrt(2 * np.log((1.0 + n * s.L**2 / s.lam) / s.delta_prime))
        beta = s.kappa_c * rad + np.sqrt(s.lam) * s.S
        w, v = np.linalg.eigh(gram)
        outlines.append(center + beta * (circle / np.sqrt(w)) @ v.T)
        centers.append(center)
        betas.append(beta)
    return {"rounds": [int(t) for t in rounds], "centers": np.array(centers), "outlines": np.array(outlines),
            "beta": np.array(betas), "mu": np.asarray(stream["mu"], dtype=np.float64)}
