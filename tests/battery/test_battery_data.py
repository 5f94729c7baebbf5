"""The battery data path: NASA .mat loader, embedded RW26 table, JSON-window embedder, realizability fit."""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.io

from safebandit_core.battery.fit import build_battery_problem, fit_linear
from safebandit_core.battery.loader import (
    COLUMN_DTYPES,
    BatteryDataError,
    load_embedded,
    load_steps,
    random_walk_discharges,
    raw_samples,
)
from safebandit_core.data.embed import (
    WINDOW_FIELDS,
    EmbedderUnavailable,
    HashEmbedder,
    SentenceEmbedder,
    available_embedders,
    embed_windows,
    make_embedder,
    window_json,
)

RW26 = Path(__file__).resolve().parents[3] / "shared" / "data" / "nasa" / "RW26.mat"
FIELDS = ("comment", "type", "time", "relativeTime", "voltage", "current", "temperature", "date")


def nasa_step(comment: str, kind: str, t0: float, voltage, current, temperature, date: str) -> dict:
    """One step in NASA's layout; sample vectors become 1 x n rows as MATLAB stores them."""
    voltage = np.atleast_1d(np.asarray(voltage, dtype=float))
    n = voltage.size
    rel = np.arange(n, dtype=float) + 0.01
    return {
        "comment": comment,
        "type": kind,
        "time": (t0 + rel)[None, :],
        "relativeTime": rel[None, :],
        "voltage": voltage[None, :],
        "current": np.broadcast_to(np.asarray(current, dtype=float), (n,))[None, :].copy(),
        "temperature": np.broadcast_to(np.asarray(temperature, dtype=float), (n,))[None, :].copy(),
        "date": date,
    }


def write_mat(target, steps: list[dict], fields: tuple[str, ...] = FIELDS, with_step: bool = True) -> None:
    """Write ``steps`` as ``data.step`` (a 1 x N struct array) the way NASA's files hold it."""
    array = np.empty((1, len(steps)), dtype=[(f, object) for f in fields])
    for i, step in enumerate(steps):
        array[0, i] = tuple(step[f] for f in fields)
    data = {"procedure": "test procedure", "description": "written by the test"}
    if with_step:
        data["step"] = array
    scipy.io.savemat(target, {"data": data})


def small_steps() -> list[dict]:
    """A rest, a single-sample discharge and a four-sample discharge."""
    day = "14-Nov-2014 17:2"
    walk = "discharge (random walk)"
    return [
        nasa_step("rest (random walk)", "R", 0.0, [4.10, 4.11, 4.12], 0.0, [25.0, 25.5, 26.0], day + "5:43"),
        nasa_step(walk, "D", 10.0, [4.0], 2.5, 26.0, day + "5:53"),
        nasa_step(walk, "D", 20.0, [4.0, 3.9, 3.8, 3.7], [1.0, 2.0, 3.0, 2.0], 27.0, day + "6:03"),
    ]


@pytest.fixture
def small_mat(tmp_path: Path) -> Path:
    path = tmp_path / "small.mat"
    write_mat(path, small_steps())
    return path


# ---------------------------------------------------------------- loader on small files


def test_load_steps_small_file(small_mat: Path) -> None:
    steps = load_steps(small_mat)
    assert list(steps.columns) == list(COLUMN_DTYPES)
    expected = {c: str(pd.Series(dtype=t).dtype) for c, t in COLUMN_DTYPES.items()}
    assert {c: str(t) for c, t in steps.dtypes.items()} == expected
    assert steps["step"].tolist() == [0, 1, 2]
    assert steps["n_samples"].tolist() == [3, 1, 4]
    assert steps["comment"].tolist() == ["rest (random walk)", "discharge (random walk)", "discharge (random walk)"]
    assert steps["type"].tolist() == ["R", "D", "D"]
    np.testing.assert_allclose(steps["time_start"], [0.01, 10.01, 20.01])
    np.testing.assert_allclose(steps["duration"], [2.01, 0.01, 3.01])
    np.testing.assert_allclose(steps["voltage_start"], [4.10, 4.0, 4.0])
    np.testing.assert_allclose(steps["voltage_end"], [4.12, 4.0, 3.7])
    np.testing.assert_allclose(steps["current_mean"], [0.0, 2.5, 2.0])
    np.testing.assert_allclose(steps["current_max"], [0.0, 2.5, 3.0])
    np.testing.assert_allclose(steps["temperature_mean"], [25.5, 26.0, 27.0])
    np.testing.assert_allclose(steps["temperature_max"], [26.0, 26.0, 27.0])
    assert steps["date"].iloc[0] == pd.Timestamp("2014-11-14 17:25:43")


