"""The ``dosefinding`` command line: the JSON an outside checker reads, the table, one-line errors, ``--help``.

Run in this process (``cli.main`` with only this command routed), output read at the file-descriptor level."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from safebandit_core import cli as router
from safebandit_core import jsondoc
from safebandit_core.dosefinding import oc, rules, scenarios
from tests.support import only_command

SCENARIO = ["--target", "0.3", "--truth", "0.05,0.1,0.2,0.3,0.45,0.6", "--cohort", "3", "--cohorts", "10",
            "--trials", "200", "--seed", "0"]
CHECKED = ("select_pct", "none_pct", "patients", "dlts", "total_patients", "total_dlts", "pcs",
           "pct_patients_above_mtd")


@pytest.fixture
def cli(capfd, monkeypatch):
    monkeypatch.setattr(router, "commands", only_command("dosefinding"))

    def call(*args: str) -> SimpleNamespace:
        capfd.readouterr()
        try:
            code = router.main(["dosefinding", *args])
        except SystemExit as exc:
            code = exc.code
        out, err = capfd.readouterr()
        return SimpleNamespace(returncode=code, stdout=out, stderr=err)
    return call


@pytest.mark.parametrize("design", ["3+3", "boin", "crm"])
def test_one_design_puts_its_figures_at_the_top_level(cli, design):
    res = cli("--design", design, *SCENARIO, "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert jsondoc.problems(doc) == []
    assert doc["kind"] == "dosefinding" and doc["T"] == 30 and doc["seeds"] == 200 and doc["precision"] == "float64"
    (row,) = doc["rows"]
    assert row["policy"] == design
    for key in CHECKED:
        assert doc[key] == row[key], key
    assert len(doc["select_pct"]) == len(doc["patients"]) == len(doc["dlts"]) == 6
    assert sum(doc["select_pct"]) + doc["none_pct"] == pytest.approx(100.0, abs=1e-9)
    assert doc["pcs"] == doc["select_pct"][3] and doc["true_mtd"] == 4
    lows, highs = doc["select_pct_ci95"]
    assert all(lo <= v <= hi for lo, v, hi in zip(lows, doc["select_pct"], highs, strict=True))
    if design == "boin":
        lam_e, lam_d = rules.boin_lambdas(0.3)
        assert abs(doc["lambda_e"] - lam_e) < 1e-9 and abs(doc["lambda_d"] - lam_d) < 1e-9
        assert round(doc["lambda_e"], 4) == 0.2365 and round(doc["lambda_d"], 4) == 0.3585
        assert len(doc["escalate"]) == len(doc["deescalate"]) == len(doc["eliminate"]) == 30
        assert doc["eliminate"][:2] == [None, None] and doc["eliminate"][2] == 3 and doc["deescalate"][2] == 2
    else:
        assert "lambda_e" not in doc


def test_all_designs_give_one_row_each_and_the_same_numbers_as_one(cli):
    both = json.loads(cli(*SCENARIO, "--json").stdout)
    assert [r["policy"] for r in both["rows"]] == ["3+3", "boin", "crm"]
    assert "select_pct" not in both and both["skeleton"][2] == 0.3  # s_ν = φ, ν = ⌈6/2⌉
    one = json.loads(cli("--design", "crm", *SCENARIO, "--json").stdout)
    assert both["rows"][2]["select_pct"] == one["select_pct"], "common random numbers: the same trials"
    assert set(oc.FIGURES) <= set(one)


def test_from_dose_derives_the_truth_and_takes_delta_as_the_target(cli):
    doc = json.loads(cli("--from-dose", "--tau", "0.25", "--kappa-c", "0.3", "--d", "5", "--K", "5", "--delta", "0.2",
                         "--trials", "50", "--design", "boin", "--json").stdout)
    assert [round(v, 4) for v in doc["truth"]] == [0.0064, 0.1313, 0.2332, 0.2942, 0.3332]
    assert doc["target"] == 0.2 and doc["dose_model"]["tau"] == 0.25 and doc["true_mtd"] == 3


@pytest.mark.parametrize("name", list(scenarios.STANDARD))
def test_a_standard_scenario_runs_by_name_as_its_truth_and_target_do(cli, name):
    """``--scenario NAME`` is the same run as its chances and target typed in, and the JSON names it."""
    chosen = scenarios.STANDARD[name]
    by_name = json.loads(cli("--scenario", name, "--trials", "60", "--json").stdout)
    typed = json.loads(cli("--truth", ",".join(map(str, chosen.truth)), "--target", str(chosen.target),
                           "--trials", "60", "--json").stdout)
    assert by_name["scenario"] == name and "scenario" not in typed
    assert by_name["rows"] == typed["rows"] and by_name["truth"] == list(chosen.truth)
    assert by_name["true_mtd"] == scenarios.true_mtd(np.asarray(chosen.truth), chosen.target)


def test_the_standard_scenarios_say_which_dose_is_right():
    """Each title names the true MTD the chances give (CLINICAL.md: the dose closest to φ; none above 1.4φ)."""
    words = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
    for s in scenarios.STANDARD.values():
        mtd = scenarios.true_mtd(np.asarray(s.truth), s.target)
        said = ("all too toxic" if mtd == 0 else "the top one" if mtd == len(s.truth) else words[mtd])
        assert said in s.title and f"target {s.target:g}" in s.title, s


def test_the_table_is_aligned_and_readable(cli):
    res = cli(*SCENARIO)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith("dose finding: 6 doses, target 0.3, 10 cohorts of 3, 200 trials")
    assert "true MTD dose 4" in lines[0]
    head = lines[1]
    assert head.split() == ["dose", "1", "dose", "2", "dose", "3", "dose", "4", "dose", "5", "dose", "6", "none"]
    selects = [line for line in lines if "select %" in line]
    assert len(selects) == 3 and {len(line) for line in selects} == {len(head)}, "columns line up under the head"
    assert len(lines[2]) == len(head) - len("    none") and lines[2].startswith("true p")
    assert any(line.startswith("BOIN select %") for line in lines) and lines[-1].startswith("CRM")


@pytest.mark.parametrize(("args", "flag", "allowed"), [
    (["--truth", "0.1,0.5,1.2"], "--truth", "in [0, 1]"),
    (["--truth", "0.1,abc"], "--truth", "numbers in [0, 1]"),
    (["--truth", "0.3,0.2"], "--truth", "strictly increasing"),
    (["--target", "1.5"], "--target", "in (0, 1)"),
    (["--target", "x"], "--target", "in (0, 1)"),
    (["--cohort", "0"], "--cohort", "[1, 12]"),
    (["--cohorts", "0"], "--cohorts", "[1, 100]"),
    (["--trials", "0"], "--trials", "[1, 100000]"),
    (["--skeleton", "0.3,0.2,0.1,0.4,0.5,0.6"], "--skeleton", "strictly increasing"),
    (["--design", "mtpi"], "--design", "choose from"),
    (["--from-dose", "--tau", "-1"], "--tau", "> 0"),
    (["--from-dose", "--truth", "0.1,0.2"], "--truth", "cannot be combined with --from-dose"),
    (["--kappa-c", "0.2"], "--kappa-c", "needs --from-dose"),
    (["--scenario", "mtd-2-of-5", "--target", "0.3"], "--target", "cannot be combined with --scenario"),
    (["--scenario", "mtd-2-of-5", "--from-dose"], "--from-dose", "cannot be combined with --scenario"),
    (["--scenario", "mtd-9"], "--scenario", "choose from"),
    (["--from-dose", "--g", "cubic"], "--g", "one of linear, power, emax"),
    (["--from-dose", "--tau", "2", "--kappa-c", "0"], "--from-dose", "not strictly increasing"),
])
def test_bad_input_is_one_line_naming_the_flag_with_exit_2(cli, args, flag, allowed):
    res = cli("--trials", "10", *args)  # the last --trials given wins
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and flag in lines[0] and allowed in lines[0], lines


def test_help_shows_the_defaults(cli):
    res = cli("--help")
    assert res.returncode == 0
    text = " ".join(res.stdout.split())
    for default in ("(default all)", "(default 0.05,0.1,0.2,0.3,0.45,0.6)", "(default 0.3;", "(default 3)",
                    "(default 10;", "(default 10000)", "(default 0)", "(default plugin)", "(default off)"):
        assert default in text, default
    assert text.count("(default") >= 18


def test_one_trial_has_no_intervals(cli):
    doc = json.loads(cli("--design", "crm", "--trials", "1", "--json").stdout)
    assert jsondoc.problems(doc) == []
    assert doc["pcs_ci95"] is None and doc["rows"][0]["select_pct_ci95"] is None and doc["pcs"] in (0.0, 100.0)
