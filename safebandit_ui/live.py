"""Run a model for a page: from the shared store when anyone computed it, else now (live only when long).

A short run (under :data:`LIVE_AFTER_S` by the server's own measure of this model's speed) is
computed in one call and drawn once; a long one streams: chunks with a progress bar, the
page's charts redrawn at most every :data:`REDRAW_EVERY_S`. Either way the finished run goes
into the process-wide :mod:`.store`, so a reload, a second tab or a classroom shares it.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from typing import Any

import streamlit as st

from safebandit_core import families, runner
from safebandit_core.model import Run

from . import shell, store

LIVE_AFTER_S = 1.0
REDRAW_EVERY_S = 0.5
SHORT_WORK = 2_000_000
"""Below this many work units a run is drawn once even before the server knows the model's speed."""
LONG_RUN = ("A long run: the charts update as it goes. Change any control, or press Stop at the top right, to stop "
            "it; other visitors' pages are not held up by it.")
COMPILING = "Compiling for this shape (only the first run of a shape on this server)…"


PAGE_CHUNK = 1000
"""Rounds per chunk of every page run, whatever T: the last chunk is padded and masked, so moving T (or
streaming a long run) never compiles anything new (:func:`safebandit_core.runner.run_chunks`)."""


def status_slots() -> tuple[Any, Any]:
    """Two empty slots where a run's note and its spinner or progress bar go, made whether the result is stored or
    not: the page then has the same elements on a store hit as on a miss, so every element after them keeps its
    place. An element that changes place is built anew in the browser: the scrub chart under a model page, whose
    figure a step of the page's own knob does not change, was drawn from scratch (21 frames) on every step."""
    return st.empty(), st.empty()


def _simulate(settings: Any, device: str, chunk: int) -> Any:
    return families.simulate(settings, device, chunk, pad_tail=True)


def _learn(shared: store.Store, kind: str, units: int, seconds: float, steady: float | None) -> None:
    """Teach the store how fast ``kind`` runs once compiled (:func:`safebandit_core.runner.steady_seconds`): a run
    that compiled, read its program from disk or ran beside the warm-up's compilations would otherwise make the next
    short runs of the kind look long, and stream them with a progress bar (a mean-variance step took 0.2 s longer).
    A single chunk cannot tell compiling from running (``steady`` None): its time, ``seconds``, is only a bound,
    which the next measured speed replaces."""
    if steady is not None:
        shared.learn(kind, units, steady)
    else:
        shared.learn(kind, units, seconds, bound=True)


def run(settings: Any, ctx: shell.RunContext, redraw: Callable[[Run], None] | None = None, extra: Any = None,
        simulate: Callable[..., Any] | None = None) -> tuple[Run, bool, float]:
    """The finished run of ``settings`` on the sidebar's device; returns (run, from_store, seconds to compute).

    ``simulate(settings, device, chunk)`` replaces :func:`safebandit_core.families.simulate` for runs that
    need more than settings (a grid, chunks of their own: :func:`in_chunks`); ``extra`` then tells such runs apart
    in the store. A data family's prepared settings name their data by its hash, so they need neither.
    Every run goes in chunks of :data:`PAGE_CHUNK` rounds with a masked tail.
    """
    sim = simulate or _simulate
    key = store.key_of(settings, ctx.device, extra)
    shared = store.store()
    note, progress = status_slots()
    hit = shared.peek(key)
    if hit is not None:
        return hit.value, True, hit.seconds
    kind = store.kind_of(settings)
    units = store.work(settings)
    estimate = shared.estimate(kind, units)
    live = redraw is not None and (estimate > LIVE_AFTER_S if estimate is not None else units > SHORT_WORK)

    def compute() -> Run:
        if not live:
            with progress.container(), st.spinner(COMPILING if estimate is None else "Running…"):
                last, steady = runner.timed_final(sim(settings, ctx.device, PAGE_CHUNK))
        else:
            note.info(LONG_RUN, icon=":material/hourglass:")
            bar = progress.progress(0.0, text=COMPILING if estimate is None else "Starting…")
            drawn = time.perf_counter()
            last, stamps = None, []
            for last in sim(settings, ctx.device, PAGE_CHUNK):
                stamps.append(last.seconds)
                bar.progress(last.fraction, text=f"Round {last.t_done:,} of {settings.T:,}")
                if not last.done and time.perf_counter() - drawn > REDRAW_EVERY_S:
                    redraw(last)
                    drawn = time.perf_counter()
            progress.empty()
            steady = runner.steady_seconds(stamps)
        assert last is not None, "a run yields at least one chunk"
        _learn(shared, kind, units, last.seconds, steady)
        return last

    entry, stored = shared.get_or_compute(key, compute, heavy=units > store.HEAVY_WORK,
                                          on_wait=lambda m: note.info(m, icon=":material/hourglass:"))
    note.empty()
    return entry.value, stored, entry.seconds


