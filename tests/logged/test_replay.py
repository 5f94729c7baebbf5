"""The replay of a fitted log: HPC-UCB keeps its guarantee on the fitted model, the family honours the protocol,
the command line prints one summary, and the battery experiment is one instance with unchanged numbers.
(Chunking and grids are the generic protocol's, checked for every family in tests/core/test_conformance.py.)

Replays of the planted log and of the built-in example use d = 5, T = 2000 and 3 seeds (one compiled shape, which
tests/ui/test_logged_page.py shares); the battery ones d = 32, T = 200 and 2 seeds (tests/battery's shape).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from safebandit_core import battery, cli, export, families, logged
from safebandit_core import model as M
from safebandit_core.battery.fit import battery_rounds
from safebandit_core.battery.loader import load_embedded
from safebandit_core.data.embed import CachedEmbedder, make_embedder
from safebandit_core.settings import to_json
from tests.logged.planted import CONTEXT, csv_bytes, planted
from tests.support import assert_close_sum, only_command

T, SEEDS = 2000, 3
BATTERY = battery.BatteryReplaySettings(dim=32, T=200, seeds=2, tau=0.1, base_seed=0)
BATTERY_BEFORE = {
    "cum_regret_mean": (14.706165096369906, 16.767266941050195, 13.770771193976795),
    "final_dose_mean": (0.05117661393623048, 0.03333122979279267, 0.062432499228510054),
    "min_slack": (0.05761411462057235, 0.061910836940323836, 0.04852417838367625),
    "first_dose_regret": (18.931664692984757,) * 3,
}
"""The battery family's summary on the embedded RW26 table (hpucb, eps_greedy, on_expectation) before it became an
instance of the logged pipeline (float64 on the CPU)."""
BATTERY_SUMS = {"alpha": 42.53305166081975, "cost": 17.615434556008402, "est_upper": 48.23703226204799,
                "regret": 90.48840646279379}


@pytest.fixture(scope="module")
def run() -> logged.LoggedRun:
    s = logged.LoggedSettings(source="upload", file="planted.csv", context=CONTEXT, dose="dose", reward="benefit",
                              cost="side_effect", T=T, seeds=SEEDS, cost_name="toxicity", cost_unit="grade")
    return logged.prepare(s, csv_bytes(planted(5000).frame))


@pytest.fixture(scope="module")
def result(run):
    return logged.run_replay(run, "cpu")


def test_hpucb_keeps_its_guarantee_and_on_expectation_does_not(run, result) -> None:
    rows = {r["policy"]: r for r in logged.policy_rows(result)}
    delta = run.settings.delta
    assert rows["hpucb"]["violation_rate_ci95"][1] <= delta
    assert rows["on_expectation"]["violation_rate_ci95"][0] > 2 * delta
    assert rows["hpucb"]["final_dose_mean"] > run.first_safe_dose, "HPC-UCB never moved off its round-1 dose"
    assert rows["hpucb"]["cum_regret_mean"] < families.summary(result)["first_dose_regret"].iloc[0]
    for key in ("alpha", "cost", "regret", "true_upper", "est_upper"):
        assert result.outputs[key].shape == (3, SEEDS, T) and np.isfinite(result.outputs[key]).all()


def test_the_family_honours_the_protocol(run, result) -> None:
    fam = families.get("logged")
    assert fam is logged.FAMILY and families.of(run.settings) is fam and result.kind == "logged"
    again = families.run(run.settings, "cpu")  # found by the data's hash: this process has read it
    for key, value in result.raw.items():
        np.testing.assert_array_equal(again.raw[key], value, err_msg=key)
    table = families.summary(result)
    assert list(table.columns[:len(M.SUMMARY_COLUMNS)]) == list(M.SUMMARY_COLUMNS)
    assert {"violation_rate", "violation_rate_lo", "min_slack", "final_dose_mean", "passes"} <= set(table)
    kind, restored = export.load_settings(to_json(run.settings))
    assert kind == "logged" and restored == run.settings
    assert run.settings.unlabelled().cost_name == "side effect" and run.settings.label("cost") == "toxicity (grade)"
    assert fam.traced == ("tau", "delta", "delta_prime", "lam", "eps") and fam.grid_axes == battery.family.GRID_AXES


def test_a_resampled_order_draws_rows_from_its_own_seed(run) -> None:
    s = dataclasses.replace(run.settings, order="resample", order_seed=4, T=300, seeds=1)
    rows = logged.replay_rows(run.fit.env.n, 300, "resample", 4)
    np.testing.assert_array_equal(rows, logged.replay_rows(run.fit.env.n, 300, "resample", 4))
    params = run.family.params(s, "float64")
    table = np.asarray(params[0].stream.X)
    assert table.shape == (logged.replay.TABLE_BLOCK, run.fit.d) and not table[300:].any()  # padded, never read
    np.testing.assert_array_equal(table[:300], run.fit.env.X[rows])
    logs = run.family.params(dataclasses.replace(s, order="log"), "float64")
    np.testing.assert_array_equal(np.asarray(logs[0].stream.X)[:300], run.fit.env.X[:300])


def test_the_built_in_example_is_synthetic_and_its_truth_is_recovered() -> None:
    truth = logged.example_truth()
    assert truth["description"].startswith("SYNTHETIC") and truth["rows"] == 3000
    example = logged.prepare(logged.LoggedSettings(T=T, seeds=SEEDS))
    assert example.raw.name == logged.EXAMPLE_FILE and example.settings.file == logged.EXAMPLE_FILE
    coef = example.fit.coefficients().set_index("feature")
    for column, coefs in (("reward", truth["theta"]), ("cost", truth["mu"])):
        true = np.array(list(coefs.values()))
        fitted = coef.loc[list(coefs), column].to_numpy()
        assert true @ fitted / (np.linalg.norm(true) * np.linalg.norm(fitted)) > 0.99
    assert example.report()["kappa_c"] == pytest.approx(truth["kappa_c"], rel=0.1)


def test_the_command_line_prints_the_fit_and_every_policy(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(cli, "commands", only_command("logged"))
    out = tmp_path / "rounds.parquet"
    assert cli.main(["logged", "--T", str(T), "--seeds", str(SEEDS), "--json", "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["kind"] == "logged" and len(summary["rows"]) == 3 and summary["fit"]["rows_used"] == 3000
    assert {"rows_used", "rows_dropped", "d", "r2_reward", "r2_cost", "kappa_r", "kappa_c"} <= set(summary)
    assert summary["d"] == 5
    for row in summary["rows"]:
        assert {"violation_rate", "violation_rate_ci95", "cum_regret_mean", "cum_regret_std",
                "cum_regret_ci95"} <= set(row)
        assert len(row["violation_rate_ci95"]) == 2
    assert summary["fit"]["notes"][-1] == logged.NOISE_NOTE
    assert len(pd.read_parquet(out)) == 3 * SEEDS * T


def battery_instance(settings: battery.BatteryReplaySettings) -> tuple[pd.DataFrame, logged.LoggedSettings]:
    """The battery experiment as logged data: the rounds of the embedded RW26 table with columns ``x0 … x{dim-1}``
    (the embedded windows), ``dose``, ``reward``, ``cost`` and ``step``, and the logged settings that replay them
    as the battery family does (contexts as they are, no intercept, the first half fitted with the battery's ridge,
    the second half replayed)."""
    s = settings.validate()
    rounds = battery_rounds(load_embedded(), dim=s.dim, embedder=CachedEmbedder(make_embedder(s.embedder, dim=s.dim)))
    names = tuple(f"x{i}" for i in range(rounds.X.shape[1]))
    frame = pd.DataFrame(rounds.X, columns=list(names))
    frame = frame.assign(dose=rounds.dose, reward=rounds.reward, cost=rounds.cost, step=rounds.steps)
    logged_settings = logged.LoggedSettings(
        source="upload", file="battery rounds", context=names, dose="dose", reward="reward", cost="cost",
        contexts="raw", intercept=False, split="first_half", fit_lam=s.fit_lam, min_g=0.05, T=s.T,
        seeds=s.seeds, policies=tuple(s.policies), base_seed=s.base_seed, precision=s.precision, tau=s.tau,
        delta=s.delta, delta_prime=s.delta_prime, lam=s.lam, eps=s.eps, dose_name="current", reward_name="voltage drop",
        cost_name="temperature rise")
    return frame, logged_settings.validate()


def test_the_battery_is_one_instance_with_unchanged_numbers() -> None:
    reference = battery.run_replay(battery.prepare(BATTERY), "cpu")
    table = families.summary(reference)
    # Stored numbers from another machine: each output went through T rounds of d-term reductions, which another
    # CPU may order differently; the sums add their own terms.
    chain = BATTERY.T * BATTERY.dim
    for column, before in BATTERY_BEFORE.items():
        assert_close_sum(table[column].to_numpy(), before, chain + BATTERY.T * BATTERY.seeds, err_msg=column)
    for key, total in BATTERY_SUMS.items():
        values = reference.outputs[key].astype(np.float64)
        assert_close_sum(values.sum(), total, chain + values.size, scale=float(np.abs(values).sum()), err_msg=key)
    frame, settings = battery_instance(BATTERY)
    instance = logged.prepare(settings, frame)
    assert (instance.fit.d, instance.fit.fitted.n_fit) == (32, battery.prepare(BATTERY).problem.n_fit)
    replayed = logged.run_replay(instance, "cpu")
    for key, value in reference.outputs.items():
        assert_close_sum(replayed.outputs[key], value, chain, err_msg=key)
