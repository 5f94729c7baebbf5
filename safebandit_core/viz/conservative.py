"""Figures of the conservative bandits (seed 001 §5): each takes the tidy frame of
:func:`safebandit_core.conservative.sim.tidy_frame` (or, through :mod:`.mv`, of
:func:`safebandit_core.conservative.mv_sim.tidy_frame`).

Frame columns used: ``policy, seed, t, default_pulls, slack, cum_regret, cum_reward`` and a
baseline column, ``baseline_line`` = (1 − α)·μ₀·t here (``baseline`` = (1 − α)·MV₀·t for MV-CBP).
Policies arrive as short names (``gencb``); ``labels`` maps them to the names shown.

As in seed 001's Figure 1, regret curves are the mean over runs with the min–max band, next to
the baseline: the regret of a learner that earns exactly (1 − α)·μ₀ each round, i.e.
``best·t − (1 − α)·μ₀·t``. Curves under that line in the early rounds lose less than the
constraint allows; the zoom shows the exploration phase where the policies differ most.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .common import (
    LIMIT_COLOR,
    MAX_POINTS,
    PALETTE,
    TRUTH_COLOR,
    axis_ids,
    base_layout,
    figure,
    for_plotting,
    hline,
    labels_of,
    mean_band_figure,
    policy_colors,
    rgba,
    stacked,
)

# One colour per role: the GenCB-style policy, the expected-reward baselines, the unconstrained policy.
COLORS: dict[str, str] = {
    "GenCB": "#0072B2", "MV-CUCB": "#0072B2",
    "ConUCB": "#D55E00", "C3UCB": "#D55E00",
    "CLUCB": "#CC79A7", "CLUCB2": "#E69F00",
    "UCB": "#009E73", "LinUCB": "#009E73", "C2UCB": "#009E73", "MV-UCB": "#009E73",
}
BASELINE_COLOR = TRUTH_COLOR
BAND_NAMES = {"minmax": "mean, min–max band", "std": "mean ± 1 std", "none": "mean"}
# Slack below −NEG_TOL·max(1, baseline) counts as negative: room for rounding, nothing more.
NEG_TOL = 1e-6


def labelled(frame: pd.DataFrame, labels: Mapping[str, str] | None = None) -> pd.DataFrame:
    """``frame`` with ``policy`` shown by its label, as a categorical in order of first appearance."""
    if not labels or frame.empty:
        return frame
    codes = list(dict.fromkeys(frame["policy"].astype(str).tolist()))
    shown = [labels.get(c, c) for c in codes]
    out = frame.copy()
    out["policy"] = pd.Categorical(out["policy"].astype(str).map(lambda c: labels.get(c, c)), categories=shown)
    return out


def colors_for(labels: list[str]) -> dict[str, str]:
    """The role colour of each known policy; other labels take palette colours not already used."""
    out = {lab: COLORS[lab] for lab in labels if lab in COLORS}
    rest = [lab for lab in labels if lab not in out]
    if rest:
        free = [c for c in PALETTE if c not in out.values()] or list(PALETTE)
        fallback = policy_colors(rest)
        out.update({lab: free[i] if i < len(free) else fallback[lab] for i, lab in enumerate(rest)})
    return out


def early_window(T: int, share: float = 0.1) -> int:
    """Rounds shown by the exploration zoom: ``share`` of ``T`` (at least 10 rounds, at most T)."""
    return int(min(T, max(10, round(T * share))))


def _baseline_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of one seed of one policy (the baseline column is the same for all of them)."""
    first = frame[frame["policy"] == frame["policy"].iloc[0]]
    return first[first["seed"] == first["seed"].min()].sort_values("t")


