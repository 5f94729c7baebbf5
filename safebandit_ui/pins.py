"""Pin and compare: keep up to three runs of a page as faded overlays and "before → after" numbers.

A teacher pins a run, changes one control, and the class sees what moved: every pinned run is
drawn faded and dashed on the regret chart, and the summary table shows each number as
``pinned → now (Δ)``. Pins are plain data in the session (settings, summary rows, a
downsampled curve per policy), never JAX arrays; they go into the export bundle as ``pins.json``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import captions
from safebandit_core.settings import to_dict

MAX_PINS = 3
CURVE_POINTS = 300
KEY = "pins"


def _store() -> dict[str, list[dict[str, Any]]]:
    return st.session_state.setdefault(KEY, {})


def pinned(kind: str) -> list[dict[str, Any]]:
    """The pins of a page (oldest first)."""
    return list(_store().get(kind, []))


def _curves(run: Any, field: str = "cum_regret") -> dict[str, dict[str, list[float]]]:
    out = run.outputs[field]  # (policy, seed, t)
    T = out.shape[-1]
    idx = np.unique(np.linspace(0, T - 1, min(T, CURVE_POINTS)).round().astype(int))
    mean = out.mean(axis=1)[:, idx]
    return {label: {"t": (idx + 1).tolist(), "y": mean[i].astype(float).tolist()}
            for i, label in enumerate(run.labels)}


def difference(a: dict[str, Any], b: dict[str, Any]) -> str:
    """The settings that differ between two settings dicts, as ``field=value`` of ``a`` (or "same settings")."""
    keys = [k for k in a if k != "kind" and a.get(k) != b.get(k)]
    return ", ".join(f"{k}={a[k]}" for k in keys[:4]) + (" …" if len(keys) > 4 else "") if keys else "same settings"


def pin(kind: str, run: Any, summary: pd.DataFrame) -> None:
    """Keep this run as a pin of ``kind`` (the oldest goes when there are already three)."""
    pins = _store().setdefault(kind, [])
    pins.append({"settings": to_dict(run.settings), "summary": summary.to_dict(orient="records"),
                 "curves": _curves(run)})
    del pins[:-MAX_PINS]


def clear(kind: str) -> None:
    """Forget every pin of ``kind``."""
    _store().pop(kind, None)


def controls(kind: str, run: Any, summary: pd.DataFrame) -> None:
    """The *Pin this run* and *Clear pins* buttons, and what is pinned now."""
    left, right = st.columns(2)
    left.button("📌 Pin this run", key=f"{kind}_pin", on_click=pin, args=(kind, run, summary),
                help="Keep this run as a faded overlay and as the 'before' of every number, then change a control.")
    have = pinned(kind)
    right.button(f"Clear pins ({len(have)})", key=f"{kind}_unpin", on_click=clear, args=(kind,), disabled=not have)
    now = to_dict(run.settings)
    for i, p in enumerate(have, 1):
        st.caption(f"Pin {i}: {difference(p['settings'], now)}")


def overlay(fig: go.Figure, kind: str) -> go.Figure:
    """The figure with every pinned run's mean cumulative regret drawn faded and dashed."""
    for i, p in enumerate(pinned(kind), 1):
        for label, c in p["curves"].items():
            fig.add_trace(go.Scatter(x=c["t"], y=c["y"], mode="lines", name=f"{label} (pin {i})", opacity=0.45,
                                     line={"dash": "dash", "width": 1.5}, hoverinfo="skip"))
    return fig


def compare(kind: str, summary: pd.DataFrame, columns: dict[str, str]) -> pd.DataFrame | None:
    """``pinned → now (Δ)`` for each pin, policy and summary column (``columns``: column -> shown name)."""
    have = pinned(kind)
    if not have:
        return None
    rows = []
    now = summary.set_index("policy")
    for i, p in enumerate(have, 1):
        before = pd.DataFrame(p["summary"]).set_index("policy")
        for policy in now.index.intersection(before.index):
            row = {"pin": i, "policy": now.loc[policy, "label"]}
            for col, name in columns.items():
                if col in now and col in before:
                    a, b = float(before.loc[policy, col]), float(now.loc[policy, col])
                    row[name] = f"{captions.number(a)} → {captions.number(b)} ({'+' if b >= a else '−'}" \
                                f"{captions.number(abs(b - a))})"
            rows.append(row)
    return pd.DataFrame(rows)


def export(kind: str) -> dict[str, Any]:
    """The pins of a page for the export bundle (``pins.json``); empty when nothing is pinned."""
    have = pinned(kind)
    return {"pins": have} if have else {}
