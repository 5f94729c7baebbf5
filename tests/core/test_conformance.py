"""Every family honours the one model protocol: settings round-trip, replay on an explicit stream equals
the batched run, chunking changes nothing, and the tidy and summary schemas are the same everywhere."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from safebandit_core import families, memo, model, settings

SMALL = {kind: f.example for kind, f in families.FAMILIES.items()}
"""The small run every registered family declares (``Family.example``)."""


def test_every_family_has_a_small_run():
    for kind, s in SMALL.items():
        assert s is not None and families.of(s).kind == kind, kind


@pytest.fixture(params=sorted(SMALL), scope="module")
def case(request):
    s = SMALL[request.param]
    fam = families.get(request.param)
    return fam, s, families.run(s)


def test_settings_round_trip_through_json(case):
    fam, s, _ = case
    again = fam.from_dict(json.loads(settings.to_json(s)))
    assert again == s
    assert families.of(again) is fam


def test_outputs_are_policy_seed_round(case):
    fam, s, run = case
    P = len(fam.policies(s))
    for k, v in run.outputs.items():
        assert v.shape == (P, s.seeds, s.T), k
    assert run.done and run.t_done == s.T and run.kind == fam.kind


def test_replay_on_the_stream_equals_the_batched_run(case):
    fam, s, run = case
    if fam.stream is None or fam.on_stream is None:
        pytest.skip(f"{fam.kind} replays logged data; its stream is the data itself")
    for i in range(s.seeds):
        stream = fam.stream(s, i)
        for j, p in enumerate(fam.policies(s)):
            alone = fam.on_stream(s, p, stream)
            for k, v in alone.items():
                if k in run.outputs:
                    np.testing.assert_allclose(np.asarray(v, np.float64), run.outputs[k][j, i].astype(np.float64),
                                               rtol=1e-9, atol=1e-12, err_msg=f"{fam.kind}/{p}/{k}/seed {i}")


def test_chunking_changes_nothing(case):
    fam, s, run = case
    chunks = list(families.simulate(s, chunk=s.T // 3))
    assert len(chunks) >= 2 and chunks[-1].done
    for k, v in run.outputs.items():  # a chunk is another compiled scan length: 1e-12 relative, as a padded tail
        np.testing.assert_allclose(chunks[-1].outputs[k].astype(np.float64), v.astype(np.float64), rtol=1e-12,
                                   atol=1e-12, err_msg=k)
    assert isinstance(chunks[-1].raw, dict), "the finished run holds its rounds, which the store counts in its budget"
    assert memo.nbytes(chunks[-1]) >= sum(v.nbytes for v in chunks[-1].raw.values()) > 0
    for c in chunks:  # each chunk joins its pieces when first read, after the later chunks exist: its own rounds only
        assert {k: v.shape[-1] for k, v in c.raw.items()} == dict.fromkeys(c.raw, c.t_done)
        for k, v in c.raw.items():
            np.testing.assert_array_equal(v, chunks[-1].raw[k][..., :c.t_done], err_msg=f"{k} at {c.t_done}")


def test_tidy_and_summary_schemas(case):
    fam, s, run = case
    frame = families.tidy(run)
    assert list(frame.columns[:5]) == list(model.TIDY_COLUMNS)
    assert len(frame) == len(fam.policies(s)) * s.seeds * s.T
    assert set(frame["policy"].astype(str)) == set(fam.policies(s))
    table = families.summary(run)
    assert list(table.columns[:len(model.SUMMARY_COLUMNS)]) == list(model.SUMMARY_COLUMNS)
    regret = run.outputs["regret"].sum(axis=-1)
    np.testing.assert_allclose(table["cum_regret_mean"], regret.mean(axis=1))
    np.testing.assert_allclose(table["cum_regret_std"], regret.std(axis=1, ddof=1))
    assert "violation_rate" in table or "min_slack" in table


def test_grid_cells_equal_single_runs(case):
    fam, s, run = case
    field = fam.axes[0].field
    value = getattr(fam.resolved(s), field)
    grid = families.run(s, cells=[{field: value}, {field: value}])
    for k, v in run.outputs.items():  # a vmapped grid may round differently from one run: agree to 1e-9
        np.testing.assert_allclose(grid.outputs[k][1].astype(np.float64), v.astype(np.float64), rtol=1e-9,
                                   atol=1e-9, err_msg=k)
    one = model.cell(grid, 0)
    assert dataclasses.replace(s, **{field: value}) == one.settings


def test_a_padded_masked_tail_changes_nothing(case):
    """Pages run every T in chunks of one fixed length, the last one padded and masked: same results."""
    fam, s, run = case
    chunk = 1000 if s.T > 1000 else 64
    padded = list(families.simulate(s, chunk=chunk, pad_tail=True))[-1]
    assert padded.t_done == s.T
    for k, v in run.outputs.items():  # one fused step may round differently from another: 1e-12 relative
        np.testing.assert_allclose(padded.outputs[k].astype(np.float64), v.astype(np.float64), rtol=1e-12,
                                   atol=1e-12, err_msg=k)
