"""The three paper-replay pages through AppTest, reached from app.py, each at a tiny size: *Paper presets*
(figures, the paper-vs-run verdicts, paper size, restore), *Sweeps* (heatmaps, bad input, restore) and
*Theory overlays* (the √T fit and the horizons)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from safebandit_core import presets, sweep, theory
from safebandit_core.meanvar.settings import MVSettings
from tests.ui.helpers import charts, download_labels, errors, open_page, uploader

PRESETS, SWEEPS, THEORY = "pages/presets.py", "pages/sweeps.py", "pages/theory.py"
TIMEOUT = 300
VERDICTS = {presets.CONSISTENT, presets.INCONSISTENT, presets.NOT_SHOWN}
TABLE1 = {"preset": "s000-table1", "preset_seeds": 2, "preset_T": 1000}  # the core test's size (shared compile)
DOSE_SWEEP = {"sweep_T": 200, "sweep_seeds": 2, "sweep_dose_tau": "0.2, 1.0", "sweep_dose_delta": "0.05, 0.2"}
pytestmark = pytest.mark.usefixtures("fresh_caches")


def text_of(at: AppTest) -> str:
    """Every piece of text the page shows, the menu's options included."""
    parts = [e.value for kind in ("title", "subheader", "markdown", "caption", "info", "success", "error", "code")
             for e in getattr(at, kind)]
    return " ".join(str(p) for p in parts) + " ".join(o for s in at.selectbox for o in s.options)


def upload(at: AppTest, key: str, name: str, data: dict) -> AppTest:
    uploader(at, key).upload(name, json.dumps(data).encode(), "application/json").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_the_three_pages_are_under_paper_replays():
    from safebandit_ui import registry

    section = {p.path: p.title for p in registry.grouped()["The papers' experiments"]}
    assert {PRESETS: "Paper presets", SWEEPS: "Sweeps", THEORY: "Theory overlays"}.items() <= section.items()
    assert "pages/replay_synthetic.py" not in {p.path for p in registry.PAGES}


