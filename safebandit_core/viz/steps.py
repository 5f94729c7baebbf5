"""A run stepped through round by round, drawn client-side: plotly frames with play, pause and a slider.

The whole animation is in the figure (its ``frames``), so playing it costs the server nothing:
no Streamlit rerun happens while it plays. :func:`dose_steps` shows one seed of one policy of the
dose model: the dose chosen, the estimated safe upper end closing in on the true one, each
realized cost against τ and the running count of rounds over it. :func:`conservative_steps`
shows GenCB's book: its cumulative reward against the line (1 − α)·μ₀·t, and each default pull.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import LIMIT_COLOR, PALETTE, TRUTH_COLOR, rgba

MAX_FRAMES = 60
MAX_POINTS = 250
"""Frames and points per trace: each frame holds the run up to its round, so the figure stays about 1 MB."""


def _thin(rows: pd.DataFrame, keep: np.ndarray | None = None, max_points: int = MAX_POINTS) -> pd.DataFrame:
    """At most ``max_points`` evenly spaced rounds, plus every round flagged in ``keep`` (e.g. violations)."""
    n = len(rows)
    idx = np.unique(np.linspace(0, n - 1, min(n, max_points)).round().astype(int))
    if keep is not None:
        idx = np.union1d(idx, np.flatnonzero(keep))
    return rows.iloc[idx]


def frame_rounds(T: int, max_frames: int = MAX_FRAMES) -> np.ndarray:
    """Rounds at which the animation shows a frame: early rounds densely (learning is fast there), the rest evenly."""
    early = np.unique(np.geomspace(1, max(1, T), max_frames // 2).round().astype(int))
    even = np.linspace(1, T, max_frames - early.size).round().astype(int)
    return np.unique(np.concatenate([early, even, [T]]))


def _animate(frames: list[str] | None, duration: int) -> list:
    """An ``animate`` call's args: ``redraw`` so each frame's ``layout`` (its title: the round and the count so far)
    is applied, not only its traces."""
    return [frames, {"frame": {"duration": duration, "redraw": True}, "fromcurrent": True, "mode": "immediate",
                     "transition": {"duration": 0}}]


TITLE_PX = 48
TICKS_PX = 24
AXIS_TITLE_PX = 22
LEGEND_ROW_PX = 24
CONTROLS_PX = 96
"""Pixels from the top: the title; below the plot: tick labels, an x-axis title, each legend row, then ▶/⏸ and the
slider. Everything below the plot is placed by these, so nothing covers the title or a subplot's title."""


