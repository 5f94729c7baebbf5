"""The sweep engine: one compiled run over seeds × a settings grid of any family, identical when sharded
across devices, each cell equal to the same settings run alone; and each horizon its own run."""

from __future__ import annotations

import json
import math
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from safebandit_core import families, sweep
from safebandit_core import model as M
from safebandit_core.conservative.settings import ConservativeSettings
from safebandit_core.dose.settings import DoseSettings
from safebandit_core.meanvar.settings import MVSettings
from safebandit_core.settings import SettingsError
from tests.support import assert_close_sum, reduction_rtol, run_with_host_devices

SMALL_DOSE = DoseSettings(policies=("hpucb", "on_expectation"), d=2, T=120, seeds=2, refresh_every=60)


SHARDED = {
    "dose": ('sweep.SweepSpec("dose", DoseSettings(policies=("hpucb", "on_expectation"), d=2, T=120, seeds=2, '
             'refresh_every=60), (0.2, 0.5, 1.0), (0.05, 0.2))', 6),
    "conservative": ('sweep.SweepSpec("gencb", ConservativeSettings(problem="cmab", policies=("gencb", "conucb"), '
                     'K=5, T=120, seeds=2), (0.05, 0.1, 0.2), (0.6,))', 3),
    "meanvar": ('sweep.SweepSpec("meanvar", MVSettings(K=4, T=120, seeds=2), (0.05, 0.2, 0.5), (10.0,))', 3),
}
SHARD_TERMS = 120 * 8
"""T rounds times the widest per-round sum (8 arms): a grid split across devices is compiled for another batch
shape, and XLA may group a sum over arms or coordinates differently there (the mean-variance regret does, on some
machines). Counts and actions must be identical; floats agree to the reordering bound of these sums."""


def test_sharded_sweeps_equal_single_device_runs():
    """Four forced host devices, one process for all three families: each grid (padded to a multiple of 4)
    gives the same arrays as the single-device run."""
    specs = ", ".join(f"{k!r}: ({spec}, {cells})" for k, (spec, cells) in SHARDED.items())
    script = textwrap.dedent(f"""
        import json
        import jax
        import numpy as np
        from safebandit_core import sweep
        from safebandit_core.conservative.settings import ConservativeSettings
        from safebandit_core.dose.settings import DoseSettings
        from safebandit_core.meanvar.settings import MVSettings
        report = {{"devices": len(jax.devices())}}
        for kind, (spec, cells) in {{{specs}}}.items():
            one = sweep.run_sweep(spec, shard=False)
            many = sweep.run_sweep(spec)
            floats = [k for k in one.outputs if one.outputs[k].dtype.kind == "f"]
            rel = {{k: float(np.max(np.abs(one.outputs[k].astype(float) - many.outputs[k].astype(float)))
                             / max(float(np.max(np.abs(one.outputs[k]))), 1e-300)) for k in floats}}
            report[kind] = {{"device": many.device, "cells": len(spec.cells()), "expected": cells,
                            "differ": [k for k in one.outputs if k not in floats
                                       and not np.array_equal(one.outputs[k], many.outputs[k])],
                            "rel": max(rel.values()), "shape": list(many.outputs["regret"].shape)}}
        print(json.dumps(report))
    """)
    got = run_with_host_devices(script, 4)
    assert got["devices"] == 4
    for kind in SHARDED:
        r = got[kind]
        assert r["device"] == "4 × cpu (sharded)"
        assert r["cells"] == r["expected"] and r["cells"] % 4  # padding was needed
        assert r["shape"] == [r["cells"], 2, 2, 120]  # (cell, policy, seed, t): and it was dropped again
        assert r["differ"] == [], f"{kind}: the sharded sweep differs from the single-device one in {r['differ']}"
        assert r["rel"] <= reduction_rtol(SHARD_TERMS), r


def test_single_device_means_no_mesh_and_padding_repeats_the_last_row():
    assert sweep.device_mesh("cpu", False) is None
    assert sweep.device_mesh("cpu", None) is None or len(jax.devices("cpu")) > 1
    np.testing.assert_array_equal(M._pad(jnp.arange(3.0), 4), [0.0, 1.0, 2.0, 2.0])
    np.testing.assert_array_equal(M._pad(jnp.arange(4.0), 4), [0.0, 1.0, 2.0, 3.0])


