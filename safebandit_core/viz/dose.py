"""Figures of the dose model (Safety by Design): each takes the tidy frame of
:func:`safebandit_core.dose.sim.tidy_frame`.

Frame columns used: ``policy, seed, t, alpha, cost, cost_mean, est_upper, true_upper, regret,
violation, slack, cum_regret`` (and ``g_alpha`` = g(α_t) for the cost distribution).
The realized cost is C_t = g(α_t)(⟨X_t, μ*⟩ + ξ^c_t), so at a given round it is Gaussian with mean
g(α_t)⟨X_t, μ*⟩ (``cost_mean``) and standard deviation g(α_t)κ_c.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .common import (
    LIMIT_COLOR,
    MAX_DOTS,
    MAX_MARKS,
    MAX_POINTS,
    TRUTH_COLOR,
    axis_ids,
    base_layout,
    figure,
    first_seed,
    for_plotting,
    histogram_traces,
    hline,
    labels_of,
    mean_band_figure,
    note,
    policy_colors,
    rgba,
    rolling_mean,
    stacked,
    vline,
)

DELTA_COLOR = "#E69F00"


def regret_figure(frame: pd.DataFrame, band: str = "std", max_points: int = MAX_POINTS) -> go.Figure:
    """Cumulative constrained pseudo-regret per policy: mean across seeds with a ±1 std or min–max band, titled in
    a visitor's words (the benefit lost so far, over runs)."""
    name = {"std": "mean ± 1 std", "minmax": "mean, min–max", "none": "mean"}.get(band, band)
    return mean_band_figure(frame, "cum_regret", title=f"Benefit lost so far ({name} over runs)",
                            y_title="benefit lost", band=band, max_points=max_points)


