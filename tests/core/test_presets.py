"""The papers' experiments as presets: their data, a reduced run of each family, the paper-vs-run verdicts,
export → import, the ``replay`` command line, and two paper-size replays (Table 1; Figure 1 (a) at T = 10⁵)."""

from __future__ import annotations

import io
import json
import time
import zipfile

import numpy as np
import pytest

from safebandit_core import cli, export, jsondoc, presets, scenarios, sweep
from safebandit_core.dose.settings import DoseSettings
from safebandit_core.meanvar.settings import MVSettings
from safebandit_core.settings import SettingsError, to_json
from tests.support import only_command

TABLE1_RUN = presets.PresetRun("s000-table1", seeds=2, T=1000)  # the UI test uses the same size (shared compile)
CMAB_RUN = presets.PresetRun("s001-fig1a-cmab", seeds=2, T=200)
ROW_KEYS = {"preset", "cell", "policy", "label", "settings", "metric", "value", "ci_low", "ci_high", "paper_value",
            "paper_low", "paper_high"}
CLAIM_KEYS = {"claim", "statement", "paper", "ours", "verdict", "why"}
VERDICTS = {presets.CONSISTENT, presets.INCONSISTENT, presets.NOT_SHOWN}
KINDS = {"s000-table1": "dose", "s000-fig2": "dose", "s001-fig1a-cmab": "conservative",
         "s001-fig1b-clb": "conservative", "s001-fig1c-cccb": "conservative", "s001-fig1d-mv": "meanvar",
         "s001-grid-cmab": "conservative", "s001-grid-clb": "conservative", "s001-grid-cccb": "conservative",
         "s001-grid-mv": "meanvar"}

@pytest.fixture(autouse=True)
def replay_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The router with only the ``replay`` subcommand: these tests need no other subcommand's module."""
    monkeypatch.setattr(cli, "commands", only_command("preset"))


