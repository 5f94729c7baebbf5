"""The one JSON schema and the one per-seed → aggregate pipeline, on hand-made numbers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandit_core import jsondoc, results


def test_aggregate_is_mean_sample_std_and_interval():
    values = np.array([1.0, 2.0, 3.0, 6.0])
    out = results.aggregate(values, "cum_regret")
    half = 1.96 * np.std(values, ddof=1) / 2
    assert out == pytest.approx({"cum_regret_mean": 3.0, "cum_regret_std": np.std(values, ddof=1),
                                 "cum_regret_lo": 3.0 - half, "cum_regret_hi": 3.0 + half})
    one = results.aggregate(np.array([4.0]), "x", 0.0)
    assert one == {"x_mean": 4.0, "x_std": 0.0, "x_lo": 4.0, "x_hi": 4.0}
    assert results.aggregate(np.array([0.0, 0.0, 3.0]), "n", 0.0)["n_lo"] == 0.0  # clipped


def test_seed_finals_read_each_output_once():
    regret = np.arange(12, dtype=np.float32).reshape(2, 2, 3)  # policy, seed, t
    out = results.seed_finals({"regret": regret, "violation": regret > 4, "slack": -regret})
    np.testing.assert_array_equal(out["cum_regret"], [[3.0, 12.0], [21.0, 30.0]])
    assert out["cum_regret"].dtype == np.float64 and "default_pulls" not in out
    np.testing.assert_allclose(out["violation_rate"], [[0.0, 1 / 3], [1.0, 1.0]])
    np.testing.assert_array_equal(out["min_slack"], [[-2.0, -5.0], [-8.0, -11.0]])


def test_a_summary_row_becomes_a_json_row_with_interval_pairs():
    frame = pd.DataFrame({"kind": ["dose"], "policy": ["hpucb"], "label": ["HPC-UCB"], "cum_regret_mean": [2.0],
                          "cum_regret_std": [0.5], "cum_regret_lo": [1.5], "cum_regret_hi": [2.5],
                          "violation_rate": [np.float64(0.01)], "violation_rate_lo": [0.0],
                          "violation_rate_hi": [0.02], "min_slack": [math.nan]})
    (row,) = jsondoc.rows_of(frame, drop=("kind",))
    assert row == {"policy": "hpucb", "label": "HPC-UCB", "cum_regret_mean": 2.0, "cum_regret_std": 0.5,
                   "cum_regret_ci95": [1.5, 2.5], "violation_rate": 0.01, "violation_rate_ci95": [0.0, 0.02],
                   "min_slack": None}
    assert type(row["violation_rate"]) is float


def test_problems_name_what_breaks_the_schema():
    row = {"policy": "a", "label": "A", "cum_regret_mean": 1.0, "cum_regret_std": 0.0, "cum_regret_ci95": [1, 1]}
    doc = jsondoc.document("dose", 10, 2, "cpu:0", "float64", 0.1, [row], d=3)
    assert jsondoc.problems(doc) == [] and list(doc)[:7] == list(jsondoc.ENVELOPE) and doc["d"] == 3
    assert jsondoc.problems([doc]) == ["not a JSON object but list"]
    old = {**doc, "rows": [{**row, "regret_mean": 1.0}], "by_policy": []}
    assert jsondoc.problems(old) == ["rows[0].regret_mean: a key of an earlier release",
                                     "by_policy: a key of an earlier release"]
    broken = {**doc, "T": True, "rows": [{k: v for k, v in row.items() if k != "cum_regret_std"}
                                         | {"cum_regret_ci95": [1]}]}
    assert jsondoc.problems(broken) == ["T: missing or not int", "rows[0].cum_regret_std: missing or not int/float",
                                        "rows[0].cum_regret_ci95: not a [low, high] pair"]
    assert jsondoc.problems({**doc, "rows": []}) == ["rows: empty"]


def test_one_seed_nulls_every_spread_and_nothing_else():
    row = {"policy": "a", "label": "A", "cum_regret_mean": 7.5, "cum_regret_std": 0.0, "cum_regret_ci95": [7.5, 7.5],
           "default_pulls_mean": 3.0, "default_pulls_std": 0.0, "default_pulls_ci95": [3.0, 3.0], "min_slack": 0.25}
    one = jsondoc.document("conservative", 10, 1, "cpu:0", "float64", 0.1, [row])
    assert one["rows"] == [{"policy": "a", "label": "A", "cum_regret_mean": 7.5, "cum_regret_std": None,
                            "cum_regret_ci95": None, "default_pulls_mean": 3.0, "default_pulls_std": None,
                            "default_pulls_ci95": None, "min_slack": 0.25}]
    assert jsondoc.problems(one) == []
    two = jsondoc.document("conservative", 10, 2, "cpu:0", "float64", 0.1, [row])
    assert two["rows"] == [row] and jsondoc.problems(two) == []
    measured = {**one, "rows": [row]}
    assert jsondoc.problems(measured) == [f"rows[0].{k}: a spread of one seed, not null" for k in
                                          ("cum_regret_std", "cum_regret_ci95", "default_pulls_std",
                                           "default_pulls_ci95")]
    assert jsondoc.problems({**two, "rows": one["rows"]})[:1] == ["rows[0].cum_regret_std: missing or not int/float"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e12, 1e12, allow_nan=False), min_size=1, max_size=40))
def test_a_mean_lies_between_the_min_and_the_max(values):
    values = np.asarray(values)
    m = results.aggregate(values, "x")["x_mean"]
    assert values.min() <= m <= values.max()
    if values.size == 1:
        assert m == values[0]
    assert results.mean_of(np.full(7, 0.1)) == 0.1 != np.full(7, 0.1).mean()  # seven 0.1 summed, divided by 7
