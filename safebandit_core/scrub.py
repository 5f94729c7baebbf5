"""The knob a model is about, computed along its whole axis at once: the data of a chart scrubbed in the browser.

A family declares its scrub knobs (:class:`~safebandit_core.model.Scrub`: a traced field, its values and
the panels to show). :func:`compute` runs every value as one cell of ONE compiled, vmapped grid
(:func:`safebandit_core.model.simulate` with ``cells``): every value sees the same seeds, so the same
patients, arms and noises (common random numbers), and the cell at the page's own value is that very
run. :func:`curves` and :func:`finals` reduce the grid to small tidy frames (one row per value, policy,
panel and shown round; one per value, policy and panel), which the figure builder
(:func:`safebandit_core.viz.scrub.scrub_figure`) turns into plotly frames.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from . import families, runner
from . import model as M
from .settings import SettingsError

MAX_POINTS = 200
"""Rounds shown per curve: a frame holds every value's curves, so the figure stays light to scrub."""
CHUNK = 1000
"""Rounds per chunk, with a masked tail: the same compiled shape as a page's run, so T never recompiles."""


@dataclasses.dataclass(frozen=True)
class Result:
    """A scrubbed axis, reduced: ``curves`` (value, policy, label, panel, t, y), ``finals`` (value, policy,
    label, panel, final, text), and the axis' symbol, label, values and panel titles (plain data). ``seconds``:
    how long the grid took; ``steady_seconds``: how long it takes once compiled (:func:`timed_grid`; None:
    unknown)."""

    field: str
    symbol: str
    label: str
    values: tuple[float, ...]
    titles: tuple[str, ...]
    curves: pd.DataFrame
    finals: pd.DataFrame
    seconds: float
    steady_seconds: float | None = None


def axis_of(family: M.Family, field: str | None = None) -> M.Scrub:
    """The family's scrub knob ``field`` (None: its first); :class:`SettingsError` naming the known ones."""
    if not family.scrub:
        raise SettingsError("scrub", f"a model with a scrub knob (the {family.kind!r} model has none)")
    if field is None:
        return family.scrub[0]
    for a in family.scrub:
        if a.field == field:
            return a
    raise SettingsError("scrub", "one of " + ", ".join(a.field for a in family.scrub), field)


def normalised(settings: Any, axis: M.Scrub) -> Any:
    """``settings`` with the scrubbed field at the axis' first value: what a cache of the grid is keyed by,
    so moving the knob itself finds the same grid."""
    return dataclasses.replace(settings, **{axis.field: axis.values[0]})


def nearest(axis: M.Scrub, value: float) -> int:
    """The index of the axis value closest to ``value`` (on a log scale for positive axes)."""
    vals = np.asarray(axis.values, dtype=np.float64)
    if value > 0 and np.all(vals > 0):
        return int(np.argmin(np.abs(np.log(vals) - np.log(value))))
    return int(np.argmin(np.abs(vals - value)))


def grid(settings: Any, field: str | None = None, device: str | None = None) -> M.Run:
    """Every value of the scrub knob ``field`` of ``settings``' family, in one compiled grid over the same seeds.

    Outputs are (value, policy, seed, t); the cell of a value equals the run of ``settings`` at that value.
    """
    return timed_grid(settings, field, device)[0]


def timed_grid(settings: Any, field: str | None = None, device: str | None = None) -> tuple[M.Run, float | None]:
    """:func:`grid`, and the seconds it takes once compiled (:func:`safebandit_core.runner.steady_seconds`; None for a
    single chunk)."""
    family = families.of(settings)
    axis = axis_of(family, field)
    cells = [{axis.field: float(v)} for v in axis.values]
    return runner.timed_final(M.simulate(family, settings, device, chunk=CHUNK, cells=cells, pad_tail=True))


def shown_rounds(T: int, points: int = MAX_POINTS) -> np.ndarray:
    """0-based indices of at most ``points`` evenly spaced rounds, the first and the last included."""
    return np.unique(np.linspace(0, max(T - 1, 0), min(max(T, 1), points)).round().astype(np.int64))


def _per_round(values: np.ndarray, how: str) -> np.ndarray:
    """(cell, policy, seed, t) → (cell, policy, t): the panel's reduction over seeds."""
    if how == "running":
        share = np.cumsum(values, axis=-1, dtype=np.float64) / np.arange(1, values.shape[-1] + 1)
        return share.mean(axis=2)
    if how == "min":
        return values.min(axis=2).astype(np.float64)
    if how == "mean":
        return values.mean(axis=2, dtype=np.float64)
    raise SettingsError("how", "mean, running or min", how)


def reduce(run: M.Run, axis: M.Scrub, seconds: float = 0.0, points: int = MAX_POINTS) -> Result:
    """The grid ``run`` of :func:`grid` as small tidy frames: each panel per shown round, and its final value."""
    out = run.outputs
    G, P = len(axis.values), len(run.policies)
    idx = shown_rounds(run.t_done, points)
    labels = run.labels
    curve_parts, final_rows = [], []
    for panel in axis.panels:
        per = _per_round(np.asarray(out[panel.field])[..., : run.t_done], panel.how)
        final = per.min(axis=-1) if panel.final == "min" else per[..., -1]
        shown = per[..., idx]
        curve_parts.append(pd.DataFrame({
            "value": np.repeat(np.asarray(axis.values, dtype=np.float64), P * idx.size),
            "policy": np.tile(np.repeat(run.policies, idx.size), G),
            "label": np.tile(np.repeat(labels, idx.size), G),
            "panel": panel.field,
            "t": np.tile(idx + 1, G * P),
            "y": shown.reshape(-1),
        }))
        for g, v in enumerate(axis.values):
            for p, pol in enumerate(run.policies):
                final_rows.append({"value": float(v), "policy": pol, "label": labels[p], "panel": panel.field,
                                   "final": float(final[g, p]), "text": panel.say.format(float(final[g, p]))})
    return Result(field=axis.field, symbol=axis.symbol, label=axis.label, values=tuple(float(v) for v in axis.values),
                  titles=tuple(p.title for p in axis.panels), curves=pd.concat(curve_parts, ignore_index=True),
                  finals=pd.DataFrame(final_rows), seconds=seconds)


def compute(settings: Any, field: str | None = None, device: str | None = None, points: int = MAX_POINTS) -> Result:
    """:func:`grid` then :func:`reduce`: the scrub chart's data for ``settings`` along the knob ``field``."""
    family = families.of(settings)
    axis = axis_of(family, field)
    run, steady = timed_grid(settings, axis.field, device)
    return dataclasses.replace(reduce(run, axis, run.seconds, points), steady_seconds=steady)

