"""Figures of the paper replays and sweeps: the papers' own figures re-made, phase diagrams, theory overlays.

Inputs are small aggregated frames, not per-round ones, so a full-size replay still draws fast:

- *curves* (:meth:`safebandit_core.presets.PresetResult.curves`, :func:`safebandit_core.presets.curve_stats`):
  ``cell, label, t, mean, std, min, max`` (and ``name``, the cell's name);
- *cell summaries* (:func:`safebandit_core.sweep.cell_summary`): one row per cell and policy with
  the swept settings, ``label``, ``cum_regret_mean``, ``violation_rate`` / ``default_pulls_mean``, ``min_slack``
  and ``safe``;
- *horizons* (:func:`safebandit_core.sweep.over_horizons`): one row per horizon and policy, each horizon
  its own run, for :func:`horizons_figure`;
- the paper-vs-run table (:func:`safebandit_core.presets.claim_table`), styled by :func:`styled_claims`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .common import (
    KNOWN_COLORS,
    LIMIT_COLOR,
    TRUTH_COLOR,
    base_layout,
    figure,
    hline,
    note,
    policy_colors,
    rgba,
)
from .conservative import COLORS as CONSERVATIVE_COLORS
from .conservative import colors_for

DELTA_COLOR = "#E69F00"
PAPER_COLOR = "#7F7F7F"
SQRT_COLOR = "#444444"


def colors(labels: Sequence[str]) -> dict[str, str]:
    """Each policy's colour on every page: Safety by Design's and One-size-fits-all's fixed colours, the palette
    otherwise."""
    labels = list(labels)
    if any(lab in KNOWN_COLORS for lab in labels) and not any(lab in CONSERVATIVE_COLORS for lab in labels):
        return policy_colors(labels)
    return colors_for(labels)


def _order(frame: pd.DataFrame, col: str = "label") -> list[str]:
    return [str(v) for v in dict.fromkeys(frame[col].tolist())]


def _columns(layout: dict, n: int, titles: Sequence[str], x_title: str, y_title: str, gap: float = 0.06) -> None:
    """Lay out ``n`` side-by-side panels (axes x, x2, … / y, y2, …) with a title above each."""
    width = (1.0 - gap * (n - 1)) / n
    layout.pop("xaxis", None)
    layout.pop("yaxis", None)
    layout["margin"] = {**layout["margin"], "t": 104}
    layout["legend"]["y"] = 1.16
    anns = layout.setdefault("annotations", [])
    for i in range(n):
        sx = "" if i == 0 else str(i + 1)
        left = i * (width + gap)
        layout[f"xaxis{sx}"] = {"domain": [left, left + width], "anchor": f"y{sx}", "title": {"text": x_title}}
        layout[f"yaxis{sx}"] = {"anchor": f"x{sx}", "title": {"text": y_title if i == 0 else ""}}
        anns.append(note(f"<b>{titles[i]}</b>", left, 1.0, yanchor="bottom", xanchor="left", font={"size": 12}))


def _ax(i: int) -> tuple[str, str]:
    return ("x", "y") if i == 0 else (f"x{i + 1}", f"y{i + 1}")


def violation_table_figure(summary: pd.DataFrame, delta: float, facet: str = "d", x: str = "tau",
                           paper: Sequence[tuple[str, float, float, str]] = ()) -> go.Figure:
    """Safety by Design's Table 1 as a chart: violation rate (%) per τ and policy, 95 % intervals, one panel per
    ``facet``.

    ``paper`` rows ``(label, low, high, text)`` draw the paper's reported value (a line) or range
    (a shaded band); the dashed line is the allowed δ.
    """
    facets = sorted(summary[facet].unique())
    labels = _order(summary)
    cmap = colors(labels)
    traces, shapes = [], []
    for i, fv in enumerate(facets):
        xa, ya = _ax(i)
        part = summary[summary[facet] == fv]
        for lab in labels:
            rows = part[part["label"] == lab].sort_values(x)
            rate = rows["violation_rate"].to_numpy() * 100
            traces.append(go.Bar(
                x=[f"{v:g}" for v in rows[x]], y=rate, name=lab, legendgroup=lab, showlegend=i == 0, xaxis=xa,
                yaxis=ya, marker={"color": cmap[lab]},
                error_y={"type": "data", "array": np.maximum(rows["violation_rate_hi"].to_numpy() * 100 - rate, 0),
                         "arrayminus": np.maximum(rate - rows["violation_rate_lo"].to_numpy() * 100, 0),
                         "color": TRUTH_COLOR, "thickness": 1.2},
                text=[f"{r:.2f}" for r in rate], textposition="outside", cliponaxis=False,
                hovertemplate=f"{lab}, τ = %{{x}}: %{{y:.3f}} %<extra></extra>"))
        shapes.append(hline(delta * 100, DELTA_COLOR, width=2, yref=ya, xref=xa))
        for lab, low, high, _text in paper:
            if high > low:
                shapes.append({"type": "rect", "xref": f"{xa} domain", "x0": 0, "x1": 1, "yref": ya,
                               "y0": low * 100, "y1": high * 100, "fillcolor": rgba(cmap.get(lab, PAPER_COLOR), 0.10),
                               "line": {"width": 0}, "layer": "below"})
            else:
                shapes.append(hline(low * 100, cmap.get(lab, PAPER_COLOR), dash="dot", width=1.5, yref=ya, xref=xa))
    layout = base_layout("Share of rounds with C_t > τ (95 % intervals over seeds)", height=380)
    layout.update(barmode="group", hovermode="closest", shapes=shapes)
    _columns(layout, len(facets), [f"{facet} = {v:g}" for v in facets], "threshold τ", "violation rate (%)")
    notes = [f"dashed: allowed δ = {delta:g}"] + [f"{'band' if h > lo else 'dotted'}: paper's {lab} {t}"
                                                   for lab, lo, h, t in paper]
    layout["annotations"].append(note(" · ".join(notes), 0.0, -0.2, xanchor="left", yanchor="top",
                                      font={"size": 11, "color": TRUTH_COLOR}))
    layout["margin"] = {**layout["margin"], "b": 80}
    return figure(traces, layout)


def _band_traces(part: pd.DataFrame, lab: str, color: str, xa: str, ya: str, band: str, show: bool) -> list:
    t = part["t"].to_numpy()
    mean = part["mean"].to_numpy()
    out = []
    if band == "std":
        lo, hi = mean - part["std"].to_numpy(), mean + part["std"].to_numpy()
        out.append(go.Scatter(x=t, y=hi, mode="lines", line={"width": 0}, hoverinfo="skip", showlegend=False,
                              legendgroup=lab, xaxis=xa, yaxis=ya))
        out.append(go.Scatter(x=t, y=lo, mode="lines", line={"width": 0}, fill="tonexty",
                              fillcolor=rgba(color, 0.18), hoverinfo="skip", showlegend=False, legendgroup=lab,
                              xaxis=xa, yaxis=ya))
    elif band == "minmax":
        for col in ("max", "min"):
            out.append(go.Scatter(x=t, y=part[col].to_numpy(), mode="lines", name=f"{lab} {col}", legendgroup=lab,
                                  line={"color": color, "width": 0.9}, opacity=0.7, showlegend=False, xaxis=xa,
                                  yaxis=ya, hovertemplate=f"{col} %{{y:.4g}}"))
    out.append(go.Scatter(x=t, y=mean, mode="lines", name=lab, legendgroup=lab, showlegend=show, xaxis=xa, yaxis=ya,
                          line={"color": color, "width": 2.2}, hovertemplate="mean %{y:.4g}"))
    return out


def learning_curves_figure(curves: pd.DataFrame, title: str = "Cumulative regret (mean ± 1 std over seeds)",
                           y_title: str = "cumulative regret") -> go.Figure:
    """Safety by Design's Figure 2 style: one panel per cell, mean cumulative regret per policy with a ±1 std band."""
    cells = list(dict.fromkeys(curves["cell"].tolist()))
    names = [str(curves.loc[curves["cell"] == c, "name"].iloc[0]) for c in cells]
    labels = _order(curves)
    cmap = colors(labels)
    traces = []
    for i, c in enumerate(cells):
        xa, ya = _ax(i)
        for lab in labels:
            part = curves[(curves["cell"] == c) & (curves["label"] == lab)].sort_values("t")
            traces += _band_traces(part, lab, cmap[lab], xa, ya, "std", i == 0)
    layout = base_layout(title, height=360)
    _columns(layout, len(cells), names, "round t", y_title)
    return figure(traces, layout)


