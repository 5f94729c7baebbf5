"""The sweep engine: one compiled run over seeds × a settings grid, identical when sharded across devices."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

from safebandit_core import sweep
from safebandit_core.conservative.mv_sim import MVSettings
from safebandit_core.conservative.sim import ConservativeSettings
from safebandit_core.dose import sim as dsim
from safebandit_core.settings import SettingsError
from tests.support import run_with_host_devices

ROOT = Path(__file__).resolve().parents[1]
SMALL_DOSE = dsim.DoseSettings(policies=("hpucb", "on_expectation"), d=2, T=120, seeds=2, refresh_every=60)


def test_sharded_sweeps_equal_single_device_runs_exactly():
    """Four forced host devices: every model's grid (padded to a multiple of 4) gives the same arrays."""
    script = textwrap.dedent("""
        import json
        import jax
        import numpy as np
        from safebandit_core import sweep
        from safebandit_core.conservative.mv_sim import MVSettings
        from safebandit_core.conservative.sim import ConservativeSettings
        from safebandit_core.dose.sim import DoseSettings
        specs = [
            sweep.SweepSpec("dose", DoseSettings(policies=("hpucb", "on_expectation"), d=2, T=120, seeds=2,
                                                 refresh_every=60), (0.2, 0.5, 1.0), (0.05, 0.2)),
            sweep.SweepSpec("gencb", ConservativeSettings(problem="cmab", policies=("gencb",), K=5, T=120, seeds=2),
                            (0.05, 0.1, 0.2), (0.6,)),
            sweep.SweepSpec("mv", MVSettings(K=4, T=120, seeds=2), (0.05, 0.2, 0.5), (10.0,)),
        ]
        report = {"devices": len(jax.devices())}
        for spec in specs:
            one = sweep.run_sweep(spec, shard=False)
            many = sweep.run_sweep(spec)
            report[spec.model] = {
                "n_devices": many.n_devices, "cells": len(spec.cells()),
                "same": all(np.array_equal(one.outputs[p][k], many.outputs[p][k], equal_nan=True)
                            for p in one.outputs for k in one.outputs[p]),
                "shapes": sorted({str(v.shape) for o in many.outputs.values() for v in o.values()}),
            }
        print(json.dumps(report))
    """)
    report = run_with_host_devices(script, 4)
    assert report["devices"] == 4
    for model, cells in (("dose", 6), ("gencb", 3), ("mv", 3)):
        got = report[model]
        assert got["n_devices"] == 4 and got["cells"] == cells and cells % 4  # padding was needed and dropped
        assert got["same"], f"{model}: the sharded sweep differs from the single-device one"
        assert got["shapes"] == [f"({cells}, 2, 120)"]


def test_single_device_means_no_mesh_and_padding_repeats_the_last_row():
    assert sweep.device_mesh("cpu", None) is None or len(sweep.jax.devices("cpu")) > 1
    assert sweep.device_mesh("cpu", False) is None
    params = {"a": np.arange(6.0).reshape(3, 2), "b": np.arange(3.0)}
    padded, G = sweep._pad_rows(params, 4)
    assert G == 3 and padded["a"].shape == (4, 2) and np.array_equal(padded["b"], [0.0, 1.0, 2.0, 2.0])


def test_dose_sweep_matches_the_models_own_grid_runner_and_frames():
    spec = sweep.SweepSpec("dose", SMALL_DOSE, (0.3, 1.0), (0.05, 0.2))
    result = sweep.run_sweep(spec)
    ref = dsim.run_grid(SMALL_DOSE, spec.cells())  # (cells × policies, seeds, T), row-major
    for j, p in enumerate(SMALL_DOSE.policies):
        np.testing.assert_array_equal(result.outputs[p]["cost"], ref["cost"][j::2])
    per_seed = sweep.seed_frame(result)
    assert len(per_seed) == 4 * 2 * 2
    per_cell = sweep.cell_summary(result)
    assert list(per_cell[["tau", "delta"]].drop_duplicates().itertuples(index=False, name=None)) == [
        (0.3, 0.05), (0.3, 0.2), (1.0, 0.05), (1.0, 0.2)]
    cost = result.outputs["on_expectation"]["cost"][1]
    row = per_cell[(per_cell["cell"] == 1) & (per_cell["policy"] == "on_expectation")].iloc[0]
    assert row["violation_rate"] == pytest.approx(float((cost > 0.3).mean()))
    assert row["safe"] == (row["violation_rate"] <= 0.2)
    frame = sweep.round_frame(result, 1)
    assert list(frame.columns[:5]) == ["tau", "delta", "policy", "label", "seed"]
    assert set(frame["policy"]) == {"hpucb", "on_expectation"} and len(frame) == 2 * 2 * 120


def test_gencb_and_mv_summaries_report_slack_and_default_pulls():
    g = sweep.run_sweep(sweep.SweepSpec("gencb", ConservativeSettings(problem="cmab", policies=("gencb", "ucb"), K=5,
                                                                      T=120, seeds=2), (0.05, 0.2), ()))
    per_cell = sweep.cell_summary(g)
    assert set(per_cell["mu0"]) == {0.7}  # seed 001's CMAB μ₀, derived from the instance
    assert per_cell.loc[per_cell["policy"] == "gencb", "safe"].all()
    assert (per_cell.loc[per_cell["policy"] == "ucb", "default_pulls"] == 0).all()
    m = sweep.run_sweep(sweep.SweepSpec("mv", MVSettings(K=4, T=120, seeds=2), (0.1,), (10.0, 100.0)))
    per_cell = sweep.cell_summary(m)
    assert list(per_cell["rho"].unique()) == [10.0, 100.0]
    assert {"min_slack", "default_pulls", "regret_mean"} <= set(per_cell.columns)
    assert sweep.baseline_slope(m.spec, 0) == pytest.approx(10 * 0.8 - 0.16 - 0.9 * 10 * 0.7)


def test_spec_round_trips_and_names_bad_input():
    spec = sweep.SweepSpec("mv", MVSettings(K=4, T=50, seeds=2), (0.05, 0.1), (10.0,))
    assert sweep.SweepSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
    with pytest.raises(SettingsError) as err:
        sweep.SweepSpec("mv", MVSettings(K=4), (1.5,), ()).validate()
    assert err.value.field == "alpha"
    with pytest.raises(SettingsError) as err:
        sweep.SweepSpec("dose", MVSettings(), (0.5,)).validate()
    assert err.value.field == "base"
    with pytest.raises(SettingsError) as err:
        sweep.grid_values("0.1, x", "τ", 0.0, 10.0)
    assert err.value.field == "τ"
    assert sweep.grid_values("0.5, 0.1, 0.5", "τ", 0.0, 10.0) == (0.5, 0.1)
    with pytest.raises(SettingsError):
        sweep.grid_values("20", "τ", 0.0, 10.0)


def test_loglog_slope_of_a_square_root_is_one_half():
    t = np.geomspace(1, 1e4, 50)
    slope, icpt = sweep.fit_loglog_slope(t, 3 * np.sqrt(t))
    assert slope == pytest.approx(0.5) and math.exp(icpt) == pytest.approx(3)
    assert math.isnan(sweep.fit_loglog_slope(t, -t)[0])
