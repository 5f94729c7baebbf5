"""Figures of the battery experiment (Safety by Design §7): the raw NASA data, the currents, the fit.

Inputs are plain frames and numbers, computed by the core: a window of the per-step table of
:mod:`safebandit_core.battery.loader` (columns ``step, comment, current_mean, voltage_start, voltage_end,
temperature_mean, temperature_max``), its rounds (:func:`safebandit_core.battery.random_walk_discharges`), the
fit frame of :func:`safebandit_core.battery.fit_frame` and the fitted problem's numbers
(:meth:`safebandit_core.battery.BatteryProblem.facts`). The replay itself is drawn with
:mod:`safebandit_core.viz.dose` (:func:`replay_figures`); :func:`data_figures` gives the page's data and fit
charts at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import dose as vd
from .common import PALETTE, TRUTH_COLOR, axis_ids, base_layout, figure, note, stacked, vline

VOLTAGE_COLOR = "#0072B2"
CURRENT_COLOR = "#009E73"
TEMPERATURE_COLOR = "#D55E00"
MAX_SAMPLES = 4000
MAX_SCATTER = 2500


def _every(n: int, most: int) -> np.ndarray:
    """Evenly spaced indices keeping at most about ``most`` of ``n`` (the last one included)."""
    if n <= most:
        return np.arange(n)
    return np.unique(np.concatenate([np.arange(0, n, int(np.ceil(n / most))), [n - 1]]))


def steps_figure(window: pd.DataFrame) -> go.Figure:
    """Voltage, current and temperature of a window of steps (one point per step: its aggregates).

    Voltage: first and last sample of each step; current: the step's mean (positive = discharge);
    temperature: the step's mean and maximum. Hover shows the step's label.
    """
    x = window["step"].to_numpy()
    text = window["comment"].astype(str).to_numpy()
    panels = [
        ("Voltage (V)", [("voltage_start", "at the start", "circle-open"), ("voltage_end", "at the end", "circle")],
         VOLTAGE_COLOR),
        ("Current (A), positive = discharge", [("current_mean", "mean", "circle")], CURRENT_COLOR),
        ("Temperature (°C)", [("temperature_mean", "mean", "circle-open"), ("temperature_max", "maximum", "circle")],
         TEMPERATURE_COLOR),
    ]
    traces = []
    for i, (_, series, color) in enumerate(panels, start=1):
        xa, ya = axis_ids(i)
        for column, name, symbol in series:
            traces.append(go.Scatter(
                x=x, y=window[column].to_numpy(), mode="lines+markers", name=name, xaxis=xa, yaxis=ya, text=text,
                line={"color": color, "width": 1, "dash": "dot" if symbol.endswith("open") else "solid"},
                marker={"color": color, "size": 4, "symbol": symbol}, showlegend=False,
                hovertemplate=f"step %{{x}} (%{{text}}): {name} %{{y:.3f}}<extra></extra>",
            ))
    layout = base_layout(f"Steps {int(x.min()) if len(x) else 0}–{int(x.max()) if len(x) else 0}: one point per step",
                         height=520)
    stacked(layout, [title for title, _, _ in panels], "step", "")
    layout["hovermode"] = "closest"
    return figure(traces, layout)


def current_histogram(current: np.ndarray, current_min: float, current_max: float, bins: int = 40) -> go.Figure:
    """Mean currents of the random-walk discharges (the rounds), with the ends of the dose scale.

    Dose = (I − I_min)/(I_max − I_min), so the dashed lines are doses 0 and 1.
    """
    values = np.asarray(current, dtype=float)
    values = values[np.isfinite(values)]
    counts, edges = np.histogram(values, bins=bins) if values.size else (np.zeros(0), np.zeros(1))
    bar = go.Bar(x=0.5 * (edges[:-1] + edges[1:]), y=counts, width=np.diff(edges), name="rounds",
                 marker={"color": CURRENT_COLOR, "line": {"width": 0}},
                 hovertemplate="%{x:.2f} A: %{y} rounds<extra></extra>")
    layout = base_layout(f"Mean current of the {values.size:,} random-walk discharges", x_title="current (A)",
                         y_title="rounds", height=300)
    layout.update(hovermode="closest", showlegend=False, bargap=0.02,
                  shapes=[vline(current_min, TRUTH_COLOR), vline(current_max, TRUTH_COLOR)],
                  annotations=[note("dose 0", current_min, 1.0, xref="x", xanchor="left", yanchor="top"),
                               note("dose 1", current_max, 1.0, xref="x", xanchor="right", yanchor="top")])
    return figure([bar], layout)


def fit_scatter_figure(frame: pd.DataFrame, r2_reward: float, r2_cost: float) -> go.Figure:
    """Observed against predicted per-unit-dose reward and cost on the replay half, beside y = x.

    ``frame`` has ``reward_observed, reward_predicted, cost_observed, cost_predicted`` (one row per
    replay round with a usable dose); ``r2_*`` are the out-of-sample R² shown in the titles.
    """
    rows = frame.iloc[_every(len(frame), MAX_SCATTER)]
    panels = [("reward", r2_reward, PALETTE[0]), ("cost", r2_cost, PALETTE[1])]
    traces = []
    shown = "" if len(rows) == len(frame) else f", {len(rows):,} shown"
    layout = base_layout(f"The fit on the replay half ({len(frame):,} rounds{shown})", height=380)
    layout.pop("xaxis")
    layout.pop("yaxis")
    annotations, shapes = [], []
    for i, (name, r2, color) in enumerate(panels, start=1):
        xa, ya = axis_ids(i)
        sx = "" if i == 1 else str(i)
        pred = rows[f"{name}_predicted"].to_numpy()
        obs = rows[f"{name}_observed"].to_numpy()
        both = np.concatenate([pred, obs]) if len(rows) else np.zeros(2)
        lo, hi = float(np.nanpercentile(both, 0.5)), float(np.nanpercentile(both, 99.5))
        pad = 0.05 * max(hi - lo, 1e-9)
        traces.append(go.Scatter(x=pred, y=obs, mode="markers", xaxis=xa, yaxis=ya, name=name, showlegend=False,
                                 marker={"color": color, "size": 4, "opacity": 0.35},
                                 hovertemplate=f"predicted %{{x:.3f}}, observed %{{y:.3f}}<extra>{name}</extra>"))
        shapes.append({"type": "line", "xref": xa, "yref": ya, "x0": lo - pad, "y0": lo - pad, "x1": hi + pad,
                       "y1": hi + pad, "line": {"color": TRUTH_COLOR, "dash": "dash", "width": 1.2}})
        left, right = (0.0, 0.46) if i == 1 else (0.54, 1.0)
        layout[f"xaxis{sx}"] = {"domain": [left, right], "anchor": ya, "range": [lo - pad, hi + pad],
                                "title": {"text": f"predicted {name} per unit dose"}}
        layout[f"yaxis{sx}"] = {"domain": [0.0, 1.0], "anchor": xa, "range": [lo - pad, hi + pad],
                                "title": {"text": f"observed {name} / dose"}}
        annotations.append(note(f"<b>{name.capitalize()}: R² = {r2:.2f}</b>", left, 1.0, yanchor="bottom",
                                xanchor="left", font={"size": 12}))
    layout.update(hovermode="closest", annotations=annotations, shapes=shapes)
    return figure(traces, layout)


def data_figures(steps: pd.DataFrame, rounds: pd.DataFrame, fit: pd.DataFrame, facts: Mapping[str, Any], first: int,
                 last: int) -> dict[str, go.Figure]:
    """The data and the fit: steps ``first..last`` (``raw_window``), the rounds' mean currents (``currents``) and
    the fit's observed-against-predicted scatter on the replay half (``fit_scatter``).

    ``rounds``: the random-walk discharges of ``steps``; ``fit``: the fit frame; ``facts``: the fitted problem's
    numbers (``current_min``, ``current_max``, ``replay_r2_reward``, ``replay_r2_cost``).
    """
    currents = rounds.loc[rounds["n_samples"] >= 2, "current_mean"].to_numpy()
    return {"raw_window": steps_figure(steps.iloc[first:last + 1]),
            "currents": current_histogram(currents, facts["current_min"], facts["current_max"]),
            "fit_scatter": fit_scatter_figure(fit, facts["replay_r2_reward"], facts["replay_r2_cost"])}


def replay_figures(frame: pd.DataFrame, summary: pd.DataFrame, tau: float, delta: float) -> dict[str, go.Figure]:
    """One replay's charts (the dose model's, from a tidy frame by label and its summary): ``regret``, ``safe``
    (estimated against true safe dose), ``cost`` (realized cost against τ) and ``violations`` (rates against δ)."""
    return {"regret": vd.regret_figure(frame), "safe": vd.safe_interval_figure(frame),
            "cost": vd.cost_figure(frame, tau), "violations": vd.violation_figure(summary, delta)}


def _r2_words(r2: float) -> str:
    return "most" if r2 >= 0.5 else "some" if r2 >= 0.2 else "almost none"


def data_texts(facts: Mapping[str, Any]) -> dict[str, str]:
    """Plain words beside each chart of :func:`data_figures` (markdown), computed from the fitted problem's
    numbers (:meth:`safebandit_core.battery.BatteryProblem.facts`)."""
    p = SimpleNamespace(**facts)
    return {
        "raw_window": "Voltage, current and temperature, one point per step. A round is one **random-walk "
                      "discharge** (about a minute at a drawn current); the rests, recharges and reference tests "
                      f"between them are context, not rounds. The first {p.n_fit:,} rounds fit the truth, the next "
                      f"{p.n_replay:,} are replayed.",
        "currents": f"The **dose** is a round's mean current scaled to [0, 1]: (I − {p.current_min:.2f} A) / "
                    f"({p.current_max:.2f} A − {p.current_min:.2f} A). The bars count the rounds per current.",
        "fit_scatter": (
            f"Each dot is a replay round, which the fit never saw. X_t embeds the previous {p.k} steps as JSON in "
            f"d = {p.dim} dimensions ({p.embedder}); ridge fits of reward/dose and cost/dose on the fit half explain "
            f"**{_r2_words(p.replay_r2_reward)}** of the replay's reward variation (R² = {p.replay_r2_reward:.2f}) "
            f"and **{_r2_words(p.replay_r2_cost)}** of its cost variation (R² = {p.replay_r2_cost:.2f}). The replay "
            f"**treats θ*, μ* as the truth** (so the model holds exactly), with the fit's residual noise κ_r = "
            f"{p.kappa_r:.3f}, κ_c = {p.kappa_c:.3f} and S = max(‖θ*‖, ‖μ*‖) = {p.norm_bound:.2f}. Reward: the "
            f"voltage drop over the largest ({p.reward_scale:.3f} V); cost: the temperature rise over the largest "
            f"({p.cost_scale:.2f} °C)."),
    }


def replay_texts(record: Mapping[str, Any]) -> dict[str, str]:
    """Plain words beside each chart of :func:`replay_figures` (markdown), computed from one replay's
    :func:`safebandit_core.battery.summary_row`; every comparison is stated for the T rounds that ran."""
    rows, T, delta = record["by_policy"], record["T"], record["delta"]
    each = lambda f, fmt: "; ".join(f"{r['label']} {format(r[f], fmt)}" for r in rows)  # noqa: E731
    return {
        "regret": f"Reward lost against a clairvoyant that knows θ*, μ* and plays the largest dose whose realized "
                  f"cost stays below τ with probability 1 − δ; a curve that bends has learned. After these {T:,} "
                  f"rounds (mean over seeds): {each('cum_regret_mean', '.1f')}; staying at HPC-UCB's round-1 dose "
                  f"α₁ every round would lose {record['first_dose_regret']:.1f}.",
        "safe": "Each policy's estimated upper end α̂max_t against the true α*max_t (grey), with the doses chosen. "
                f"Mean dose over the last 10 % of these {T:,} rounds: {each('final_dose_mean', '.3f')} (true safe "
                f"dose {rows[0]['final_safe_dose_mean']:.3f}).",
        "cost": "Every round's realized temperature rise C_t for the first seed, against τ (dashed); red crosses are "
                "rounds above τ.",
        "violations": f"Share of rounds whose **realized** cost passed τ, over all seeds with a 95 % interval, beside "
                      f"the allowed δ = {delta:g}. In these {T:,} rounds: {each('violation_rate', '.2%')}. HPC-UCB "
                      "bounds each round's chance of passing τ by δ; On-Expectation only keeps the *mean* cost "
                      "below τ.",
    }
