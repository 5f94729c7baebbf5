"""What a chart sends: float arrays as float32, everything else as plotly wrote it, the figure itself untouched."""

from __future__ import annotations

import copy

import numpy as np
import plotly.graph_objects as go

from safebandit_core.viz.common import NARROW_FROM, compact
from tests.ui.helpers import array


def spec() -> dict:
    t = np.arange(1, 601)
    fig = go.Figure([go.Scatter(x=t, y=np.sqrt(t) * np.pi, name="mean"),
                     go.Scatter(x=[0.5, 1.5], y=[1, 2], name="list")],
                    layout={"title": {"text": "a chart"}})
    fig.add_annotation(text="note", x=0.1, y=0.2)
    return fig.to_dict()


def test_float_arrays_go_as_float32_to_within_float32_rounding_and_the_rest_is_unchanged():
    before = spec()
    kept = copy.deepcopy(before)
    out = compact(before)
    assert before == kept, "compact changed the dict it was given"
    y64, y32 = array(before["data"][0]["y"]), array(out["data"][0]["y"])
    assert before["data"][0]["y"]["dtype"] == "f8" and out["data"][0]["y"]["dtype"] == "f4"
    assert y32.dtype == np.float32 and y32.shape == y64.shape
    np.testing.assert_allclose(y32, y64, rtol=2.0 ** -24, atol=0)
    assert len(out["data"][0]["y"]["bdata"]) <= len(before["data"][0]["y"]["bdata"]) // 2 + 4
    assert out["data"][0]["x"] == before["data"][0]["x"], "integer arrays are already narrow"
    assert out["data"][1] == before["data"][1] and out["layout"] == before["layout"]


def test_short_arrays_and_values_beyond_float32_stay_float64_and_gaps_stay_gaps():
    long = np.ones(NARROW_FROM)
    few = go.Figure(go.Bar(y=np.array([0.125, 2.5, 1 / 3]))).to_dict()
    huge = go.Figure(go.Scatter(y=np.concatenate([long, [1e300]]))).to_dict()
    assert compact(few) == few and compact(huge) == huge
    values = np.concatenate([long, [np.nan, np.inf, -2.5]])
    y = array(compact(go.Figure(go.Scatter(y=values)).to_dict())["data"][0]["y"])
    assert y.dtype == np.float32 and np.isnan(y[-3]) and y[-2] == np.inf and y[-1] == -2.5


def test_frames_are_compacted_too():
    y = np.linspace(1, 2, NARROW_FROM)
    fig = go.Figure(go.Scatter(y=y - 1), frames=[go.Frame(data=[go.Scatter(y=y)], name="f")])
    out = compact(fig.to_dict())
    assert out["frames"][0]["data"][0]["y"]["dtype"] == "f4"
    np.testing.assert_allclose(array(out["frames"][0]["data"][0]["y"]), y, rtol=2.0 ** -24)