def test_load_steps_reads_file_objects_and_single_step(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    write_mat(buffer, small_steps()[1:2])
    steps = load_steps(buffer)
    assert len(steps) == 1 and steps["n_samples"].iloc[0] == 1


def test_random_walk_discharges_filters_and_orders(small_mat: Path) -> None:
    steps = load_steps(small_mat).iloc[::-1]
    rounds = random_walk_discharges(steps)
    assert rounds["step"].tolist() == [1, 2]


def test_raw_samples_window(small_mat: Path) -> None:
    samples = raw_samples(small_mat, [2, 1])
    assert samples["step"].tolist() == [2, 2, 2, 2, 1]
    np.testing.assert_allclose(samples["voltage"], [4.0, 3.9, 3.8, 3.7, 4.0])
    assert {"time", "relative_time", "current", "temperature"} <= set(samples.columns)
    with pytest.raises(BatteryDataError, match="out of range"):
        raw_samples(small_mat, [3])
    with pytest.raises(BatteryDataError, match="no step indices"):
        raw_samples(small_mat, [])


def _nan_in(field: str, step: int):
    def build(path: Path) -> None:
        steps = small_steps()
        values = steps[step][field].copy()
        values[0, -1] = np.nan
        steps[step][field] = values
        write_mat(path, steps)

    return build


def _empty_vector(path: Path) -> None:
    steps = small_steps()
    steps[2]["voltage"] = np.zeros((1, 0))
    write_mat(path, steps)


MALFORMED = {
    "not a mat file": (lambda p: p.write_text("step,voltage\n0,4.1\n"), "not a readable MAT file"),
    "empty file": (lambda p: p.write_bytes(b""), "empty"),
    "no data": (lambda p: scipy.io.savemat(p, {"other": np.arange(3.0)}), "no top-level variable 'data'"),
    "no step": (lambda p: write_mat(p, small_steps(), with_step=False), "no field 'step'"),
    "no steps": (lambda p: write_mat(p, []), "no steps"),
    "missing field": (
        lambda p: write_mat(p, small_steps(), fields=tuple(f for f in FIELDS if f != "voltage")),
        r"step 0: required field 'voltage' is missing",
    ),
    "empty vector": (_empty_vector, r"step 2: required field 'voltage' is empty"),
    "nan voltage": (_nan_in("voltage", 2), r"step 2: field 'voltage' contains NaN"),
    "nan current": (_nan_in("current", 0), r"step 0: field 'current' contains NaN"),
    "nan temperature": (_nan_in("temperature", 2), r"step 2: field 'temperature' contains NaN"),
    "nan time": (_nan_in("time", 0), r"step 0: field 'time' contains NaN"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_input_is_named(tmp_path: Path, case: str) -> None:
    build, message = MALFORMED[case]
    path = tmp_path / "bad.mat"
    build(path)
    with pytest.raises(BatteryDataError, match=message):
        load_steps(path)


def test_battery_data_error_is_a_value_error() -> None:
    assert issubclass(BatteryDataError, ValueError)


# ---------------------------------------------------------------- the real file and the embedded table


@pytest.fixture(scope="module")
def embedded() -> pd.DataFrame:
    return load_embedded()


def test_embedded_table_shape_and_dtypes(embedded: pd.DataFrame) -> None:
    assert len(embedded) == 16_666
    assert list(embedded.columns) == list(COLUMN_DTYPES)
    assert embedded["step"].tolist() == list(range(16_666))
    assert not embedded.isna().any().any()
    assert (embedded["comment"] == "discharge (random walk)").sum() == 7447


@pytest.mark.skipif(not RW26.exists(), reason=f"NASA RW26.mat not found at {RW26}")
def test_rw26_matches_embedded_table(embedded: pd.DataFrame) -> None:
    steps = load_steps(RW26)
    assert len(steps) == 16_666
    assert int(steps["n_samples"].sum()) == 697_936
    assert (steps["n_samples"] == 1).sum() == 175
    assert (steps.dtypes == embedded.dtypes).all()
    for column in ("step", "comment", "type", "date", "n_samples"):
        assert (steps[column] == embedded[column]).all(), column
    for column in COLUMN_DTYPES:
        if COLUMN_DTYPES[column] == "float64":
            np.testing.assert_allclose(steps[column], embedded[column], rtol=0, atol=1e-3, err_msg=column)


# ---------------------------------------------------------------- windows and embedders


def test_window_json_is_the_previous_steps_most_recent_first(embedded: pd.DataFrame) -> None:
    doc = json.loads(window_json(embedded, 10))
    window = doc["previous_steps"]
    assert len(window) == 5
    assert [list(step) for step in window] == [list(WINDOW_FIELDS)] * 5
    assert window[0]["voltage_end"] == round(float(embedded["voltage_end"].iloc[9]), 3)
    assert window[4]["comment"] == embedded["comment"].iloc[5]
    assert len(json.loads(window_json(embedded, 2))["previous_steps"]) == 2
    assert json.loads(window_json(embedded, 0))["previous_steps"] == []
    assert window_json(embedded, 10) == window_json(embedded, 10)


def test_hash_embedder_deterministic_dimension_and_norm(embedded: pd.DataFrame) -> None:
    texts = [window_json(embedded, i) for i in (100, 101, 5000)] + ["plain text, 3.5 volts"]
    first = HashEmbedder(dim=256).embed(texts)
    second = HashEmbedder(dim=256).embed(texts)
    assert first.shape == (4, 256) and first.dtype == np.float64
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0)
    assert not np.allclose(first[0], first[1]) and not np.allclose(first[0], first[2])
    assert HashEmbedder(dim=2048).embed(texts[:1]).shape == (1, 2048)
    assert not np.allclose(HashEmbedder(dim=256, seed=1).embed(texts[:1]), first[:1])


def test_embed_windows_matches_window_json(embedded: pd.DataFrame) -> None:
    embedder = HashEmbedder(dim=128)
    rows = [0, 3, 4000, 16_666]
    expected = embedder.embed([window_json(embedded, i) for i in rows])
    np.testing.assert_array_equal(embed_windows(embedded, rows, embedder), expected)


def test_embedder_registry() -> None:
    assert available_embedders()[0] == "hash"
    assert make_embedder("hash", dim=32).dim == 32
    with pytest.raises(EmbedderUnavailable, match="unknown embedder"):
        make_embedder("gemma")


def test_sentence_embedder_never_downloads(tmp_path: Path) -> None:
    if importlib.util.find_spec("sentence_transformers") is None:
        assert available_embedders() == ["hash"]
        with pytest.raises(EmbedderUnavailable, match="not installed"):
            SentenceEmbedder("sentence-transformers/all-MiniLM-L6-v2")
    else:
        with pytest.raises(EmbedderUnavailable, match="no local copy"):
            SentenceEmbedder(str(tmp_path / "no-such-model"))


# ---------------------------------------------------------------- the realizability fit


def test_fit_linear_recovers_planted_coefficients() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 20))
    coef = rng.normal(size=20)
    y = X @ coef + 1e-3 * rng.normal(size=500)
    fit = fit_linear(X, y)
    np.testing.assert_allclose(fit.coef, coef, atol=5e-4)
    assert fit.r2 > 0.999_999
    assert fit.resid_sigma == pytest.approx(1e-3, rel=0.15)


