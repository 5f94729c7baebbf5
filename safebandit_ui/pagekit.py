"""Page layout every page shares: the title and intro with the page's sidebar section, chart rows, tables;
and small generic controls: a derived-unless-set slider, a horizon picker, a result computed on demand.

The other shared pieces live beside this module: :mod:`.forms` (URL-bound controls, restore, errors),
:mod:`.live` and :mod:`.store` (one shared result store; streaming only for long runs),
:mod:`.downloads` (the one download path).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import captions, sweep, uploads
from safebandit_core.memo import Memo, nbytes
from safebandit_core.viz.common import compact

from . import forms, links, pins, plot, shell, store

V = TypeVar("V")


def page_start(title: str, intro: str, section: str, controls: Callable[[shell.RunContext], V]
               ) -> tuple[shell.RunContext, V]:
    """Title and introduction, then the page's own sidebar section ``section`` drawn by ``controls``; returns the
    run context and what ``controls`` returned.
    """
    ctx = shell.current()
    st.title(title)
    st.markdown(intro)
    with st.sidebar:
        st.divider()
        st.markdown(f"#### {section}")
        values = controls(ctx)
    return ctx, values


def checked(form: Any, build: Callable[[], Any], warnings: Callable[[Any], list[str]]) -> Any:
    """The settings ``build`` makes, with the family's warnings shown; None (with the error shown) if they are bad."""
    s = forms.settings_or_error(form, build)
    if s is not None:
        for w in warnings(s):
            st.warning(w, icon=":material/warning:")
    return s


PER_RUN = 24
"""What :func:`per_run` keeps: the derived views of this many (run, name) pairs, least recently used dropped."""


@st.cache_resource(show_spinner=False)
def _per_run() -> Memo:
    """The process-wide values derived from runs: at most :data:`PER_RUN` entries (figures are not measured in
    bytes; the runs they come from are bounded by the store)."""
    return Memo(float("inf"), PER_RUN, measure=lambda entry: 0)


def per_run(run: Any, what: Hashable, build: Callable[[], V]) -> V:
    """``build()`` once per finished ``run`` and ``what`` (a name, with anything else the value depends on).

    A run from the shared store is one object for every session, so a reload, a second visitor or a control
    that changes only part of the page reuses its tidy frame and its figures instead of rebuilding them
    (the larger part of a page's script time). The value is shared: never change it in place
    (:func:`with_pins` copies the charts it draws over).
    """
    # The entry holds its run, so the run's id cannot be reused while the entry exists.
    return _per_run().get((id(run), what), lambda: (run, build()))[1]


def with_pins(figures: Mapping[str, go.Figure], kind: str, settings: Any = None) -> dict[str, go.Figure]:
    """The charts with every pin of ``kind`` drawn over them (:func:`.pins.overlay_all`, legend entries naming what
    differs from ``settings``), on copies when there are pins, so figures shared through :func:`per_run` stay as
    they were."""
    if not pins.pinned(kind):
        return dict(figures)
    return pins.overlay_all({name: go.Figure(fig) for name, fig in figures.items()}, kind, settings)


class Serialised(go.Figure):
    """A figure already turned into plotly's dict: ``st.plotly_chart`` asks a figure for ``to_dict()``, which here
    returns the dict made once instead of copying and encoding every trace again on every rerun."""

    def __init__(self, spec: dict[str, Any]) -> None:
        super().__init__()
        self._spec = spec
        self._text: str | None = None
        self._encoding = threading.Lock()

    def to_dict(self) -> dict[str, Any]:
        """The dict made once (shared: never change it in place)."""
        return self._spec

    def text(self) -> str:
        """The JSON the app's own chart element sends (:func:`.plot.encode`), made on the first drawing only (a
        thread asking while another makes it, as computing ahead and a page can, waits for that one)."""
        with self._encoding:
            if self._text is None:
                self._text = plot.encode(self._spec)
        return self._text


