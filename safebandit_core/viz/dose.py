"""Figures of the dose model (seed 000): each takes the tidy frame of :func:`safebandit_core.dose.sim.tidy_frame`.

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
from plotly.subplots import make_subplots

from .common import (
    LIMIT_COLOR,
    MAX_POINTS,
    TRUTH_COLOR,
    first_seed,
    for_plotting,
    histogram_traces,
    labels_of,
    mean_band_figure,
    policy_colors,
    rgba,
    style,
)

DELTA_COLOR = "#E69F00"


def regret_figure(frame: pd.DataFrame, band: str = "std", max_points: int = MAX_POINTS) -> go.Figure:
    """Cumulative constrained pseudo-regret per policy: mean across seeds with a ±1 std or min–max band."""
    name = {"std": "mean ± 1 std", "minmax": "mean, min–max", "none": "mean"}.get(band, band)
    return mean_band_figure(frame, "cum_regret", title=f"Cumulative regret ({name} over seeds)",
                            y_title="regret Σ (g(α*)−g(α))⟨X,θ*⟩", band=band, max_points=max_points)


def _rows(labels: list[str], height_per_row: int) -> tuple[go.Figure, int]:
    n = max(len(labels), 1)
    fig = make_subplots(rows=n, cols=1, shared_xaxes=True, vertical_spacing=0.05 if n > 1 else 0.0,
                        subplot_titles=labels)
    return fig, 90 + height_per_row * n


def safe_interval_figure(frame: pd.DataFrame, seed: int | None = None, max_points: int = MAX_POINTS) -> go.Figure:
    """Per policy (one seed): estimated upper end α̂max_t against the true α*max_t, with the chosen doses α_t."""
    labels = labels_of(frame)
    colors = policy_colors(labels)
    rows, chosen = first_seed(frame, seed)
    rows = for_plotting(rows, max_points)
    fig, height = _rows(labels, 150)
    for i, lab in enumerate(labels, start=1):
        part = rows[rows["policy"] == lab]
        t = part["t"].to_numpy()
        fig.add_trace(go.Scatter(x=t, y=part["true_upper"].to_numpy(), mode="lines", name="true α*max",
                                 line={"color": TRUTH_COLOR, "width": 1}, opacity=0.55, legendgroup="truth",
                                 showlegend=i == 1, hovertemplate="α*max %{y:.3f}"), row=i, col=1)
        fig.add_trace(go.Scatter(x=t, y=part["est_upper"].to_numpy(), mode="lines", name=f"{lab}: α̂max",
                                 line={"color": colors[lab], "width": 1.6}, legendgroup=lab,
                                 hovertemplate="α̂max %{y:.3f}"), row=i, col=1)
        fig.add_trace(go.Scatter(x=t, y=part["alpha"].to_numpy(), mode="markers", name=f"{lab}: dose α_t",
                                 marker={"color": colors[lab], "size": 3, "opacity": 0.6}, legendgroup=lab,
                                 showlegend=False, hovertemplate="α_t %{y:.3f}"), row=i, col=1)
        fig.update_yaxes(range=[-0.03, 1.03], title_text="dose", row=i, col=1)
    fig.update_xaxes(title_text="round t", row=len(labels), col=1)
    return style(fig, f"Safe interval [0, α̂max_t] against the true [0, α*max_t] (seed {chosen})", height=height)


def cost_figure(frame: pd.DataFrame, tau: float, seed: int | None = None, max_points: int = MAX_POINTS) -> go.Figure:
    """Per policy (one seed): realized cost C_t against τ, violations (C_t > τ) marked."""
    labels = labels_of(frame)
    colors = policy_colors(labels)
    rows, chosen = first_seed(frame, seed)
    fig, height = _rows(labels, 130)
    for i, lab in enumerate(labels, start=1):
        part = rows[rows["policy"] == lab]
        bad = part[part["cost"] > tau]
        shown = for_plotting(part, max_points)
        fig.add_trace(go.Scatter(x=shown["t"].to_numpy(), y=shown["cost"].to_numpy(), mode="markers",
                                 name=f"{lab}: C_t", marker={"color": colors[lab], "size": 3, "opacity": 0.55},
                                 legendgroup=lab, hovertemplate="C_t %{y:.3f}"), row=i, col=1)
        bad_shown = for_plotting(bad, max_points) if len(bad) else bad
        fig.add_trace(go.Scatter(x=bad_shown["t"].to_numpy(), y=bad_shown["cost"].to_numpy(), mode="markers",
                                 name="violation C_t > τ", legendgroup="violation", showlegend=i == 1,
                                 marker={"color": LIMIT_COLOR, "size": 6, "symbol": "x-thin",
                                         "line": {"width": 1.5, "color": LIMIT_COLOR}},
                                 hovertemplate="violation %{y:.3f}"), row=i, col=1)
        fig.add_hline(y=tau, line={"color": LIMIT_COLOR, "dash": "dash", "width": 1.2}, row=i, col=1)
        rate = float((part["cost"] > tau).mean()) if len(part) else 0.0
        fig.layout.annotations[i - 1].text = f"{lab}: {len(bad)} violations ({rate:.2%})"
    fig.update_xaxes(title_text="round t", row=len(labels), col=1)
    return style(fig, f"Realized cost C_t against τ = {tau:g} (seed {chosen})", height=height)


def violation_figure(summary: pd.DataFrame, delta: float) -> go.Figure:
    """Violation rate per policy (all seeds, 95 % interval over seeds) beside the allowed δ: Table 1 at a glance."""
    labels = [str(v) for v in summary["label"]]
    colors = policy_colors(labels)
    rate = summary["violation_rate"].to_numpy() * 100
    lo = summary["violation_rate_lo"].to_numpy() * 100
    hi = summary["violation_rate_hi"].to_numpy() * 100
    fig = go.Figure(go.Bar(
        x=labels, y=rate, marker={"color": [colors[lab] for lab in labels]},
        error_y={"type": "data", "array": np.maximum(hi - rate, 0), "arrayminus": np.maximum(rate - lo, 0),
                 "color": TRUTH_COLOR, "thickness": 1.2},
        text=[f"{r:.2f} %" for r in rate], textposition="outside", cliponaxis=False,
        hovertemplate="%{x}: %{y:.3f} %<extra></extra>", name="violation rate",
    ))
    fig.add_hline(y=delta * 100, line={"color": DELTA_COLOR, "dash": "dash", "width": 2},
                  annotation_text=f"δ = {delta:g} ({delta * 100:g} %)", annotation_position="top left")
    top = max(float(np.max(hi)) if len(hi) else 0.0, delta * 100) * 1.25 + 0.5
    fig.update_yaxes(range=[0, top])
    fig = style(fig, "Share of rounds with C_t > τ, against δ", y_title="violation rate (%)")
    fig.update_layout(hovermode="closest", showlegend=False)
    return fig


def slack_figure(frame: pd.DataFrame, bins: int = 60) -> go.Figure:
    """Distribution of the constraint slack τ − C_t per policy (all seeds and rounds); left of 0 is a violation."""
    labels = labels_of(frame)
    colors = policy_colors(labels)
    values = {lab: frame.loc[frame["policy"] == lab, "slack"].to_numpy() for lab in labels}
    fig = go.Figure(histogram_traces(values, colors, bins=bins))
    fig.add_vline(x=0.0, line={"color": LIMIT_COLOR, "dash": "dash", "width": 1.5},
                  annotation_text="violation ←", annotation_position="top left")
    fig = style(fig, "Constraint slack τ − C_t", x_title="slack τ − C_t", y_title="share of rounds")
    fig.update_layout(hovermode="closest")
    fig.update_yaxes(tickformat=".0%")
    return fig


def round_detail(frame: pd.DataFrame, policy: str, t: int, seed: int | None = None) -> dict[str, Any]:
    """The row of one policy, seed (smallest by default) and round as a plain dict."""
    rows, chosen = first_seed(frame, seed)
    hit = rows[(rows["policy"] == policy) & (rows["t"] == int(t))]
    if hit.empty:
        raise ValueError(f"no round t = {t} for policy {policy!r} and seed {chosen}")
    out = {k: (v.item() if hasattr(v, "item") else v) for k, v in hit.iloc[0].to_dict().items()}
    out["seed"] = chosen
    return out


def cost_distribution_figure(cost_mean: float, g_alpha: float, kappa_c: float, tau: float, delta: float,
                             realized: float | None = None, title: str = "") -> go.Figure:
    """The Gaussian law of C_t at the chosen dose, N(g(α)⟨X,μ*⟩, (g(α)κ_c)²), with τ and the δ-tail shaded.

    Shaded red: P(C_t > τ), the chance this round violates. Shaded amber: the upper δ-tail
    (beyond the (1−δ)-quantile). The dotted line is the policy's margin g(α)(⟨X,μ*⟩ + b_δ) with
    b_δ = κ_c √(2 log 1/δ), which HPC-UCB keeps below τ.
    """
    m, sd = float(cost_mean), float(g_alpha) * float(kappa_c)
    margin = m + float(g_alpha) * float(kappa_c) * math.sqrt(2 * math.log(1 / delta))
    fig = go.Figure()
    if sd <= 0:
        fig.add_vline(x=m, line={"color": TRUTH_COLOR, "width": 3})
        fig.add_vline(x=tau, line={"color": LIMIT_COLOR, "dash": "dash", "width": 1.5},
                      annotation_text=f"τ = {tau:g}", annotation_position="top right")
        note = "dose 0: no cost" if g_alpha <= 0 else "κ_c = 0: the cost is certain"
        fig.add_annotation(text=note, showarrow=False, x=0.5, y=0.9, xref="paper", yref="paper")
        fig.update_xaxes(range=[min(m, tau) - 0.2 * max(tau, 1e-3), max(m, tau) + 0.2 * max(tau, 1e-3)])
        fig.update_yaxes(visible=False)
        return style(fig, title or "Cost distribution at the chosen dose", x_title="cost C_t", height=300)
    law = NormalDist(m, sd)
    p_violate = 1.0 - law.cdf(tau)
    q = law.inv_cdf(1.0 - delta)
    lo = min(m - 4 * sd, tau - 0.5 * sd)
    hi = max(m + 4 * sd, tau + 0.5 * sd, margin)
    x = np.linspace(lo, hi, 240)
    pdf = np.exp(-0.5 * ((x - m) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))
    tail = x >= q
    viol = x >= tau
    fig.add_trace(go.Scatter(x=x[tail], y=pdf[tail], mode="lines", line={"width": 0}, fill="tozeroy",
                             fillcolor=rgba(DELTA_COLOR, 0.45), name=f"upper δ-tail (δ = {delta:g})",
                             hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=x[viol], y=pdf[viol], mode="lines", line={"width": 0}, fill="tozeroy",
                             fillcolor=rgba(LIMIT_COLOR, 0.35), name=f"P(C_t > τ) = {p_violate:.2%}",
                             hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=x, y=pdf, mode="lines", line={"color": "#0072B2", "width": 2},
                             name=f"N({m:.3f}, {sd:.3f}²)", hovertemplate="C = %{x:.3f}<extra></extra>"))
    fig.add_vline(x=tau, line={"color": LIMIT_COLOR, "dash": "dash", "width": 1.5},
                  annotation_text=f"τ = {tau:g}", annotation_position="top right")
    fig.add_vline(x=margin, line={"color": TRUTH_COLOR, "dash": "dot", "width": 1.2},
                  annotation_text="g(α)(⟨X,μ*⟩+b_δ)", annotation_position="bottom right")
    if realized is not None:
        fig.add_trace(go.Scatter(x=[realized], y=[0.0], mode="markers", name=f"realized C_t = {realized:.3f}",
                                 marker={"color": "#000000", "size": 10, "symbol": "diamond"}))
    fig = style(fig, title or "Cost distribution at the chosen dose", x_title="cost C_t", y_title="density",
                height=320)
    fig.update_layout(hovermode="closest", legend={"y": -0.3, "yanchor": "top", "x": 0.0, "xanchor": "left"},
                      margin={"b": 90})
    return fig


def curve_figure(doses: np.ndarray, values: np.ndarray, title: str = "Dose curve g") -> go.Figure:
    """A small plot of the dose curve g on [0, 1] (the identity dotted for reference)."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line={"color": TRUTH_COLOR, "dash": "dot", "width": 1},
                             hoverinfo="skip", name="g(α) = α"))
    fig.add_trace(go.Scatter(x=np.asarray(doses), y=np.asarray(values), mode="lines",
                             line={"color": "#0072B2", "width": 2.5}, name="g",
                             hovertemplate="g(%{x:.2f}) = %{y:.3f}<extra></extra>"))
    fig = style(fig, title, x_title="dose α", y_title="g(α)", height=220)
    fig.update_layout(showlegend=False, margin={"l": 44, "r": 8, "t": 36, "b": 36}, hovermode="closest")
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(range=[0, 1.02])
    return fig