def regret_figure(
    frame: pd.DataFrame,
    best: float,
    *,
    labels: Mapping[str, str] | None = None,
    baseline_col: str = "baseline_line",
    baseline_name: str = "baseline: (1 − α)·μ₀ each round",
    t_max: int | None = None,
    band: str = "minmax",
    title: str | None = None,
    y_title: str = "cumulative regret",
    max_points: int = MAX_POINTS,
) -> go.Figure:
    """Cumulative regret per policy (mean over runs with a band) and the baseline's regret ``best·t − baseline``.

    ``best`` is the best arm's value per round (μ_best, or MV* for MV-CBP); ``t_max`` keeps rounds
    1..t_max only (the exploration zoom).
    """
    shown = labelled(for_plotting(frame if t_max is None else frame[frame["t"] <= t_max], max_points), labels)
    if title is None:
        what = "Cumulative regret" if t_max is None else f"Early exploration: the first {t_max:,} rounds"
        title = f"{what} ({BAND_NAMES.get(band, band)} over runs)"
    if shown.empty:
        return figure([], base_layout(title, "round t", y_title))
    colors = colors_for(labels_of(shown))
    fig = mean_band_figure(shown, "cum_regret", title=title, y_title=y_title, band=band, colors=colors,
                           max_points=max_points)
    line = _baseline_rows(shown)
    t = line["t"].to_numpy()
    fig.add_trace(go.Scatter(x=t, y=best * t - line[baseline_col].to_numpy(dtype=float), mode="lines",
                             name=baseline_name, line={"color": BASELINE_COLOR, "dash": "dash", "width": 1.8},
                             hovertemplate="%{y:.4g}"))
    return fig


def zoom_figure(frame: pd.DataFrame, best: float, window: int, *, labels: Mapping[str, str] | None = None,
                baseline_col: str = "baseline_line", baseline_name: str = "baseline: (1 − α)·μ₀ each round",
                band: str = "minmax", y_title: str = "cumulative regret") -> go.Figure:
    """:func:`regret_figure` over the first ``window`` rounds: the exploration phase, enlarged."""
    return regret_figure(frame, best, labels=labels, baseline_col=baseline_col, baseline_name=baseline_name,
                         t_max=int(window), band=band, y_title=y_title)


def reward_figure(frame: pd.DataFrame, *, labels: Mapping[str, str] | None = None,
                  baseline_col: str = "baseline_line", band: str = "minmax",
                  max_points: int = MAX_POINTS) -> go.Figure:
    """Cumulative reward Σ r_s per policy (mean with a band) against the line (1 − α)·μ₀·t it must stay above."""
    shown = labelled(for_plotting(frame, max_points), labels)
    title = f"Cumulative reward against (1 − α)·μ₀·t ({BAND_NAMES.get(band, band)} over runs)"
    if shown.empty:
        return figure([], base_layout(title, "round t", "cumulative reward"))
    fig = mean_band_figure(shown, "cum_reward", title=title, y_title="cumulative reward", band=band,
                           colors=colors_for(labels_of(shown)), max_points=max_points)
    line = _baseline_rows(shown)
    fig.add_trace(go.Scatter(x=line["t"].to_numpy(), y=line[baseline_col].to_numpy(dtype=float), mode="lines",
                             name="(1 − α)·μ₀·t", line={"color": LIMIT_COLOR, "dash": "dash", "width": 1.8},
                             hovertemplate="%{y:.4g}"))
    return fig


def default_pulls_figure(frame: pd.DataFrame, *, labels: Mapping[str, str] | None = None, band: str = "minmax",
                         max_points: int = MAX_POINTS) -> go.Figure:
    """Default-arm pulls N₀(t) per policy over time (mean with a band): how much each one held back."""
    shown = labelled(for_plotting(frame, max_points), labels)
    title = f"Default-arm pulls N₀(t) ({BAND_NAMES.get(band, band)} over runs)"
    if shown.empty:
        return figure([], base_layout(title, "round t", "default pulls"))
    return mean_band_figure(shown, "default_pulls", title=title, y_title="default pulls N₀(t)", band=band,
                            colors=colors_for(labels_of(shown)), max_points=max_points)


