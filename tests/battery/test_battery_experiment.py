"""The battery experiment end to end: the pipeline, its family, its settings, the CLI contract, a user's NASA file.

Every replay here uses d = 32, T = 200, 2 seeds and the three policies, so JAX compiles one shape
for the whole module (and for the page tests in tests/ui/test_battery_page.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.io

from safebandit_core import battery as ex
from safebandit_core import cli, families, jsondoc
from safebandit_core import model as M
from safebandit_core.battery import BatteryDataError
from safebandit_core.data import cache
from safebandit_core.data.replay import POLICY_COLUMNS, table_rounds
from safebandit_core.dose import DoseSettings
from safebandit_core.settings import SettingsError, from_dict, to_dict
from tests.support import assert_close_sum, only_command

ROOT = Path(__file__).resolve().parents[2]
DIM, T, SEEDS = 32, 200, 2
JSON_KEYS = {"tau", "T", "dim", "fit_r2_reward", "fit_r2_cost", "seconds"}
STEP_FIELDS = ("comment", "type", "time", "relativeTime", "voltage", "current", "temperature", "date")
OLD_RW26 = {"hpucb": (14.706165096369908, 0.05117661393623048, 0.05761411462057238),
            "eps_greedy": (16.7672669410502, 0.03333122979279267, 0.06191083694032384),
            "on_expectation": (13.770771193976795, 0.062432499228510054, 0.04852417838367628)}
"""(cum_regret_mean, final_dose_mean, min_slack) of the replay before the family existed (d = 32, T = 200, 2 seeds,
τ = 0.1, float64 on the CPU)."""


def settings(**kw) -> ex.BatteryReplaySettings:
    """The module's replay on the embedded RW26 table (any field overridden by ``kw``)."""
    return ex.BatteryReplaySettings(**{"dim": DIM, "T": T, "seeds": SEEDS, "tau": 0.1, "base_seed": 0, **kw})


def cell_mat_bytes(rounds: int = 90, seed: int = 0) -> bytes:
    """A small cell in NASA's layout: rests and random-walk discharges (a few single-sample ones), with the
    voltage dropping and the temperature rising with the drawn current, and a reference discharge now and then."""
    rng = np.random.default_rng(seed)
    records, clock, volts, temp = [], 0.0, 4.1, 30.0

    def add(comment: str, kind: str, current: np.ndarray, voltage: np.ndarray, temperature: np.ndarray) -> None:
        nonlocal clock
        rel = np.arange(voltage.size, dtype=float)
        records.append((comment, kind, (clock + rel)[None, :], rel[None, :], voltage[None, :], current[None, :],
                        temperature[None, :], "01-Jan-2015 00:00:00"))
        clock += voltage.size + 1.0

    for r in range(rounds):
        add("rest (random walk)", "R", np.zeros(3), np.full(3, volts), np.full(3, temp))
        amps = rng.uniform(0.5, 4.5)
        n = 1 if r % 29 == 7 else int(rng.integers(5, 12))
        drop = 0.04 * amps * (1.0 + 0.1 * rng.standard_normal())
        heat = 0.3 * amps * (1.0 + 0.1 * rng.standard_normal())
        add("discharge (random walk)", "D", np.full(n, amps), volts - drop * np.linspace(0.5, 1.0, n),
            temp + heat * np.linspace(0.2, 1.0, n))
        volts = float(np.clip(volts - 0.002 * amps + 0.003, 3.4, 4.2))
        temp = float(np.clip(temp + 0.05 * (amps - 2.5), 25.0, 45.0))
        if r % 30 == 29:
            add("reference discharge", "D", np.full(6, 1.0), np.linspace(4.1, 3.3, 6), np.full(6, temp))
    steps = np.empty((1, len(records)), dtype=[(name, object) for name in STEP_FIELDS])
    for i, record in enumerate(records):
        steps[0, i] = record
    buffer = io.BytesIO()
    scipy.io.savemat(buffer, {"data": {"procedure": "test cell", "description": "written by a test", "step": steps}})
    return buffer.getvalue()


@pytest.fixture(scope="module")
def rw26() -> ex.BatteryRun:
    return ex.prepare(settings())


@pytest.fixture(scope="module")
def rw26_result(rw26: ex.BatteryRun):
    return ex.run_replay(rw26, "cpu")


@pytest.fixture(scope="module")
def cell_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cell") / "cell.mat"
    path.write_bytes(cell_mat_bytes())
    return path


