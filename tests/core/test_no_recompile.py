"""What a person moves on a page compiles and traces nothing new: T (fixed chunks, one masked last-chunk
variant) and d or K inside a bucket (padded widths, :mod:`safebandit_core.shapes`)."""

from __future__ import annotations

import dataclasses

from safebandit_core import battery, families, logged, runner
from safebandit_core.conservative import ConservativeSettings
from safebandit_core.dose import DoseSettings
from safebandit_core.meanvar import MVSettings

CHUNK = 100


def _page_run(s) -> None:
    runner.final(families.simulate(s, "cpu", CHUNK, pad_tail=True))


def _traces() -> tuple[int, int]:
    return runner._init_batched._cache_size(), runner._advance_batched._cache_size()


def test_moving_t_d_and_k_inside_their_buckets_traces_nothing_new():
    cases = [
        (DoseSettings(T=200, seeds=2, d=5, refresh_every=50),
         [{"T": 250}, {"T": 60}, {"T": 300}, {"d": 6}, {"d": 8, "T": 130}, {"tau": 0.3}]),
        (MVSettings(T=200, seeds=2, K=24), [{"T": 333}, {"K": 25}, {"K": 32, "T": 100}, {"rho": 12.0}]),
        (ConservativeSettings(T=200, seeds=2, K=72), [{"T": 201}, {"K": 73}, {"K": 96, "alpha": 0.2}]),
    ]
    for base, moves in cases:
        _page_run(base)
        before = _traces()
        for change in moves:
            _page_run(dataclasses.replace(base, **change))
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