SERIALISED_BYTES = 32 * 2**20
"""What :func:`serialised` keeps: the dicts of the figures drawn lately with the JSON the chart element sends (none
where the charts fall back to ``st.plotly_chart``), up to this many bytes, least recently drawn dropped."""


@st.cache_resource(show_spinner=False)
def _serialised() -> Memo:
    """The process-wide dicts of drawn figures, by figure (the entry holds the figure, so its id stays its own)."""
    return Memo(SERIALISED_BYTES, measure=lambda entry: nbytes(entry[1].to_dict())
                + (len(entry[1].text()) if plot.served() else 0))


def serialised(fig: go.Figure, keep: bool = True) -> Serialised:
    """``fig`` as the browser gets it (:func:`safebandit_core.viz.common.compact`: float arrays as float32), made once
    per figure object when ``keep``: a figure shared through :func:`per_run` or the store is encoded on its first
    drawing only. A figure built anew on every rerun passes ``keep=False`` (nothing to reuse)."""
    if isinstance(fig, Serialised):
        return fig
    if not keep:
        return Serialised(compact(fig.to_dict()))
    return _serialised().get(id(fig), lambda: (fig, Serialised(compact(fig.to_dict()))))[1]


def encode_ahead(fig: go.Figure) -> None:
    """Make now what :func:`chart` sends for the shared ``fig`` (its dict, and its JSON where the own element draws),
    so a later drawing only sends it (:mod:`.ahead`)."""
    made = serialised(fig)
    if plot.served():
        made.text()


def chart(container: Any, fig: go.Figure, key: str, keep: bool = True, **kwargs: Any) -> Any:
    """``fig`` drawn in ``container`` under ``key`` by the app's chart element (:func:`.plot.chart`; ``kwargs`` as for
    ``st.plotly_chart``), sent as :func:`serialised` makes it (``keep``: the figure is shared, drawn again on later
    reruns)."""
    return plot.chart(container, serialised(fig, keep), key, **kwargs)


def draw_charts(slots: Mapping[str, Any], figures: Mapping[str, go.Figure], suffix: str = "") -> None:
    """Each figure into the slot of its name, keyed ``name + suffix`` (unique per live update; a live update's
    figures are drawn once, so their encoding is not kept)."""
    for name, fig in figures.items():
        chart(slots[name], fig, f"{name}{suffix}", keep=not suffix)


def chart_row(slots: dict[str, Any], name: str, title: str) -> Any:
    """A section ``title`` with the chart slot ``name`` in its wide left column; returns the right column."""
    st.subheader(title)
    return _columns(slots, name)


def _columns(slots: dict[str, Any], name: str) -> Any:
    """The 3:2 columns of a chart row, here: the chart slot ``name`` on the left; returns the right column."""
    left, right = st.columns([3, 2], gap="medium")
    slots[name] = left.empty()
    return right


def more_row(slots: dict[str, Any], name: str, title: str, key: str) -> Any | None:
    """A secondary section: ``title`` as a collapsed box (:func:`lazy`, ``key``) holding the chart slot ``name`` in
    its wide left column; returns the right column while the box is open, else None (nothing of it is drawn).

    A page load then draws only the charts its reader asked for: each plotly chart costs the browser about 0.1 s
    on a reload and again on every slider step that changes it.
    """
    box = lazy(title, key)
    if not box.open:
        return None
    with box:
        return _columns(slots, name)


ZOOM_DEFAULT = 10
"""The zoom slider's start: the first 10 % of the rounds."""


def zoom_row(slots: dict[str, Any], key: str, note: str) -> float:
    """*The exploration phase, enlarged*, a :func:`more_row` (box ``key + "_box"``): the ``zoom`` slot, the zoom
    slider (``key``) and ``note``; the share (%), :data:`ZOOM_DEFAULT` while the box is closed. The sentence slot
    ``zoom_note`` follows the chart."""
    right = more_row(slots, "zoom", "The exploration phase, enlarged", f"{key}_box")
    if right is None:
        return float(ZOOM_DEFAULT)
    with right:
        zoom = links.bound(st.slider, "Zoom: first … % of the rounds", 1, 50, ZOOM_DEFAULT, 1, key=key,
                           help="The One-size-fits-all paper zooms on the first rounds, where the policies differ "
                                "most.")
        st.markdown(note)
        slots["zoom_note"] = st.empty()
    return float(zoom)


