"""Figures and computed sentences of the conservative mean-variance bandit, MV-CBP (One-size-fits-all §4–5).

Time series take the tidy frame of :func:`safebandit_core.families.tidy` for an ``MVSettings`` run
(``policy`` ids, ``label`` names; columns ``seed, t, default_pulls, slack, cum_regret, baseline``
with ``baseline`` = (1 − α)·MV₀·t); the arm picture takes
:func:`safebandit_core.meanvar.arm_table`. ``cum_regret`` is the cumulative form T·R̃_T that the
paper plots. The baseline drawn with it is the regret ``MV*·t − (1 − α)·MV₀·t`` of a learner
whose path earns exactly (1 − α)·MV₀ each round. :func:`condition_sentence` puts the guarantee
``ρ > 2/(α μ₀)`` (sufficient by Theorem 5; below it nothing is promised) next to what the run's slack did.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import conservative as vc
from .common import TRUTH_COLOR, axis_ids, base_layout, figure, note, rgba

LABELS: dict[str, str] = {"mvcucb": "MV-CUCB", "mvucb": "MV-UCB"}
BASELINE_NAME = "baseline (1 − α)·MV₀·T"
DEFAULT_COLOR = "#000000"


def best_mv(arms: pd.DataFrame) -> float:
    """MV* = ρ μ* − σ*², the best regular arm's mean-variance, from an arm table."""
    return float(arms.loc[arms["best"], "mv"].iloc[0])


def regret_figure(frame: pd.DataFrame, mv_star: float, *, t_max: int | None = None, band: str = "minmax"
                  ) -> go.Figure:
    """Cumulative mean-variance regret T·R̃_T per policy (mean, min–max band) and the baseline's."""
    what = ("T·R̃ₜ, mean-variance lost so far" if t_max is None
            else f"Early exploration: the first {t_max:,} rounds")
    return vc.regret_figure(frame, mv_star, baseline_col="baseline", baseline_name=BASELINE_NAME, t_max=t_max,
                            band=band, title=f"{what} ({vc.BAND_NAMES.get(band, band)} over runs)",
                            y_title="T·R̃ (mean-variance lost)")


def zoom_figure(frame: pd.DataFrame, mv_star: float, window: int, *, band: str = "minmax") -> go.Figure:
    """:func:`regret_figure` over the first ``window`` rounds."""
    return regret_figure(frame, mv_star, t_max=int(window), band=band)


def negative_slack(frame: pd.DataFrame) -> pd.DataFrame:
    """Per policy: smallest slack, first round below 0 (0 if never), runs broken, runs."""
    return vc.negative_slack(frame, baseline_col="baseline")


def slack_figure(frame: pd.DataFrame, negative: pd.DataFrame | None = None) -> go.Figure:
    """One row per policy: slack t·MV̂_t − (1 − α)·MV₀·t with the zero line and the first round below it marked
    (``negative``: the frame's :func:`negative_slack`, where the caller already has it)."""
    return vc.slack_figure(frame, baseline_col="baseline",
                           title="Slack t·MV̂ₜ − (1 − α)·MV₀·t (the constraint holds while it stays ≥ 0)",
                           negative=negative)


def default_pulls_figure(frame: pd.DataFrame, band: str = "minmax") -> go.Figure:
    """Default-arm pulls N₀(t) per policy (mean with a band)."""
    return vc.default_pulls_figure(frame, band=band)


def zoom_sentence(frame: pd.DataFrame, mv_star: float, window: int) -> str:
    """:func:`.conservative.zoom_sentence` against the mean-variance baseline."""
    return vc.zoom_sentence(frame, mv_star, window, baseline_col="baseline")


def condition_sentence(ok: bool, need: float, rho: float, neg: pd.DataFrame, label: str = "MV-CUCB") -> str:
    """The guarantee ``ρ > 2/(α μ₀)`` (``need`` = 2/(α μ₀)) and what ``label``'s slack did in this run.

    The condition is sufficient (Theorem 5); when it fails nothing is promised, the slack may still stay ≥ 0, and
    the sentence says whether it did, from :func:`negative_slack`'s table.
    """
    row = neg[neg["policy"] == label]
    if ok:
        head = (f"ρ = {rho:g} > 2/(α·μ₀) = {need:.4g}, so the guarantee applies: {label}'s slack stays ≥ 0 "
                "on every run.")
    else:
        head = (f"ρ = {rho:g} ≤ 2/(α·μ₀) = {need:.4g}, so the guarantee does not apply. The condition is "
                f"sufficient (Theorem 5); below it nothing is promised: {label}'s slack may still stay ≥ 0.")
    if row.empty:
        return head + f" {label} is not in this run."
    r = row.iloc[0]
    if r["runs_broken"]:
        seen = (f" In this run it went below 0 in {r['runs_broken']} of {r['runs']} runs (first at "
                f"t = {r['first_negative_t']:,}; smallest slack {r['min_slack']:.4g}).")
    else:
        seen = f" In this run it stayed ≥ 0 in all {r['runs']} runs (smallest slack {r['min_slack']:.4g})."
    return head + seen


