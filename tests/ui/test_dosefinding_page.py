"""The dose-finding page: the three designs' figures are the core's for the same settings, every control and the
link move them, bad input is one error naming the field, and one trial's path is the core's patient by patient."""

from __future__ import annotations

import json
import shlex

import numpy as np
import pytest

from safebandit_core.dosefinding import api, bandit
from tests.ui.helpers import app, array, charts, errors, open_page

PAGE = "pages/dosefinding.py"
SMALL = {"trials": 300}
SIX = (0.05, 0.10, 0.20, 0.30, 0.45, 0.60)

pytestmark = pytest.mark.usefixtures("fresh_caches")


def table(at) -> dict[str, dict[str, str]]:
    """The operating-characteristics table as design → column → the text shown."""
    frame = at.table[0].value
    return {design: {col: str(frame.loc[design, col]) for col in frame.columns} for design in frame.index}


def traces(at, key: str) -> dict[str, dict]:
    """The traces of chart ``key`` by their name."""
    return {t["name"]: t for t in charts(at)[key]["data"] if "name" in t}


def test_the_page_draws_the_three_designs_and_its_table_is_simulates():
    at = open_page(PAGE, SMALL)
    assert errors(at) == []
    assert {"dosefinding_selection", "dosefinding_patients", "dosefinding_path"} <= set(charts(at))
    res = api.simulate(SIX, 0.3, 3, 10, 300, 0)
    shown = table(at)
    assert list(shown) == ["3+3", "BOIN", "CRM"]
    for name, label in (("3+3", "3+3"), ("boin", "BOIN"), ("crm", "CRM")):
        c = res.characteristics[name]
        lo, hi = c["pcs_ci95"]
        assert shown[label]["right dose chosen %"] == f"{c['pcs']:.1f} ({lo:.1f} to {hi:.1f})"
        assert shown[label]["patients"] == f"{c['total_patients']:.1f}"
        assert shown[label]["DLTs"] == f"{c['total_dlts']:.2f}"
        assert shown[label]["no dose chosen %"] == f"{c['none_pct']:.1f}"
        assert shown[label]["DLT rate"].startswith(f"{c['dlt_rate']:.3f} (")
        bars = traces(at, "dosefinding_selection")[label]
        np.testing.assert_allclose(array(bars["y"]), [*c["select_pct"], c["none_pct"]], atol=1e-9)
        np.testing.assert_allclose(array(traces(at, "dosefinding_patients")[label]["y"]), c["patients"], atol=1e-9)


def test_the_path_chart_is_the_cores_path_of_the_chosen_trial():
    at = open_page(PAGE, {**SMALL, "trial": 4})
    res = api.simulate(SIX, 0.3, 3, 10, 300, 0)
    shown = traces(at, "dosefinding_path")
    for name, label in (("3+3", "3+3"), ("boin", "BOIN"), ("crm", "CRM")):
        path = res.path(name, 3)
        np.testing.assert_array_equal(array(shown[label]["y"]), path.doses)
        np.testing.assert_array_equal(array(shown[label]["x"]), np.arange(1, path.doses.size + 1))
        np.testing.assert_array_equal(array(shown[label]["customdata"]).astype(bool), path.dlt)


def test_changing_a_control_changes_the_charts():
    at = open_page(PAGE, SMALL)
    before = charts(at)
    at.number_input(key="target").set_value(0.2).run()
    assert not at.exception
    after = charts(at)
    assert after["dosefinding_selection"]["data"] != before["dosefinding_selection"]["data"]
    at.slider(key="patient").set_value(5).run()
    assert not at.exception
    assert charts(at)["dosefinding_path"] != after["dosefinding_path"]


def test_a_standard_scenario_fills_in_the_chances_and_the_target():
    at = open_page(PAGE, SMALL)
    at.selectbox(key="scenario").set_value("all-too-toxic").run()
    assert at.text_input(key="truth").value == "0.45, 0.55, 0.65, 0.75, 0.85"
    assert table(at)["3+3"]["right dose chosen %"].startswith(table(at)["3+3"]["no dose chosen %"])


