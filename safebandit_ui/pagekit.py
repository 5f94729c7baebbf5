"""Pieces every model page shares: URL-bound setting widgets, settings upload, result store, downloads.

A page describes its settings once as a :class:`SettingsForm` (the settings class, the widgets'
:class:`Control` entries, the upload key, the names used in messages) and passes it to these helpers;
what only one page does (its extra widget keys on restore, its own checks) comes in as a callback.
"""

from __future__ import annotations

import dataclasses
import io
import json
import time
import zipfile
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, Protocol, TypeVar

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import export
from safebandit_core import settings as core_settings

from . import shell

S = TypeVar("S")
V = TypeVar("V")
LIVE_EVERY_S = 0.6
COMPILING = "Compiling for this shape (only the first run of a shape)…"


@dataclasses.dataclass(frozen=True)
class Control:
    """A settings field's widget: its key (also its URL parameter), label, range, default and slider format.

    An empty ``fmt`` lets :func:`slider` choose: three decimals for steps below 0.01, else two.
    """

    key: str
    label: str
    lo: float
    hi: float
    step: float
    default: float = 0.0
    fmt: str = ""


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


def with_defaults(controls: dict[str, Control], defaults: object) -> dict[str, Control]:
    """The controls with each default taken from the same-named attribute of ``defaults`` (a settings object)."""
    return {f: dataclasses.replace(c, default=getattr(defaults, f)) for f, c in controls.items()}


def slider(controls: Mapping[str, Control], field: str, help: str) -> float:
    """A float slider for a settings field, bound to the URL."""
    c = controls[field]
    fmt = c.fmt or ("%.3f" if c.step < 0.01 else "%.2f")
    return st.slider(c.label, float(c.lo), float(c.hi), float(c.default), float(c.step), key=c.key,
                     bind="query-params", help=help, format=fmt)


def integer(controls: Mapping[str, Control], field: str, help: str) -> int:
    """An integer input for a settings field, bound to the URL."""
    c = controls[field]
    return int(st.number_input(c.label, int(c.lo), int(c.hi), int(c.default), int(c.step), key=c.key,
                               bind="query-params", help=help))


def number(controls: Mapping[str, Control], field: str, help: str) -> float:
    """A float input for a settings field, bound to the URL."""
    c = controls[field]
    return float(st.number_input(c.label, float(c.lo), float(c.hi), float(c.default), float(c.step), key=c.key,
                                 bind="query-params", help=help))


def runs_controls(controls: Mapping[str, Control]) -> tuple[int, int]:
    """The *Runs* group of a conservative model: rounds T and seeds side by side."""
    st.markdown("**Runs**")
    cols = st.columns(2)
    with cols[0]:
        T = integer(controls, "T", "Rounds per run.")
    with cols[1]:
        seeds = integer(controls, "seeds", "Independent runs, each on its own reward stream; the charts show their "
                                           "mean and min–max band.")
    return T, seeds


@dataclasses.dataclass(frozen=True)
class SettingsForm(Generic[S]):
    """How a page's widgets map to its settings class.

    - ``model``: how messages name the model ("the dose model");
    - ``upload_key``: the settings uploader's key; its message lives under ``upload_key + "_message"``;
    - ``int_fields``: controls whose widget holds an int;
    - ``field_names``: labels for settings fields without a control of the same name (they override
      the controls' labels);
    - ``values_of``: the control values a restored settings object sets (default: every control's field);
    - ``restore_extra``: further widget keys to set from a restored settings object (policies, …).
    """

    settings_cls: type[S]
    model: str
    controls: dict[str, Control]
    upload_key: str
    int_fields: frozenset[str] = frozenset()
    field_names: dict[str, str] = dataclasses.field(default_factory=dict)
    values_of: Callable[[S], dict[str, float]] | None = None
    restore_extra: Callable[[S], None] | None = None

    @property
    def message_key(self) -> str:
        """Where the uploader's last error or success message is kept."""
        return f"{self.upload_key}_message"

    def label(self, field: str) -> str:
        """How messages name a settings field or control."""
        if field in self.field_names:
            return self.field_names[field]
        return self.controls[field].label if field in self.controls else field