def display(formula: str) -> str:
    """``formula`` (LaTeX) as a displayed equation to end a markdown paragraph with: the paragraph and its formula
    are then one element on the page, not two (each element costs the browser its own render on every load)."""
    return f"\n\n$$\n{formula}\n$$"


def symbols(key: str, *formulas: str, note: str = "") -> None:
    """A section's formulas (LaTeX) and ``note`` in a collapsed *In symbols* box (:func:`lazy`, ``key``), typeset
    only while it is open: the words beside each chart say the same in plain language, and every formula costs
    each page load the browser's time to typeset it."""
    box = lazy("In symbols", key, icon=":material/function:")
    if not box.open:
        return
    with box:
        for formula in formulas:
            st.latex(formula)
        if note:
            st.caption(note)


def lazy(label: str, key: str, icon: str | None = None) -> Any:
    """A collapsed section whose contents run only while it is open: draw into it when ``.open`` is true.

    Opening or closing it reruns the page (served from the shared store, so only the section is new work).
    """
    return st.expander(label, key=key, icon=icon, on_change="rerun")


STATIC_ROWS = 20
"""Tables up to this many rows are static HTML; longer ones get the sortable, scrolling data grid."""


def number_table(table: pd.DataFrame, formats: Mapping[str, str]) -> None:
    """A table without index, the columns in ``formats`` shown with their printf format.

    Up to :data:`STATIC_ROWS` rows it is ``st.table`` (plain HTML): a few summary rows need no sorting
    or scrolling, and the interactive grid costs every page load about 0.3 s of the browser's time.
    """
    if len(table) > STATIC_ROWS:
        st.dataframe(table, hide_index=True,
                     column_config={c: st.column_config.NumberColumn(format=f) for c, f in formats.items()})
        return
    st.table(table.style.format({c: (lambda v, f=f: f % v) for c, f in formats.items()}).hide(axis="index"))


def conservative_summary(policy: Iterable[str], summary: pd.DataFrame, regret: str, column: str) -> None:
    """*Summary over runs* of a conservative model: default pulls, final ``regret`` (from ``column + "_mean"``,
    ``"_min"``, ``"_max"``) and the smallest slack per policy.
    """
    st.subheader("Summary over runs")
    mean = f"{regret} at the end (mean)"
    table = pd.DataFrame({
        "rule": policy,
        "default pulls N₀(T) (mean)": summary["default_pulls_mean"],
        mean: summary[f"{column}_mean"],
        f"{regret} at the end (min – max)": [f"{lo:.2f} – {hi:.2f}" for lo, hi in
                                        zip(summary[f"{column}_min"], summary[f"{column}_max"], strict=True)],
        "min slack": [0.0 if captions.is_round_off(v) else v for v in summary["min_slack"].astype(float)],
    })
    number_table(table, {"default pulls N₀(T) (mean)": "%.1f", mean: "%.2f", "min slack": "%.4g"})




def upload_limit_mb() -> int:
    """The largest upload a page takes, in MB (:data:`safebandit_core.uploads.MAX_UPLOAD_MB`: the uploaders'
    ``max_upload_size=``, ``server.maxUploadSize`` and the command line's limit), which pages also check themselves."""
    return uploads.MAX_UPLOAD_MB


def upload_problem(file: Any) -> str | None:
    """Why an uploaded data file is refused before a byte of it is parsed (too large, empty), or None.

    The size comes from the upload's own record, so an oversized file is turned away without being read;
    the file's type is the uploader's ``type=`` filter (Streamlit refuses other extensions itself).
    """
    limit = upload_limit_mb() * uploads.MB
    if file.size > limit:
        return (f"**{file.name}** is {uploads.format_size(file.size)}; an upload may be at most "
                f"{uploads.format_size(limit)} here. Larger files run with the command line instead.")
    if file.size == 0:
        return f"**{file.name}** is empty: upload the file again."
    return None


