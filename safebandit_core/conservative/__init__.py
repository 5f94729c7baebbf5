"""Conservative bandits of seed 001: GenCB (CMAB, CLB, CCCB), MV-CUCB, and their baselines.

Public entry point: :func:`run_on_stream`, one run on an explicit, pre-drawn stream of outcomes.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def run_on_stream(problem: str, policy: str, rewards: Any, **kwargs: Any) -> dict[str, np.ndarray]:
    """Run one conservative policy on a pre-drawn T×K table of outcomes.

    ``problem`` is ``"cmab"``, ``"clb"``, ``"cccb"`` (sample-path reward constraint, see
    :mod:`safebandit_core.conservative.stream`) or ``"mv"`` (mean-variance, see
    :mod:`safebandit_core.conservative.mv`). Returns length-T numpy arrays.
    """
    from .stream import run_reward_on_stream

    return run_reward_on_stream(problem, policy, rewards, **kwargs)