def negative_slack(frame: pd.DataFrame, baseline_col: str = "baseline_line",
                   labels: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Per policy (by label): the smallest slack, the first round below 0 (0 if never), runs broken, runs.

    Slack counts as below 0 when under −NEG_TOL·max(1, baseline), so rounding alone never breaks it.
    """
    labels = labels or {}
    rows = []
    for code in (labels_of(frame) if not frame.empty else []):
        part = frame[frame["policy"] == code]
        tol = NEG_TOL * np.maximum(1.0, np.abs(part[baseline_col].to_numpy(dtype=float)))
        neg = part["slack"].to_numpy(dtype=float) < -tol
        first = int(part["t"].to_numpy()[neg].min()) if neg.any() else 0
        y_first = float(part.loc[neg & (part["t"] == first).to_numpy(), "slack"].min()) if first else 0.0
        rows.append({"policy": labels.get(code, code), "min_slack": float(part["slack"].min()),
                     "first_negative_t": first, "first_negative_slack": y_first,
                     "runs_broken": int(part.loc[neg, "seed"].nunique()), "runs": int(part["seed"].nunique())})
    return pd.DataFrame(rows, columns=["policy", "min_slack", "first_negative_t", "first_negative_slack",
                                       "runs_broken", "runs"])


def slack_figure(
    frame: pd.DataFrame,
    *,
    labels: Mapping[str, str] | None = None,
    baseline_col: str = "baseline_line",
    title: str = "Slack Σ r_s − (1 − α)·μ₀·t (the constraint holds while it stays ≥ 0)",
    y_title: str = "slack",
    max_points: int = MAX_POINTS,
) -> go.Figure:
    """One row per policy: slack over time (mean over runs, min–max band) with the zero line drawn.

    Where a policy's slack went below zero, a red cross marks the first such round (at that
    round's smallest slack) and the row's title says in how many runs it happened.
    """
    neg = negative_slack(frame, baseline_col, labels)
    shown = labelled(for_plotting(frame, max_points), labels)
    colors = colors_for(neg["policy"].tolist())
    traces: list[go.Scatter] = []
    shapes, titles = [], []
    marked = False
    for i, row in enumerate(neg.itertuples(index=False), start=1):
        lab = row.policy
        xa, ya = axis_ids(i)
        agg = (shown[shown["policy"] == lab].groupby("t", observed=True)["slack"]
               .agg(["mean", "min", "max"]).reset_index())
        t = agg["t"].to_numpy()
        color = colors[lab]
        traces += [
            go.Scatter(x=t, y=agg["max"].to_numpy(), mode="lines", line={"width": 0}, xaxis=xa, yaxis=ya,
                       hoverinfo="skip", showlegend=False, legendgroup=lab, name=f"{lab} max"),
            go.Scatter(x=t, y=agg["min"].to_numpy(), mode="lines", line={"width": 0}, xaxis=xa, yaxis=ya,
                       fill="tonexty", fillcolor=rgba(color, 0.18),
                       hoverinfo="skip", showlegend=False, legendgroup=lab, name=f"{lab} min"),
            go.Scatter(x=t, y=agg["mean"].to_numpy(), mode="lines", line={"color": color, "width": 2}, name=lab,
                       xaxis=xa, yaxis=ya, legendgroup=lab, hovertemplate="slack %{y:.4g}"),
        ]
        shapes.append(hline(0.0, LIMIT_COLOR, width=1.2, yref=ya, xref=xa))
        if row.first_negative_t:
            t0 = int(row.first_negative_t)
            traces.append(go.Scatter(x=[t0], y=[row.first_negative_slack], mode="markers", xaxis=xa, yaxis=ya,
                                     name="first round below 0", legendgroup="negative", showlegend=not marked,
                                     marker={"color": LIMIT_COLOR, "size": 11, "symbol": "x",
                                             "line": {"width": 1, "color": LIMIT_COLOR}},
                                     hovertemplate=f"{lab}: below 0 from t = {t0:,}<extra></extra>"))
            marked = True
            titles.append(f"{lab}: below 0 in {row.runs_broken} of {row.runs} runs, first at t = {t0:,} "
                          f"(min {row.min_slack:.3g})")
        else:
            titles.append(f"{lab}: never below 0 (min {row.min_slack:.3g})")
    layout = base_layout(title, height=110 + 140 * max(len(neg), 1))
    stacked(layout, titles, "round t", y_title)
    layout["shapes"] = shapes
    return figure(traces, layout)
