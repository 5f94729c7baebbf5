"""What the non-linear page's candidates chart offers: the directions u of its line of contexts x = a·u, and the round
it starts at."""

from __future__ import annotations

import numpy as np

from ...viz.nonlinear import gradient_direction
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
