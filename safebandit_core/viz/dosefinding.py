"""Figures of the clinical dose-finding comparison (pure plotly, no Streamlit): the doses each design chooses as the
MTD, the patients it treats per dose, and one trial patient by patient.

Each takes a :class:`safebandit_core.dosefinding.api.DoseFindingResult` (and, with the dose model's patients, the
:class:`safebandit_core.dosefinding.bandit.BanditComparison`) and the names to show per design; it reads their
arrays only, so this module imports no JAX.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

HPUCB = "hpucb"
"""The key HPC-UCB's row and line have beside the designs'."""
COLORS = {"3+3": "#7f7f7f", "boin": "#1f77b4", "crm": "#ff7f0e", HPUCB: "#2ca02c"}


def dose_names(K: int) -> list[str]:
    """The x labels of the per-dose bars."""
    return [f"dose {j}" for j in range(1, K + 1)]


def selection_figure(res: Any, names: Mapping[str, str]) -> go.Figure:
    """% of trials choosing each dose (and none) as the MTD, a group of bars per design."""
    x = [*dose_names(res.truth.size), "none"]
    fig = go.Figure()
    for name in res.designs:
        c = res.characteristics[name]
        fig.add_bar(name=names[name], x=x, y=[*c["select_pct"], c["none_pct"]], marker_color=COLORS[name])
    right = "none" if res.true_mtd == 0 else x[res.true_mtd - 1]
    fig.add_annotation(x=right, y=0, yref="paper", yanchor="top", text="right answer", showarrow=False, yshift=-18)
    fig.update_layout(barmode="group", yaxis_title="% of trials choosing it as the MTD", height=360)
    return fig


def patients_figure(res: Any, names: Mapping[str, str]) -> go.Figure:
    """Mean patients treated at each dose, a group of bars per design."""
    fig = go.Figure()
    for name in res.designs:
        fig.add_bar(name=names[name], x=dose_names(res.truth.size), y=res.characteristics[name]["patients"],
                    marker_color=COLORS[name])
    fig.update_layout(barmode="group", yaxis_title="patients per trial (mean)", height=360)
    return fig


def path_figure(res: Any, both: Any | None, trial: int, patient: int, names: Mapping[str, str]) -> go.Figure:
    """One trial, patient by patient: each design's dose (dose level, or the dose in [0, 1] with the dose model),
    a DLT as a red cross; patients after ``patient`` faded, HPC-UCB's continuous dose beside them."""
    K = res.truth.size
    fig = go.Figure()
    scale = 1.0 / K if both is not None else 1.0
    for name in res.designs:
        path = res.path(name, trial)
        x = np.arange(1, path.doses.size + 1)
        seen = x <= patient
        fig.add_scatter(x=x, y=path.doses * scale, mode="lines+markers", name=names[name],
                        line={"color": COLORS[name], "width": 1, "shape": "hv"},
                        marker={"symbol": np.where(path.dlt, "x", "circle").tolist(), "size": 9,
                                "color": np.where(path.dlt, "#d62728", COLORS[name]).tolist(),
                                "opacity": np.where(seen, 1.0, 0.25).tolist()},
                        customdata=path.dlt.astype(int), hovertemplate="patient %{x}: dose %{y}<extra></extra>")
    if both is not None:
        alpha, over = both.bandit_path(trial)
        x = np.arange(1, alpha.size + 1)
        fig.add_scatter(x=x, y=alpha, mode="lines+markers", name=names[HPUCB],
                        line={"color": COLORS[HPUCB], "width": 1},
                        marker={"symbol": np.where(over, "x", "diamond").tolist(), "size": 9,
                                "color": np.where(over, "#d62728", COLORS[HPUCB]).tolist(),
                                "opacity": np.where(x <= patient, 1.0, 0.25).tolist()},
                        customdata=over.astype(int), hovertemplate="patient %{x}: dose %{y:.3f}<extra></extra>")
    fig.add_vline(x=patient, line_dash="dot", line_color="#888")
    if both is None:
        fig.update_yaxes(title="dose level", tickvals=list(range(1, K + 1)), range=[0.5, K + 0.5])
    else:
        fig.update_yaxes(title="dose (0 to 1)", range=[0, 1.05])
    fig.update_layout(xaxis_title="patient (in the order they enrol)", height=380)
    return fig
