"""The scrub figure: one frame per value, a slider whose steps animate to them, a caption per frame."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from safebandit_core.viz import scrub as vs
from tests.ui.helpers import array

VALUES = tuple(round(0.1 * k, 1) for k in range(1, 22))
LABELS = ("HPC-UCB", "On-Expectation")
PANELS = ("cum_regret", "violation")


def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Curves whose height grows with the value and differs by policy and panel; finals that say the value."""
    t = np.arange(1, 301, 3)
    rows, finals = [], []
    for v, (j, lab), (k, p) in itertools.product(VALUES, enumerate(LABELS), enumerate(PANELS)):
        y = v * (j + 1) * (k + 1) * np.sqrt(t)
        rows.append(pd.DataFrame({"value": v, "label": lab, "panel": p, "t": t, "y": y}))
        finals.append({"value": v, "label": lab, "panel": p, "final": y[-1], "text": f"{p} {y[-1]:.1f}"})
    return pd.concat(rows, ignore_index=True), pd.DataFrame(finals)


def figure(current: int = 4):
    curves, finals = frames()
    return vs.scrub_figure(curves, finals, symbol="τ", label="cost limit", values=VALUES,
                           titles=("regret", "violations"), current=current)


def test_every_value_is_a_frame_and_every_slider_step_animates_to_one():
    fig = figure()
    names = [f.name for f in fig.frames]
    assert len(names) == len(VALUES) >= 11 and len(set(names)) == len(names)
    slider = fig.layout.sliders[0]
    assert slider.active == 4
    assert [s.args[0][0] for s in slider.steps] == names
    for step in slider.steps:
        assert step.method == "animate"
        assert step.args[1] == {"frame": {"duration": 0, "redraw": True}, "mode": "immediate",
                                "transition": {"duration": 0}}
    assert slider.currentvalue.prefix.startswith("τ")


def test_frames_hold_each_values_curves_and_their_own_caption():
    fig = figure()
    n = len(LABELS) * len(PANELS)
    assert len(fig.data) == n
    titles = [f.layout.title.text for f in fig.frames]
    assert len(set(titles)) == len(titles)
    assert titles[7].startswith("τ = 0.8") and "HPC-UCB: cum_regret" in titles[7]
    assert fig.layout.title.text == titles[4]
    for f in fig.frames:
        assert list(f.traces) == list(range(n)) and len(f.data) == n
    tops = [float(np.max(array(f.data[0].y))) for f in fig.frames]
    assert tops == sorted(tops) and tops[0] < tops[-1], "each frame carries its own value's curve"
    np.testing.assert_allclose(array(fig.data[0].y), array(fig.frames[4].data[0].y))
    assert len(array(fig.data[0].x)) == len(array(fig.data[0].y)) == 100


def test_each_panel_keeps_one_y_range_across_values():
    fig = figure(current=0)
    top = float(np.max(array(fig.frames[-1].data[len(LABELS) - 1].y)))
    assert fig.layout.yaxis.range[1] >= top
    assert fig.layout.yaxis.range[1] > float(np.max([array(d.y) for d in fig.data[:len(LABELS)]])) * 5


def test_each_policy_keeps_its_own_dash_in_every_panel():
    """Two policies at the same height (both at 0 violations, say) must not hide each other."""
    fig = figure()
    dashes = {(tr.name, tr.line.dash) for tr in fig.data}
    assert {name for name, _ in dashes} == set(LABELS)
    assert len(dashes) == len(LABELS), "a policy's dash is the same in every panel"
    assert len({dash for _, dash in dashes}) == len(LABELS), "no two policies share a dash"