def test_the_command_shown_runs_the_same_trials(capfd, monkeypatch):
    """The command under the table, run as it is shown, gives the page's numbers: every setting travels in it (the
    page's 700 trials and seed 3 are not the command's defaults)."""
    from safebandit_core import cli

    at = open_page(PAGE, {"trials": 700, "base_seed": 3, "truth": "0.1, 0.25, 0.4, 0.55, 0.7", "target": 0.25})
    (line,) = [c.value for c in at.code if "safebandit_core dosefinding" in c.value]
    capfd.readouterr()
    assert cli.main(shlex.split(line)[3:]) == 0
    doc = json.loads(capfd.readouterr().out)
    res = api.simulate((0.1, 0.25, 0.4, 0.55, 0.7), 0.25, 3, 10, 700, 3)
    assert doc["seeds"] == 700 and doc["seed"] == 3
    for row in doc["rows"]:
        c = res.characteristics[row["policy"]]
        assert row["select_pct"] == c["select_pct"] and row["pcs"] == c["pcs"], row["policy"]
        assert f"{c['pcs']:.1f}" in table(at)[row["label"]]["right dose chosen %"]


def test_two_visitors_share_one_run_through_the_servers_store(monkeypatch):
    """The run lives in the server's shared store (bounded in bytes), not in a per-page cache: a second visitor with
    the same settings gets it without a second simulation."""
    from safebandit_ui import store

    shared = store.Store()
    monkeypatch.setattr(store, "store", lambda: shared)
    calls = []
    real = api.simulate
    monkeypatch.setattr(api, "simulate", lambda *a, **k: calls.append(a) or real(*a, **k))
    first, second = open_page(PAGE, {"trials": 120}), open_page(PAGE, {"trials": 120})
    assert len(calls) == 1 and table(first) == table(second)
    assert shared.nbytes > 0


def test_with_the_dose_models_patients_the_python_call_is_shown():
    at = open_page(PAGE, {"source": "The dose model's patients", "trials": 40})
    (code,) = [c.value for c in at.code if "bandit.compare(" in c.value]
    assert "trials=40" in code and "tau=0.25" in code and "seed=0" in code
    namespace: dict = {}
    exec(code.replace("print(", "shown = ("), namespace)
    assert namespace["shown"] == bandit.compare(5, 0.25, 0.3, 5, 0.3, 3, 10, 40, 0).figures["hpucb"]


@pytest.mark.parametrize(("truth", "words"), [("0.1, 0.5, 0.3", "strictly increasing"), ("0.1, 1.5", "in [0, 1]"),
                                               ("0.1, lots", "numbers in [0, 1]")])
def test_a_bad_truth_is_one_error_naming_the_field(truth, words):
    at = open_page(PAGE, {**SMALL, "truth": truth})
    assert len(errors(at)) == 1 and "**truth**" in errors(at)[0] and words in errors(at)[0], errors(at)
    assert "dosefinding_selection" not in charts(at)


def test_a_bad_target_or_size_is_one_error_naming_the_field():
    at = open_page(PAGE, {**SMALL, "target": 0.0})
    assert len(errors(at)) == 1 and "**target**" in errors(at)[0] and "(0, 1)" in errors(at)[0]


def test_a_link_sets_the_truth():
    at = app()
    at.query_params["truth"], at.query_params["trials"] = "0.1,0.2,0.3", "200"
    at.switch_page(PAGE).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.text_input(key="truth").value == "0.1,0.2,0.3"
    res = api.simulate((0.1, 0.2, 0.3), 0.3, 3, 10, 200, 0)
    np.testing.assert_allclose(array(traces(at, "dosefinding_patients")["BOIN"]["y"]),
                               res.characteristics["boin"]["patients"], atol=1e-9)


def test_with_the_dose_models_patients_hpucb_joins():
    at = open_page(PAGE, {"source": "The dose model's patients", "trials": 50})
    assert errors(at) == []
    both = bandit.compare(5, 0.25, 0.3, 5, 0.3, 3, 10, 50, 0)
    shown = table(at)
    assert list(shown) == ["3+3", "BOIN", "CRM", "HPC-UCB"]
    f = both.figures["hpucb"]
    lo, hi = (100 * v for v in f["violation_rate_ci95"])
    assert shown["HPC-UCB"]["over the limit %"] == f"{100 * f['violation_rate']:.2f} ({lo:.2f} to {hi:.2f})"
    path = traces(at, "dosefinding_path")
    np.testing.assert_allclose(array(path["HPC-UCB"]["y"]), both.alpha[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(array(path["BOIN"]["y"]), both.result.path("boin", 0).doses / 5, atol=1e-12)
