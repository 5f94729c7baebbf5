"""The battery experiment end to end: the pipeline, its settings, the CLI contract, and a user's NASA file.

Every replay here uses d = 32, T = 200, 2 seeds and the three policies, so JAX compiles one shape
for the whole module (and for the page tests in tests/ui/test_battery_page.py).
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.io

from safebandit_core import cli
from safebandit_core.data import experiment as ex
from safebandit_core.data.battery import BatteryDataError
from safebandit_core.settings import SettingsError, from_dict, to_dict

ROOT = Path(__file__).resolve().parents[1]
DIM, T, SEEDS = 32, 200, 2
SUMMARY_KEYS = {"policy", "tau", "T", "dim", "violation_rate", "cum_regret_mean", "fit_r2_reward", "fit_r2_cost",
                "seconds"}
STEP_FIELDS = ("comment", "type", "time", "relativeTime", "voltage", "current", "temperature", "date")


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
    return ex.prepare(dim=DIM, T=T, seeds=SEEDS, tau=0.1)


@pytest.fixture(scope="module")
def rw26_outputs(rw26: ex.BatteryRun) -> dict[str, np.ndarray]:
    outputs, _ = ex.run_replay(rw26, "cpu")
    return outputs


@pytest.fixture(scope="module")
def cell_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cell") / "cell.mat"
    path.write_bytes(cell_mat_bytes())
    return path


def test_settings_follow_the_fit(rw26: ex.BatteryRun) -> None:
    s, p = rw26.settings, rw26.problem
    assert (s.d, s.T, s.seeds, s.tau, s.g) == (DIM, T, SEEDS, 0.1, "linear")
    assert s.policies == ("hpucb", "eps_greedy", "on_expectation")
    assert (s.kappa_r, s.kappa_c) == (p.kappa_r, p.kappa_c)
    assert s.S == p.norm_bound == max(np.linalg.norm(p.theta), np.linalg.norm(p.mu))
    assert s.L == pytest.approx(1.0)
    assert rw26.fit_lam == ex.DEFAULT_FIT_LAM and p.lam == ex.DEFAULT_FIT_LAM
    b = s.kappa_c * math.sqrt(2 * math.log(1 / s.delta))
    assert rw26.first_safe_dose == pytest.approx(s.tau / (b + s.S * s.L))
    assert p.n_fit > 3000 and p.n_replay > 3000 and rw26.passes < 1


def test_pipeline_runs_end_to_end_with_finite_outputs_and_safe_hpucb(rw26, rw26_outputs) -> None:
    for key in ("alpha", "reward", "cost", "est_upper", "true_upper", "regret"):
        assert rw26_outputs[key].shape == (3, SEEDS, T)
        assert np.isfinite(rw26_outputs[key]).all(), key
    alpha = rw26_outputs["alpha"]
    assert (alpha >= 0).all() and (alpha <= 1).all()
    row = ex.summary_row(rw26, rw26_outputs, seconds=1.0, device="cpu")
    assert SUMMARY_KEYS <= set(row) and row["policy"] == "hpucb"
    assert [r["policy"] for r in row["by_policy"]] == list(rw26.settings.policies)
    assert row["violation_rate"] <= rw26.settings.delta + 0.02
    hp = row["by_policy"][0]
    assert hp["final_dose_mean"] > rw26.first_safe_dose, "HPC-UCB never moved off its round-1 dose"
    assert row["cum_regret_mean"] < row["first_dose_regret"]
    json.dumps(row)


def test_longer_horizon_goes_through_the_replay_contexts_again(rw26: ex.BatteryRun) -> None:
    n = rw26.problem.n_replay
    longer = ex.BatteryRun(problem=rw26.problem, settings=ex.settings_for(rw26.problem, tau=0.2, T=n + 3),
                           source=rw26.source, fit_lam=rw26.fit_lam)
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


def test_requests_are_checked_before_any_data_is_read(rw26: ex.BatteryRun) -> None:
    for kwargs, field in (({"tau": 0.0}, "tau"), ({"T": 0}, "T"), ({"dim": 0}, "d"), ({"seeds": 0}, "seeds")):
        args = {"tau": 0.1, "T": 10, "dim": 8, "seeds": 1, **kwargs}
        with pytest.raises(SettingsError) as info:
            ex.check_request(**args)
        assert info.value.field == field
    with pytest.raises(BatteryDataError, match="no such file"):
        ex.prepare("/no/such/RW9.mat", dim=DIM)
    huge = dataclasses.replace(rw26, settings=dataclasses.replace(rw26.settings, d=4096, T=1_000_000))
    with pytest.raises(SettingsError, match="at most"):
        ex.check_contexts_fit(huge, "cpu")


def test_a_users_nasa_file_goes_through_the_same_pipeline(cell_path: Path) -> None:
    run = ex.prepare(cell_path, dim=DIM, T=T, seeds=SEEDS, tau=0.2)
    assert run.source == "cell.mat" and run.passes > 1
    assert 30 <= run.problem.n_replay <= 60 and np.isfinite(run.problem.fit_r2_cost)
    outputs, _ = ex.run_replay(run, "cpu")
    assert all(np.isfinite(v).all() for v in outputs.values())
    frame = ex.fit_frame(run.problem)
    assert len(frame) and np.isfinite(frame.to_numpy(dtype=float)).all()


def test_cli_prints_exactly_one_json_object(capsys: pytest.CaptureFixture[str], cell_path: Path) -> None:
    code = cli.main(["battery", "--data", str(cell_path), "--tau", "0.1", "--T", str(T), "--dim", str(DIM),
                     "--seeds", str(SEEDS), "--device", "cpu", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    summary = json.loads(out)
    assert isinstance(summary, dict) and SUMMARY_KEYS <= set(summary)
    assert (summary["tau"], summary["T"], summary["dim"], summary["source"]) == (0.1, T, DIM, "cell.mat")
    assert len(summary["by_policy"]) == 3 and summary["seconds"] > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tau", "0"], "--tau must be > 0"),
        (["--tau", "-0.1"], "--tau must be > 0"),
        (["--T", "0"], "--T must be an integer"),
        (["--dim", "0"], "--dim must be an integer"),
        (["--seeds", "0"], "--seeds must be an integer"),
        (["--data", "/no/such/RW9.mat"], "no such file"),
        (["--data", "NOTMAT"], "not a readable MAT file"),
        (["--data", "NOSTEP"], "no field 'step'"),
        (["--policy", "greedy"], "--policy must be one of"),
        (["--embedder", "sentence"], "needs --model"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args, message, tmp_path: Path, capsys) -> None:
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
                                 precision="float32").validate()
    data = to_dict(s)
    assert data["kind"] == "battery" and data["taus"] == [0.2]
    assert from_dict(ex.BatteryReplaySettings, json.loads(json.dumps(data))) == s
    assert ex.battery_settings(data) == s
    defaults = ex.battery_settings({"kind": "battery", "dim": 8, "base_seed": 0})
    assert defaults.taus == ex.TAUS and defaults.policies == ex.POLICIES and defaults.fit_lam == ex.DEFAULT_FIT_LAM
    for bad, field in (({"dim": 0}, "dim"), ({"fit_lam": 0.0}, "fit_lam"), ({"taus": [0.3]}, "taus"),
                       ({"T": ex.MAX_REPLAY_T + 1}, "T"), ({"source": "path", "path": " "}, "path"),
                       ({"policies": ["greedy"]}, "policies"), ({"embedder": "sentence-transformers"}, "embedder"),
                       ({"precision": "float16"}, "precision"), ({"seeds": True}, "seeds")):
        with pytest.raises(SettingsError) as err:
            from_dict(ex.BatteryReplaySettings, {**data, **bad})
        assert err.value.field == field
    for missing in ("dim", "base_seed"):
        with pytest.raises(SettingsError, match="given in the file") as err:
            ex.battery_settings({k: v for k, v in data.items() if k != missing})
        assert err.value.field == missing
    with pytest.raises(SettingsError, match="a known setting of the battery replay") as err:
        ex.battery_settings({**data, "tau": 0.1})
    assert err.value.field == "tau"
