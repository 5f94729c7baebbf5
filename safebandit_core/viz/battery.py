"""Figures of the battery experiment (seed 000 §7): the raw NASA data, the currents, the fit.

Inputs are plain frames: a window of the per-step table of :mod:`safebandit_core.data.battery`
(columns ``step, comment, current_mean, voltage_start, voltage_end, temperature_mean,
temperature_max``), per-sample rows of ``raw_samples`` (``step, time, voltage, current,
temperature``), and the fit frame of :func:`safebandit_core.data.experiment.fit_frame`. The
replay itself is drawn with :mod:`safebandit_core.viz.dose`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

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


def samples_figure(samples: pd.DataFrame) -> go.Figure:
    """Voltage, current and temperature sample by sample over a window of steps, against time in minutes."""
    rows = samples.iloc[_every(len(samples), MAX_SAMPLES)]
    start = float(samples["time"].min()) if len(samples) else 0.0
    minutes = (rows["time"].to_numpy() - start) / 60.0
    text = rows["step"].astype(str).to_numpy()
    panels = [("Voltage (V)", "voltage", VOLTAGE_COLOR),
              ("Current (A), positive = discharge", "current", CURRENT_COLOR),
              ("Temperature (°C)", "temperature", TEMPERATURE_COLOR)]
    traces = []
    for i, (_, column, color) in enumerate(panels, start=1):
        xa, ya = axis_ids(i)
        traces.append(go.Scatter(
            x=minutes, y=rows[column].to_numpy(), mode="lines", xaxis=xa, yaxis=ya, showlegend=False, text=text,
            line={"color": color, "width": 1.2}, name=column,
            hovertemplate=f"step %{{text}}, %{{x:.1f}} min: {column} %{{y:.3f}}<extra></extra>",
        ))
    steps = samples["step"].to_numpy()
    shown = f"{len(rows):,} of {len(samples):,} samples" if len(rows) < len(samples) else f"{len(samples):,} samples"
    title = f"Steps {int(steps.min()) if len(steps) else 0}–{int(steps.max()) if len(steps) else 0}, {shown}"
    layout = base_layout(title, height=520)
    stacked(layout, [p[0] for p in panels], "minutes since the window's first sample", "")
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