def minmax_figure(curves: pd.DataFrame, cell: int, baseline_slope: float | None, *, zoom_share: float = 0.1,
                  y_title: str = "cumulative regret", baseline_name: str = "baseline (1 − α)·μ₀") -> go.Figure:
    """One-size-fits-all's Figure 1 style for one cell: mean (thick), min and max (thin) cumulative regret over runs per
    policy, the baseline's regret ``slope·t`` dashed, and the first ``zoom_share`` of the rounds enlarged."""
    part = curves[curves["cell"] == cell]
    if part.empty:
        return figure([], base_layout("No rounds to show"))
    labels = _order(part)
    cmap = colors(labels)
    T = int(part["t"].max())
    window = max(10, int(round(T * zoom_share)))
    traces = []
    for i, t_max in enumerate((T, window)):
        xa, ya = _ax(i)
        for lab in labels:
            rows = part[(part["label"] == lab) & (part["t"] <= t_max)].sort_values("t")
            traces += _band_traces(rows, lab, cmap[lab], xa, ya, "minmax", i == 0)
        if baseline_slope is not None:
            t = np.array([0, t_max])
            traces.append(go.Scatter(x=t, y=baseline_slope * t, mode="lines", name=baseline_name, xaxis=xa, yaxis=ya,
                                     legendgroup="baseline", showlegend=i == 0, hoverinfo="skip",
                                     line={"color": TRUTH_COLOR, "dash": "dash", "width": 1.6}))
    name = str(part["name"].iloc[0]) if "name" in part else ""
    layout = base_layout(f"Cumulative regret, {name}: mean (thick), min and max (thin) over runs", height=380)
    _columns(layout, 2, ["all rounds", f"first {window:,} rounds (exploration)"], "round t", y_title, gap=0.08)
    layout["xaxis"]["domain"] = [0.0, 0.6]
    layout["xaxis2"]["domain"] = [0.68, 1.0]
    layout["annotations"][-1]["x"] = 0.68
    return figure(traces, layout)