def on_demand(settings: Any, ctx: shell.RunContext, extra: Any, compute: Callable[[Callable[[float, str], None]], V],
              label: str, key: str, help: str = "") -> V | None:
    """A result computed only when asked, shared like a run: from the server's store when anyone computed it
    (for ``settings``, the sidebar's device and ``extra``), else once the button ``label`` (``key``) was clicked
    for these very settings (the click is kept in the session, so it survives a rerun).

    ``compute(progress)`` reports ``progress(fraction, text)`` to a progress bar. Returns None until computed.
    """
    shared = store.store()
    skey = store.key_of(settings, ctx.device, extra)
    hit = shared.peek(skey)
    if hit is not None:
        return hit.value
    asked = f"{key}_asked"
    st.button(label, key=key, help=help, icon=":material/play_arrow:", on_click=st.session_state.__setitem__,
              args=(asked, skey))
    if st.session_state.get(asked) != skey:
        return None
    note, bar = st.empty(), st.progress(0.0, text="Starting…")
    entry, _ = shared.get_or_compute(skey, lambda: compute(lambda f, text: bar.progress(min(max(f, 0.0), 1.0), text)),
                                     on_wait=lambda m: note.info(m, icon=":material/hourglass:"))
    note.empty()
    bar.empty()
    return entry.value


def _start_at_derived(controls: Mapping[str, forms.Control], toggle_key: str) -> None:
    """Callback of :func:`derived_slider`'s toggle: switched off, the slider starts at the derived value."""
    field, derived = st.session_state.get(f"{toggle_key}_derived", (None, None))
    if not st.session_state.get(toggle_key) and derived is not None and field in controls:
        c = controls[field]
        st.session_state[c.key] = min(max(round(c.lo + round((derived - c.lo) / c.step) * c.step, 10), c.lo), c.hi)


def derived_slider(controls: Mapping[str, forms.Control], field: str, derived: float | None, toggle_key: str,
                   toggle_label: str, toggle_help: str, help: str) -> float | None:
    """A value the model derives unless the user sets it: a URL-bound toggle ``toggle_label`` over the slider of
    ``field``. On: the slider shows ``derived`` greyed out and None is returned (let the model derive it); off:
    the slider is live, starting at the derived value, and its value is returned.
    """
    st.session_state[f"{toggle_key}_derived"] = (field, derived)
    auto = links.bound(st.toggle, toggle_label, value=True, key=toggle_key, on_change=_start_at_derived,
                       args=(controls, toggle_key), help=toggle_help)
    if not auto:
        return forms.slider(controls, field, help)
    c = controls[field]
    shown = c.default if derived is None else min(max(derived, c.lo), c.hi)
    st.slider(c.label, float(c.lo), float(c.hi), float(shown), disabled=True, format="%.3f",
              help=f"{help} Switch off *{toggle_label}* to set it.")
    return None


HORIZON_FACTORS = (1, 2, 5, 10)


def horizon_picker(T: int, seeds: int, policies: int, key: str, max_rows: int, max_T: int) -> tuple[int, ...]:
    """The *Longest horizon* slider (``key``, a multiple of ``T``, bound to the URL) and the horizons it spans
    (:func:`safebandit_core.sweep.horizon_grid`), capped so that all runs together hold at most ``max_rows``
    policy-rounds (the horizons sum to under twice the longest) and no horizon passes ``max_T``.
    """
    cap = max(1, min(max_T, max_rows // (2 * seeds * policies)))
    factor = links.bound(st.select_slider, "Longest horizon", HORIZON_FACTORS, value=HORIZON_FACTORS[-1], key=key,
                         format_func=lambda k: f"{k} × T = {min(cap, k * T):,}",
                         help=f"At most {cap:,} rounds with {seeds} seeds and {policies} policies.")
    longest = min(cap, factor * T)
    return sweep.horizon_grid(longest, step=max(1, longest // 100))
