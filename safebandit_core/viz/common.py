"""Shared figure helpers: one look for every page, one colour per policy, light figures.

Figures stay light for the browser: line charts are decimated to a few hundred rounds
(:func:`for_plotting`, built on :func:`safebandit_core.results.decimate`), and distributions are
binned here rather than shipped as raw samples.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .. import results

# Okabe–Ito, a palette that colour-blind readers can tell apart.
PALETTE: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#56B4E9", "#CC79A7", "#000000", "#F0E442")

# Fixed colours for policies that appear on several pages, so a policy keeps its colour everywhere.
KNOWN_COLORS: dict[str, str] = {
    "HPC-UCB": "#0072B2",
    "On-Expectation": "#D55E00",
    "ε-Greedy": "#009E73",
}

TRUTH_COLOR = "#555555"
LIMIT_COLOR = "#B22222"
FONT = "Inter, 'Source Sans Pro', 'Helvetica Neue', Arial, sans-serif"
MAX_POINTS = 600
MAX_DOTS = 75
"""Rounds drawn as dots per trace: each dot is an SVG element of its own, so a cloud costs the browser far more
than a line of the same length; 75 evenly spaced rounds show the cloud's shape. The dose page's two clouds (about
2,100 elements at 150 dots a trace) took about half of a knob step's drawing in Chromium on a 2-core machine; at 75
a step settled 0.12-0.23 s sooner (side by side, medians of six steps, three rounds)."""
MAX_MARKS = 150
"""Rounds marked per trace where each mark is an event (a violation): up to this many, every one is shown."""


def by_label(frame: pd.DataFrame) -> pd.DataFrame:
    """A tidy frame whose ``policy`` column holds the display labels (what the figure builders draw by)."""
    if "label" not in frame:
        return frame
    return frame.drop(columns="policy").rename(columns={"label": "policy"})


def labels_of(frame: pd.DataFrame, label_col: str = "policy") -> list[str]:
    """The labels of a frame in their display order (category order when categorical)."""
    col = frame[label_col]
    if isinstance(col.dtype, pd.CategoricalDtype):
        present = set(col.unique())
        return [str(c) for c in col.cat.categories if c in present]
    return [str(v) for v in dict.fromkeys(col.tolist())]


def paper_name(label: str) -> str:
    """The paper's name of a policy in a label: the label itself, or what its last brackets hold when an audience
    renamed it ("new rule (HPC-UCB)" -> "HPC-UCB"), so a renamed policy keeps its colour."""
    if label.endswith(")") and " (" in label:
        return label[label.rindex(" (") + 2:-1]
    return label


def policy_colors(labels: Iterable[str]) -> dict[str, str]:
    """One colour per label: known policies keep theirs, the others take unused palette colours in order."""
    labels = list(labels)
    known = {lab: KNOWN_COLORS[paper_name(lab)] for lab in labels if paper_name(lab) in KNOWN_COLORS}
    free = [c for c in PALETTE if c not in set(known.values())] or list(PALETTE)
    out: dict[str, str] = {}
    i = 0
    for lab in labels:
        if lab in known:
            out[lab] = known[lab]
        else:
            out[lab] = free[i % len(free)]
            i += 1
    return out


def rgba(color: str, alpha: float) -> str:
    """``#rrggbb`` as an ``rgba(...)`` string with opacity ``alpha``."""
    h = color.lstrip("#")
    r, g, b = (int(h[k:k + 2], 16) for k in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha:g})"


def base_layout(title: str, x_title: str = "", y_title: str = "", height: int = 340) -> dict[str, Any]:
    """The common look as a layout dict: compact margins, legend on top, unified hover.

    Colours are left to the host (Streamlit applies its theme); building figures from plain dicts
    keeps each one to a few milliseconds.
    """
    return {
        "title": {"text": title, "x": 0.0, "xanchor": "left", "y": 1.0, "yref": "container", "yanchor": "top",
                  "pad": {"t": 10}, "font": {"size": 15}},
        "font": {"family": FONT, "size": 12},
        "height": height,
        "margin": {"l": 56, "r": 16, "t": 84, "b": 44},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0.0},
        "hovermode": "x unified",
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": y_title}},
    }


def figure(traces: Sequence[go.Scatter | go.Bar], layout: dict[str, Any]) -> go.Figure:
    """A figure from traces and a layout dict (one validation pass)."""
    return go.Figure(data=list(traces), layout=layout)


def hline(y: float, color: str, dash: str = "dash", width: float = 1.5, yref: str = "y", xref: str = "x") -> dict:
    """A horizontal line across one subplot (``xref`` its x axis) as a layout shape."""
    return {"type": "line", "xref": f"{xref} domain", "x0": 0, "x1": 1, "yref": yref, "y0": y, "y1": y,
            "line": {"color": color, "dash": dash, "width": width}}