def _cat(values: Sequence[float]) -> list[str]:
    return [f"{v:g}" for v in values]


def heatmap_figure(table: pd.DataFrame, x: str, y: str, z: str, *, title: str, z_title: str, x_title: str,
                   y_title: str, fmt: str = ".3g", colorscale: str = "Viridis", zmid: float | None = None,
                   safe_col: str | None = "safe", percent: bool = False) -> go.Figure:
    """A phase diagram: ``z`` over the ``x`` × ``y`` grid, one panel per policy, on one colour scale.

    Each cell shows its value; cells where ``safe_col`` is False are marked ✗ (safety failed there).
    """
    labels = _order(table)
    scale = 100.0 if percent else 1.0
    xs = sorted(table[x].unique())
    ys = sorted(table[y].unique())
    values = table[z].to_numpy(dtype=float) * scale
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    traces = []
    for i, lab in enumerate(labels):
        xa, ya = _ax(i)
        part = table[table["label"] == lab].set_index([y, x])
        grid = np.full((len(ys), len(xs)), np.nan)
        text = np.full((len(ys), len(xs)), "", dtype=object)
        for r, yv in enumerate(ys):
            for c, xv in enumerate(xs):
                if (yv, xv) not in part.index:
                    continue
                row = part.loc[(yv, xv)]
                v = float(row[z]) * scale
                grid[r, c] = v
                bad = safe_col is not None and not bool(row[safe_col])
                text[r, c] = format(v, fmt) + ("%" if percent else "") + (" ✗" if bad else "")
        traces.append(go.Heatmap(
            x=_cat(xs), y=_cat(ys), z=grid, text=text, texttemplate="%{text}", xaxis=xa, yaxis=ya,
            coloraxis="coloraxis", hovertemplate=f"{lab}<br>{x_title} %{{x}}, {y_title} %{{y}}<br>{z_title}: "
                                                 "%{text}<extra></extra>"))
    layout = base_layout(title, height=300 + 12 * len(ys))
    layout.update(hovermode="closest")
    coloraxis: dict = {"colorscale": colorscale, "colorbar": {"title": {"text": z_title}, "thickness": 12}}
    if zmid is not None and lo < zmid < hi:
        coloraxis.update(cmid=zmid)
    else:
        coloraxis.update(cmin=lo, cmax=hi)
    layout["coloraxis"] = coloraxis
    _columns(layout, len(labels), labels, x_title, y_title, gap=0.08)
    for i in range(len(labels)):
        sx = "" if i == 0 else str(i + 1)
        layout[f"xaxis{sx}"]["type"] = "category"
        layout[f"yaxis{sx}"]["type"] = "category"
    return figure(traces, layout)