def warm(settings: Any, device: str, extra: Any = None, simulate: Callable[..., Any] | None = None) -> bool:
    """Compute and store the very run :func:`run` asks for with the same arguments, without a page (the server's
    warm-up): same store key, same chunks, so it also compiles what the page runs. True when computed now."""
    sim = simulate or _simulate
    shared = store.store()
    kind, units = store.kind_of(settings), store.work(settings)

    def compute() -> Run:
        last, steady = runner.timed_final(sim(settings, device, PAGE_CHUNK))
        _learn(shared, kind, units, last.seconds, steady)
        return last

    _, stored = shared.get_or_compute(store.key_of(settings, device, extra), compute, heavy=units > store.HEAVY_WORK)
    return not stored


def in_chunks(cells: Any, rounds: int | None) -> tuple[Any, Callable[..., Any]]:
    """The store's ``extra`` and the ``simulate`` of a run in chunks of its own ``rounds``, over the grid ``cells``
    (None: a single run): how a lesson asks for its runs, and how the warm-up stores them under the same key."""
    cells = None if cells is None else [dict(c) for c in cells]
    return (None if cells is None else {"cells": cells},
            lambda s, device, _chunk: families.simulate(s, device, rounds, cells=cells, pad_tail=True))


def shared(key: str, units: int, compute: Callable[[Callable[[float, str], None]], Any]) -> tuple[Any, bool, float]:
    """``compute(progress)`` once per server through the shared store, with a progress bar while it runs; for the
    results that are not one model run (a preset, a sweep, the theory overlays). Returns (value, stored, seconds)."""
    note, progress = status_slots()

    def work() -> Any:
        bar = progress.progress(0.0, text=COMPILING)
        try:
            return compute(lambda f, text: bar.progress(min(max(f, 0.0), 1.0), text=text))
        finally:
            progress.empty()

    entry, stored = store.store().get_or_compute(key, work, heavy=units > store.HEAVY_WORK,
                                                 on_wait=lambda m: note.info(m, icon=":material/hourglass:"))
    note.empty()
    return entry.value, stored, entry.seconds


MADE_AHEAD: weakref.WeakValueDictionary[int, Run] = weakref.WeakValueDictionary()
"""The runs computed ahead of a knob step (:mod:`.ahead`) by id, while they live: the status line says so."""


def made_ahead(run_: Run) -> None:
    """Mark ``run_`` as computed ahead of the step that shows it."""
    MADE_AHEAD[id(run_)] = run_


def caption(run_: Run, from_store: bool, seconds: float, policies: int | None = None) -> str:
    """The status line: device, precision, size and time of the run, and whether it was already computed (shared,
    or computed ahead of this step). ``policies``: how many of them the page shows (default: every one run)."""
    s = run_.settings
    shown = len(run_.policies) if policies is None else policies
    return (f"Ran on **{run_.device}** in **{run_.precision}**: {s.T:,} rounds × {s.seeds} seeds × "
            f"{shown} policies in {seconds:.2f} s{_where(run_, from_store)}.")


def _where(run_: Run, from_store: bool) -> str:
    """Whether the run was already there: computed ahead while the last step was on screen, or shared."""
    if not from_store:
        return ""
    return (" (computed ahead on this server while the last step was on screen: not recomputed)"
            if MADE_AHEAD.get(id(run_)) is run_ else " (already computed on this server: shared, not recomputed)")


def plain_caption(run_: Run, from_store: bool, seconds: float) -> str:
    """:func:`caption` in a visitor's words, without the device: the rules compared, rounds, runs and time."""
    s, n = run_.settings, len(run_.policies)
    return (f"{n} rule{'s' if n != 1 else ''} compared over {s.T:,} rounds, {s.seeds} run{'s' if s.seeds != 1 else ''} "
            f"each, in {seconds:.2f} s{_where(run_, from_store)}.")


DETAILS = "Details: device and precision"
"""The box under the status line that holds :func:`caption` (where the run was computed, in which precision)."""


def status(slot: Any, run_: Run, from_store: bool, seconds: float) -> None:
    """The status line in ``slot`` (an ``st.empty``): :func:`plain_caption`, with :func:`caption` in a collapsed
    box under it, for whoever wants the device and the precision."""
    with slot.container():
        st.caption(plain_caption(run_, from_store, seconds))
        with st.expander(DETAILS):
            st.caption(caption(run_, from_store, seconds))
