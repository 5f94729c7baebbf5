"""A safety knob scrubbed in the browser: one plotly figure whose slider steps between precomputed frames.

Each frame is one value of the knob (τ, δ, α or ρ): per panel (regret, violations or slack, the safe
dose or default pulls) one curve per policy over the rounds, and a title of that value's numbers.
The slider's steps ``animate`` to a frame with no transition and redraw, so a step is answered by
plotly in the browser: Streamlit does not rerun. Frames carry only the curves' ``y`` (the rounds are
the same in every frame) and each panel keeps one y range across values, so a step shows what moved.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .common import DASHES, FONT, policy_colors

STEP_ARGS = {"frame": {"duration": 0, "redraw": True}, "mode": "immediate", "transition": {"duration": 0}}
"""What a slider step asks plotly: jump to the frame now, no easing, redraw the title."""


def frame_name(value: float) -> str:
    """The frame (and slider step) name of a knob value."""
    return f"{value:g}"


def captions(finals: pd.DataFrame, symbol: str, sep: str = "; ") -> dict[float, str]:
    """Per value: ``symbol = value``, then each policy's final numbers (``finals``: value, label, text, in order)."""
    parts: dict[float, dict[str, list[str]]] = {}
    for v, lab, text in zip(finals["value"].astype(float), finals["label"].astype(str), finals["text"].astype(str),
                            strict=True):
        parts.setdefault(v, {}).setdefault(lab, []).append(text)
    return {v: f"{symbol} = {v:g}{sep}" + sep.join(f"{lab}: " + ", ".join(texts) for lab, texts in by.items())
            for v, by in parts.items()}


def _rounded(y: np.ndarray, digits: int = 4) -> np.ndarray:
    """``y`` to about ``digits`` significant digits of its largest value: shorter numbers in the figure's JSON."""
    top = float(np.nanmax(np.abs(y))) if y.size else 0.0
    if not np.isfinite(top) or top == 0.0:
        return y
    return np.round(y, max(0, digits - 1 - int(np.floor(np.log10(top)))))


def _range(y: np.ndarray) -> list[float]:
    lo, hi = float(np.nanmin(y)), float(np.nanmax(y))
    pad = 0.05 * (hi - lo) or 0.05 * max(abs(hi), 1e-9)
    return [lo - pad, hi + pad]


def _arrays(curves: pd.DataFrame, values: Sequence[float], panels: list[str], labels: list[str]
            ) -> tuple[np.ndarray, np.ndarray]:
    """The rounds shown and ``y`` as an array (panel, value, label, round) from the tidy ``curves``."""
    v_code = {float(v): i for i, v in enumerate(values)}
    order = pd.DataFrame({"p": curves["panel"].map({p: i for i, p in enumerate(panels)}),
                          "v": curves["value"].astype(float).map(v_code),
                          "l": curves["label"].map({lab: i for i, lab in enumerate(labels)}), "t": curves["t"]})
    ranked = curves.iloc[np.lexsort((order["t"], order["l"], order["v"], order["p"]))]
    rounds = np.unique(ranked["t"].to_numpy())
    return rounds, ranked["y"].to_numpy(dtype=np.float64).reshape(len(panels), len(values), len(labels), rounds.size)


MARGIN = {"l": 60, "r": 24, "b": 110}
"""Pixels around the panels: the y tick labels (a few characters) on the left, half of the last round's label ("10k")
on the right, the round axis and the slider below. Fixed, with plotly's automargin off on every axis: measuring the
labels to fit the margins made plotly lay the chart out again, 30–50 ms of every first visit and reload of a page."""
HEIGHT = 600
"""Pixels of the scrub chart's panels, slider included (its title and legend come on top: :func:`header`)."""


def header(n_labels: int) -> int:
    """Pixels above the panels of a scrub chart of ``n_labels`` policies: the frame's title and the legend."""
    return 56 + 18 * (n_labels + 1)


def chart_height(n_labels: int, height: int = HEIGHT) -> int:
    """The height of a scrub chart of ``n_labels`` policies, in pixels (what its page keeps free while the chart is
    still computed, so nothing below it moves when it comes)."""
    return height + header(n_labels)


def scrub_figure(curves: pd.DataFrame, finals: pd.DataFrame, *, symbol: str, label: str,
                 values: Sequence[float], titles: Sequence[str], current: int = 0, height: int = HEIGHT) -> go.Figure:
    """The scrub chart: ``curves`` (value, label, panel, t, y) drawn as one frame per value (each policy its own
    dash, so lines at the same height do not hide each other), the slider on
    ``values`` starting at index ``current``; ``finals`` (value, label, text) give each frame's title.

    The frames are plain data handed to plotly unvalidated (the base figure is validated): 21 frames of
    a few hundred points each would otherwise take a second to check.
    """
    panels = [str(p) for p in pd.unique(curves["panel"])]
    labels = [str(lab) for lab in pd.unique(curves["label"])]
    colors = policy_colors(labels)
    t, y = _arrays(curves, values, panels, labels)
    y = np.stack([_rounded(y[i]) for i in range(len(panels))])
    fig = make_subplots(rows=len(panels), cols=1, shared_xaxes=True, vertical_spacing=0.07,
                        subplot_titles=tuple(titles))
    order = [(i, j) for i in range(len(panels)) for j in range(len(labels))]
    for n, (i, j) in enumerate(order):
        lab = labels[j]
        fig.add_trace(go.Scatter(x=t, y=y[i, current, j], mode="lines", name=lab, legendgroup=lab,
                                 showlegend=n < len(labels),
                                 line={"color": colors[lab], "width": 2.6 if j == 0 else 2.2,
                                       "dash": DASHES[j % len(DASHES)]},
                                 hovertemplate=f"{lab}<br>t = %{{x:,}}<br>%{{y:.4g}}<extra></extra>"),
                      row=i + 1, col=1)
        fig.update_yaxes(range=_range(y[i]), row=i + 1, col=1)
    fig.update_xaxes(title_text="round t", row=len(panels), col=1)
    fig.update_xaxes(automargin=False)  # the fixed margins hold every label (:data:`MARGIN`)
    fig.update_yaxes(automargin=False)
    said = captions(finals, symbol, "<br>")
    title = lambda v: said[float(v)]
    steps = [{"label": frame_name(float(v)), "method": "animate", "args": [[frame_name(float(v))], STEP_ARGS]}
             for v in values]
    top = header(len(labels))
    fig.update_layout(
        title={"text": title(float(values[current])), "x": 0.0, "xanchor": "left", "y": 1.0, "yref": "container",
               "yanchor": "top", "pad": {"t": 24}, "font": {"size": 13}},
        height=chart_height(len(labels), height), margin={"t": top + 10, **MARGIN},
        font={"family": FONT},
        legend={"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 1.0, "xanchor": "right"},
        hovermode="x unified",
        sliders=[{"active": int(current), "steps": steps, "x": 0.0, "len": 1.0, "y": -0.06, "yanchor": "top",
                  "pad": {"t": 30}, "currentvalue": {"prefix": f"{symbol} ({label}) = ", "visible": True,
                                                    "xanchor": "left"}}])
    spec = fig.to_dict()
    spec["frames"] = [{"name": frame_name(float(v)), "traces": list(range(len(order))),
                       "data": [{"type": "scatter", "y": y[i, k, j]} for i, j in order],
                       "layout": {"title": {"text": title(float(v))}}} for k, v in enumerate(values)]
    return go.Figure(spec, _validate=False)
