"""Guided lecture scenes: small runs across the models, one control to move, and what to notice, computed.

A :class:`Scene` is data: a title, the model kind and paper, the runs it needs (:class:`Job` s,
each a settings and optionally the cells of a grid), the ONE control to move (:class:`Move`) and
two steps: the scene as set (step 0) and with that control moved (step 1). Its *what to notice*
(:class:`Claim` s) and figures are pure functions of its runs and the step, so every sentence is
computed from the run on screen: a claim whose point does not hold on the run says so
(``holds`` False) instead of being shown as true. Pages get the runs from their shared store
(:func:`compute` with their own ``run_job``); tests and scripts run them here.

Each family keeps its scenes in its folder: a ``lessons`` module beside its settings with ``SCENES`` (a tuple of
:class:`Scene`); :func:`scenes` collects them over the registry of families, in the lecture's order
(:data:`LECTURE`, then any other family's scenes in registry order), so a new family's scenes need no edit here.

The runs are small (seconds on a 2-core CPU once compiled) and share compiled shapes: every dose scene is a
2-cell grid of the same model, the conservative scenes run the same K = 24 model, and the
mean-variance scene reads the grid runs of :mod:`safebandit_core.meanvar.search`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, NamedTuple

import pandas as pd
import plotly.graph_objects as go

from . import families, model
from .captions import number
from .model import Run

CHUNK = 1000
"""Rounds per compiled chunk of runs that vary T (the horizons): every horizon is a multiple of it."""


class Job(NamedTuple):
    """One run a scene needs: its settings, the cells when it is a grid (one compiled scan), and its chunk.

    ``chunk`` None runs the whole horizon in one chunk (one compilation per shape); the results do not
    depend on it, so a page and a test that use the same chunk share the compiled function.
    """

    settings: Any
    cells: tuple[dict[str, Any], ...] | None = None
    chunk: int | None = None

    @property
    def rounds(self) -> int:
        """Rounds per chunk."""
        return self.chunk or int(self.settings.T)


class Base(NamedTuple):
    """What the sidebar sets for every run: the base seed, and the precision (None: each settings' default)."""

    base_seed: int = 0
    precision: str | None = None


@dataclasses.dataclass(frozen=True)
class Move:
    """The one control a scene moves: its name on the model page, its symbol, and its value before and after."""

    label: str
    symbol: str
    before: Any
    after: Any
    why: str

    def value(self, step: int) -> str:
        """The control's value at ``step`` (0: as set, 1: moved), for a sentence."""
        v = self.after if step else self.before
        return number(v) if isinstance(v, (int, float)) else str(v)

    def option(self, step: int) -> str:
        """The step as a picker shows it, e.g. ``Moved: δ = 0.2``."""
        return f"{'Moved' if step else 'As set'}: {self.symbol} = {self.value(step)}"

    def say(self) -> str:
        """The instruction, e.g. *Now raise δ to 0.2 and run again.*"""
        if not all(isinstance(v, (int, float)) for v in (self.before, self.after)):
            return f"Now switch {self.symbol} to {self.value(1)}."
        verb = "raise" if self.after > self.before else "lower"
        return f"Now {verb} {self.symbol} to {self.value(1)} and run again."


@dataclasses.dataclass(frozen=True)
class Claim:
    """One *what to notice* line: ``text`` is computed from the run; ``point`` is what the scene expects to see.

    ``holds`` is False when the run does not show the point (the page flags it); a claim with no
    point is a plain fact about the run. ``key`` names the claim for tests.
    """

    key: str
    text: str
    holds: bool = True
    point: str = ""


Runs = tuple[Run, ...]


@dataclasses.dataclass(frozen=True)
class Scene:
    """A lecture scene as data.

    ``jobs(base)``: the runs it needs; ``move(runs)``: its one control; ``notice(runs, step)`` and
    ``figures(runs, step)``: what to notice and the charts at step 0 (as set) or 1 (moved), ``notes``
    the plain words beside each chart; ``settings(runs, step)``: the settings a model page can open.
    """

    slug: str
    title: str
    kind: str
    model: str
    paper: str
    story: str
    jobs: Callable[[Base], tuple[Job, ...]]
    move: Callable[[Runs], Move]
    notice: Callable[[Runs, int], list[Claim]]
    figures: Callable[[Runs, int], dict[str, go.Figure]]
    notes: dict[str, str]
    settings: Callable[[Runs, int], Any]


def run_here(job: Job, device: str | None = None) -> Run:
    """A job run directly (tests, scripts), in its chunks, as a page runs it."""
    return families.run(job.settings, device, cells=job.cells, chunk=job.rounds, pad_tail=True)


def compute(scene: Scene, base: Base = Base(), run_job: Callable[[Job], Run] = run_here) -> Runs:
    """Every run the scene needs, in order (``run_job`` lets a page use its shared store)."""
    return tuple(run_job(j) for j in scene.jobs(base))


def with_base(s: Any, base: Base) -> Any:
    """Settings with the sidebar's base seed and precision."""
    change: dict[str, Any] = {"base_seed": base.base_seed}
    if base.precision is not None:
        change["precision"] = base.precision
    return dataclasses.replace(s, **change)


def row(summary: pd.DataFrame, policy: str) -> pd.Series:
    """One policy's row of a run's summary."""
    return summary[summary["policy"] == policy].iloc[0]


def cell(run: Run, i: int) -> Run:
    """Cell ``i`` of a grid run, as a run of its own."""
    return model.cell(run, i)


def fact(key: str, text: str) -> Claim:
    """A plain fact about the run (no point to hold)."""
    return Claim(key, text)


def check(key: str, holds: bool, point: str, text: str) -> Claim:
    """A claim whose ``point`` the run shows (``holds``) or not."""
    return Claim(key, text, bool(holds), point)


def grid(s: Any, field: str, move: Move) -> Callable[[Base], tuple[Job, ...]]:
    """One 2-cell grid job: ``field`` at the move's value before, then after."""
    return lambda base: (Job(with_base(s, base), ({field: move.before}, {field: move.after})),)


def static(move: Move) -> Callable[[Runs], Move]:
    """A scene's move that does not depend on its runs."""
    return lambda runs: move


def named(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its ``policy`` names as a categorical in order of first appearance (the figures' order)."""
    frame["policy"] = pd.Categorical(frame["policy"], categories=list(dict.fromkeys(frame["policy"])))
    return frame


LECTURE = ("delta", "one-round", "alpha", "horizon", "mv-rho", "nonlinear-set", "noise-margin")
"""The lecture's running order of the shipped scenes (a course's choice, not a family's); a scene not named here
follows them, in the registry's order of families."""
_FOUND: dict[tuple[str, ...], tuple[Scene, ...]] = {}


def scenes() -> tuple[Scene, ...]:
    """Every registered family's scenes, in lecture order (read once per set of families)."""
    key = tuple(families.FAMILIES)
    if key not in _FOUND:
        found = [s for module in families.modules("lessons") for s in module.SCENES]
        order = {slug: i for i, slug in enumerate(LECTURE)}
        _FOUND[key] = tuple(sorted(found, key=lambda s: order.get(s.slug, len(order))))
    return _FOUND[key]


def by_slug() -> dict[str, Scene]:
    """Every scene by its slug."""
    return {s.slug: s for s in scenes()}
