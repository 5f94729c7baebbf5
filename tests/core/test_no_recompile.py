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
