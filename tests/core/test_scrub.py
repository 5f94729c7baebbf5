"""The scrub grid: every value of a family's knob in one grid on the same seeds, reduced to small frames.

Small sizes (T = 120, 2 seeds) so each family compiles one grid and one single run.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from safebandit_core import families, scrub
from safebandit_core.conservative.settings import ConservativeSettings
from safebandit_core.dose import DoseSettings
from safebandit_core.dose.nonlinear.settings import NonlinearSettings
from safebandit_core.meanvar.settings import MVSettings
from safebandit_core.settings import SettingsError

SMALL = {
    "dose": DoseSettings(T=120, seeds=2, d=3),
    "nonlinear": NonlinearSettings(T=120, seeds=2, d=3, size=16),
    "conservative": ConservativeSettings(T=120, seeds=2, K=6),
    "meanvar": MVSettings(T=120, seeds=2, K=5),
}
"""Settings whose knob sits on the family's scrub axis (the pages' defaults: τ 0.5, α 0.05, ρ 30)."""


@pytest.mark.parametrize("kind", list(SMALL))
def test_the_grid_at_the_pages_value_is_the_run_at_that_value(kind):
    s = SMALL[kind]
    family = families.of(s)
    axis = family.scrub[0]
    assert len(axis.values) >= 11 and list(axis.values) == sorted(set(axis.values))
    own = getattr(s, axis.field)
    i = axis.values.index(own)
    grid = scrub.grid(s, axis.field)
    alone = families.run(s, chunk=scrub.CHUNK, pad_tail=True)
    assert grid.outputs["regret"].shape[0] == len(axis.values)
    for k, v in alone.raw.items():
        cell = grid.outputs[k][i]
        if v.dtype.kind in "biu":
            np.testing.assert_array_equal(cell, v, err_msg=k)
        else:  # a batched grid may sum a matrix product in another order: round-off only
            np.testing.assert_allclose(cell, v, rtol=0, atol=1e-12, err_msg=k)
    other = grid.outputs["regret"][(i + 5) % len(axis.values)]
    assert not np.allclose(other, alone.raw["regret"]), f"moving {axis.field} changed nothing"

    result = scrub.reduce(grid, axis)
    summary = families.summary(alone)
    finals = result.finals[(result.finals["value"] == own) & (result.finals["panel"] == "cum_regret")]
    np.testing.assert_allclose(finals["final"].to_numpy(), summary["cum_regret_mean"].to_numpy(), rtol=1e-9)
    assert set(result.curves["value"]) == set(axis.values)
    assert result.curves.groupby(["value", "policy", "panel"]).size().max() <= scrub.MAX_POINTS


def test_the_cache_key_ignores_the_scrubbed_knob_only():
    s = SMALL["dose"]
    axis = scrub.axis_of(families.of(s), "tau")
    assert scrub.normalised(s, axis) == scrub.normalised(dataclasses.replace(s, tau=1.3), axis)
    assert scrub.normalised(s, axis) != scrub.normalised(dataclasses.replace(s, delta=0.1), axis)
    assert scrub.axis_of(families.of(s)).field == "tau"
    assert scrub.axis_of(families.of(s), "delta").symbol == "δ"
    with pytest.raises(SettingsError, match="tau, delta"):
        scrub.axis_of(families.of(s), "kappa_c")


def test_nearest_value_and_shown_rounds():
    axis = scrub.axis_of(families.of(SMALL["meanvar"]))
    assert axis.values[scrub.nearest(axis, 30.0)] == 30.0
    assert axis.values[scrub.nearest(axis, 33.0)] == 30.0
    idx = scrub.shown_rounds(10_000)
    assert idx[0] == 0 and idx[-1] == 9_999 and idx.size == scrub.MAX_POINTS
    np.testing.assert_array_equal(scrub.shown_rounds(50), np.arange(50))


def test_a_timed_grid_is_the_grid():
    s = dataclasses.replace(SMALL["dose"], T=2 * scrub.CHUNK + 10)
    run, steady = scrub.timed_grid(s)
    again = scrub.grid(s)
    assert run.t_done == s.T and steady is not None and steady > 0
    for k in run.raw:
        np.testing.assert_array_equal(run.raw[k], again.raw[k])


def test_a_grids_compiled_time_is_measured_on_its_chunks_after_the_first(monkeypatch):
    """The first chunk alone may trace or compile: three chunks done at 5, 6 and 7 s took 3 s once compiled; a single
    chunk's time is not taken for the compiled one."""
    from types import SimpleNamespace

    from safebandit_core import model as M

    monkeypatch.setattr(M, "simulate", lambda *a, **k: iter([SimpleNamespace(seconds=t) for t in (5.0, 6.0, 7.0)]))
    assert scrub.timed_grid(SMALL["dose"])[1] == 3.0
    monkeypatch.setattr(M, "simulate", lambda *a, **k: iter([SimpleNamespace(seconds=4.0)]))
    assert scrub.timed_grid(SMALL["dose"])[1] is None, "one chunk cannot tell compiling from running"