def _control_values(form: SettingsForm[S], s: S) -> dict[str, float]:
    """The control values a settings object sets, each checked against its widget's range."""
    values = form.values_of(s) if form.values_of else {f: getattr(s, f) for f in form.controls}
    for field, value in values.items():
        c = form.controls[field]
        if not (c.lo <= value <= c.hi):
            raise core_settings.SettingsError(field, f"in [{c.lo:g}, {c.hi:g}] on this page", value)
    return values


def _restored(form: SettingsForm[S], data: object) -> tuple[S, dict[str, float]]:
    """The settings in an uploaded JSON value and the control values they set; raises on any problem."""
    if not isinstance(data, dict):
        raise ValueError("the file must hold one JSON object of settings")
    wanted = form.settings_cls.KIND  # type: ignore[attr-defined]
    kind = data.get("kind", wanted)
    if kind != wanted:
        raise ValueError(f"these are settings of the {kind!r} model, not of {form.model}")
    s = core_settings.from_dict(form.settings_cls, data)
    return s, _control_values(form, s)


def is_zip(data: bytes) -> bool:
    """Whether uploaded bytes are a zip (a bundle from an *Everything (zip)* button)."""
    return data[:4] == b"PK\x03\x04"


def _restored_bundle(form: SettingsForm[S], data: bytes) -> tuple[S, dict[str, float]]:
    """The settings in an uploaded bundle (read by :func:`export.load_settings`) and the control values they set."""
    kind, s = export.load_settings(data)
    wanted = form.settings_cls.KIND  # type: ignore[attr-defined]
    if kind != wanted:
        raise ValueError(f"these are settings of the {kind!r} model, not of {form.model}")
    return s, _control_values(form, s)


def settings_file_dict(data: bytes) -> Any:
    """The JSON value of an uploaded settings file: a settings JSON, or the ``settings.json`` of a bundle (zip).

    Raises ValueError (a zip without settings), UnicodeDecodeError or json.JSONDecodeError.
    """
    if is_zip(data):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                data = zf.read(export.SETTINGS_FILE)
        except (zipfile.BadZipFile, KeyError):
            raise ValueError(f"not a bundle saved by this app (it has no readable {export.SETTINGS_FILE})") from None
    return json.loads(data.decode("utf-8"))


def restore_from_upload(form: SettingsForm[Any]) -> None:
    """Callback of the uploader: validate the JSON and put its values into the widgets (or say what is wrong)."""
    file = st.session_state.get(form.upload_key)
    if file is None:
        st.session_state.pop(form.message_key, None)
        return
    data = file.getvalue()
    try:
        s, values = _restored_bundle(form, data) if is_zip(data) else _restored(form, json.loads(data.decode("utf-8")))
    except core_settings.SettingsError as err:
        if err.field == "file":
            st.session_state[form.message_key] = ("error", f"{file.name}: must be {err.allowed}. Upload a settings "
                                                           "file or a zip saved by this page.")
            return
        shown = "" if err.value is None else f" (the file has {err.value!r})"
        st.session_state[form.message_key] = ("error", f"{file.name}: **{form.label(err.field)}** must be "
                                                       f"{err.allowed}{shown}.")
        return
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        st.session_state[form.message_key] = ("error", f"{file.name} is not a JSON file ({err}). Upload a settings "
                                                       "file saved by this page.")
        return
    except (ValueError, TypeError) as err:
        st.session_state[form.message_key] = ("error", f"{file.name}: {err}.")
        return
    for field, value in values.items():
        st.session_state[form.controls[field].key] = int(value) if field in form.int_fields else float(value)
    if form.restore_extra:
        form.restore_extra(s)
    st.session_state[shell.SEED_KEY] = s.base_seed
    if s.precision not in (None, "auto"):
        st.session_state[shell.PRECISION_KEY] = s.precision
    st.session_state[form.message_key] = ("success", f"Restored the settings of {file.name}.")


def restore_section(form: SettingsForm[Any]) -> None:
    """The *Restore a run* uploader and the message its last upload left."""
    st.markdown("**Restore a run**")
    st.file_uploader("Settings JSON or zip saved by this page", type=["json", "zip"], key=form.upload_key,
                     on_change=restore_from_upload, args=(form,),
                     help="Restores every control (and the base seed) from the file, or from the settings in a "
                          "zip made by *Everything (zip)*.")
    message = st.session_state.get(form.message_key)
    if message:
        (st.error if message[0] == "error" else st.success)(message[1])


