"""The scrub chart every model page shows under its charts: the model's knob answered in the browser.

:func:`section` computes the family's scrub knob along its whole axis (:mod:`safebandit_core.scrub`,
one compiled grid on the same seeds), once per server for the settings *without* that knob (the
shared :mod:`.store`, key :func:`key`), and draws it as one plotly figure with a slider over
precomputed frames (:func:`safebandit_core.viz.scrub.scrub_figure`): moving the slider costs the
server nothing, and moving the page's own knob finds the same grid. Pages call it after their main
charts are drawn, so those are not delayed by it.
"""

from __future__ import annotations

import threading
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from safebandit_core import families, scrub
from safebandit_core.model import Scrub
from safebandit_core.settings import SettingsError
from safebandit_core.viz import scrub as vs

from . import pagekit, registry, shell, store

CHART_KEY = "scrub"
WAITING_KEY = "scrub_waiting"
"""Key of the note shown while the grid is computed in the background (its box has the CSS class
``st-key-scrub_waiting``: a browser can tell the page is not finished yet)."""
MAX_WORK = 40_000_000
"""Work units (:func:`.store.work`, all values together) above which the page does not compute the grid."""
HOW = ("**Drag the slider** (or click it and use the arrow keys): every value of {symbol} was computed in "
       "advance on the same random draws as the run above (the same {draws}), so a step shows only what "
       "{symbol} changes. Nothing reruns on the server.")
INLINE_S = 0.15
"""Seconds a grid may be expected to take (from this server's last grids of the model) and still be computed
within the page's run; a slower one is computed in the background, so the page settles without it. Kept short:
the estimate is the grid's quickest steady speed, while within a page's run the grid also builds its 21 frames
(0.1–0.2 s more) and shares the cores with the browser drawing the charts above (measured: the dose model's
grid, timed at 0.18–0.2 s, kept a size change's page running about 1 s longer)."""
INLINE_WORK = 320_000
"""Before the server has timed a grid of the model: work units (all values together) up to which the grid is
computed within the page's run (about half the dose model's defaults, 630,000 units, which take about 0.3 s)."""
POLL_S = 0.5
"""Seconds between the background note's checks of the store; the grid itself starts at the first check."""
SEEN_KEY = "scrub_notes_seen"
"""Session state: per scrub chart (its store key), how many times its background note has been drawn."""
CAPTION_PX = 64
"""Pixels the caption above the scrub chart takes (two or three lines): with the chart's own height, what the note
shown while the grid is computed keeps free."""


def key(settings: Any, device: str, field: str) -> str:
    """The store key of a scrub grid: the settings with the scrubbed field normalised, the device, the field."""
    axis = scrub.axis_of(families.of(settings), field)
    return store.key_of(scrub.normalised(settings, axis), device, {"scrub": axis.field})


def grid_work(settings: Any, field: str) -> int:
    """Work units (:func:`.store.work`) of the grid of ``field``: one run's, times the axis' values."""
    return store.work(settings) * len(scrub.axis_of(families.of(settings), field).values)


def rate_kind(settings: Any) -> str:
    """The name under which the shared store learns how fast this model's grids run (not its single runs:
    a vmapped grid costs less per work unit)."""
    return f"scrub:{families.of(settings).kind}"


def _grid(settings: Any, device: str, field: str) -> scrub.Result | str:
    """The grid's reduced result, or why it cannot run at these sizes (a sentence; kept like a result).
    The store learns the grid's speed once compiled (the quickest seen; a grid of one chunk cannot tell), so the
    next page knows whether to wait."""
    axis = scrub.axis_of(families.of(settings), field)
    try:
        res = scrub.compute(scrub.normalised(settings, axis), field, device)
    except SettingsError as err:
        return f"The scrub chart does not fit at these sizes: {err}"
    if res.steady_seconds is not None:
        store.store().learn(rate_kind(settings), grid_work(settings, field), res.steady_seconds, fastest=True)
    return res


def result(settings: Any, device: str, field: str) -> scrub.Result | str:
    """The grid of ``field`` for ``settings`` from the shared store, computed now if nobody has (or why not)."""
    entry, _ = store.store().get_or_compute(key(settings, device, field), lambda: _grid(settings, device, field),
                                            heavy=grid_work(settings, field) > store.HEAVY_WORK)
    return entry.value


def figure_key(settings: Any, device: str, field: str, current: int) -> str:
    """The store key of the scrub chart of ``field`` starting at value index ``current``."""
    return f"{key(settings, device, field)}|figure {current}"


def figure(settings: Any, device: str, field: str, current: int) -> go.Figure | str:
    """The scrub chart of ``field`` starting at value index ``current`` (or why there is none), built once per
    server (plotly's checks of 21 frames take longer than a small grid) with what the page sends of it
    (:func:`.pagekit.encode_ahead`), and shared through the store."""
    res = result(settings, device, field)
    if isinstance(res, str):
        return res

    def build() -> go.Figure:
        fig = vs.scrub_figure(res.curves, res.finals, symbol=res.symbol, label=res.label, values=res.values,
                              titles=res.titles, current=current)
        pagekit.encode_ahead(fig)
        return fig

    entry, _ = store.store().get_or_compute(figure_key(settings, device, field, current), build)
    return entry.value


def _background(settings: Any, device: str, field: str, current: int) -> None:
    """:func:`figure` in a thread; an unexpected failure is stored as its message so a waiting page stops waiting."""
    try:
        figure(settings, device, field, current)
    except Exception as err:  # a background failure must not leave a page polling for ever
        why = f"The scrub chart could not be computed: {err}"
        store.store().get_or_compute(figure_key(settings, device, field, current), lambda: why)


