"""The paper-replay page through AppTest: it runs, a preset run shows the paper-vs-run table, a sweep draws
heatmaps, and an uploaded settings file re-creates a run (or says what is wrong with it)."""

from __future__ import annotations

import json

import pytest
from safebandit_core.conservative.mv_sim import MVSettings
from streamlit.testing.v1 import AppTest

from safebandit_core import sweep
from tests.ui.helpers import charts, open_page

PAGE = "pages/replay_synthetic.py"
TIMEOUT = 180
pytestmark = pytest.mark.usefixtures("fresh_caches")


def replay_page() -> AppTest:
    return open_page(PAGE, timeout=TIMEOUT)


def test_page_is_in_the_navigation_under_paper_replays():
    from safebandit_ui import registry

    assert PAGE in [p.path for p in registry.grouped()["Paper replays"]]


def test_preset_run_shows_the_paper_table_and_a_sweep_draws_heatmaps():
    at = replay_page()
    assert not charts(at) and any("Run this experiment" in i.value for i in at.info)
    at.selectbox(key="replay_preset").select("s000-table1").run()
    at.number_input(key="replay_seeds_s000-table1").set_value(2).run()
    at.number_input(key="replay_T_s000-table1").set_value(1000).run()
    at.button(key="replay_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert "2 seeds × T = 1,000 × 8 settings" in at.caption[0].value
    table = at.dataframe[0].value  # the first table: paper vs this run
    assert len(table) == 16 and set(table["paper"]) == {"0.02 %", "12 % – 23 % (range over τ)"}
    bars = charts(at)["replay_violation_rates"]["data"]
    assert {b["name"] for b in bars} == {"HPC-UCB", "On-Expectation"}

    at.radio(key="sweep_model").set_value("mv").run()
    at.number_input(key="sweep_T_mv").set_value(200).run()
    at.number_input(key="sweep_seeds_mv").set_value(2).run()
    at.text_input(key="sweep_x_mv").input("0.05, 0.3").run()
    at.text_input(key="sweep_y_mv").input("10, 100").run()
    at.button(key="sweep_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    got = charts(at)
    assert {"sweep_regret", "sweep_slack", "sweep_default_pulls"} <= set(got)
    heat = got["sweep_slack"]["data"]
    assert [h["type"] for h in heat] == ["heatmap", "heatmap"] and heat[0]["x"] == ["0.05", "0.3"]

    spec = sweep.SweepSpec("mv", MVSettings(K=12, T=200, seeds=2, precision="float64"), (0.05, 0.3), (10.0, 100.0))
    at.file_uploader(key="replay_upload").upload("sweep.json", json.dumps(spec.to_dict()).encode(),
                                                 "application/json").run()
    assert not at.exception
    assert [s.value for s in at.success] == ["Re-created the sweep run of sweep.json: see the sweep tab."]
    assert any("(stored result)" in c.value for c in at.caption)  # the same sweep, so the stored result


def test_bad_settings_upload_names_the_field():
    at = replay_page()
    bad = {"kind": "preset", "preset": "s000-fig2", "seeds": 0, "T": 100}
    at.file_uploader(key="replay_upload").upload("bad.json", json.dumps(bad).encode(), "application/json").run()
    assert not at.exception
    assert [e.value for e in at.error] == ["bad.json: **seeds** must be an integer in [1, 1000] (now 0)."]
    at.text_input(key="sweep_x_dose").input("0.1, oops").run()
    assert any("**τ** must be a comma-separated list of numbers" in e.value for e in at.error)
