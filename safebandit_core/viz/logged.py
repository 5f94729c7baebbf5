"""Figures of a log's fit (pure plotly, no Streamlit): observed against predicted per unit g(dose), and the
residuals against the dose (the realizability check: a flat band of even width when the model and g fit).

Both take :meth:`safebandit_core.logged.fit.LoggedFit.residual_frame` and the names the page shows for the
benefit and the side effect; the replay itself is drawn with :mod:`safebandit_core.viz.dose`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .common import PALETTE, TRUTH_COLOR, axis_ids, base_layout, figure, hline, note

MAX_POINTS = 2500


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """At most :data:`MAX_POINTS` evenly spaced rows (the browser draws every point)."""
    if len(frame) <= MAX_POINTS:
        return frame
    return frame.iloc[np.linspace(0, len(frame) - 1, MAX_POINTS).astype(int)]


def _side_by_side(layout: dict, i: int, x_title: str, y_title: str, rng: list[float] | None = None) -> None:
    sx = "" if i == 1 else str(i)
    xa, ya = axis_ids(i)
    left, right = (0.0, 0.46) if i == 1 else (0.54, 1.0)
    layout[f"xaxis{sx}"] = {"domain": [left, right], "anchor": ya, "title": {"text": x_title}}
    layout[f"yaxis{sx}"] = {"domain": [0.0, 1.0], "anchor": xa, "title": {"text": y_title}}
    if rng is not None:
        layout[f"xaxis{sx}"]["range"] = layout[f"yaxis{sx}"]["range"] = rng


def fit_figure(frame: pd.DataFrame, r2: tuple[float, float], names: tuple[str, str] = ("benefit", "side effect")
               ) -> go.Figure:
    """Observed R/g(α) and C/g(α) against the fit's ⟨z, θ*⟩ and ⟨z, μ*⟩, beside y = x; ``r2`` in the titles."""
    rows = _shown(frame)
    layout = base_layout(f"The fit per unit g(dose) ({len(frame):,} fit rows"
                         + ("" if len(rows) == len(frame) else f", {len(rows):,} shown") + ")", height=380)
    layout.pop("xaxis")
    layout.pop("yaxis")
    traces, shapes, notes = [], [], []
    for i, (col, name, value) in enumerate(zip(("reward", "cost"), names, r2, strict=True), start=1):
        xa, ya = axis_ids(i)
        pred, obs = rows[f"{col}_predicted"].to_numpy(), rows[f"{col}_observed"].to_numpy()
        both = np.concatenate([pred, obs]) if len(rows) else np.zeros(2)
        lo, hi = float(np.nanpercentile(both, 0.5)), float(np.nanpercentile(both, 99.5))
        pad = 0.05 * max(hi - lo, 1e-9)
        traces.append(go.Scatter(x=pred, y=obs, mode="markers", xaxis=xa, yaxis=ya, name=name, showlegend=False,
                                 marker={"color": PALETTE[i - 1], "size": 4, "opacity": 0.35},
                                 hovertemplate=f"predicted %{{x:.3f}}, observed %{{y:.3f}}<extra>{name}</extra>"))
        shapes.append({"type": "line", "xref": xa, "yref": ya, "x0": lo - pad, "y0": lo - pad, "x1": hi + pad,
                       "y1": hi + pad, "line": {"color": TRUTH_COLOR, "dash": "dash", "width": 1.2}})
        _side_by_side(layout, i, f"predicted {name} per unit g(dose)", f"observed {name} / g(dose)",
                      [lo - pad, hi + pad])
        notes.append(note(f"<b>{name}: held-out R² = {value:.2f}</b>", 0.0 if i == 1 else 0.54, 1.0,
                          yanchor="bottom", xanchor="left", font={"size": 12}))
    layout.update(hovermode="closest", annotations=notes, shapes=shapes)
    return figure(traces, layout)


def residual_figure(frame: pd.DataFrame, names: tuple[str, str] = ("benefit", "side effect"),
                    dose_title: str = "dose α") -> go.Figure:
    """The residuals of R/g(α) and C/g(α) against the dose, with a trailing ± 1 std band by dose."""
    rows = _shown(frame.sort_values("dose", kind="stable"))
    layout = base_layout("Residuals against the dose: an even band means the model and g fit", height=360)
    layout.pop("xaxis")
    layout.pop("yaxis")
    traces, shapes = [], []
    ordered = frame.sort_values("dose", kind="stable")
    window = max(20, len(ordered) // 25)
    for i, (col, name) in enumerate(zip(("reward", "cost"), names, strict=True), start=1):
        xa, ya = axis_ids(i)
        spread = ordered[f"{col}_residual"].rolling(window, center=True, min_periods=window // 2).std()
        spread = _shown(spread.to_frame("s").assign(dose=ordered["dose"].to_numpy()))
        traces += [
            go.Scatter(x=rows["dose"], y=rows[f"{col}_residual"], mode="markers", xaxis=xa, yaxis=ya, name=name,
                       showlegend=False, marker={"color": PALETTE[i - 1], "size": 3, "opacity": 0.3},
                       hovertemplate="dose %{x:.2f}: residual %{y:.3f}<extra></extra>"),
            go.Scatter(x=spread["dose"], y=spread["s"], mode="lines", xaxis=xa, yaxis=ya, name="± 1 std",
                       showlegend=i == 1, line={"color": TRUTH_COLOR, "width": 1.5}, hoverinfo="skip"),
            go.Scatter(x=spread["dose"], y=-spread["s"], mode="lines", xaxis=xa, yaxis=ya, showlegend=False,
                       line={"color": TRUTH_COLOR, "width": 1.5}, hoverinfo="skip"),
        ]
        shapes.append(hline(0.0, TRUTH_COLOR, dash="dot", width=1, yref=ya, xref=xa))
        _side_by_side(layout, i, dose_title, f"{name} residual per unit g(dose)")
    layout.update(hovermode="closest", shapes=shapes)
    return figure(traces, layout)
