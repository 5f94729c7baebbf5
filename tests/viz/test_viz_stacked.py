"""A figure of stacked rows keeps its margins: no axis of it lets plotly grow them (Streamlit's theme turns
``automargin`` on for every axis that does not say otherwise, and plotly then measures and draws the figure again),
and the left margin leaves room for tick labels and the y title."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from safebandit_core.viz import dose as vd
from safebandit_core.viz import nonlinear as vn
from safebandit_core.viz.common import STACKED_LEFT, base_layout, stacked

POLICIES = ("HPC-UCB", "On-Expectation", "ε-Greedy")


def dose_frame() -> pd.DataFrame:
    """Two seeds of 120 rounds per policy with the columns the dose figures read."""
    t = np.arange(1, 121)
    parts = [pd.DataFrame({"policy": pol, "seed": seed, "t": t, "cost": np.sin(t / 7 + i) * 0.6,
                           "alpha": (t % 10) / 10, "true_upper": 0.7 + 0.1 * np.cos(t / 9),
                           "est_upper": 0.5 + 0.2 * (1 - 1 / np.sqrt(t)), "set_r": 64 / t, "set_c": 32 / t})
             for i, pol in enumerate(POLICIES) for seed in (0, 1)]
    return pd.concat(parts, ignore_index=True)


def axes(fig: go.Figure) -> dict[str, dict]:
    layout = fig.to_dict()["layout"]
    return {k: v for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))}


@pytest.mark.parametrize("build", [
    lambda f: vd.cost_figure(f, tau=0.5),
    lambda f: vd.safe_interval_figure(f),
    lambda f: vn.set_size_figure(f, size=64),
], ids=["dose cost", "dose safe interval", "non-linear sets"])
def test_every_axis_of_a_stacked_figure_keeps_its_margin(build):
    fig = build(dose_frame())
    found = axes(fig)
    rows = sum(k.startswith("yaxis") for k in found)
    assert rows >= 2 and len(found) == 2 * rows
    assert {k: v.get("automargin") for k, v in found.items()} == dict.fromkeys(found, False)
    assert fig.layout.margin.l >= STACKED_LEFT


def test_stacking_widens_a_narrow_left_margin_and_keeps_a_wide_one():
    narrow = base_layout("t", height=400)
    stacked(narrow, ["a", "b"], "round t", "cost")
    assert narrow["margin"]["l"] == STACKED_LEFT
    wide = base_layout("t", height=400)
    wide["margin"]["l"] = STACKED_LEFT + 30
    stacked(wide, ["a", "b", "c"], "round t", "cost")
    assert wide["margin"]["l"] == STACKED_LEFT + 30
    assert [k for k in wide if k.startswith("yaxis")] == ["yaxis", "yaxis2", "yaxis3"]
