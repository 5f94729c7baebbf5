"""The papers' experiments as presets: their data, a reduced run of each kind, Table 1's claim, export → import,
and the ``replay`` command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from safebandit_core import cli, export, presets, sweep
from safebandit_core.conservative.mv_sim import MVSettings
from safebandit_core.dose.sim import DoseSettings
from safebandit_core.settings import SettingsError, to_json

ROOT = Path(__file__).resolve().parents[1]
TABLE1_RUN = presets.PresetRun("s000-table1", seeds=2, T=1000)  # the UI test uses the same size (shared compile)
MV_RUN = presets.PresetRun("s001-fig1d-mv", seeds=2, T=200)
ROW_KEYS = {"preset", "cell", "policy", "label", "settings", "metric", "value", "ci_low", "ci_high", "paper_value",
            "paper_low", "paper_high"}


@pytest.fixture(scope="module")
def table1() -> presets.PresetResult:
    return presets.run_preset(TABLE1_RUN)


@pytest.fixture(scope="module")
def mv_result() -> presets.PresetResult:
    return presets.run_preset(MV_RUN)


def test_presets_hold_the_papers_settings():
    p = presets.PRESETS
    t1 = p["s000-table1"]
    assert [s.base.d for s in t1.sweeps] == [5, 10] and all(s.xs == (0.1, 0.2, 0.5, 1.0) for s in t1.sweeps)
    assert (t1.full_seeds, t1.full_T) == (5, 10_000) and t1.sweeps[0].base.kappa_c == 0.3
    assert set(t1.sweeps[0].policies) == {"hpucb", "on_expectation"}
    nums = {(n.policy, n.metric): (n.low, n.high) for n in t1.paper_numbers}
    assert nums == {("hpucb", "violation_rate"): (0.0002, 0.0002), ("on_expectation", "violation_rate"): (0.12, 0.23)}
    f2 = p["s000-fig2"]
    assert [s.cells() for s in f2.sweeps] == [[{"tau": 0.5, "delta": 0.01}]] * 2
    assert set(f2.sweeps[0].policies) == {"hpucb", "eps_greedy"} and f2.sweeps[0].base.eps == 0.5
    fig1 = {n: p[n].sweeps[0].cell_settings(0) for n in ("s001-fig1a-cmab", "s001-fig1b-clb", "s001-fig1c-cccb",
                                                          "s001-fig1d-mv")}
    assert (fig1["s001-fig1a-cmab"].K, fig1["s001-fig1a-cmab"].alpha, fig1["s001-fig1a-cmab"].mu0) == (72, 0.05, 0.7)
    assert (fig1["s001-fig1b-clb"].d, fig1["s001-fig1b-clb"].K, fig1["s001-fig1b-clb"].alpha) == (7, 14, 0.01)
    assert (fig1["s001-fig1c-cccb"].problem, fig1["s001-fig1c-cccb"].d, fig1["s001-fig1c-cccb"].alpha) == (
        "cccb", 7, 0.01)
    assert (fig1["s001-fig1d-mv"].K, fig1["s001-fig1d-mv"].alpha, fig1["s001-fig1d-mv"].rho) == (24, 0.05, 10.0)
    assert [p[n].n_cells for n in ("s001-grid-cmab", "s001-grid-clb", "s001-grid-cccb", "s001-grid-mv")] == [
        9, 9, 9, 27]
    for preset in p.values():
        assert preset.choices, f"{preset.name} must document what the paper leaves open"
        for spec in preset.sweeps:
            spec.validate()
        if preset.paper == "001":
            assert (preset.full_seeds, preset.full_T) == (50, 10_000)


def test_preset_run_validation_names_the_field():
    for bad, field in ((dict(preset="nope"), "preset"), (dict(seeds=0), "seeds"), (dict(T=5), "T"),
                       (dict(precision="float16"), "precision")):
        args = {"preset": "s000-fig2", "seeds": 2, "T": 100, **bad}
        with pytest.raises(SettingsError) as err:
            presets.PresetRun(**args).validate()
        assert err.value.field == field


def test_table1_at_reduced_size_reproduces_the_papers_claim(table1):
    per_cell = table1.cell_summary()
    hp = per_cell[per_cell["policy"] == "hpucb"]
    oe = per_cell[per_cell["policy"] == "on_expectation"]
    assert len(hp) == len(oe) == 8
    assert (hp["violation_rate"] <= hp["delta"]).all()  # HPC-UCB ≤ δ everywhere
    assert oe["violation_rate"].mean() > 2 * hp["delta"].mean()  # On-Expectation far above
    assert oe["violation_rate"].mean() > 10 * hp["violation_rate"].mean()
    assert [ok for _, ok in presets.claim_checks(table1)] == [True, True]
    summary = table1.summary()
    assert set(summary.columns) == ROW_KEYS
    assert set(summary["metric"]) == {"violation_rate", "final_regret"}
    paper = presets.paper_table(summary)
    assert len(paper) == 16 and set(paper["paper"]) == {"0.02 %", "12 % – 23 % (range over τ)"}
    rates = summary[summary["metric"] == "violation_rate"]
    assert (rates["ci_low"] <= rates["value"]).all() and (rates["value"] <= rates["ci_high"]).all()
    curves = table1.curves("violation_rate", max_points=50)
    assert curves["t"].max() == 1000 and set(curves["name"]) == set(table1.cells()["name"])


def test_export_then_import_recreates_identical_results(mv_result, tmp_path):
    data = export.preset_bundle(mv_result)
    opened = export.read_bundle(data)
    assert opened.settings == {"kind": "preset", "preset": "s001-fig1d-mv", "seeds": 2, "T": 200, "base_seed": 0,
                               "precision": "auto"}
    assert opened.figures == ["regret_K24_alpha0.05_rho10"] and len(opened.summary) == len(mv_result.summary())
    kind, run = export.load_settings(data)  # a whole bundle is accepted, as is its settings.json
    assert (kind, run) == export.load_settings(json.dumps(opened.settings).encode())
    again = presets.run_preset(run)
    for p, out in mv_result.sweeps[0].outputs.items():
        for k, v in out.items():
            np.testing.assert_array_equal(again.sweeps[0].outputs[p][k], v)
    frame = next(iter(opened.frames.values()))
    np.testing.assert_array_equal(frame["cum_regret"].to_numpy(),
                                  next(iter(again.frames().values()))["cum_regret"].to_numpy())


def test_load_settings_recognises_every_kind_and_names_problems():
    spec = sweep.SweepSpec("mv", MVSettings(K=4, T=50, seeds=2), (0.1,), (10.0,))
    assert export.load_settings(json.dumps(spec.to_dict())) == ("sweep", spec)
    dose = DoseSettings(T=300, tau=0.7)
    assert export.load_settings(to_json(dose)) == ("dose", dose)
    untagged = {"T": 300, "tau": 0.7, "kappa_c": 0.2}  # recognised by its fields
    assert export.load_settings(json.dumps(untagged))[0] == "dose"
    for text, field in (("{not json", "file"), ("[1, 2]", "file"), (json.dumps({"kind": "other"}), "kind"),
                        (json.dumps({"kind": "preset", "preset": "s000-fig2", "seeds": 0, "T": 100}), "seeds"),
                        (json.dumps({"T": 100}), "kind")):
        with pytest.raises(SettingsError) as err:
            export.load_settings(text)
        assert err.value.field == field


def test_cli_list_and_bad_input(capsys):
    assert cli.main(["replay", "--list"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == len(presets.PRESETS) and all(line.split()[0] in presets.PRESETS for line in lines)
    for argv, flag, allowed in ((["--preset", "nope"], "--preset", "s000-table1"), (["--preset", "s000-fig2",
                                "--seeds", "0"], "--seeds", "[1, 1000]"), (["--preset", "s000-fig2", "--T", "3"],
                                "--T", "[10, 1000000]"), (["--preset", "s000-fig2", "--precision", "half"],
                                "--precision", "auto"), ([], "--list", "--preset")):
        assert cli.main(["replay", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and flag in err and allowed in err and "Traceback" not in err
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["replay", "--preset", "s000-fig2", "--T", "many"])
    assert exit_info.value.code == 2
    assert "--T" in capsys.readouterr().err


def test_cli_json_rows_and_bundle(tmp_path):
    out_dir = tmp_path / "bundle"
    argv = ["replay", "--preset", "s001-fig1d-mv", "--seeds", "2", "--T", "200", "--json", "--out", str(out_dir)]
    res = subprocess.run([sys.executable, "-m", "safebandit_core", *argv], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    rows = json.loads(res.stdout)  # exactly one JSON document
    assert isinstance(rows, list) and len(rows) == 2 * 3
    assert all(set(r) == ROW_KEYS for r in rows)
    assert {r["metric"] for r in rows} == {"final_regret", "default_pulls", "min_slack"}
    assert rows[0]["settings"] == {"K": 24, "alpha": 0.05, "rho": 10.0, "T": 200, "seeds": 2}
    zips = list(out_dir.glob("*.zip"))
    assert [z.name for z in zips] == ["s001-fig1d-mv_T200_seeds2.zip"]
    assert export.load_settings(zips[0].read_bytes())[1] == MV_RUN
