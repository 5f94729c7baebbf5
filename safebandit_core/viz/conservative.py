"""Figures and computed sentences of the conservative bandits (One-size-fits-all §5) and, through :mod:`.mv`, of MV-CBP.

The figures take the tidy frame of :func:`safebandit_core.families.tidy` (``policy`` holds the ids,
``label`` the display names; a frame already passed through :func:`.common.by_label` works too).
Columns used: ``policy, seed, t, default_pulls, slack, cum_regret, cum_reward`` and a baseline
column, ``baseline_line`` = (1 − α)·μ₀·t here (``baseline`` = (1 − α)·MV₀·t for MV-CBP).

As in One-size-fits-all's Figure 1, regret curves are the mean over runs with the min–max band, next to
the baseline: the regret of a learner that earns exactly (1 − α)·μ₀ each round, i.e.
``best·t − (1 − α)·μ₀·t``. A trace with every round is thinned to at most
:data:`MAX_TRACE_POINTS` rounds by :func:`thin`, which keeps each stretch's lowest and highest
values, so a dip of the slack below zero is never smoothed away.

:func:`zoom_sentence` describes the zoom figure against its dashed baseline; every other sentence about
a run (rankings, crossovers, slack, default pulls) is in :mod:`safebandit_core.captions`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .common import (
    LIMIT_COLOR,
    PALETTE,
    TRUTH_COLOR,
    axis_ids,
    base_layout,
    by_label,
    figure,
    hline,
    labels_of,
    mean_band_figure,
    paper_name,
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
MAX_TRACE_POINTS = 300
"""At most this many rounds per trace (:func:`thin`)."""


def shown(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with ``policy`` holding the display labels (a tidy frame with a ``label`` column is relabelled)."""
    return by_label(frame) if "label" in frame else frame


