"""What the non-linear page's candidates chart offers: the directions u of its line of contexts x = a·u, and the round
it starts at; :func:`gradient_direction`, the default one, where the true cost function rises fastest at x = 0."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .family import draw_classes
from .settings import NonlinearSettings

AXES_SHOWN = 8
"""The first this many coordinate axes are offered as directions."""


def directions(s: NonlinearSettings) -> dict[str, np.ndarray]:
    """``true``: where the true cost function rises fastest at x = 0; then ``e1``, ``e2``, …: the first axes."""
    _, members_c, _, c_star = draw_classes(s)
    axes = np.eye(s.d)
    return {"true": gradient_direction(s.function_class, members_c, c_star),
            **{f"e{j + 1}": axes[j] for j in range(min(s.d, AXES_SHOWN))}}


def default_round(sizes: np.ndarray, size: int, rounds: list[int]) -> int:
    """The first of ``rounds`` at or after the cost set is down to √|F| members (the last if it never is)."""
    small = np.flatnonzero(sizes <= max(1.0, np.sqrt(size)))
    return next((r for r in rounds if small.size and r > small[0]), rounds[-1])


def _mlp_gradient(m: Any, i: int) -> np.ndarray:
    """∇f(0) of f(x) = tanh(⟨v, tanh(Wx + b)⟩ + c), up to its positive factor 1 − f(0)²."""
    return (m.w2[i] * (1.0 - np.tanh(m.b1[i]) ** 2)) @ m.w1[i]


GRADIENTS: dict[str, Callable[[Any, int], np.ndarray]] = {
    "linear-grid": lambda m, i: m.theta[i],
    "logistic": lambda m, i: m.w[i],
    "mlp": _mlp_gradient,
}
"""The direction of ∇f(0) for member i of each class kind (positive factors dropped)."""


def gradient_direction(kind: str, members: Any, index: int) -> np.ndarray:
    """The unit vector along which member ``index`` rises fastest at x = 0 (the first axis if its gradient is 0)."""
    g = np.asarray(GRADIENTS[kind](members, index), dtype=np.float64)
    norm = np.linalg.norm(g)
    if norm == 0 or not np.isfinite(norm):
        return np.eye(g.size)[0]
    return g / norm
