"""What the figures say in words: rates that tell 7 rounds from 5, renamed policies in their own colours, lines that
do not hide one another, a negative regret explained where it is drawn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from safebandit_core.viz import conservative as vc
from safebandit_core.viz import dose as vd
from safebandit_core.viz.common import KNOWN_COLORS, distinct_dashes, paper_name, policy_colors, shade_below_zero


def test_bar_labels_tell_close_rates_apart_and_carry_counts():
    summary = pd.DataFrame({"label": ["HPC-UCB", "On-Expectation", "ε-Greedy"], "violations": [7, 2538, 5],
                            "violation_rate": [7 / 20000, 2538 / 20000, 5 / 20000]})
    summary = summary.assign(violation_rate_lo=summary["violation_rate"], violation_rate_hi=summary["violation_rate"])
    ticks = [x.split("<br>")[1] for x in vd.violation_figure(summary, 0.01).data[0].x]
    assert ticks == ["<b>7 (0.035 %)</b>", "<b>2,538 (12.7 %)</b>", "<b>5 (0.025 %)</b>"]
    assert vd.rate_text(0.0) == "0 %"


def test_a_renamed_policy_keeps_its_papers_colour():
    assert paper_name("new rule (HPC-UCB)") == "HPC-UCB" and paper_name("HPC-UCB") == "HPC-UCB"
    colors = policy_colors(["usual rule (On-Expectation)", "new rule (HPC-UCB)", "mine"])
    assert colors["new rule (HPC-UCB)"] == KNOWN_COLORS["HPC-UCB"]
    assert colors["usual rule (On-Expectation)"] == KNOWN_COLORS["On-Expectation"]
    assert colors["mine"] not in {KNOWN_COLORS["HPC-UCB"], KNOWN_COLORS["On-Expectation"]}
    assert vc.colors_for(["new rule (GenCB)"])["new rule (GenCB)"] == vc.COLORS["GenCB"]


def test_each_policy_line_gets_its_own_dash():
    fig = go.Figure([go.Scatter(x=[1, 2], y=[1, 1], mode="lines", name=n) for n in ("a", "b", "c")]
                    + [go.Scatter(x=[1, 2], y=[0, 2], mode="lines", name="a upper")])
    distinct_dashes(fig, ["a", "b", "c"])
    assert [tr.line.dash for tr in fig.data] == ["solid", "dash", "dot", None]


def test_below_zero_is_shaded_and_explained_only_when_a_line_goes_there():
    up = go.Figure([go.Scatter(x=[1, 2], y=[0.0, 3.0])])
    assert not shade_below_zero(up, "why").layout.annotations
    down = shade_below_zero(go.Figure([go.Scatter(x=[1, 2], y=[0.0, -4.0]), go.Scatter(x=[1, 2], y=[1.0, 2.0])]),
                            "below 0: not a better rule")
    (ann,) = down.layout.annotations
    (rect,) = down.layout.shapes
    assert ann.text == "below 0: not a better rule" and ann.y == rect.y0 < -4.0 and rect.y1 == 0
    assert np.isclose(rect.y0, -4.32)


def test_the_step_through_applies_each_frames_title_and_draws_in_the_palette():
    from safebandit_core.viz import steps
    from safebandit_core.viz.common import LIMIT_COLOR, PALETTE, TRUTH_COLOR

    t = np.arange(1, 201)
    rows = pd.DataFrame({"t": t, "alpha": 0.3, "est_upper": 0.5, "true_upper": 0.6, "cost": np.where(t % 50, 0.1, 0.9)})
    fig = steps.dose_steps(rows, 0.5, "HPC-UCB, seed 0:")
    play, _ = fig.layout.updatemenus[0].buttons
    assert play.args[1]["frame"]["redraw"] is True
    assert all(s.args[1]["frame"]["redraw"] is True for s in fig.layout.sliders[0].steps)
    last = fig.frames[-1]
    assert last.layout.title.text == "HPC-UCB, seed 0: round 200: 4 of 200 rounds over τ = 0.5"
    colors = {tr.line.color or tr.marker.color for fr in fig.frames for tr in fr.data}
    assert colors <= {*PALETTE, TRUTH_COLOR, LIMIT_COLOR}, colors
    assert fig.layout.updatemenus[0].y < 0 and fig.layout.sliders[0].y < 0, "the controls sit under the plot"