@pytest.fixture
def battery_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command-line router with the battery command only (the other commands are not needed here)."""
    monkeypatch.setattr(cli, "commands", only_command("battery"))


def test_settings_follow_the_fit(rw26: ex.BatteryRun) -> None:
    s, p = rw26.dose, rw26.problem
    assert (s.d, s.T, s.seeds, s.tau, s.g) == (DIM, T, SEEDS, 0.1, "linear")
    assert s.policies == ("hpucb", "eps_greedy", "on_expectation")
    assert (s.kappa_r, s.kappa_c) == (p.kappa_r, p.kappa_c)
    assert s.S == p.norm_bound == max(np.linalg.norm(p.theta), np.linalg.norm(p.mu))
    assert s.L == pytest.approx(1.0)
    assert rw26.fit_lam == ex.DEFAULT_FIT_LAM and p.lam == ex.DEFAULT_FIT_LAM
    b = s.kappa_c * math.sqrt(2 * math.log(1 / s.delta))
    assert rw26.first_safe_dose == pytest.approx(s.tau / (b + s.S * s.L))
    assert p.n_fit > 3000 and p.n_replay > 3000 and rw26.passes < 1
    assert ex.prepare(settings(T=None)).settings.T == p.n_replay


def test_pipeline_runs_end_to_end_with_finite_outputs_and_safe_hpucb(rw26, rw26_result) -> None:
    outputs = rw26_result.outputs
    for key in ("alpha", "reward", "cost", "est_upper", "true_upper", "regret", "cum_regret", "slack"):
        assert outputs[key].shape == (3, SEEDS, T)
        assert np.isfinite(outputs[key]).all(), key
    alpha = outputs["alpha"]
    assert (alpha >= 0).all() and (alpha <= 1).all()
    facts, rows = ex.facts(rw26, rw26_result), ex.policy_rows(rw26_result)
    assert list(facts) == list(ex.FACT_KEYS) and (facts["tau"], facts["dim"]) == (0.1, DIM)
    assert [r["policy"] for r in rows] == list(rw26.settings.policies)
    hp = rows[0]
    assert hp["violation_rate"] <= rw26.settings.delta + 0.02
    assert hp["final_dose_mean"] > rw26.first_safe_dose, "HPC-UCB never moved off its round-1 dose"
    assert hp["cum_regret_mean"] < facts["first_dose_regret"]
    assert {"cum_regret_std", "cum_regret_ci95", "violation_rate_ci95"} <= set(hp)
    json.dumps({**facts, "rows": rows})


def test_the_replay_gives_the_numbers_of_the_code_before_the_family(rw26, rw26_result) -> None:
    chain = T * DIM  # stored on another machine: T rounds of d-term reductions, in whatever order its CPU took
    for r in ex.policy_rows(rw26_result):
        regret, final_dose, min_slack = OLD_RW26[r["policy"]]
        assert_close_sum(r["cum_regret_mean"], regret, chain + T * SEEDS, err_msg="cum_regret_mean")
        assert_close_sum(r["final_dose_mean"], final_dose, chain + SEEDS, err_msg="final_dose_mean")
        assert_close_sum(r["min_slack"], min_slack, chain, scale=rw26.settings.tau, err_msg="min_slack")
        assert r["violations"] == 0


def test_the_family_is_registered_and_runs_through_the_generic_entry_points(rw26, rw26_result) -> None:
    assert families.get("battery") is ex.FAMILY and families.of(rw26.settings) is ex.FAMILY
    again = families.run(rw26.settings, "cpu")
    for key, value in rw26_result.raw.items():
        np.testing.assert_array_equal(again.raw[key], value)
    table = families.summary(again)
    assert list(table.columns[:6]) == ["kind", "policy", "label", "rounds", "cum_regret_mean", "cum_regret_std"]
    assert {"violation_rate", "min_slack", "final_dose_mean", "first_safe_dose", "first_dose_regret",
            "passes"} <= set(table.columns)
    assert (table["kind"] == "battery").all() and table["passes"].iloc[0] == pytest.approx(rw26.passes)
    tidy = families.tidy(again, ["alpha", "cost"])
    assert len(tidy) == 3 * SEEDS * T and {"kind", "policy", "label", "seed", "t", "alpha", "cost"} <= set(tidy)
    with pytest.raises(SettingsError) as err:
        families.run(settings(T=None), "cpu")
    assert err.value.field == "T"
    assert any("starts almost at zero" in w for w in ex.FAMILY.warnings(settings(tau=0.001, T=None)))
    assert ex.FAMILY.memory_bytes(rw26.settings) > T * DIM * 8


def test_a_grid_over_tau_shares_the_contexts_and_matches_single_runs(rw26) -> None:
    cells = ex.tau_grid(rw26.settings)
    assert cells == [{"tau": 0.1}, {"tau": 0.2}]
    grid = ex.run_replay(rw26, "cpu", cells=cells)
    assert grid.outputs["alpha"].shape == (2, 3, SEEDS, T)
    for i, cell in enumerate(cells):
        single = ex.run_replay(ex.with_tau(rw26, cell["tau"]), "cpu")
        for key, value in single.raw.items():
            assert_close_sum(grid.raw[key][i], value, T * DIM, err_msg=key)  # a batched shape may group sums anew
        row = ex.facts(rw26, grid, cell=i)
        assert row["tau"] == cell["tau"] and row["first_safe_dose"] == pytest.approx(single_dose(rw26, cell["tau"]))
        assert ex.policy_rows(grid, cell=i) == jsondoc.rows_of(M.summary(M.cell(grid, i))[list(POLICY_COLUMNS)])
    params = ex.FAMILY.params(rw26.settings, "float64")
    assert params[0].stream.X.shape == (table_rounds(T), DIM)
    with pytest.raises(SettingsError, match="fixed across a sweep"):
        ex.run_replay(rw26, "cpu", cells=[{"dim": 64}])


def single_dose(run: ex.BatteryRun, tau: float) -> float:
    return ex.with_tau(run, tau).first_safe_dose


def test_longer_horizon_goes_through_the_replay_contexts_again(rw26: ex.BatteryRun) -> None:
    n = rw26.problem.n_replay
    longer = ex.prepare(dataclasses.replace(rw26.settings, tau=0.2, T=n + 3))
    X = longer.contexts(np.float32)
    assert X.shape == (n + 3, DIM) and X.dtype == np.float32
    np.testing.assert_array_equal(X[n:], rw26.problem.X_replay[:3].astype(np.float32))
    assert longer.passes > 1
    assert ex.with_tau(rw26, 0.2).settings.tau == 0.2


def test_embedding_is_computed_once_per_table() -> None:
    class Counting:
        name, dim, seed = "counting", 3, 0

        def __init__(self) -> None:
            self.calls = 0

        def embed(self, texts):
            self.calls += 1
            return np.ones((len(texts), self.dim))

    inner = Counting()
    cached = ex.CachedEmbedder(inner)
    first = cached.embed(["a", "b"])
    again = ex.CachedEmbedder(inner).embed(["a", "b"])
    cached.embed(["a", "c"])
    assert inner.calls == 2 and again is first and not first.flags.writeable


def test_the_fit_is_computed_once_and_the_family_params_are_cheap_on_repeat(rw26: ex.BatteryRun) -> None:
    assert ex.prepare(settings(tau=0.2, seeds=1)).problem is rw26.problem
    assert ex.fitted(rw26.settings) == (rw26.problem, ex.EMBEDDED_LABEL)
    other = ex.prepare(settings(fit_lam=0.5)).problem
    assert other is not rw26.problem and other.lam == 0.5
    np.testing.assert_array_equal(ex.FAMILY.params(rw26.settings, "float64")[0].stream.theta, rw26.problem.theta)
    assert any(k[0] == "problem" for k in cache.MEMO.keys()) and any(k[0] == "embedding" for k in cache.MEMO.keys())
    memo = cache.Memo(max_bytes=100)
    assert memo.get("a", lambda: np.zeros(10)).nbytes == 80 and memo.get("b", lambda: np.zeros(10)) is not None
    assert memo.keys() == ["b"]
    memo.clear()
    assert memo.keys() == []


def test_requests_are_checked_before_any_data_is_read(rw26: ex.BatteryRun) -> None:
    for kwargs, field in (({"tau": 0.0}, "tau"), ({"T": 0}, "T"), ({"dim": 0}, "dim"), ({"seeds": 0}, "seeds"),
                          ({"delta": 1.0}, "delta"), ({"eps": 2.0}, "eps"), ({"lam": 0.0}, "lam")):
        with pytest.raises(SettingsError) as info:
            settings(**{"T": 10, "dim": 8, "seeds": 1, **kwargs}).validate()
        assert info.value.field == field
    with pytest.raises(BatteryDataError, match="no such file"):
        ex.prepare(settings(source="path", path="/no/such/RW9.mat"))
    with pytest.raises(SettingsError, match="at most"):
        ex.check_context_bytes(1_000_000, 4096, "float64")
    huge = dataclasses.replace(rw26, problem=dataclasses.replace(rw26.problem, dim=4096),
                               settings=dataclasses.replace(rw26.settings, T=1_000_000))
    with pytest.raises(SettingsError, match="at most"):
        ex.check_contexts_fit(huge, "cpu")


def test_a_users_nasa_file_goes_through_the_same_pipeline(cell_path: Path) -> None:
    run = ex.prepare(settings(source="path", path=str(cell_path), tau=0.2))
    assert run.source == "cell.mat" and run.passes > 1
    assert 30 <= run.problem.n_replay <= 60 and np.isfinite(run.problem.fit_r2_cost)
    result = ex.run_replay(run, "cpu")
    assert all(np.isfinite(v).all() for v in result.outputs.values())
    frame = ex.fit_frame(run.problem)
    assert len(frame) and np.isfinite(frame.to_numpy(dtype=float)).all()
    upload = settings(source="upload", file="cell.mat", tau=0.2)
    uploaded = ex.prepare(upload, io.BytesIO(cell_path.read_bytes()))
    np.testing.assert_array_equal(uploaded.problem.theta, run.problem.theta)
    for key, value in ex.run_replay(uploaded, "cpu").raw.items():
        np.testing.assert_array_equal(value, result.raw[key])
    assert uploaded.settings.data_hash == hashlib.blake2b(cell_path.read_bytes(), digest_size=16).hexdigest()
    assert run.settings.data_hash is None and ex.prepare(settings()).settings.data_hash is None
    again = families.run(uploaded.settings, "cpu")  # the generic entry point finds the fit by the data's hash
    for key, value in again.raw.items():
        np.testing.assert_array_equal(value, result.raw[key])
    assert families.prepare(upload, cell_path.read_bytes()).problem is uploaded.problem
    with pytest.raises(SettingsError) as err:
        families.run(dataclasses.replace(upload, T=T), "cpu")
    assert err.value.field == "source"
    with pytest.raises(SettingsError, match="given again") as err:
        ex.prepare(dataclasses.replace(upload, data_hash="0" * 32))
    assert err.value.field == "data"
    with pytest.raises(SettingsError, match="the data these settings were made with") as err:
        ex.prepare(uploaded.settings, b"other bytes")
    assert err.value.field == "data"
    with pytest.raises(SettingsError, match="hexadecimal") as err:
        dataclasses.replace(upload, data_hash="xyz").validate()
    assert err.value.field == "data_hash"
    with pytest.raises(SettingsError) as err:
        families.prepare(DoseSettings())
    assert err.value.field == "kind" and "battery" in str(err.value) and "logged" in str(err.value)


def test_cli_prints_exactly_one_json_object(capsys: pytest.CaptureFixture[str], cell_path: Path,
                                            battery_only: None) -> None:
    code = cli.main(["battery", "--data", str(cell_path), "--tau", "0.1", "--T", str(T), "--dim", str(DIM),
                     "--seeds", str(SEEDS), "--device", "cpu", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    summary = json.loads(out)
    assert jsondoc.problems(summary) == [] and JSON_KEYS <= set(summary)
    assert (summary["tau"], summary["T"], summary["dim"], summary["source"]) == (0.1, T, DIM, "cell.mat")
    assert len(summary["rows"]) == 3 and summary["seconds"] > 0


def test_cli_keys_and_numbers_are_the_replays(capsys: pytest.CaptureFixture[str], rw26, rw26_result,
                                              battery_only: None) -> None:
    code = cli.main(["battery", "--T", str(T), "--dim", str(DIM), "--seeds", str(SEEDS), "--device", "cpu",
                     "--tau", str(rw26.settings.tau), "--json"])  # the command's default τ is the page's, not 0.1
    out, err = capsys.readouterr()
    assert code == 0, err
    summary, expected = json.loads(out), ex.facts(rw26, rw26_result)
    assert list(summary) == ["kind", "T", "seeds", "device", "precision", "seconds", "rows", *ex.FACT_KEYS]
    assert summary["source"] == ex.EMBEDDED_LABEL
    for key in ("first_dose_regret", "first_safe_dose", "passes", "S", "kappa_c"):
        assert summary[key] == pytest.approx(expected[key], rel=1e-12), key
    for key in ("cum_regret_mean", "cum_regret_std", "violation_rate"):
        assert [r[key] for r in summary["rows"]] == pytest.approx([r[key] for r in ex.policy_rows(rw26_result)],
                                                                  rel=1e-12), key
    assert [r["violation_rate_ci95"] for r in summary["rows"]] == [r["violation_rate_ci95"]
                                                                  for r in ex.policy_rows(rw26_result)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tau", "0"], "--tau must be > 0"),
        (["--tau", "-0.1"], "--tau must be > 0"),
        (["--T", "0"], "--T must be an integer"),
        (["--dim", "0"], "--dim must be an integer"),
        (["--seeds", "0"], "--seeds must be an integer"),
        (["--delta", "1"], "--delta must be in (0, 1)"),
        (["--data", "/no/such/RW9.mat"], "no such file"),
        (["--data", "NOTMAT"], "not a readable MAT file"),
        (["--data", "NOSTEP"], "no field 'step'"),
        (["--policy", "greedy"], "--policy must be one of"),
        (["--embedder", "sentence"], "needs --model"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args, message, tmp_path: Path, capsys, battery_only: None) -> None:
    (tmp_path / "junk.mat").write_bytes(b"this is not a MAT file")
    buffer = io.BytesIO()
    scipy.io.savemat(buffer, {"data": {"procedure": "no steps here"}})
    (tmp_path / "nostep.mat").write_bytes(buffer.getvalue())
    files = {"NOTMAT": str(tmp_path / "junk.mat"), "NOSTEP": str(tmp_path / "nostep.mat")}
    code = cli.main(["battery", "--T", "5", "--dim", "8", *[files.get(a, a) for a in args]])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("error:") and message in err


def test_module_entry_point_reports_a_missing_file_without_traceback() -> None:
    done = subprocess.run([sys.executable, "-m", "safebandit_core", "battery", "--data", "/no/such/RW9.mat",
                           "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "error: no such file: '/no/such/RW9.mat'"


def test_replay_settings_round_trip_and_name_a_bad_field() -> None:
    s = ex.BatteryReplaySettings(source="path", file="RW9.mat", path="/data/RW9.mat", dim=DIM, fit_lam=0.5,
                                 taus=(0.2,), T=T, seeds=SEEDS, policies=("hpucb",), base_seed=7,
                                 precision="float32", tau=0.15, eps=0.2).validate()
    data = to_dict(s)
    assert data["kind"] == "battery" and data["taus"] == [0.2]
    assert from_dict(ex.BatteryReplaySettings, json.loads(json.dumps(data))) == s
    assert ex.battery_settings(data) == s
    defaults = ex.battery_settings({"kind": "battery", "dim": 8, "base_seed": 0})
    assert defaults.taus == ex.PAPER_TAUS and defaults.policies == ex.POLICIES
    assert defaults.fit_lam == ex.DEFAULT_FIT_LAM
    assert (defaults.tau, defaults.delta, defaults.delta_prime, defaults.lam, defaults.eps) == (0.1, 0.05, 0.05, 1.0,
                                                                                                  0.5)
    for bad, field in (({"dim": 0}, "dim"), ({"fit_lam": 0.0}, "fit_lam"), ({"taus": [0.4]}, "taus"),
                       ({"T": ex.MAX_REPLAY_T + 1}, "T"), ({"source": "path", "path": " "}, "path"),
                       ({"policies": ["greedy"]}, "policies"), ({"embedder": "sentence-transformers"}, "embedder"),
                       ({"precision": "float16"}, "precision"), ({"seeds": True}, "seeds"), ({"tau": 0}, "tau")):
        with pytest.raises(SettingsError) as err:
            from_dict(ex.BatteryReplaySettings, {**data, **bad})
        assert err.value.field == field
    for missing in ("dim", "base_seed"):
        with pytest.raises(SettingsError, match="given in the file") as err:
            ex.battery_settings({k: v for k, v in data.items() if k != missing})
        assert err.value.field == missing
    with pytest.raises(SettingsError, match="a known setting of the battery replay") as err:
        ex.battery_settings({**data, "cost_limit": 0.1})
    assert err.value.field == "cost_limit"


def test_a_settings_file_written_before_the_family_restores_and_replays_the_same(rw26, rw26_result) -> None:
    old = {"kind": "battery", "source": "embedded", "file": None, "path": None, "dim": DIM, "embedder": "hash",
           "fit_lam": 0.1, "taus": [0.1, 0.2], "T": T, "seeds": SEEDS,
           "policies": ["hpucb", "eps_greedy", "on_expectation"], "base_seed": 0, "precision": None}
    restored = ex.battery_settings(old)
    assert restored == rw26.settings
    assert {k: v for k, v in to_dict(restored).items() if k in old} == old