def settings_or_error(form: SettingsForm[S], build: Callable[[], S]) -> S | None:
    """The settings ``build`` makes and checks; on a :class:`SettingsError` show what to change and return None."""
    try:
        return build()
    except core_settings.SettingsError as err:
        shown = "" if err.value is None else f" (now {err.value!r})"
        st.error(f"**{form.label(err.field)}** must be {err.allowed}{shown}. Change it to run.",
                 icon=":material/error:")
        return None


def rows_fit(rows: int, max_rows: int, advice: str) -> bool:
    """Whether a run's per-round rows fit the page's limit; if not, say so (ending with ``advice``)."""
    if rows <= max_rows:
        return True
    st.error(f"**Rounds T × Seeds × policies** is {rows / 1e6:.1f} million per-round rows; this page keeps at "
             f"most {max_rows / 1e6:g} million. {advice}", icon=":material/error:")
    return False


def chunk_size(T: int, sizes: tuple[int, ...] = (5_000, 500)) -> int:
    """Rounds per live update: the largest of ``sizes`` that divides T into at least 10 chunks, else 500."""
    for c in sizes:
        if T % c == 0 and T // c >= 10:
            return c
    return 500


class Progress(Protocol):
    """What a chunked core run yields: rounds done, the share of T done, and whether it is the last chunk."""

    @property
    def t_done(self) -> int: ...

    @property
    def fraction(self) -> float: ...

    @property
    def done(self) -> bool: ...


P = TypeVar("P", bound=Progress)


def live_chunks(chunks: Iterable[P], T: int, redraw: Callable[[int, P], None], first: str = COMPILING,
                every_s: float = LIVE_EVERY_S) -> tuple[P, float]:
    """Drive a chunked run under a progress bar, calling ``redraw(i, chunk)`` for unfinished chunks at most every
    ``every_s`` seconds; return the last chunk and the seconds the run took.
    """
    bar = st.progress(0.0, text=first)
    start = last_draw = time.perf_counter()
    last: P | None = None
    for i, chunk in enumerate(chunks):
        last = chunk
        bar.progress(chunk.fraction, text=f"Round {chunk.t_done:,} of {T:,}")
        if not chunk.done and time.perf_counter() - last_draw > every_s:
            redraw(i, chunk)
            last_draw = time.perf_counter()
    assert last is not None, "a run yields at least one chunk"
    seconds = time.perf_counter() - start
    bar.empty()
    return last, seconds


def draw_charts(slots: Mapping[str, Any], figures: Mapping[str, go.Figure], suffix: str = "") -> None:
    """Each figure into the slot of its name, keyed ``name + suffix`` (unique per live update)."""
    for name, fig in figures.items():
        slots[name].plotly_chart(fig, key=f"{name}{suffix}")


def chart_row(slots: dict[str, Any], name: str, title: str) -> Any:
    """A section ``title`` with the chart slot ``name`` in its wide left column; returns the right column."""
    st.subheader(title)
    left, right = st.columns([3, 2], gap="medium")
    slots[name] = left.empty()
    return right


def zoom_row(slots: dict[str, Any], key: str, note: str) -> float:
    """*The exploration phase, enlarged*: the ``zoom`` slot, the zoom slider (``key``) and ``note``; the share (%)."""
    right = chart_row(slots, "zoom", "The exploration phase, enlarged")
    with right:
        zoom = st.slider("Zoom: first … % of the rounds", 1, 50, 10, 1, key=key, bind="query-params",
                         help="Seed 001 zooms on the first rounds, where the policies differ most.")
        st.markdown(note)
    return float(zoom)


def number_table(table: pd.DataFrame, formats: Mapping[str, str]) -> None:
    """A table without index, the columns in ``formats`` shown with their printf format."""
    st.dataframe(table, hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format=f) for c, f in formats.items()})