def chart_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A run's tidy frame as the charts and sentences read it, made once per run: ``policy`` holding the display
    labels (:func:`shown`) and no constant ``kind`` column. Each chart of a page then takes its rows from it without
    a copy of every row first (a mean-variance run has 400,000)."""
    return shown(frame).drop(columns="kind", errors="ignore")


def colors_for(labels: list[str]) -> dict[str, str]:
    """The role colour of each known policy; other labels take palette colours not already used."""
    out = {lab: COLORS[paper_name(lab)] for lab in labels if paper_name(lab) in COLORS}
    rest = [lab for lab in labels if lab not in out]
    if rest:
        free = [c for c in PALETTE if c not in out.values()] or list(PALETTE)
        fallback = policy_colors(rest)
        out.update({lab: free[i] if i < len(free) else fallback[lab] for i, lab in enumerate(rest)})
    return out


def early_window(T: int, share: float = 0.1) -> int:
    """Rounds shown by the exploration zoom: ``share`` of ``T`` (at least 10 rounds, at most T)."""
    return int(min(T, max(10, round(T * share))))


def thin(frame: pd.DataFrame, value: str, max_points: int = MAX_TRACE_POINTS) -> pd.DataFrame:
    """The rows of at most ``max_points`` rounds per policy, keeping the extremes of ``value`` across seeds.

    The rounds are cut into ``(max_points − 2) // 2`` equal stretches; each keeps the round where
    the lowest seed is lowest and the round where the highest seed is highest, plus the first and
    last round. A frame with few enough rounds comes back unchanged. Each chart of a knob step thins
    its own column of every run's row, so the extremes per round are found with array scatters, not a
    grouping (a fifth of the time on a mean-variance run's 400,000 rows).
    """
    if frame.empty or frame["t"].nunique() <= max_points:
        return frame
    buckets = max(1, (max_points - 2) // 2)
    keep = np.zeros(len(frame), dtype=bool)
    t = frame["t"].to_numpy()
    values = frame[value].to_numpy(dtype=float)
    codes, policies = pd.factorize(frame["policy"])  # a row without a policy (code −1) is in no group
    for code in range(len(policies)):
        mine = codes == code
        rounds, at = _rounds_of(t[mine])
        n = len(rounds)
        lo, hi = np.full(n, np.nan), np.full(n, np.nan)
        np.fmin.at(lo, at, values[mine])  # NaN skipped, as the lowest seed's value is found
        np.fmax.at(hi, at, values[mine])
        stretch = np.arange(n) * buckets // n
        chosen = np.zeros(n, dtype=bool)
        chosen[np.concatenate([_first_extreme(lo, stretch, np.fmin), _first_extreme(hi, stretch, np.fmax),
                               [0, n - 1]]).astype(int)] = True
        keep[mine] = chosen[at]  # each row by the place of its round: no second lookup of the rounds kept
    return frame[keep]


def _rounds_of(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rounds of ``t`` in order, and the place of each row's round among them: a table for rounds
    numbered from 0 or 1 (sorting every row costs more), else a sort."""
    if t.dtype.kind in "iu" and t.min() >= 0 and t.max() <= 4 * len(t):
        present = np.zeros(int(t.max()) + 1, dtype=bool)
        present[t] = True
        return np.flatnonzero(present), (np.cumsum(present) - 1)[t]
    return np.unique(t, return_inverse=True)


def _first_extreme(values: np.ndarray, stretch: np.ndarray, pick: np.ufunc) -> np.ndarray:
    """Per stretch (``stretch``: sorted stretch numbers, one per value), the index of the first value equal to the
    stretch's extreme under ``pick`` (``np.fmin``, ``np.fmax``: NaN skipped; a stretch of NaN alone has none)."""
    starts = np.flatnonzero(np.r_[True, stretch[1:] != stretch[:-1]])
    extreme = pick.reduceat(values, starts)
    where = np.where(values == np.repeat(extreme, np.diff(np.r_[starts, len(values)])), np.arange(len(values)),
                     len(values))
    first = np.minimum.reduceat(where, starts)
    return first[first < len(values)]


def _baseline_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of one seed of one policy (the baseline column is the same for all of them)."""
    first = frame[frame["policy"] == frame["policy"].iloc[0]]
    return first[first["seed"] == first["seed"].min()].sort_values("t")


def _band_figure(frame: pd.DataFrame, value: str, title: str, y_title: str, band: str) -> go.Figure:
    """Mean of ``value`` over runs per policy with a band, on a frame already thinned."""
    return mean_band_figure(frame, value, title=title, y_title=y_title, band=band,
                            colors=colors_for(labels_of(frame)), max_points=max(1, frame["t"].nunique()))


def regret_figure(
    frame: pd.DataFrame,
    best: float,
    *,
    baseline_col: str = "baseline_line",
    baseline_name: str = "baseline: (1 − α)·μ₀ each round",
    t_max: int | None = None,
    band: str = "minmax",
    title: str | None = None,
    y_title: str = "reward lost",
    max_points: int = MAX_TRACE_POINTS,
) -> go.Figure:
    """Cumulative regret per policy (mean over runs with a band) and the baseline's regret ``best·t − baseline``.

    ``best`` is the best arm's value per round (μ_best, or MV* for MV-CBP); ``t_max`` keeps rounds
    1..t_max only (the exploration zoom).
    """
    frame = shown(frame)
    part = thin(frame if t_max is None else frame[frame["t"] <= t_max], "cum_regret", max_points)
    if title is None:
        what = "Reward lost so far" if t_max is None else f"Early exploration: the first {t_max:,} rounds"
        title = f"{what} ({BAND_NAMES.get(band, band)} over runs)"
    if part.empty:
        return figure([], base_layout(title, "round t", y_title))
    fig = _band_figure(part, "cum_regret", title, y_title, band)
    line = _baseline_rows(part)
    t = line["t"].to_numpy()
    fig.add_trace(go.Scatter(x=t, y=best * t - line[baseline_col].to_numpy(dtype=float), mode="lines",
                             name=baseline_name, line={"color": BASELINE_COLOR, "dash": "dash", "width": 1.8},
                             hovertemplate="%{y:.4g}"))
    return fig


def zoom_figure(frame: pd.DataFrame, best: float, window: int, *, baseline_col: str = "baseline_line",
                baseline_name: str = "baseline: (1 − α)·μ₀ each round", band: str = "minmax",
                y_title: str = "cumulative regret") -> go.Figure:
    """:func:`regret_figure` over the first ``window`` rounds: the exploration phase, enlarged."""
    return regret_figure(frame, best, baseline_col=baseline_col, baseline_name=baseline_name, t_max=int(window),
                         band=band, y_title=y_title)


def reward_figure(frame: pd.DataFrame, *, baseline_col: str = "baseline_line", band: str = "minmax",
                  max_points: int = MAX_TRACE_POINTS) -> go.Figure:
    """Cumulative reward Σ r_s per policy (mean with a band) against the line (1 − α)·μ₀·t it must stay above."""
    part = thin(shown(frame), "cum_reward", max_points)
    title = f"Cumulative reward against (1 − α)·μ₀·t ({BAND_NAMES.get(band, band)} over runs)"
    if part.empty:
        return figure([], base_layout(title, "round t", "cumulative reward"))
    fig = _band_figure(part, "cum_reward", title, "cumulative reward", band)
    line = _baseline_rows(part)
    fig.add_trace(go.Scatter(x=line["t"].to_numpy(), y=line[baseline_col].to_numpy(dtype=float), mode="lines",
                             name="(1 − α)·μ₀·t", line={"color": LIMIT_COLOR, "dash": "dash", "width": 1.8},
                             hovertemplate="%{y:.4g}"))
    return fig


def default_pulls_figure(frame: pd.DataFrame, *, band: str = "minmax", max_points: int = MAX_TRACE_POINTS
                         ) -> go.Figure:
    """Default-arm pulls N₀(t) per policy over time (mean with a band): how much each one held back."""
    part = thin(shown(frame), "default_pulls", max_points)
    title = f"Default-arm pulls N₀(t) ({BAND_NAMES.get(band, band)} over runs)"
    if part.empty:
        return figure([], base_layout(title, "round t", "default pulls"))
    return _band_figure(part, "default_pulls", title, "default pulls N₀(t)", band)


def _least(values: np.ndarray) -> float:
    """The smallest value, NaN ignored (NaN when there is none), as pandas' ``min``."""
    return float(np.fmin.reduce(values)) if values.size else float("nan")


def _count(values: np.ndarray) -> int:
    """How many distinct values, NaN not counted, as pandas' ``nunique``."""
    return int(pd.unique(values[~pd.isna(values)]).size)


def negative_slack(frame: pd.DataFrame, baseline_col: str = "baseline_line") -> pd.DataFrame:
    """Per policy (by label): the smallest slack, the first round below 0 (0 if never), runs broken, runs.

    Slack counts as below 0 when under −NEG_TOL·max(1, baseline), so rounding alone never breaks it.
    """
    frame = shown(frame)
    rows = []
    labels = labels_of(frame) if not frame.empty else []
    # the columns as arrays, read once: a policy's rows are then picked by one mask (a mean-variance run has 400,000)
    policy = frame["policy"]
    seed, t = frame["seed"].to_numpy(), frame["t"].to_numpy()
    slack = frame["slack"].to_numpy(dtype=float)
    below = slack < -NEG_TOL * np.maximum(1.0, np.abs(frame[baseline_col].to_numpy(dtype=float)))
    for lab in labels:
        mine = (policy == lab).to_numpy()
        s, neg, when, runs = slack[mine], below[mine], t[mine], seed[mine]
        first = int(when[neg].min()) if neg.any() else 0
        rows.append({"policy": lab, "min_slack": _least(s), "first_negative_t": first,
                     "first_negative_slack": _least(s[neg & (when == first)]) if first else 0.0,
                     "runs_broken": _count(runs[neg]), "runs": _count(runs)})
    return pd.DataFrame(rows, columns=["policy", "min_slack", "first_negative_t", "first_negative_slack",
                                       "runs_broken", "runs"])


def slack_figure(
    frame: pd.DataFrame,
    *,
    baseline_col: str = "baseline_line",
    title: str = "Slack Σ r_s − (1 − α)·μ₀·t (the constraint holds while it stays ≥ 0)",
    y_title: str = "slack",
    max_points: int = MAX_TRACE_POINTS,
    negative: pd.DataFrame | None = None,
) -> go.Figure:
    """One row per policy: slack over time (mean over runs, min–max band) with the zero line drawn.

    Where a policy's slack went below zero, a red cross marks the first such round (at that
    round's smallest slack) and the row's title says in how many runs it happened. ``negative``: the frame's
    :func:`negative_slack` where the caller already has it (a page computes it once per run for its sentence too).
    """
    frame = shown(frame)
    neg = negative_slack(frame, baseline_col) if negative is None else negative
    part = thin(frame, "slack", max_points)
    colors = colors_for(neg["policy"].tolist())
    traces: list[go.Scatter] = []
    shapes, titles = [], []
    marked = False
    for i, row in enumerate(neg.itertuples(index=False), start=1):
        lab = row.policy
        xa, ya = axis_ids(i)
        agg = (part[part["policy"] == lab].groupby("t", observed=True)["slack"]
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


def horizons_figure(frame: pd.DataFrame) -> go.Figure:
    """Final cumulative regret and default pulls N₀ against the horizon T (one run per horizon; 95 % intervals).

    Takes :func:`safebandit_core.sweep.over_horizons`' frame (``T, label, cum_regret_*, default_pulls_*``).
    """
    labels = labels_of(frame, "label") if not frame.empty else []
    colors = colors_for(labels)
    traces: list[go.Scatter] = []
    rows = (("cum_regret", "cumulative regret at T"), ("default_pulls", "default pulls N₀(T)"))
    for i, (value, _) in enumerate(rows, start=1):
        xa, ya = axis_ids(i)
        for lab in labels:
            part = frame[frame["label"] == lab].sort_values("T")
            mean = part[f"{value}_mean"].to_numpy(dtype=float)
            traces.append(go.Scatter(
                x=part["T"].to_numpy(), y=mean, mode="lines+markers", name=lab, legendgroup=lab, showlegend=i == 1,
                xaxis=xa, yaxis=ya, line={"color": colors[lab], "width": 2},
                error_y={"type": "data", "symmetric": False, "array": part[f"{value}_hi"].to_numpy() - mean,
                         "arrayminus": mean - part[f"{value}_lo"].to_numpy(), "color": colors[lab]},
                hovertemplate=f"{lab}: %{{y:,.1f}} at T = %{{x:,}}<extra></extra>"))
    layout = base_layout("Regret and default pulls at the end of runs of each horizon T", height=460)
    stacked(layout, [title for _, title in rows], "horizon T (log scale)", "")
    for i in (1, 2):
        layout[f"xaxis{'' if i == 1 else i}"]["type"] = "log"
    layout["hovermode"] = "closest"
    return figure(traces, layout)


def zoom_sentence(frame: pd.DataFrame, best: float, window: int, baseline_col: str = "baseline_line") -> str:
    """At the zoom's last round: which policies' mean regret is above the dashed baseline's, which at or below.

    The baseline's regret ``best·t − baseline(t)`` is that of a learner earning exactly the rule's
    limit each round in expectation; the rule itself is on realized rewards (the slack).
    """
    frame = shown(frame)
    t = int(min(window, frame["t"].max()))
    at = frame[frame["t"] == t]
    line = best * t - float(at[baseline_col].iloc[0])
    means = at.groupby("policy", observed=True)["cum_regret"].mean()
    above = [f"{lab} ({v:,.1f})" for lab, v in means.items() if v > line]
    below = [f"{lab} ({v:,.1f})" for lab, v in means.items() if v <= line]
    text = f"At round {t:,} the dashed baseline is at {line:,.1f}."
    if above:
        text += f" Mean regret above it: {', '.join(above)}."
    if below:
        text += f" At or below it: {', '.join(below)}."
    return text + (" Regret counts expected rewards, the rule the rewards actually drawn, so a curve can pass the "
                   "line while its slack stays ≥ 0.")
