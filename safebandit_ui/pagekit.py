"""Page layout every page shares: the title and intro with the page's sidebar section, chart rows, tables.

The other shared pieces live beside this module: :mod:`.forms` (URL-bound controls, restore, errors),
:mod:`.live` and :mod:`.store` (one shared result store; streaming only for long runs),
:mod:`.downloads` (the one download path).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from . import shell

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




def upload_limit_mb() -> int:
    """The largest upload the server takes, in MB (``server.maxUploadSize``), which pages also check themselves."""
    return int(st.get_option("server.maxUploadSize"))


def upload_problem(file: Any) -> str | None:
    """Why an uploaded data file is refused before a byte of it is parsed (too large, empty), or None.

    The size comes from the upload's own record, so an oversized file is turned away without being read;
    the file's type is the uploader's ``type=`` filter (Streamlit refuses other extensions itself).
    """
    limit = upload_limit_mb()
    if file.size > limit * 2**20:
        return (f"**{file.name}** is {file.size / 2**20:,.1f} MB; an upload may be at most {limit} MB here. "
                "Larger files run with the command line instead.")
    if file.size == 0:
        return f"**{file.name}** is empty: upload the file again."
    return None


def command_line(command: str, flags: Mapping[str, Any]) -> str:
    """``python -m safebandit_core <command>`` with ``flags`` (None left out, True a bare flag, floats as ``%g``)."""
    from shlex import quote

    parts = ["python", "-m", "safebandit_core", command]
    for flag, value in flags.items():
        if value is None or value is False:
            continue
        text = format(value, "g") if isinstance(value, float) else str(value)
        parts.append(flag if value is True else f"{flag} {quote(text)}")
    return " ".join(parts)