def test_preset_run_shows_figures_and_one_computed_verdict_per_claim():
    at = open_page(PRESETS, TABLE1, timeout=TIMEOUT)
    assert not charts(at) and any("Run this experiment" in i.value for i in at.info)
    assert [c.value for c in at.code] == ["python -m safebandit_core preset --preset s000-table1 --seeds 2 --T 1000"]
    at.button(key="preset_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("8 settings × 2 seeds × T = 1,000" in c.value for c in at.caption)
    bars = charts(at)["fig_violation_rates"]["data"]
    assert {b["name"] for b in bars} == {"HPC-UCB", "On-Expectation"}
    claims = at.table[0].value
    assert list(claims["claim"]) == [c.id for c in presets.get("s000-table1").claims]
    assert list(claims.columns) == ["claim", "statement", "paper", "ours", "verdict", "why"]
    assert set(claims["verdict"]) <= VERDICTS
    paper = at.dataframe[0].value  # the first data table: the paper's numbers (then every summary row)
    assert len(paper) == 16 and set(paper["paper"]) == {"0.02 %", "12 % – 23 % (range over τ)"}
    assert {"Download report", "Everything (zip)", "Settings JSON"} <= download_labels(at)
    text = text_of(at)
    assert "Safety by Design (2026)" in text and "One-size-fits-all conservative bandits (AAAI 2021)" in text
    assert "Seed 00" not in text and "seed 00" not in text


def test_paper_size_disables_the_size_boxes_and_names_full_in_the_command():
    at = open_page(PRESETS, {"preset": "s001-fig1a-cmab"}, timeout=TIMEOUT)
    assert at.number_input(key="preset_T").value == presets.get("s001-fig1a-cmab").quick_T
    assert not at.number_input(key="preset_seeds").disabled
    at.number_input(key="preset_seeds").set_value(7).run()
    at.checkbox(key="preset_full").check().run()
    assert at.number_input(key="preset_seeds").disabled and at.number_input(key="preset_T").disabled
    # the greyed boxes show what will run: the paper's size, not the quick one
    assert (at.number_input(key="preset_seeds").value, at.number_input(key="preset_T").value) == (50, 100_000)
    assert [c.value for c in at.code] == ["python -m safebandit_core preset --preset s001-fig1a-cmab --full"]
    assert "50 seeds × T = 100,000" in " ".join(m.value for m in at.markdown)
    at.checkbox(key="preset_full").uncheck().run()  # the boxes get their own values back
    assert (at.number_input(key="preset_seeds").value, at.number_input(key="preset_T").value) == (7, 50_000)
    assert not at.number_input(key="preset_seeds").disabled
    at.checkbox(key="preset_full").check().run()
    at.selectbox(key="preset").select("s000-fig2").run()  # a new preset starts at its own quick size
    at.checkbox(key="preset_full").uncheck().run()
    assert (at.number_input(key="preset_seeds").value, at.number_input(key="preset_T").value) == (5, 10_000)


def test_a_conservative_preset_draws_its_crossover_on_demand():
    at = open_page(PRESETS, {"preset": "s001-fig1a-cmab", "preset_seeds": 2, "preset_T": 1000}, timeout=TIMEOUT)
    at.button(key="preset_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert "fig_regret_K72_alpha0.05" in charts(at) and "crossover" not in charts(at)
    assert set(at.table[0].value["claim"]) == {"C4", "C5"}
    at.button(key="crossover_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    data = charts(at)["crossover"]["data"]
    assert {d["name"] for d in data} == {"GenCB", "ConUCB"} and len(data) == 4  # N₀ and regret panels


def test_preset_restore_sets_the_controls_and_a_bad_file_names_the_field():
    at = open_page(PRESETS, timeout=TIMEOUT)
    good = {"kind": "preset", "preset": "s000-fig2", "seeds": 3, "T": 500, "base_seed": 2, "precision": "auto"}
    upload(at, "preset_upload", "run.json", good)
    assert [s.value for s in at.success] == ["Restored the settings of run.json."]
    assert at.selectbox(key="preset").value == "s000-fig2" and not at.checkbox(key="preset_full").value
    assert (at.number_input(key="preset_seeds").value, at.number_input(key="preset_T").value) == (3, 500)
    assert at.number_input(key="base_seed").value == 2
    upload(at, "preset_upload", "bad.json", {**good, "seeds": 0})
    assert errors(at) == ["bad.json: **Seeds (runs per setting)** must be an integer in [1, 1000] (now 0)."]


def test_sweep_draws_heatmaps_a_table_and_the_several_machines_command():
    at = open_page(SWEEPS, DOSE_SWEEP, timeout=TIMEOUT)
    assert not errors(at)
    got = charts(at)
    assert set(got) == {"sweep_regret", "sweep_violations"}
    heat = got["sweep_violations"]["data"]
    assert [h["type"] for h in heat] == ["heatmap", "heatmap"] and heat[0]["x"] == ["0.2", "1"]
    assert len(at.table[0].value) == 4 * 2  # cells × policies
    assert any("--coordinator HOST:PORT --num-processes N --process-id I" in c.value for c in at.code)
    at.selectbox(key="sweep_kind").select("meanvar").run()
    at.text_input(key="sweep_meanvar_alpha").input("0.05, 0.3").run()
    at.text_input(key="sweep_meanvar_rho").input("10, 100").run()
    assert not at.exception and not errors(at)
    assert {"sweep_regret", "sweep_slack", "sweep_default_pulls"} == set(charts(at))


def test_sweep_bad_values_name_the_field_and_a_restore_recreates_the_sweep():
    at = open_page(SWEEPS, DOSE_SWEEP, timeout=TIMEOUT)
    at.text_input(key="sweep_dose_tau").input("0.1, oops").run()
    assert not at.exception and not charts(at)
    assert any(e.startswith("**τ values** must be a comma-separated list of numbers") for e in errors(at))
    spec = sweep.SweepSpec("meanvar", MVSettings(K=6, T=200, seeds=2, precision="float64"), (0.05, 0.3), (10.0, 100.0))
    upload(at, "sweep_upload", "sweep.json", spec.to_dict())
    assert [s.value for s in at.success] == ["Restored the settings of sweep.json."]
    assert at.selectbox(key="sweep_kind").value == "meanvar"
    assert at.text_input(key="sweep_meanvar_rho").value == "10, 100"
    assert at.number_input(key="sweep_T").value == 200
    assert any("come from the restored file" in c.value for c in at.sidebar.caption)
    shown = charts(at)["sweep_slack"]["data"]
    assert shown[0]["x"] == ["0.05", "0.3"] and shown[0]["y"] == ["10", "100"]
    upload(at, "sweep_upload", "preset.json", {"kind": "preset", "preset": "s000-fig2", "seeds": 2, "T": 100})
    assert any("not of a sweep" in e for e in errors(at))


def test_theory_page_fits_the_slope_and_runs_each_horizon():
    at = open_page(THEORY, {"theory_T": 1000, "theory_seeds": 2}, timeout=TIMEOUT)
    assert not errors(at)
    got = charts(at)
    assert set(got) == {"theory_loglog", "theory_horizons"}
    fit = next(d["name"] for d in got["theory_loglog"]["data"] if d["name"].startswith("HPC-UCB fit: slope"))
    slope = float(fit.split("slope")[1].split()[0])
    note = theory.slope_note(slope, 1000)  # the flag matches the slope drawn (a burn-in at T = 1,000, or none)
    assert [i.value for i in at.info] == ([] if note is None else [note])
    text = text_of(at)
    assert "near ½ (slightly above, from the log factors)" in text and "near or below" not in text
    assert "each horizon here is its own run" in text and "Fitted on t ≥ 100 at T = 1,000" in text


@pytest.mark.parametrize("kind", ["battery", "logged"])
def test_a_data_family_sweeps_from_the_pages_defaults(kind):
    """The families whose settings have no full default (the battery's embedding size) start from their sweep base."""
    at = open_page(SWEEPS, {"sweep_T": 100, "sweep_seeds": 1}, timeout=TIMEOUT)
    at.selectbox(key="sweep_kind").select(kind).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not errors(at) and "sweep_regret" in charts(at)
