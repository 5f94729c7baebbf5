"""The dose page's clouds: about MAX_DOTS evenly spaced rounds a trace (the thinning keeps the last round too),
while every violation (up to MAX_MARKS) is marked, so thinning the clouds for the browser never hides a round that
broke the limit."""

from __future__ import annotations

import numpy as np
import pandas as pd

from safebandit_core.viz import dose as vd
from safebandit_core.viz.common import MAX_DOTS, MAX_MARKS
from tests.ui.helpers import array

POLICIES = ("HPC-UCB", "On-Expectation")
T = 1200


def frame(violations: int) -> pd.DataFrame:
    """One seed of T rounds per policy; the second policy passes τ = 0.5 in ``violations`` evenly spread rounds."""
    t = np.arange(1, T + 1)
    over = np.zeros(T, dtype=bool)
    over[np.linspace(0, T - 1, violations).astype(int)] = True
    return pd.concat([pd.DataFrame({"policy": pol, "seed": 0, "t": t,
                                    "cost": np.where(over & (i == 1), 0.9, 0.1), "alpha": (t % 10) / 10,
                                    "true_upper": 0.7 + 0.1 * np.cos(t / 9), "est_upper": 0.6})
                      for i, pol in enumerate(POLICIES)], ignore_index=True)


def points(trace: dict) -> int:
    """How many rounds a trace draws (``array`` reads a list and plotly's typed form alike)."""
    return len(array(trace["x"]))


def test_a_cloud_is_thinned_to_max_dots_and_every_violation_is_marked():
    assert MAX_DOTS < MAX_MARKS
    fig = vd.cost_figure(frame(MAX_MARKS - 3), tau=0.5).to_dict()
    clouds = [tr for tr in fig["data"] if tr["name"].endswith(": C_t")]
    marks = [tr for tr in fig["data"] if tr["name"] == "violation C_t > τ"]
    assert len(clouds) == 2 and all(MAX_DOTS <= points(tr) <= MAX_DOTS + 1 for tr in clouds)
    assert [points(tr) for tr in marks] == [0, MAX_MARKS - 3]
    assert f"On-Expectation: {MAX_MARKS - 3} violations" in fig["layout"]["annotations"][1]["text"]


def test_more_violations_than_max_marks_are_thinned_and_still_counted_in_the_title():
    fig = vd.cost_figure(frame(3 * MAX_MARKS), tau=0.5).to_dict()
    marks = [tr for tr in fig["data"] if tr["name"] == "violation C_t > τ"]
    assert MAX_MARKS <= points(marks[1]) <= MAX_MARKS + 1
    assert f"{3 * MAX_MARKS} violations" in fig["layout"]["annotations"][1]["text"]


def test_the_safe_interval_dots_are_thinned_and_its_trend_lines_are_not():
    fig = vd.safe_interval_figure(frame(0)).to_dict()
    dots = [points(tr) for tr in fig["data"] if tr["mode"] == "markers"]
    lines = [points(tr) for tr in fig["data"] if tr["mode"] == "lines"]
    assert len(dots) == 2 * len(POLICIES) and all(MAX_DOTS <= n <= MAX_DOTS + 1 for n in dots)
    assert len(lines) == 2 * len(POLICIES) and all(n > 2 * MAX_DOTS for n in lines)
