"""Figures of non-linear HPC-UCB (Safety by Design (2026), §6, Algorithm 2; ALGORITHMS.md §1.4).

- :func:`set_size_figure`: how many functions are still in the confidence sets C^r_t and C^c_t,
  per round (tidy frame by label with ``set_r``, ``set_c``), on log axes;
- :func:`candidates_figure`: the candidate cost functions along one context direction at one round
  (the dict of :func:`safebandit_core.dose.nonlinear.class_curves`), the set highlighted.

The page's default direction for the true cost function μ* is the core's
(:func:`safebandit_core.dose.nonlinear.candidates.gradient_direction`): a figure module draws, it computes nothing
a run needs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .common import TRUTH_COLOR, base_layout, figure, hline, labels_of, policy_colors, rgba, stacked

SET_COLOR = "#0072B2"
FIT_COLOR = "#000000"
OUT_COLOR = "#AAAAAA"
MAX_LINES = 200


def log_rounds(t_max: int, n: int = 300) -> np.ndarray:
    """About ``n`` rounds 1..t_max spaced evenly on a log scale (every early round, fewer late ones; t_max kept)."""
    return np.unique(np.concatenate([np.geomspace(1, max(t_max, 1), n).round().astype(int), [max(t_max, 1)]]))


def set_size_figure(frame: pd.DataFrame, size: int, n_points: int = 300) -> go.Figure:
    """|C^r_t| (top) and |C^c_t| (bottom): the mean over seeds per policy and round, log x and log y."""
    labels = labels_of(frame)
    colors = policy_colors(labels)
    shown = frame[frame["t"].isin(log_rounds(int(frame["t"].max()) if len(frame) else 1, n_points))]
    mean = shown.groupby(["policy", "t"], observed=True)[["set_r", "set_c"]].mean().reset_index()
    rows = (("set_r", "reward class: |C^r_t|"), ("set_c", "cost class: |C^c_t|"))
    traces = []
    for i, (col, _) in enumerate(rows, start=1):
        xa, ya = ("x", "y") if i == 1 else (f"x{i}", f"y{i}")
        for lab in labels:
            part = mean[mean["policy"] == lab]
            traces.append(go.Scatter(x=part["t"].to_numpy(), y=part[col].to_numpy(), mode="lines", name=lab,
                                     xaxis=xa, yaxis=ya, legendgroup=lab, showlegend=i == 1,
                                     line={"color": colors[lab], "width": 2}, hovertemplate="%{y:.3g} functions"))
    layout = base_layout(f"Functions still in the confidence sets (mean over runs; |F| = {size:,}, dashed)",
                         height=460)
    stacked(layout, [title for _, title in rows], "round t (log scale)", "functions (log)")
    top = np.log10(max(size, 1) * 1.6)
    ticks = [int(v) for v in 2 ** np.arange(0, np.log2(max(size, 1)) + 1) if v < size / 1.4] + [size]
    for sx in ("", "2"):
        layout[f"yaxis{sx}"].update(type="log", range=[np.log10(0.8), top], tickvals=ticks)
        layout[f"xaxis{sx}"].update(type="log", dtick=1)
    layout["shapes"] = [hline(size, TRUTH_COLOR, width=1.2, yref=ya, xref=xa) for xa, ya in (("x", "y"), ("x2", "y2"))]
    return figure(traces, layout)


def _lines(grid: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Many curves over one grid as one trace: the rows joined with gaps (NaN) between them."""
    if rows.shape[0] == 0:
        return np.array([]), np.array([])
    x = np.tile(np.append(grid, np.nan), rows.shape[0])
    y = np.hstack([rows, np.full((rows.shape[0], 1), np.nan)]).reshape(-1)
    return x, y


def _evenly(index: np.ndarray, n: int) -> np.ndarray:
    """At most ``n`` entries of ``index``, evenly spaced (all when there are few)."""
    return index if index.size <= n else index[np.linspace(0, index.size - 1, n).round().astype(int)]


def candidates_figure(curves: dict[str, Any], title: str, max_lines: int = MAX_LINES) -> go.Figure:
    """Every candidate cost function μ(a·u), a ∈ [−1, 1]: ruled out (thin grey), still in C^c_t (thin blue),
    the least-squares fit μ̂_t (bold) and the true μ* (dashed). At most ``max_lines`` of each group are drawn."""
    grid, values, inside = curves["grid"], np.asarray(curves["values"]), np.asarray(curves["in_set"], bool)
    members = np.arange(values.shape[0])
    out_x, out_y = _lines(grid, values[_evenly(members[~inside], max_lines)])
    in_x, in_y = _lines(grid, values[_evenly(members[inside], max_lines)])
    fit, true = int(curves["fit"]), int(curves["true"])
    traces = [
        go.Scatter(x=out_x, y=out_y, mode="lines", name="ruled out", line={"color": rgba(OUT_COLOR, 0.45), "width": 1},
                   hoverinfo="skip"),
        go.Scatter(x=in_x, y=in_y, mode="lines", name="still in C^c_t", hoverinfo="skip",
                   line={"color": rgba(SET_COLOR, 0.7), "width": 1.3}),
        go.Scatter(x=grid, y=values[fit], mode="lines", name="fit μ̂_t", line={"color": FIT_COLOR, "width": 3.5},
                   hovertemplate="μ̂_t %{y:.3f}"),
        go.Scatter(x=grid, y=values[true], mode="lines", name="true μ*", hovertemplate="μ* %{y:.3f}",
                   line={"color": "#D55E00", "width": 2.5, "dash": "dash"}),
    ]
    layout = base_layout(title, "a (the context is x = a·u)", "cost function μ(x)", height=420)
    layout["yaxis"]["range"] = [-1.05, 1.05]
    layout["margin"]["l"] = 72
    layout["hovermode"] = "x"
    return figure(traces, layout)