def safe_interval_figure(frame: pd.DataFrame, seed: int | None = None, max_points: int = MAX_POINTS) -> go.Figure:
    """Per policy (one seed): estimated upper end α̂max_t against the true α*max_t, with the chosen doses α_t.

    Both ends move with the context X_t, so each round is a dot and the lines are trailing means
    (about 2.5 % of the run), which show the estimated end closing in on the true one.
    """
    labels = labels_of(frame)
    colors = policy_colors(labels)
    rows, chosen = first_seed(frame, seed)
    window = max(10, int(rows["t"].max()) // 40) if len(rows) else 10
    traces = []
    for i, lab in enumerate(labels, start=1):
        xa, ya = axis_ids(i)
        part = rows[rows["policy"] == lab].sort_values("t")
        trend = part.assign(true_trend=rolling_mean(part["true_upper"].to_numpy(), window),
                            est_trend=rolling_mean(part["est_upper"].to_numpy(), window))
        shown = for_plotting(trend, max_points)
        dots = for_plotting(part, min(max_points, MAX_DOTS))
        t, td = shown["t"].to_numpy(), dots["t"].to_numpy()
        first = i == 1
        traces += [
            go.Scatter(x=td, y=dots["true_upper"].to_numpy(), mode="markers", name="true α*max_t", xaxis=xa,
                       yaxis=ya, marker={"color": TRUTH_COLOR, "size": 3, "opacity": 0.35}, legendgroup="truth",
                       showlegend=first, hovertemplate="α*max %{y:.3f}"),
            go.Scatter(x=td, y=dots["alpha"].to_numpy(), mode="markers", name="chosen dose α_t", xaxis=xa, yaxis=ya,
                       marker={"color": colors[lab], "size": 3, "opacity": 0.45}, legendgroup="dose",
                       showlegend=first, hovertemplate="α_t %{y:.3f}"),
            go.Scatter(x=t, y=shown["true_trend"].to_numpy(), mode="lines", name="α*max_t, trailing mean",
                       xaxis=xa, yaxis=ya, line={"color": TRUTH_COLOR, "width": 2, "dash": "dot"},
                       legendgroup="truth-trend", showlegend=first, hoverinfo="skip"),
            go.Scatter(x=t, y=shown["est_trend"].to_numpy(), mode="lines", name="estimated α̂max_t, trailing mean",
                       xaxis=xa, yaxis=ya, line={"color": colors[lab], "width": 2.2}, legendgroup="estimate",
                       showlegend=first, hovertemplate="α̂max (mean) %{y:.3f}"),
        ]
    layout = base_layout(f"Safe interval: estimated upper end α̂max_t against the true α*max_t (run {chosen})",
                         height=110 + 150 * len(labels))
    stacked(layout, labels, "round t", "dose")
    for i in range(1, len(labels) + 1):
        layout["yaxis" + ("" if i == 1 else str(i))]["range"] = [-0.03, 1.03]
    return figure(traces, layout)


def cost_figure(frame: pd.DataFrame, tau: float, seed: int | None = None, max_points: int = MAX_POINTS) -> go.Figure:
    """Per policy (one seed): realized cost C_t against τ, violations (C_t > τ) marked."""
    labels = labels_of(frame)
    colors = policy_colors(labels)
    rows, chosen = first_seed(frame, seed)
    traces, shapes, titles = [], [], []
    for i, lab in enumerate(labels, start=1):
        xa, ya = axis_ids(i)
        part = rows[rows["policy"] == lab]
        bad = part[part["cost"] > tau]
        shown = for_plotting(part, min(max_points, MAX_DOTS))
        bad_shown = for_plotting(bad, min(max_points, MAX_MARKS)) if len(bad) else bad
        traces += [
            go.Scatter(x=shown["t"].to_numpy(), y=shown["cost"].to_numpy(), mode="markers", name=f"{lab}: C_t",
                       xaxis=xa, yaxis=ya, marker={"color": colors[lab], "size": 3, "opacity": 0.55},
                       legendgroup=lab, hovertemplate="C_t %{y:.3f}"),
            go.Scatter(x=bad_shown["t"].to_numpy(), y=bad_shown["cost"].to_numpy(), mode="markers",
                       name="violation C_t > τ", legendgroup="violation", showlegend=i == 1, xaxis=xa, yaxis=ya,
                       marker={"color": LIMIT_COLOR, "size": 6, "symbol": "x-thin",
                               "line": {"width": 1.5, "color": LIMIT_COLOR}},
                       hovertemplate="violation %{y:.3f}"),
        ]
        shapes.append(hline(tau, LIMIT_COLOR, width=1.2, yref=ya, xref=xa))
        rate = float((part["cost"] > tau).mean()) if len(part) else 0.0
        titles.append(f"{lab}: {len(bad)} violations ({rate:.2%})")
    layout = base_layout(f"Realized cost C_t against τ = {tau:g} (dashed), run {chosen}",
                         height=110 + 130 * len(labels))
    stacked(layout, titles, "round t", "cost")
    layout["shapes"] = shapes
    return figure(traces, layout)


def rate_text(percent: float, count: int | None = None) -> str:
    """A violation rate for a bar's label with two significant digits (0.035 % and 0.025 % stay apart), after the
    count of rounds it comes from when there is one."""
    share = "0 %" if percent == 0 else f"{percent:.3g} %" if percent >= 1 else f"{percent:.2g} %"
    return share if count is None else f"{int(count):,} ({share})"


def violation_figure(summary: pd.DataFrame, delta: float) -> go.Figure:
    """Violation rate per policy (all seeds, 95 % interval over seeds) beside the allowed δ: Table 1 at a glance."""
    labels = [str(v) for v in summary["label"]]
    colors = policy_colors(labels)
    rate = summary["violation_rate"].to_numpy() * 100
    lo = summary["violation_rate_lo"].to_numpy() * 100
    hi = summary["violation_rate_hi"].to_numpy() * 100
    counts = summary["violations"] if "violations" in summary else [None] * len(labels)
    ticks = [f"{lab}<br><b>{rate_text(r, n)}</b>" for lab, r, n in zip(labels, rate, counts, strict=True)]
    bar = go.Bar(
        x=ticks, y=rate, marker={"color": [colors[lab] for lab in labels]},
        error_y={"type": "data", "array": np.maximum(hi - rate, 0), "arrayminus": np.maximum(rate - lo, 0),
                 "color": TRUTH_COLOR, "thickness": 1.2},
        hovertemplate="%{y:.3f} %<extra></extra>", name="violation rate",
    )
    top = max(float(np.max(hi)) if len(hi) else 0.0, delta * 100) * 1.25 + 0.5
    layout = base_layout("Share of rounds with C_t > τ, against δ (dashed)", y_title="violation rate (%)")
    layout.update(hovermode="closest", showlegend=False, margin={"l": 56, "r": 16, "t": 56, "b": 56},
                  shapes=[hline(delta * 100, DELTA_COLOR, width=2)],
                  annotations=[note(f"allowed δ = {delta:g} ({delta * 100:g} %)", 0.0, delta * 100, xref="x domain",
                                    yref="y", xanchor="left", yanchor="bottom", font={"color": DELTA_COLOR},
                                    bgcolor="rgba(255,255,255,0.85)")])
    layout["yaxis"]["range"] = [0, top]
    return figure([bar], layout)


def slack_figure(frame: pd.DataFrame, bins: int = 60) -> go.Figure:
    """Distribution of the constraint slack τ − C_t per policy (all seeds and rounds); left of 0 is a violation."""
    labels = labels_of(frame)
    colors = policy_colors(labels)
    values = {lab: frame.loc[frame["policy"] == lab, "slack"].to_numpy() for lab in labels}
    layout = base_layout("Constraint slack τ − C_t", x_title="slack τ − C_t", y_title="share of rounds")
    layout.update(hovermode="closest", shapes=[vline(0.0, LIMIT_COLOR)],
                  annotations=[note("← violation", 0.0, 1.0, xref="x", xanchor="right", yanchor="top",
                                    font={"color": LIMIT_COLOR})])
    layout["yaxis"]["tickformat"] = ".0%"
    return figure(histogram_traces(values, colors, bins=bins), layout)


def round_detail(frame: pd.DataFrame, policy: str, t: int, seed: int | None = None) -> dict[str, Any]:
    """The row of one policy, seed (smallest by default) and round as a plain dict."""
    rows, chosen = first_seed(frame, seed)
    hit = rows[(rows["policy"] == policy) & (rows["t"] == int(t))]
    if hit.empty:
        raise ValueError(f"no round t = {t} for policy {policy!r} and seed {chosen}")
    out = {k: (v.item() if hasattr(v, "item") else v) for k, v in hit.iloc[0].to_dict().items()}
    out["seed"] = chosen
    return out


def riskiest_round(frame: pd.DataFrame, policy: str, tau: float, kappa_c: float, seed: int | None = None) -> int:
    """The round (one seed) whose chosen dose gave the largest chance of C_t > τ (the first one on ties).

    At round t, C_t ~ N(m, s²) with m = g(α_t)⟨X_t, μ*⟩ and s = g(α_t)κ_c, so that chance grows with (m − τ)/s.
    """
    rows, _ = first_seed(frame, seed)
    part = rows[rows["policy"] == policy]
    if part.empty:
        raise ValueError(f"no rounds for policy {policy!r}")
    m = part["cost_mean"].to_numpy()
    sd = part["g_alpha"].to_numpy() * kappa_c
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, (m - tau) / sd, np.where(m > tau, np.inf, -np.inf))
    return int(part["t"].to_numpy()[int(np.argmax(z))])