def loglog_figure(curves: pd.DataFrame, fits: dict[str, tuple[float, float]], fit_from: int,
                  title: str = "Cumulative regret against T (log–log)") -> go.Figure:
    """Mean cumulative regret per policy on log–log axes, each with its fitted line (slope in the legend) over
    t ≥ ``fit_from``, and a √T reference line (slope ½, Safety by Design Theorem 2) through the first policy's end
    point."""
    labels = _order(curves)
    cmap = colors(labels)
    traces = []
    for lab in labels:
        part = curves[curves["label"] == lab].sort_values("t")
        part = part[part["mean"] > 0]
        traces.append(go.Scatter(x=part["t"].to_numpy(), y=part["mean"].to_numpy(), mode="lines", name=lab,
                                 line={"color": cmap[lab], "width": 2.2}, legendgroup=lab,
                                 hovertemplate="t = %{x}: %{y:.4g}"))
        slope, icpt = fits.get(lab, (math.nan, math.nan))
        if math.isfinite(slope) and len(part):
            t = np.array([fit_from, float(part["t"].max())])
            traces.append(go.Scatter(x=t, y=np.exp(icpt) * t ** slope, mode="lines", legendgroup=lab,
                                     name=f"{lab} fit: slope {slope:.2f}", hoverinfo="skip",
                                     line={"color": cmap[lab], "dash": "dash", "width": 1.5}))
    first = curves[(curves["label"] == labels[0]) & (curves["mean"] > 0)] if labels else curves
    if len(first):
        t_end = float(first["t"].max())
        y_end = float(first.loc[first["t"].idxmax(), "mean"])
        t = np.geomspace(max(1.0, float(first["t"].min())), t_end, 50)
        traces.append(go.Scatter(x=t, y=y_end * np.sqrt(t / t_end), mode="lines", name="√T rate (slope 0.5)",
                                 hoverinfo="skip", line={"color": SQRT_COLOR, "dash": "dot", "width": 1.5}))
    layout = base_layout(title, "round T (log)", "cumulative regret (log)", height=380)
    layout["xaxis"]["type"] = "log"
    layout["yaxis"]["type"] = "log"
    layout["hovermode"] = "closest"
    layout["shapes"] = [{"type": "line", "yref": "paper", "y0": 0, "y1": 1, "xref": "x", "x0": fit_from,
                         "x1": fit_from, "line": {"color": LIMIT_COLOR, "dash": "dot", "width": 1}}]
    layout["annotations"] = [note(" fit from here →", math.log10(fit_from), 1.0, xref="x", xanchor="left",
                                  yanchor="top", font={"size": 11, "color": LIMIT_COLOR})]  # log axis: log10(x)
    return figure(traces, layout)