def test_fit_linear_more_features_than_samples() -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 50))
    y = rng.normal(size=30)
    fit = fit_linear(X, y, lam=1e-9)
    assert fit.coef.shape == (50,)
    assert fit.r2 == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(ValueError):
        fit_linear(X, y[:10])


def test_build_battery_problem_on_embedded_table(embedded: pd.DataFrame) -> None:
    problem = build_battery_problem(embedded, dim=64)
    assert problem.dim == 64 and problem.embedder == "hash"
    assert problem.X_replay.shape == (problem.n_replay, 64)
    assert problem.X_replay.dtype == np.float64
    assert problem.theta.shape == problem.mu.shape == (64,)
    assert np.all(np.linalg.norm(problem.X_replay, axis=1) <= 1 + 1e-12)
    for array in (problem.X_replay, problem.theta, problem.mu, problem.dose_replay, problem.reward_replay):
        assert np.all(np.isfinite(array))
    for value in (problem.fit_r2_reward, problem.fit_r2_cost, problem.replay_r2_reward, problem.replay_r2_cost):
        assert np.isfinite(value) and value <= 1.0
    assert problem.kappa_r > 0 and problem.kappa_c > 0
    assert problem.n_fit > 3000 and problem.n_replay > 3000
    assert problem.dose_replay.min() >= 0 and problem.dose_replay.max() <= 1
    assert problem.reward_replay.max() <= 1 and problem.cost_replay.max() <= 1
    assert problem.norm_bound == pytest.approx(max(np.linalg.norm(problem.theta), np.linalg.norm(problem.mu)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        problem.kappa_r = 1.0  # type: ignore[misc]
    with pytest.raises(ValueError):
        problem.theta[0] = 1.0


def test_build_battery_problem_rejects_bad_settings(embedded: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="fit_fraction"):
        build_battery_problem(embedded, dim=16, fit_fraction=1.0)
    with pytest.raises(ValueError, match="cost_kind"):
        build_battery_problem(embedded, dim=16, cost_kind="heat")


def test_a_mat_file_crafted_to_inflate_is_refused_before_it_is_parsed(tmp_path: Path, monkeypatch) -> None:
    from safebandit_core import uploads
    from tests.support import inflating_mat

    monkeypatch.setattr(uploads, "MAX_MAT_INFLATED_BYTES", 2_000_000)
    monkeypatch.setattr(scipy.io, "loadmat", lambda *a, **k: pytest.fail("the parser saw a crafted file"))
    path = tmp_path / "RW9.mat"
    path.write_bytes(inflating_mat(3_000_000))
    for source in (path, io.BytesIO(path.read_bytes())):
        with pytest.raises(BatteryDataError, match=r"inflate to more than 2 MB, the most a \.mat file may hold"):
            load_steps(source)