def vline(x: float, color: str, dash: str = "dash", width: float = 1.5) -> dict:
    """A vertical line over the whole plot as a layout shape."""
    return {"type": "line", "yref": "paper", "y0": 0, "y1": 1, "xref": "x", "x0": x, "x1": x,
            "line": {"color": color, "dash": dash, "width": width}}


def note(text: str, x: float, y: float, xref: str = "paper", yref: str = "paper", **kw: Any) -> dict:
    """A text annotation (no arrow) as a layout dict."""
    return {"text": text, "x": x, "y": y, "xref": xref, "yref": yref, "showarrow": False, **kw}


STACKED_LEFT = 72
"""The left margin of a stacked figure, in pixels: room for tick labels such as "−300" or "20k" and the rotated y
title beside them, since its margins are fixed (:func:`stacked`)."""


def stacked(layout: dict[str, Any], titles: Sequence[str], x_title: str, y_title: str) -> None:
    """Turn ``layout`` into one row per title (top to bottom) sharing the x axis; row i uses axes x{i}, y{i}.

    Each row's title sits above it; the gaps and the legend are placed in pixels, so they never overlap. The margins
    are fixed (no ``automargin``, which Streamlit's theme turns on for every axis): with it, plotly measures each
    row's labels, widens the margins and draws the whole figure again, which doubled the time the browser took to
    draw a stacked figure. The left margin is :data:`STACKED_LEFT` at least.
    """
    n = max(len(titles), 1)
    margin = layout["margin"] = {**layout["margin"], "t": 104, "l": max(layout["margin"]["l"], STACKED_LEFT)}
    plot_px = max(layout["height"] - margin["t"] - margin["b"], 50)
    gap = 34 / plot_px
    h = (1.0 - gap * (n - 1)) / n
    layout.pop("xaxis", None)
    layout.pop("yaxis", None)
    layout["legend"]["y"] = 1.0 + 22 / plot_px
    anns = layout.setdefault("annotations", [])
    for i, title in enumerate(titles, start=1):
        top = 1.0 - (i - 1) * (h + gap)
        sx = "" if i == 1 else str(i)
        layout[f"xaxis{sx}"] = {"anchor": f"y{sx}", "matches": None if i == 1 else "x", "automargin": False,
                                "showticklabels": i == n, "title": {"text": x_title if i == n else ""}}
        layout[f"yaxis{sx}"] = {"domain": [max(0.0, top - h), min(1.0, top)], "anchor": f"x{sx}",
                                "automargin": False, "title": {"text": y_title}}
        anns.append(note(f"<b>{title}</b>", 0.0, top, yanchor="bottom", xanchor="left", font={"size": 12}))


DASHES: tuple[str, ...] = ("solid", "dash", "dot", "dashdot")


def distinct_dashes(fig: go.Figure, labels: Sequence[str]) -> go.Figure:
    """Give each labelled line its own dash (the first solid), so a line drawn over another of the same height does
    not hide it; bands and other traces are left as they are."""
    for i, lab in enumerate(labels):
        fig.update_traces(line_dash=DASHES[i % len(DASHES)], line_width=2.6 if i == 0 else 2.2,
                          selector={"name": lab, "mode": "lines"})
    return fig


def shade_below_zero(fig: go.Figure, text: str, color: str = LIMIT_COLOR) -> go.Figure:
    """Shade the part of a one-axis chart below 0 and write there what it means (e.g. a regret below 0 is bought by
    breaking the rule, not earned); a chart whose traces all stay at or above 0 is returned as it is."""
    lows = [float(np.nanmin(np.asarray(tr.y, dtype=float))) for tr in fig.data if tr.y is not None and len(tr.y)]
    low = min(lows, default=0.0)
    if not low < 0:
        return fig
    fig.add_shape(type="rect", xref="x domain", x0=0, x1=1, yref="y", y0=1.08 * low, y1=0, layer="below",
                  line={"width": 0}, fillcolor=rgba(color, 0.07))
    fig.add_annotation(note(text, 0.01, 1.08 * low, xref="x domain", yref="y", xanchor="left", yanchor="bottom",
                            align="left", font={"color": color}))
    return fig