def default_pulls_figure(curves: pd.DataFrame, title: str = "Default-arm pulls N₀(T) against T") -> go.Figure:
    """N₀(T) per policy (mean with a min–max band over runs) on a log T axis: a flat curve is T-independent."""
    labels = _order(curves)
    cmap = colors(labels)
    traces = []
    for lab in labels:
        part = curves[curves["label"] == lab].sort_values("t")
        traces += _band_traces(part, lab, cmap[lab], "x", "y", "minmax", True)
    layout = base_layout(title, "round T (log)", "default pulls N₀(T)", height=360)
    layout["xaxis"]["type"] = "log"
    return figure(traces, layout)


HORIZON_PANELS = (("default_pulls", "default-arm pulls N₀(T)"), ("cum_regret", "cumulative regret at T"))
"""The panels of :func:`horizons_figure`: a column stem of :func:`safebandit_core.sweep.over_horizons` and its title."""


def horizons_figure(frame: pd.DataFrame, title: str = "Each horizon its own run: mean and 95 % interval over seeds"
                    ) -> go.Figure:
    """N₀(T) and the cumulative regret at T against the horizon T (log axis), one line per policy, from
    :func:`safebandit_core.sweep.over_horizons` (``T, label, <stem>_mean, <stem>_lo, <stem>_hi``).

    Each point is a run of its own horizon, so a policy whose confidence uses T (ConUCB's δ = 1/T)
    is drawn as it would really run at that T; a flat N₀ line is a T-independent price of safety.
    """
    panels = [(stem, name) for stem, name in HORIZON_PANELS if f"{stem}_mean" in frame]
    labels = _order(frame)
    cmap = colors(labels)
    traces = []
    for i, (stem, name) in enumerate(panels):
        xa, ya = _ax(i)
        for lab in labels:
            part = frame[frame["label"] == lab].drop_duplicates("T").sort_values("T")
            mean = part[f"{stem}_mean"].to_numpy(dtype=float)
            traces.append(go.Scatter(
                x=part["T"].to_numpy(), y=mean, mode="lines+markers", name=lab, legendgroup=lab, showlegend=i == 0,
                xaxis=xa, yaxis=ya, line={"color": cmap[lab], "width": 2.2},
                error_y={"type": "data", "array": np.maximum(part[f"{stem}_hi"].to_numpy(dtype=float) - mean, 0),
                         "arrayminus": np.maximum(mean - part[f"{stem}_lo"].to_numpy(dtype=float), 0),
                         "color": cmap[lab], "thickness": 1.2},
                hovertemplate=f"{lab}, T = %{{x:,}}: {name} %{{y:.4g}}<extra></extra>"))
    layout = base_layout(title, height=380)
    layout["hovermode"] = "closest"
    _columns(layout, len(panels), [name for _, name in panels], "horizon T (log)", "", gap=0.08)
    for i in range(len(panels)):
        layout[f"xaxis{'' if i == 0 else i + 1}"]["type"] = "log"
    return figure(traces, layout)


VERDICT_COLORS = {"consistent": "#1B7837", "inconsistent": "#B2182B", "not shown at this size": "#8C6D1F"}
"""The colour of each verdict of :func:`safebandit_core.presets.claim_table` (green, red, amber)."""


def styled_claims(table: pd.DataFrame) -> Any:
    """The paper-vs-run table with its ``verdict`` column coloured (a pandas Styler; the values are unchanged)."""
    return table.style.map(lambda v: f"color: {VERDICT_COLORS.get(v, TRUTH_COLOR)}; font-weight: 600",
                           subset=["verdict"])