def replay_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    """``python -m safebandit_core replay ... --json``, in-process: its one JSON document."""
    assert cli.main(["replay", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def table1() -> presets.PresetResult:
    return presets.run_preset(TABLE1_RUN)


@pytest.fixture(scope="module")
def cmab() -> presets.PresetResult:
    return presets.run_preset(CMAB_RUN)


def test_presets_hold_the_papers_settings():
    p = presets.every()
    assert presets.names() == tuple(KINDS), "each paper's tables, then its figures in their order"
    assert {n: q.kind for n, q in p.items()} == KINDS
    assert all(s.kind == q.kind for q in p.values() for s in q.sweeps)
    t1 = p["s000-table1"]
    assert t1.paper == "Safety by Design (2026)" and p["s001-fig1a-cmab"].paper == (
        "One-size-fits-all conservative bandits (AAAI 2021)")
    assert [s.base.d for s in t1.sweeps] == [5, 10] and all(s.xs == (0.1, 0.2, 0.5, 1.0) for s in t1.sweeps)
    assert (t1.full_seeds, t1.full_T) == (5, 10_000) and t1.sweeps[0].base.kappa_c == 1.0
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
        assert preset.claims and all(c.check in presets.checks() for c in preset.claims)
        for spec in preset.sweeps:
            spec.validate()
        if preset.paper == scenarios.ONE_SIZE:
            assert (preset.full_seeds, preset.full_T) == (50, 100_000)


def test_preset_run_validation_names_the_field():
    for bad, field in ((dict(preset="nope"), "preset"), (dict(seeds=0), "seeds"), (dict(T=5), "T"),
                       (dict(precision="float16"), "precision")):
        args = {"preset": "s000-fig2", "seeds": 2, "T": 100, **bad}
        with pytest.raises(SettingsError) as err:
            presets.PresetRun(**args).validate()
        assert err.value.field == field


def test_table1_at_reduced_size_shows_the_papers_picture(table1):
    assert [r.outputs["regret"].shape for r in table1.sweeps] == [(4, 2, 2, 1000)] * 2  # (cell, policy, seed, t)
    assert [s.base.d for s in table1.specs] == [5, 10]
    per_cell = table1.cell_summary()
    hp = per_cell[per_cell["policy"] == "hpucb"]
    oe = per_cell[per_cell["policy"] == "on_expectation"]
    assert len(hp) == len(oe) == 8
    assert (hp["violation_rate"] <= hp["delta"]).all()  # HPC-UCB ≤ δ everywhere
    assert oe["violation_rate"].mean() > 10 * hp["delta"].mean()  # On-Expectation far above
    claims = presets.claim_table(table1)
    assert list(claims["claim"]) == ["C1"] and set(claims["verdict"]) <= VERDICTS
    c1 = claims.iloc[0]  # On-Expectation's rate grows with T: below 10 % somewhere at T = 1000
    assert c1["verdict"] == presets.NOT_SHOWN and "grows with T" in c1["why"], c1.to_dict()
    summary = table1.summary()
    assert set(summary.columns) == ROW_KEYS
    assert set(summary["metric"]) == {"violation_rate", "cum_regret"}
    paper = presets.paper_table(summary)
    assert len(paper) == 16 and set(paper["paper"]) == {"0.02 %", "12 % – 23 % (range over τ)"}
    rates = summary[summary["metric"] == "violation_rate"]
    assert (rates["ci_low"] <= rates["value"]).all() and (rates["value"] <= rates["ci_high"]).all()
    curves = table1.curves("violation_rate", max_points=50)
    assert curves["t"].max() == 1000 and set(curves["name"]) == set(table1.cells()["name"])


@pytest.mark.parametrize("name", ["s000-fig2", "s001-fig1a-cmab", "s001-fig1d-mv"])
def test_every_family_gets_its_verdicts_and_figures(name):
    result = presets.run_preset(presets.PresetRun(name, seeds=2, T=200))
    claims = presets.claim_table(result)
    assert list(claims["claim"]) == [c.id for c in result.preset.claims]
    assert set(claims["verdict"]) <= VERDICTS and claims["ours"].str.len().min() > 0
    assert export.preset_figures(result)


def test_export_then_import_recreates_identical_results(cmab):
    data = export.preset_bundle(cmab)
    opened = export.read_bundle(data)
    assert opened.settings == {"kind": "preset", "preset": "s001-fig1a-cmab", "seeds": 2, "T": 200, "base_seed": 0,
                               "precision": "auto"}
    assert opened.figures == ["regret_K72_alpha0.05"] and len(opened.summary) == len(cmab.summary())
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        claims = json.loads(zf.read("claims.json"))
        readme = zf.read("README.txt").decode()
    assert [c["claim"] for c in claims] == ["C4", "C5"] and {c["verdict"] for c in claims} <= VERDICTS
    assert "Paper presets page" in readme
    kind, run = export.load_settings(data)  # a whole bundle is accepted, as is its settings.json
    assert (kind, run) == export.load_settings(json.dumps(opened.settings).encode())
    again = presets.run_preset(run)
    for field, values in cmab.sweeps[0].outputs.items():
        np.testing.assert_array_equal(again.sweeps[0].outputs[field], values)
    frame = next(iter(opened.frames.values()))
    np.testing.assert_array_equal(frame["cum_regret"].to_numpy(),
                                  next(iter(again.frames().values()))["cum_regret"].to_numpy())


def test_load_settings_recognises_every_kind_and_names_problems():
    spec = sweep.SweepSpec("meanvar", MVSettings(K=4, T=50, seeds=2), (0.1,), (10.0,))
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
    assert len(lines) == len(presets.every()) and all(line.split()[0] in presets.every() for line in lines)
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


def test_cli_json_rows_claims_and_bundle(capsys, tmp_path):
    out = replay_json(capsys, "--preset", "s001-fig1a-cmab", "--seeds", "2", "--T", "200", "--out", str(tmp_path))
    assert (out["preset"], out["T"], out["seeds"]) == ("s001-fig1a-cmab", 200, 2)
    assert jsondoc.problems(out) == [] and out["kind"] == "preset"
    rows = out["paper"]
    assert len(out["rows"]) == 3 and {r["policy"] for r in out["rows"]} == {r["policy"] for r in rows}
    assert len(rows) == 3 * 3 and all(set(r) == ROW_KEYS for r in rows)  # 3 policies × 3 metrics
    assert {r["metric"] for r in rows} == {"cum_regret", "default_pulls", "min_slack"}
    assert rows[0]["settings"] == {"K": 72, "alpha": 0.05, "T": 200, "seeds": 2}
    assert [c["claim"] for c in out["claims"]] == ["C4", "C5"] and all(set(c) == CLAIM_KEYS for c in out["claims"])
    zips = list(tmp_path.glob("*.zip"))
    assert [z.name for z in zips] == ["s001-fig1a-cmab_T200_seeds2.zip"]
    assert export.load_settings(zips[0].read_bytes())[1] == CMAB_RUN


@pytest.fixture(scope="module")
def table1_default() -> tuple[dict, float]:
    """``replay --preset s000-table1 --json`` at its default size (T = 10⁴, 5 seeds: the paper's), and its seconds."""
    capture = io.StringIO()
    start = time.perf_counter()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cli, "commands", only_command("preset"))
        mp.setattr("sys.stdout", capture)
        assert cli.main(["replay", "--preset", "s000-table1", "--json"]) == 0
    return json.loads(capture.getvalue()), time.perf_counter() - start


@pytest.mark.slow
def test_table1_at_the_papers_size_matches_its_numbers(table1_default):
    out, _ = table1_default
    assert (out["T"], out["seeds"]) == (10_000, 5)
    rates = [r for r in out["paper"] if r["metric"] == "violation_rate"]
    assert len(rates) == 2 * 8  # two policies × (d, τ) ∈ {5, 10} × {0.1, 0.2, 0.5, 1.0}
    for r in rates:
        if r["policy"] == "hpucb":
            assert r["value"] <= 0.001, r  # at most 0.1 % at every (d, τ)
        elif r["settings"]["tau"] <= 0.5:
            assert 0.10 <= r["value"] <= 0.30, r  # the paper's 12–23 %, give or take
    assert {c["claim"]: c["verdict"] for c in out["claims"]}["C1"] == presets.CONSISTENT


@pytest.mark.slow
def test_table1_at_the_papers_size_every_claim_is_consistent(table1_default):
    out, _ = table1_default
    assert {c["claim"]: c["verdict"] for c in out["claims"]} == {"C1": presets.CONSISTENT}


@pytest.mark.slow
def test_figure1a_at_t_1e5_gencb_beats_conucb_and_keeps_its_constraint():
    """Seed 001, Figure 1 (a) at the paper's horizon with 5 runs: GenCB below ConUCB in regret and N₀, slack ≥ 0."""
    result = presets.run_preset(presets.PresetRun(preset="s001-fig1a-cmab", seeds=5, T=100_000))
    per_cell = result.cell_summary().set_index("policy")
    g, c = per_cell.loc["gencb"], per_cell.loc["conucb"]
    assert g["cum_regret_mean"] < c["cum_regret_mean"] and g["default_pulls_mean"] < c["default_pulls_mean"]
    assert g["min_slack"] >= 0  # the constraint held in every round of every run
    verdicts = presets.claim_table(result).set_index("claim")["verdict"]
    assert verdicts["C4"] == presets.CONSISTENT