def test_each_dose_cell_equals_its_settings_run_alone_and_the_frames_follow():
    spec = sweep.SweepSpec("dose", SMALL_DOSE, (0.3, 1.0), (0.05, 0.2))
    result = sweep.run_sweep(spec)
    assert result.outputs["cost"].shape == (4, 2, 2, 120)
    for i in range(4):
        alone = families.run(spec.cell_settings(i))
        assert_close_sum(result.outputs["cost"][i], alone.outputs["cost"], 120 * 2)  # a grid batch may group anew
    per_seed = sweep.seed_frame(result)
    assert len(per_seed) == 4 * 2 * 2
    per_cell = sweep.cell_summary(result)
    assert list(per_cell[["tau", "delta"]].drop_duplicates().itertuples(index=False, name=None)) == [
        (0.3, 0.05), (0.3, 0.2), (1.0, 0.05), (1.0, 0.2)]
    cost = result.outputs["cost"][1, 1]  # cell 1 (τ = 0.3, δ = 0.2), On-Expectation
    row = per_cell[(per_cell["cell"] == 1) & (per_cell["policy"] == "on_expectation")].iloc[0]
    assert row["violation_rate"] == pytest.approx(float((cost > 0.3).mean()))
    assert row["safe"] == (row["violation_rate"] <= 0.2)
    frame = sweep.round_frame(result, 1)
    assert list(frame.columns[:6]) == ["tau", "delta", "kind", "policy", "label", "seed"]
    assert set(frame["policy"]) == {"hpucb", "on_expectation"} and len(frame) == 2 * 2 * 120


def test_conservative_and_mv_summaries_report_slack_and_default_pulls():
    spec = sweep.SweepSpec("gencb", ConservativeSettings(problem="cmab", policies=("gencb", "ucb"), K=5, T=120,
                                                         seeds=2), (0.05, 0.2), ())
    assert spec.kind == "conservative" and spec.axes == ("alpha", "mu0")  # the old name still loads
    per_cell = sweep.cell_summary(sweep.run_sweep(spec))
    assert set(per_cell["mu0"]) == {0.7}  # One-size-fits-all's CMAB μ₀, derived from the instance
    assert per_cell.loc[per_cell["policy"] == "gencb", "safe"].all()
    assert (per_cell.loc[per_cell["policy"] == "ucb", "default_pulls_mean"] == 0).all()
    mv = sweep.SweepSpec("meanvar", MVSettings(K=4, T=120, seeds=2), (0.1,), (10.0, 100.0))
    per_cell = sweep.cell_summary(sweep.run_sweep(mv))
    assert list(per_cell["rho"].unique()) == [10.0, 100.0]
    assert {"min_slack", "default_pulls_mean", "default_pulls_std", "cum_regret_mean",
            "cum_regret_std"} <= set(per_cell.columns)
    assert sweep.baseline_slope(mv, 0) == pytest.approx(families.get("meanvar").baseline(mv.cell_settings(0)))


def test_each_horizon_is_its_own_run():
    """ConUCB's δ = 1/T depends on the horizon: the row of horizon h is a run of length h, not a prefix."""
    s = ConservativeSettings(problem="cmab", policies=("gencb", "conucb"), K=5, T=400, seeds=2)
    frame = sweep.over_horizons(s, (200, 400))
    assert list(frame["T"]) == [200, 200, 400, 400] and list(frame["label"]) == ["GenCB", "ConUCB"] * 2
    short = families.run(ConservativeSettings(problem="cmab", policies=("gencb", "conucb"), K=5, T=200, seeds=2))
    for i, p in enumerate(short.policies):
        row = frame[(frame["T"] == 200) & (frame["policy"] == p)].iloc[0]
        assert row["cum_regret_mean"] == pytest.approx(short.outputs["regret"][i].sum(axis=-1).mean())
        assert row["default_pulls_mean"] == pytest.approx(short.outputs["default"][i].sum(axis=-1).mean())
        assert row["cum_regret_lo"] <= row["cum_regret_mean"] <= row["cum_regret_hi"]


def test_spec_round_trips_and_names_bad_input():
    spec = sweep.SweepSpec("meanvar", MVSettings(K=4, T=50, seeds=2), (0.05, 0.1), (10.0,))
    assert sweep.SweepSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
    old = {**spec.to_dict(), "model": "gencb", "base": {"kind": "conservative", "K": 5, "T": 50, "seeds": 2}}
    assert sweep.SweepSpec.from_dict({**old, "ys": []}).kind == "conservative"
    with pytest.raises(SettingsError) as err:
        sweep.SweepSpec("meanvar", MVSettings(K=4), (1.5,), ()).validate()
    assert err.value.field == "alpha"
    with pytest.raises(SettingsError) as err:
        sweep.SweepSpec("dose", MVSettings(), (0.5,)).validate()
    assert err.value.field == "base"
    with pytest.raises(SettingsError) as err:
        sweep.grid_values("0.1, x", "tau", 0.0, 10.0)
    assert err.value.field == "tau"
    assert sweep.grid_values("0.5, 0.1, 0.5", "tau", 0.0, 10.0) == (0.5, 0.1)
    with pytest.raises(SettingsError):
        sweep.grid_values("20", "tau", 0.0, 10.0)


def test_loglog_slope_of_a_square_root_is_one_half():
    t = np.geomspace(1, 1e4, 50)
    slope, icpt = sweep.fit_loglog_slope(t, 3 * np.sqrt(t))
    assert slope == pytest.approx(0.5) and math.exp(icpt) == pytest.approx(3)
    assert math.isnan(sweep.fit_loglog_slope(t, -t)[0])