def conservative_summary(policy: Iterable[str], summary: pd.DataFrame, regret: str, column: str) -> None:
    """*Summary over runs* of a conservative model: default pulls, final ``regret`` (from ``column + "_mean"``,
    ``"_min"``, ``"_max"``) and the smallest slack per policy.
    """
    st.subheader("Summary over runs")
    mean = f"final {regret} (mean)"
    table = pd.DataFrame({
        "policy": policy,
        "default pulls N₀(T) (mean)": summary["default_pulls_mean"],
        mean: summary[f"{column}_mean"],
        f"final {regret} (min – max)": [f"{lo:.2f} – {hi:.2f}" for lo, hi in
                                        zip(summary[f"{column}_min"], summary[f"{column}_max"], strict=True)],
        "min slack": summary["min_slack"],
    })
    number_table(table, {"default pulls N₀(T) (mean)": "%.1f", mean: "%.2f", "min slack": "%.4g"})


class _Miss(Exception):
    """Raised to probe the result cache without filling it."""


@st.cache_data(max_entries=32, max_size="2GB", show_spinner=False)
def stored_run(key: str, _make: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The finished run for ``key`` (settings + device): computed once by ``_make``, then copied to callers."""
    return _make()


def _miss() -> dict[str, Any]:
    raise _Miss


def cached_run(key: str) -> dict[str, Any] | None:
    """The stored run for ``key``, or None without storing anything."""
    try:
        return stored_run(key, _miss)
    except _Miss:
        return None


def run_key(s: object, device: str) -> str:
    """The store key of a run: its settings (their ``kind`` included) and the device."""
    return json.dumps({"settings": core_settings.to_dict(s), "device": device}, sort_keys=True)


def stored_or_run(key: str, run: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], bool]:
    """The stored run for ``key``, or ``run()`` stored under it; and whether it came from the store."""
    result = cached_run(key)
    if result is not None:
        return result, True
    made = run()
    return stored_run(key, lambda: made), False


def run_caption(result: Mapping[str, Any], T: int, seeds: int, policies: int, from_cache: bool) -> str:
    """The status line: device, precision, size and time of the run, and whether it was stored."""
    return (f"Ran on **{result['device']}** in **{result['precision']}**: {T:,} rounds × {seeds} "
            f"seeds × {policies} policies in {result['seconds']:.2f} s"
            + (" (stored result)" if from_cache else "") + ".")


ZIP_LABEL = "Everything (zip)"
ROUNDS_NAME = "per_round"


def zip_button(make: Callable[[], bytes], stem: str, key: str, container: Any = st) -> None:
    """The *Everything (zip)* button: ``make`` builds the bundle only when it is clicked."""
    container.download_button(ZIP_LABEL, make, f"{stem}.zip", "application/zip", on_click="ignore",
                              icon=":material/folder_zip:", key=key,
                              help="Per-round Parquet, the summary as CSV, the settings JSON and the figures as "
                                   "HTML (they open offline).")


def downloads(s: object, frame: pd.DataFrame, stem: str, key_prefix: str = "",
              summary: pd.DataFrame | None = None,
              figures: Callable[[], Mapping[str, go.Figure]] | None = None) -> None:
    """Per-round CSV and Parquet (made on click), the settings JSON and everything as one zip, saved as ``stem`` +
    extension.

    The zip (made on click with :func:`export.bundle`) holds the per-round Parquet, ``summary`` as CSV, the
    settings JSON and the figures ``figures()`` returns (name → figure) as HTML.
    """
    st.subheader("Save this run")

    def parquet() -> bytes:
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        return buf.getvalue()

    def everything() -> bytes:
        return export.bundle({ROUNDS_NAME: frame}, summary if summary is not None else pd.DataFrame(),
                             export.settings_dict(s), dict(figures()) if figures else {})

    cols = st.columns(4)
    cols[0].download_button("Per-round CSV", lambda: frame.to_csv(index=False), f"{stem}.csv", "text/csv",
                            on_click="ignore", icon=":material/table:", key=f"{key_prefix}dl_csv")
    cols[1].download_button("Per-round Parquet", parquet, f"{stem}.parquet", "application/vnd.apache.parquet",
                            on_click="ignore", icon=":material/dataset:", key=f"{key_prefix}dl_parquet")
    cols[2].download_button("Settings JSON", core_settings.to_json(s), f"{stem}.json", "application/json",
                            on_click="ignore", icon=":material/settings:", key=f"{key_prefix}dl_json")
    zip_button(everything, stem, f"{key_prefix}dl_zip", cols[3])
    st.caption("Upload the settings JSON (or the zip) under *Restore a run* to recreate this run exactly (same base "
               "seed).")