def indifference_segment(rho: float, mv_star: float, x_range: tuple[float, float],
                         y_range: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The part of the line σ² = ρμ − MV* (equal mean-variance as the best arm) inside the plot box."""
    lo, hi = sorted(((y_range[0] + mv_star) / rho, (y_range[1] + mv_star) / rho))
    x = np.clip(np.array([lo, hi]), *x_range)
    return x, rho * x - mv_star


def arms_figure(arms: pd.DataFrame, rho: float, labels: Mapping[str, str] = LABELS,
                height: int = 420) -> go.Figure:
    """The arms in the mean–variance plane, one panel per policy; dot area ∝ mean pulls per run.

    Every arm is a grey ring at (μ, σ²); the default arm sits at (μ₀, 0) (black diamond); the best
    arm by MV = ρμ − σ² is starred, and the dashed line σ² = ρμ − MV* through it joins the points
    as good as the best arm (right of it: better).
    """
    policies = [c.removeprefix("pulls_") for c in arms.columns if c.startswith("pulls_")]
    names = [labels.get(p, p) for p in policies]
    colors = vc.colors_for(names)
    mv_star = best_mv(arms)
    means, var = arms["mean"].to_numpy(dtype=float), arms["variance"].to_numpy(dtype=float)
    x_range = (max(0.0, float(means.min()) - 0.05), min(1.05, float(means.max()) + 0.05))
    y_range = (-0.02, float(var.max()) * 1.15 + 0.02)
    line_x, line_y = indifference_segment(rho, mv_star, x_range, y_range)
    top = max(float(arms[[f"pulls_{p}" for p in policies]].to_numpy().max()) if policies else 0.0, 1e-12)
    regular = arms[arms["kind"] == "regular"]
    default = arms[arms["kind"] == "default"].iloc[0]
    best = arms[arms["best"]].iloc[0]
    hover = [f"arm {int(a)}: μ {m:.3f}, σ² {v:.3f}, MV {w:.3f}"
             for a, m, v, w in zip(regular["arm"], regular["mean"], regular["variance"], regular["mv"], strict=True)]
    n = max(len(policies), 1)
    gap = 0.06
    width = (1.0 - gap * (n - 1)) / n
    layout = base_layout(f"Arms in the mean–variance plane (ρ = {rho:g}; dot area ∝ pulls per run)",
                         "mean μ", "variance σ²", height)
    layout["hovermode"] = "closest"
    layout["margin"] = {**layout["margin"], "t": 110}
    layout["legend"]["y"] = 1.0 + 26 / max(height - 110 - layout["margin"]["b"], 50)
    layout.pop("xaxis")
    layout.pop("yaxis")
    layout["annotations"] = []
    traces: list[go.Scatter] = []
    for i, (policy, name) in enumerate(zip(policies or [""], names or [""], strict=True), start=1):
        xa, ya = axis_ids(i)
        sx = "" if i == 1 else str(i)
        left = (i - 1) * (width + gap)
        layout[f"xaxis{sx}"] = {"domain": [left, left + width], "anchor": f"y{sx}", "range": list(x_range),
                                "title": {"text": "mean μ"}}
        layout[f"yaxis{sx}"] = {"anchor": f"x{sx}", "range": list(y_range), "matches": None if i == 1 else "y",
                                "title": {"text": "variance σ²" if i == 1 else ""}}
        first = i == 1
        traces += [
            go.Scatter(x=line_x, y=line_y, mode="lines", xaxis=xa, yaxis=ya, name="equal MV as the best arm",
                       line={"color": TRUTH_COLOR, "dash": "dash", "width": 1.5}, legendgroup="line",
                       showlegend=first, hovertemplate=f"ρμ − σ² = MV* = {mv_star:.3f}<extra></extra>"),
            go.Scatter(x=regular["mean"].to_numpy(), y=regular["variance"].to_numpy(), mode="markers", xaxis=xa,
                       yaxis=ya, name="arm (μ, σ²)", legendgroup="arms", showlegend=first, text=hover,
                       hovertemplate="%{text}<extra></extra>",
                       marker={"size": 7, "color": "rgba(0,0,0,0)", "line": {"color": TRUTH_COLOR, "width": 1}}),
            go.Scatter(x=[best["mean"]], y=[best["variance"]], mode="markers", xaxis=xa, yaxis=ya,
                       name="best arm (highest MV)", legendgroup="best", showlegend=first,
                       marker={"size": 15, "symbol": "star-open", "color": TRUTH_COLOR, "line": {"width": 1.5}},
                       hovertemplate=f"best arm {int(best['arm'])}: MV {mv_star:.3f}<extra></extra>"),
            go.Scatter(x=[default["mean"]], y=[0.0], mode="markers", xaxis=xa, yaxis=ya,
                       name="default arm x₀ (μ₀, 0)", legendgroup="default", showlegend=first,
                       marker={"size": 12, "symbol": "diamond-open", "color": DEFAULT_COLOR, "line": {"width": 2}},
                       hovertemplate=f"default arm: μ₀ {default['mean']:.3f}, MV₀ {default['mv']:.3f}"
                                     "<extra></extra>"),
        ]
        if policy:
            pulls = arms[f"pulls_{policy}"].to_numpy(dtype=float)
            hit = pulls > 0
            color = colors[name]
            traces.append(go.Scatter(
                x=means[hit], y=var[hit], mode="markers", xaxis=xa, yaxis=ya, name=f"{name}: pulls",
                legendgroup=name, customdata=pulls[hit],
                marker={"size": 6 + 34 * np.sqrt(pulls[hit] / top), "color": rgba(color, 0.55),
                        "line": {"color": color, "width": 1}},
                hovertemplate=f"{name}: %{{customdata:,.1f}} pulls per run<extra></extra>"))
            share = float(pulls[0] / pulls.sum()) if pulls.sum() else 0.0
            layout["annotations"].append(note(f"<b>{name}</b>: {share:.0%} of rounds on x₀", left, 1.0,
                                              yanchor="bottom", xanchor="left", font={"size": 12}))
    return figure(traces, layout)