def _controls(stops: np.ndarray, height: int, x_title: bool = False, legend_rows: int = 1) -> dict:
    """The layout around the plot: the title on top; under the plot the legend, then play / pause and a round slider
    (handled by plotly in the browser; the slider's own tick labels are hidden, its current value reads the round)."""
    below = TICKS_PX + (AXIS_TITLE_PX if x_title else 0)
    bottom = below + LEGEND_ROW_PX * legend_rows + CONTROLS_PX
    plot = max(height - TITLE_PX - bottom, 80)
    legend_y = -below / plot
    controls_y = -(below + LEGEND_ROW_PX * legend_rows + 6) / plot
    play = {"label": "▶ Play", "method": "animate", "args": _animate(None, 80)}
    pause = {"label": "⏸ Pause", "method": "animate",
             "args": [[None], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate"}]}
    steps = [{"label": f"{t:,}", "method": "animate", "args": _animate([str(t)], 0)} for t in stops]
    return {"margin": {"t": TITLE_PX, "b": bottom, "l": 50, "r": 10},
            "legend": {"orientation": "h", "x": 0.0, "y": legend_y, "yanchor": "top"},
            "updatemenus": [{"type": "buttons", "buttons": [play, pause], "x": 0.0, "y": controls_y, "xanchor": "left",
                             "yanchor": "top", "direction": "left", "showactive": False, "pad": {"t": 24}}],
            "sliders": [{"steps": steps, "x": 0.2, "len": 0.8, "y": controls_y, "yanchor": "top", "pad": {"t": 0},
                         "currentvalue": {"prefix": "round t = ", "font": {"size": 13, "color": TRUTH_COLOR}},
                         "font": {"color": "rgba(0,0,0,0)"}, "ticklen": 3}]}


def dose_steps(rows: pd.DataFrame, tau: float, title: str = "", max_frames: int = MAX_FRAMES) -> go.Figure:
    """One seed and policy of the dose model, stepped: ``rows`` has ``t, alpha, est_upper, true_upper, cost``."""
    rows = rows.sort_values("t")
    T = int(rows["t"].iloc[-1])
    stops = frame_rounds(T, max_frames)
    viol = np.cumsum(rows["cost"].to_numpy() > tau)
    rows = _thin(rows, rows["cost"].to_numpy() > tau)
    t_shown = rows["t"].to_numpy()
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=("dose α_t, estimated safe end α̂max_t and the true end",
                                        "realized cost C_t against τ"))

    def traces(k: int) -> list[go.Scatter]:
        part = rows.iloc[: int(np.searchsorted(t_shown, k, side="right"))]
        over = part[part["cost"] > tau]
        return [
            go.Scatter(x=part["t"], y=part["true_upper"], mode="lines", name="true safe end α*max",
                       line={"color": TRUTH_COLOR, "width": 1}),
            go.Scatter(x=part["t"], y=part["est_upper"], mode="lines", name="estimated safe end α̂max",
                       line={"color": PALETTE[0], "width": 2}),
            go.Scatter(x=part["t"], y=part["alpha"], mode="markers", name="dose α_t",
                       marker={"size": 4, "color": PALETTE[2]}),
            go.Scatter(x=part["t"], y=part["cost"], mode="markers", name="cost C_t",
                       marker={"size": 4, "color": PALETTE[4]}),
            go.Scatter(x=over["t"], y=over["cost"], mode="markers", name="over τ",
                       marker={"size": 8, "color": LIMIT_COLOR, "symbol": "x"}),
        ]

    first = traces(1)
    for i, tr in enumerate(first):
        fig.add_trace(tr, row=1 if i < 3 else 2, col=1)
    fig.add_hline(y=tau, line={"color": LIMIT_COLOR, "dash": "dash"}, row=2, col=1)
    fig.frames = [go.Frame(data=traces(int(k)), traces=list(range(5)), name=str(int(k)),
                           layout={"title": {"text": f"{title} round {int(k):,}: {int(viol[k - 1]):,} of {int(k):,} "
                                                     f"rounds over τ = {tau:g}"}})
                  for k in stops]
    fig.update_layout(title={"text": f"{title} round 1: {int(viol[0]):,} of 1 rounds over τ = {tau:g}", "x": 0.0},
                      height=560, **_controls(stops, 560))
    fig.update_xaxes(range=[0, T + 1])
    fig.update_yaxes(range=[0, 1.05], row=1, col=1)
    lo, hi = float(rows["cost"].min()), float(rows["cost"].max())
    fig.update_yaxes(range=[min(lo, 0.0) * 1.1, max(hi, tau) * 1.1], row=2, col=1)
    return fig


def conservative_steps(rows: pd.DataFrame, title: str = "", max_frames: int = MAX_FRAMES) -> go.Figure:
    """One seed of a conservative policy, stepped: ``rows`` has ``t, cum_reward, baseline_line, default``."""
    rows = rows.sort_values("t")
    T = int(rows["t"].iloc[-1])
    stops = frame_rounds(T, max_frames)
    pulls = np.cumsum(rows["default"].to_numpy().astype(int))
    rows = _thin(rows)
    t_shown = rows["t"].to_numpy()

    def traces(k: int) -> list[go.Scatter]:
        part = rows.iloc[: int(np.searchsorted(t_shown, k, side="right"))]
        dflt = part[part["default"].astype(bool)]
        return [
            go.Scatter(x=part["t"], y=part["baseline_line"], mode="lines", name="(1 − α)·μ₀·t: the line",
                       line={"color": LIMIT_COLOR, "dash": "dash"}),
            go.Scatter(x=part["t"], y=part["cum_reward"], mode="lines", name="reward so far",
                       line={"color": PALETTE[0], "width": 2}),
            go.Scatter(x=dflt["t"], y=dflt["cum_reward"], mode="markers", name="default arm pulled",
                       marker={"size": 5, "color": PALETTE[3]}),
        ]

    fig = go.Figure(data=traces(1))
    fig.frames = [go.Frame(data=traces(int(k)), traces=[0, 1, 2], name=str(int(k)),
                           layout={"title": {"text": f"{title} round {int(k):,}: {int(pulls[k - 1]):,} default pulls"}})
                  for k in stops]
    top = float(max(rows["cum_reward"].max(), rows["baseline_line"].max())) * 1.05
    fig.update_layout(title={"text": f"{title} round 1: {int(pulls[0]):,} default pulls", "x": 0.0}, height=460,
                      xaxis={"range": [0, T + 1], "title": "round t"}, yaxis={"range": [0, top], "title": "reward"},
                      **_controls(stops, 460, x_title=True))
    return fig


def ellipse_steps(data: dict, title: str = "") -> go.Figure:
    """The cost estimate μ̂_t and its confidence ellipse at each frame's round (d = 2), with the true μ* fixed.

    ``data`` is :func:`safebandit_core.dose.ellipse.ellipses`' result; the frames play in the browser.
    """
    outlines, centers, mu = data["outlines"], data["centers"], data["mu"]
    pad = 0.1 + float(max(np.abs(outlines[-1]).max(), np.abs(mu).max()))
    span = min(float(np.abs(outlines).max()), 4 * pad)

    def traces(j: int) -> list[go.Scatter]:
        return [go.Scatter(x=outlines[j][:, 0], y=outlines[j][:, 1], mode="lines", name="confidence ellipse",
                           line={"color": PALETTE[0]}, fill="toself", fillcolor=rgba(PALETTE[0], 0.12)),
                go.Scatter(x=[centers[j][0]], y=[centers[j][1]], mode="markers", name="estimate μ̂_t",
                           marker={"size": 9, "color": PALETTE[0]}),
                go.Scatter(x=[mu[0]], y=[mu[1]], mode="markers", name="true μ*",
                           marker={"size": 12, "color": TRUTH_COLOR, "symbol": "star"})]

    fig = go.Figure(data=traces(0))
    fig.frames = [go.Frame(data=traces(j), traces=[0, 1, 2], name=str(t),
                           layout={"title": {"text": f"{title} round {t:,}: β = {data['beta'][j]:.2f}"}})
                  for j, t in enumerate(data["rounds"])]
    stops = np.asarray(data["rounds"])
    fig.update_layout(title={"text": f"{title} round {stops[0]:,}: β = {data['beta'][0]:.2f}", "x": 0.0}, height=500,
                      xaxis={"range": [-span, span], "title": "μ₁", "scaleanchor": "y"},
                      yaxis={"range": [-span, span], "title": "μ₂"}, **_controls(stops, 500, x_title=True))
    return fig