def cost_distribution_figure(cost_mean: float, g_alpha: float, kappa_c: float, tau: float, delta: float,
                             realized: float | None = None, title: str = "") -> go.Figure:
    """The Gaussian law of C_t at the chosen dose, N(g(α)⟨X,μ*⟩, (g(α)κ_c)²), with τ and the δ-tail shaded.

    Shaded red: P(C_t > τ), the chance this round violates. Shaded amber: the upper δ-tail
    (beyond the (1−δ)-quantile). The dotted line is the policy's margin g(α)(⟨X,μ*⟩ + b_δ) with
    b_δ = κ_c √(2 log 1/δ), which HPC-UCB keeps below τ.
    """
    m, sd = float(cost_mean), float(g_alpha) * float(kappa_c)
    margin = m + float(g_alpha) * float(kappa_c) * math.sqrt(2 * math.log(1 / delta))
    title = title or "Cost distribution at the chosen dose"
    tau_line = [vline(tau, LIMIT_COLOR)]
    tau_note = note(f"τ = {tau:g}", tau, 1.0, xref="x", xanchor="left", yanchor="top", font={"color": LIMIT_COLOR})
    if sd <= 0:
        layout = base_layout(title, x_title="cost C_t", height=300)
        span = 0.2 * max(tau, 1e-3)
        layout.update(hovermode="closest", shapes=tau_line + [vline(m, TRUTH_COLOR, dash="solid", width=3)],
                      annotations=[tau_note, note("dose 0: no cost" if g_alpha <= 0 else "κ_c = 0: the cost is certain",
                                                  0.5, 0.9)])
        layout["xaxis"]["range"] = [min(m, tau) - span, max(m, tau) + span]
        layout["yaxis"]["visible"] = False
        return figure([], layout)
    law = NormalDist(m, sd)
    p_violate = 1.0 - law.cdf(tau)
    q = law.inv_cdf(1.0 - delta)
    x = np.linspace(min(m - 4 * sd, tau - 0.5 * sd), max(m + 4 * sd, tau + 0.5 * sd, margin), 240)
    pdf = np.exp(-0.5 * ((x - m) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))
    tail, viol = x >= q, x >= tau
    traces = [
        go.Scatter(x=x[tail], y=pdf[tail], mode="lines", line={"width": 0}, fill="tozeroy",
                   fillcolor=rgba(DELTA_COLOR, 0.45), name=f"upper δ-tail (δ = {delta:g})", hoverinfo="skip"),
        go.Scatter(x=x[viol], y=pdf[viol], mode="lines", line={"width": 0}, fill="tozeroy",
                   fillcolor=rgba(LIMIT_COLOR, 0.35), name=f"P(C_t > τ) = {p_violate:.2%}", hoverinfo="skip"),
        go.Scatter(x=x, y=pdf, mode="lines", line={"color": "#0072B2", "width": 2}, name=f"N({m:.3f}, {sd:.3f}²)",
                   hovertemplate="C = %{x:.3f}<extra></extra>"),
    ]
    if realized is not None:
        traces.append(go.Scatter(x=[realized], y=[0.0], mode="markers", name=f"realized C_t = {realized:.3f}",
                                 marker={"color": "#000000", "size": 10, "symbol": "diamond"}))
    layout = base_layout(title, x_title="cost C_t", y_title="density", height=340)
    layout.update(hovermode="closest", margin={"l": 56, "r": 16, "t": 64, "b": 100},
                  legend={"orientation": "h", "y": -0.28, "yanchor": "top", "x": 0.0, "xanchor": "left"},
                  shapes=tau_line + [vline(margin, TRUTH_COLOR, dash="dot", width=1.2)],
                  annotations=[tau_note, note("g(α)(⟨X,μ*⟩ + b_δ)", margin, 0.0, xref="x", xanchor="left",
                                              yanchor="bottom", font={"color": TRUTH_COLOR, "size": 11})])
    return figure(traces, layout)


def curve_figure(doses: np.ndarray, values: np.ndarray, title: str = "Dose curve g") -> go.Figure:
    """A small plot of the dose curve g on [0, 1] (the identity dotted for reference)."""
    traces = [
        go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line={"color": TRUTH_COLOR, "dash": "dot", "width": 1},
                   hoverinfo="skip", name="g(α) = α"),
        go.Scatter(x=np.asarray(doses), y=np.asarray(values), mode="lines", line={"color": "#0072B2", "width": 2.5},
                   name="g", hovertemplate="g(%{x:.2f}) = %{y:.3f}<extra></extra>"),
    ]
    layout = base_layout(title, x_title="dose α", y_title="g(α)", height=220)
    layout.update(showlegend=False, margin={"l": 44, "r": 8, "t": 36, "b": 36}, hovermode="closest")
    layout["xaxis"]["range"] = [0, 1]
    layout["yaxis"]["range"] = [0, 1.02]
    return figure(traces, layout)
