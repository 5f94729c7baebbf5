"""What a person moves on a page compiles and traces nothing new: T (fixed chunks, one masked last-chunk
variant) and d or K inside a bucket (padded widths, :mod:`safebandit_core.shapes`)."""

from __future__ import annotations

import dataclasses

from safebandit_core import battery, families, logged, runner
from safebandit_ui import live, warmup

CHUNK = 100


def _page_run(s, chunk: int = CHUNK) -> None:
    runner.final(families.simulate(s, "cpu", chunk, pad_tail=True))


def _traces() -> tuple[int, int]:
    return (runner._init_batched._cache_size(), runner._advance_batched._cache_size(),
            runner._advance_optimised._cache_size())


def test_moving_t_d_and_k_inside_their_buckets_traces_nothing_new():
    """From each model page's opening settings, in the pages' chunks: the shapes every page test and the warm-up
    compile anyway, so this test adds none of its own."""
    opening = {families.of(s).kind: s for s in warmup.defaults("cpu")}
    cases = [
        (opening["dose"], [{"T": 2500}, {"T": 60}, {"T": 1300}, {"d": 6}, {"d": 8, "T": 1130}, {"tau": 0.3}]),
        (opening["meanvar"], [{"T": 3333}, {"K": 25}, {"K": 32, "T": 1000}, {"rho": 12.0}]),
        (opening["conservative"], [{"T": 2001}, {"K": 73}, {"K": 96, "alpha": 0.2}]),
    ]
    for base, moves in cases:
        _page_run(base, live.PAGE_CHUNK)
        before = _traces()
        for change in moves:
            _page_run(dataclasses.replace(base, **change), live.PAGE_CHUNK)
            assert _traces() == before, f"{type(base).__name__} {change} traced a new shape"


def test_moving_t_of_prepared_data_traces_nothing_new():
    """The data families run their prepared settings through the same generic, padded-tail path."""
    for prepared in (battery.prepare(battery.BatteryReplaySettings(dim=32, T=200, seeds=2, base_seed=0)),
                     logged.prepare(logged.LoggedSettings(T=200, seeds=2))):
        base = prepared.settings
        _page_run(base)
        before = _traces()
        for change in ({"T": 250}, {"T": 130}, {"tau": 0.3, "T": 301}):
            _page_run(dataclasses.replace(base, **change))
            assert _traces() == before, f"{base.KIND} {change} traced a new shape"


def test_the_python_api_pads_t_to_buckets_and_a_new_t_in_one_compiles_nothing():
    """``families.run(settings)`` names no chunk: T goes in buckets of about √2 with a masked tail, so the user who
    tries T = 2500, 2600, 2000, 2700 compiles once per bucket (2000 alone is in another), and the numbers are those
    of a run in one unpadded chunk."""
    import numpy as np

    base = dataclasses.replace(families.FAMILIES["dose"].settings_cls(), seeds=2).validate()
    assert [runner.t_bucket(t) for t in (1, 128, 129, 1024, 2000, 2500, 2700)] == [128, 128, 182, 1036, 2074, 2934,
                                                                                    2934]
    assert all(t <= runner.t_bucket(t) <= max(128, int(t * 2**0.5) + 2) for t in range(1, 20_000, 37))
    assert runner.t_bucket(100, block=7) % 7 == 0 and runner.bucket_at_most(60_000) <= 60_000
    # a run within one refresh block gets at most that block: a T = 100 replay (block 1000) plays 128 rounds, not 2000
    assert [runner.t_bucket(t, block=1000) for t in (100, 1000, 1001)] == [128, 1000, 2000]
    assert runner.bucket_at_most(runner.LONG_CHUNK_MIN) == 1036  # a long run's chunks: at least the bucket of 1024
    first = families.run(dataclasses.replace(base, T=2500))
    before = _traces()
    for T in (2600, 2700, 2899):
        families.run(dataclasses.replace(base, T=T))
        assert _traces() == before, f"T = {T} traced a new shape"
    whole = families.run(dataclasses.replace(base, T=2500), chunk=2500)
    for name in ("cum_regret", "violation"):
        assert np.array_equal(np.asarray(first.outputs[name]), np.asarray(whole.outputs[name]))