def warm(settings: Any, device: str) -> None:
    """Compute and store the scrub chart of ``settings``' first knob as its page first shows it (the warm-up)."""
    axis = families.of(settings).scrub[0]
    figure(settings, device, axis.field, scrub.nearest(axis, float(getattr(settings, axis.field))))


def inline(settings: Any, field: str) -> bool:
    """Whether the grid is quick enough to compute within the page's own run: expected to take at most
    :data:`INLINE_S`, from how fast this model's last grids of several chunks ran on this server (the warm-up
    times each model's), or, before any, at most :data:`INLINE_WORK` work units. The non-linear model's class
    makes a work unit cost more there than the dose model's, which the learned speed sees and the units do not."""
    units = grid_work(settings, field)
    seconds = store.store().estimate(rate_kind(settings), units)
    return units <= INLINE_WORK if seconds is None else seconds <= INLINE_S


@st.fragment(run_every=POLL_S)
def _waiting(fkey: str, settings: Any, device: str, axis: Scrub, start: int, height: int) -> None:
    """Until the chart is in the store: a note, checked every :data:`POLL_S`, in a box of the ``height`` the caption
    and the chart will take, so that what lies below does not jump when they come; then one rerun of the page draws
    them.

    The grid starts in a background thread at the note's second drawing (its first check, or the page's next run),
    not during the page's run: the browser asks for that check only once its timer finds a free moment, so the
    grid does not take the cores from the browser drawing the charts above, nor the server's from the page's run."""
    if store.store().peek(fkey) is not None:
        st.rerun()
    seen = st.session_state.setdefault(SEEN_KEY, {})
    if seen.get(fkey) == 1:
        threading.Thread(target=_background, args=(settings, device, axis.field, start), daemon=True,
                         name="safebandit-scrub").start()
    seen[fkey] = seen.get(fkey, 0) + 1
    st.container(key=WAITING_KEY, height=height, border=False).info(
        f"The {len(axis.values)} values of {axis.symbol} are computed on the same draws in the background, once the "
        "charts above are drawn: the chart appears here when they are ready (the charts above are final).",
        icon=":material/hourglass:")


@st.fragment
def section(settings: Any, ctx: shell.RunContext) -> None:
    """*Scrub the knob*: the knob's choice (where the model has several), the chart (key ``scrub``) and a caption.

    A grid slower than :func:`inline` allows is computed in a background thread once the page has settled in the
    browser; a small fragment (:func:`_waiting`) starts it, polls the store and reruns the page once it is ready.
    """
    family = families.of(settings)
    if not family.scrub:
        return
    st.subheader("Scrub the safety knob: every value at once")
    axes = {a.field: a for a in family.scrub}
    field = family.scrub[0].field
    if len(axes) > 1:
        field = st.radio("Knob", list(axes), key=f"{family.kind}_scrub_axis", horizontal=True,
                         format_func=lambda f: f"{axes[f].symbol}: {axes[f].label}")
    axis = axes[field]
    work = grid_work(settings, field)
    if work > MAX_WORK:
        st.info(f"The scrub chart computes {len(axis.values)} runs at once, {work:,} work units here; it is drawn "
                f"up to {MAX_WORK:,}. Lower T or the seeds to see it.", icon=":material/tune:")
        return
    own = float(getattr(settings, field))
    current = scrub.nearest(axis, own)
    start = opened_at(key(settings, ctx.device, field), current)
    fkey = figure_key(settings, ctx.device, field, start)
    if store.store().peek(fkey) is None and not inline(settings, field):
        _waiting(fkey, settings, ctx.device, axis, start, waiting_height(settings))
        return
    with st.spinner(f"Computing {len(axis.values)} values of {axis.symbol} on the same draws…"):
        fig = figure(settings, ctx.device, field, start)
    if isinstance(fig, str):
        st.info(fig, icon=":material/tune:")
        return
    draws = registry.entry(family.kind).draws
    st.caption(HOW.format(symbol=axis.symbol, draws=draws) + start_note(axis, start, current, own))
    pagekit.chart(st, fig, CHART_KEY, config={"displayModeBar": False})


def waiting_height(settings: Any) -> int:
    """Pixels the scrub chart of ``settings`` and its caption take on the page (:data:`CAPTION_PX`)."""
    return CAPTION_PX + vs.chart_height(len(families.of(settings).policies(settings)))


def opened_at(grid: str, current: int) -> int:
    """The value index the scrub chart of the grid ``grid`` opened at in this session (``current`` the first time).

    Moving the page's own knob then finds the very chart it has already drawn: nothing is sent again or redrawn
    (Streamlit sends an unchanged chart by reference), and the slider stays where the visitor left it.
    """
    return st.session_state.setdefault("scrub_opened_at", {}).setdefault(grid, current)


def start_note(axis: Scrub, start: int, current: int, own: float) -> str:
    """Where the chart opened, when that is not the run's own value ``own`` (``current``: its nearest step)."""
    if axis.values[start] == own:
        return ""
    opened = f" It opened at {axis.symbol} = {axis.values[start]:g}"
    if start == current:
        return f"{opened}, the computed value nearest this page's {own:g}."
    if axis.values[current] == own:
        return f"{opened}; this page's {axis.symbol} = {own:g} is one of its steps."
    return f"{opened}; the step nearest this page's {axis.symbol} = {own:g} is {axis.values[current]:g}."