def rolling_mean(values: np.ndarray, window: int) -> np.ndarray:
    """Trailing mean over ``window`` values (shorter at the start), for trend lines over noisy per-round data."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return values
    c = np.concatenate([[0.0], np.cumsum(values)])
    idx = np.arange(1, values.size + 1)
    lo = np.maximum(idx - window, 0)
    return (c[idx] - c[lo]) / (idx - lo)


def axis_ids(i: int) -> tuple[str, str]:
    """Trace axis ids of stacked row ``i`` (1-based): ("x", "y") for row 1, ("x2", "y2") for row 2, ..."""
    sx = "" if i == 1 else str(i)
    return f"x{sx}", f"y{sx}"


def for_plotting(frame: pd.DataFrame, max_points: int = MAX_POINTS, t_col: str = "t") -> pd.DataFrame:
    """Keep at most about ``max_points`` evenly spaced rounds so the browser stays responsive."""
    return results.decimate(frame, max_points, t_col=t_col)


def first_seed(frame: pd.DataFrame, seed: int | None = None) -> tuple[pd.DataFrame, int]:
    """The rows of one seed (the smallest when ``seed`` is None) and that seed."""
    chosen = int(frame["seed"].min()) if seed is None else int(seed)
    return frame[frame["seed"] == chosen], chosen


def mean_band_figure(
    frame: pd.DataFrame,
    value: str,
    *,
    title: str,
    y_title: str,
    x_title: str = "round t",
    band: str = "std",
    label_col: str = "policy",
    max_points: int = MAX_POINTS,
    colors: dict[str, str] | None = None,
    height: int = 340,
) -> go.Figure:
    """Mean of ``value`` across seeds per label and round, with a band: ±1 std (``std``), min–max, or none."""
    if band not in ("std", "minmax", "none"):
        raise ValueError(f"band must be 'std', 'minmax' or 'none' (got {band!r})")
    labels = labels_of(frame, label_col)
    colors = colors or policy_colors(labels)
    agg = results.mean_band(for_plotting(frame, max_points), value, label_col=label_col)
    traces: list[go.Scatter] = []
    for lab in labels:
        part = agg[agg[label_col] == lab]
        t = part["t"].to_numpy()
        mean = part["mean"].to_numpy()
        color = colors[lab]
        if band != "none" and len(part):
            lo, hi = ((mean - part["std"].to_numpy(), mean + part["std"].to_numpy()) if band == "std"
                      else (part["min"].to_numpy(), part["max"].to_numpy()))
            traces.append(go.Scatter(x=t, y=hi, mode="lines", line={"width": 0}, hoverinfo="skip",
                                     showlegend=False, legendgroup=lab, name=f"{lab} upper"))
            traces.append(go.Scatter(x=t, y=lo, mode="lines", line={"width": 0}, fill="tonexty",
                                     fillcolor=rgba(color, 0.18), hoverinfo="skip", showlegend=False,
                                     legendgroup=lab, name=f"{lab} lower"))
        traces.append(go.Scatter(x=t, y=mean, mode="lines", line={"color": color, "width": 2}, name=lab,
                                 legendgroup=lab, hovertemplate="%{y:.4g}"))
    return figure(traces, base_layout(title, x_title, y_title, height))


def histogram_traces(
    values: dict[str, np.ndarray], colors: dict[str, str], bins: int = 60, value_range: Sequence[float] | None = None
) -> list[go.Scatter]:
    """Binned distributions on shared bins, as step lines of the fraction per bin (light to ship)."""
    finite = [v[np.isfinite(v)] for v in values.values() if np.size(v)]
    if not finite:
        return []
    allv = np.concatenate(finite)
    lo, hi = (float(allv.min()), float(allv.max())) if value_range is None else map(float, value_range)
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1)
    traces = []
    for lab, v in values.items():
        v = np.asarray(v, dtype=float)
        v = v[np.isfinite(v)]
        counts, _ = np.histogram(np.clip(v, lo, hi), bins=edges)
        frac = counts / max(v.size, 1)
        x = np.concatenate([edges[:1], np.repeat(edges[1:-1], 2), edges[-1:]])
        y = np.repeat(frac, 2)
        traces.append(go.Scatter(x=x, y=y, mode="lines", name=lab, line={"color": colors[lab], "width": 1.5},
                                 fill="tozeroy", fillcolor=rgba(colors[lab], 0.15), legendgroup=lab,
                                 hovertemplate="%{x:.3g}: %{y:.2%}"))
    return traces


F32_MAX = float(np.finfo(np.float32).max)
NARROW_FROM = 64
"""Arrays of fewer values stay float64: a few bars or a pair of ends cost nothing, and keep the digits of their text."""


def _narrowed(array: dict[str, Any]) -> dict[str, Any]:
    """A plotly typed array (``{"dtype": "f8", "bdata": base64}``) as float32, unless it is short
    (:data:`NARROW_FROM`) or a finite value is out of float32's range (then as it was)."""
    values = np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.float64)
    finite = values[np.isfinite(values)]
    if values.size < NARROW_FROM or (finite.size and float(np.abs(finite).max()) > F32_MAX):
        return array
    return {**array, "dtype": "f4", "bdata": base64.b64encode(values.astype(np.float32).tobytes()).decode("ascii")}


def compact(spec: Any) -> Any:
    """A figure's dict (``Figure.to_dict()``) with its float64 arrays sent as float32: half the bytes a chart costs
    the network and the browser, at 7 significant digits where a chart and its tooltips show at most 4.

    Returns a new structure; ``spec`` is left as it was.
    """
    if isinstance(spec, dict):
        if spec.get("dtype") == "f8" and isinstance(spec.get("bdata"), str):
            return _narrowed(spec)
        return {k: compact(v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [compact(v) for v in spec]
    return spec
