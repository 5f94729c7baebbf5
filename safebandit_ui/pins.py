"""Pin and compare: keep up to three runs of a page as faded overlays and "before → after" numbers.

A teacher pins a run, changes one control, and the class sees what moved: every pinned run is
drawn faded (dashed lines, pale bars) on every chart of the page that it was pinned with, and the
summary table shows each number as ``pinned → now (Δ)``. Pins are plain data in the session
(settings, summary rows, each chart's traces downsampled), never JAX arrays; they go into the
export bundle as ``pins.json``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


KEEP = ("type", "x", "y", "xaxis", "yaxis", "name", "mode", "orientation", "legendgroup")
SYMBOLS = {"tau": "τ", "delta": "δ", "delta_prime": "δ′", "kappa_r": "κ_r", "kappa_c": "κ_c", "alpha": "α",
           "mu0": "μ₀", "rho": "ρ", "lam": "λ", "eps": "ε"}
"""How a pin's legend entry writes a settings field (others by their own name)."""
PIN_COLOR = "#555555"


def _thin(values: Any) -> Any:
    """A trace's x or y as a plain list, at most :data:`CURVE_POINTS` values (evenly spaced)."""
    if values is None or isinstance(values, (str, dict)):
        return values
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size <= CURVE_POINTS or arr.dtype.kind not in "iuf":
        return arr.tolist()
    return arr[np.unique(np.linspace(0, arr.size - 1, CURVE_POINTS).round().astype(int))].tolist()


def _color(trace: Mapping[str, Any]) -> Any:
    """A trace's own colour (its line's, else its markers': one colour, or one per bar), so a pin keeps it."""
    for part in ("line", "marker"):
        c = (trace.get(part) or {}).get("color")
        if isinstance(c, str) or (isinstance(c, (list, tuple)) and len(c) <= CURVE_POINTS):
            return c if isinstance(c, str) else list(c)
    return None


def legend_name(pinned_settings: Mapping[str, Any], now: Mapping[str, Any]) -> str:
    """A pin's legend entry: what differs from the run shown now, e.g. ``pinned: κ_c = 0.3``."""
    keys = [k for k in pinned_settings if k != "kind" and pinned_settings.get(k) != now.get(k)]

    def show(v: Any) -> str:
        return f"{v:g}" if isinstance(v, float) else str(v)

    parts = [f"{SYMBOLS.get(k, k)} = {show(pinned_settings[k])}" for k in keys[:3]]
    return "pinned: " + (", ".join(parts) + (" …" if len(keys) > 3 else "") if parts else "same settings")


def traces_of(figures: Mapping[str, go.Figure]) -> dict[str, list[dict[str, Any]]]:
    """Each chart's traces as plain, downsampled dicts (what a pin keeps of a page's charts)."""
    out = {}
    for name, fig in figures.items():
        rows = []
        for tr in fig.to_plotly_json()["data"]:
            kept = {k: tr[k] for k in KEEP if k in tr}
            color = _color(tr)
            if color is not None:
                kept["color"] = color
            if "x" in kept and "y" in kept and len(np.atleast_1d(kept["x"])) == len(np.atleast_1d(kept["y"])):
                kept["x"], kept["y"] = _thin(kept["x"]), _thin(kept["y"])
            rows.append(kept)
        out[name] = rows
    return out


def pin(kind: str, run: Any, summary: pd.DataFrame, figures: Callable[[], Mapping[str, go.Figure]] | None = None
        ) -> None:
    """Keep this run (and its charts' traces) as a pin of ``kind``; the oldest goes when there are already three."""
    pins = _store().setdefault(kind, [])
    pins.append({"settings": to_dict(run.settings), "summary": summary.to_dict(orient="records"),
                 "curves": _curves(run), "charts": traces_of(figures()) if figures else {}})
    del pins[:-MAX_PINS]


def clear(kind: str) -> None:
    """Forget every pin of ``kind``."""
    _store().pop(kind, None)


def controls(kind: str, run: Any, summary: pd.DataFrame,
             figures: Callable[[], Mapping[str, go.Figure]] | None = None) -> None:
    """The *Pin this run* and *Clear pins* buttons, and what is pinned now."""
    left, right = st.columns(2)
    left.button("Pin this run", icon=":material/push_pin:", key=f"{kind}_pin", on_click=pin,
                args=(kind, run, summary, figures),
                help="Keep this run as a faded overlay and as the 'before' of every number, then change a control.")
    have = pinned(kind)
    right.button(f"Clear pins ({len(have)})", key=f"{kind}_unpin", on_click=clear, args=(kind,), disabled=not have)
    now = to_dict(run.settings)
    for i, p in enumerate(have, 1):
        st.caption(f"Pin {i}: {difference(p['settings'], now)}")


def overlay_all(figures: dict[str, go.Figure], kind: str, settings: Any = None) -> dict[str, go.Figure]:
    """Every chart with the same chart of every pin drawn over it, faded in each policy's own colour (dashed lines,
    hatched bars whose axis labels start with "pinned"), and one legend entry per pin naming what differs from the
    run shown now (``settings``)."""
    now = to_dict(settings) if settings is not None else {}
    for i, p in enumerate(pinned(kind), 1):
        group = f"pin{i}"
        name = legend_name(p["settings"], now)
        for chart, traces in p.get("charts", {}).items():
            fig = figures.get(chart)
            if fig is None:
                continue
            for tr in traces:
                fig.add_trace(_faded(tr, group, i))
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name, legendgroup=group, showlegend=True,
                                     line={"color": PIN_COLOR, "dash": "dash", "width": 1.5}, opacity=0.6,
                                     hoverinfo="skip"))
    return figures


def _faded(tr: Mapping[str, Any], group: str, i: int) -> dict[str, Any]:
    """A pinned trace drawn faded in its own colour, in its pin's legend group (the group's entry names the pin)."""
    color = tr.get("color")
    out = {k: v for k, v in tr.items() if k != "color"}
    out.update(name=f"{tr.get('name', '')} (pin {i})", opacity=0.4, showlegend=False, hoverinfo="skip",
               legendgroup=group)
    if tr.get("type", "scatter") in ("scatter", "scattergl"):
        out["line"] = {"dash": "dash", "width": 1.2, **({"color": color} if isinstance(color, str) else {})}
        if isinstance(color, str):
            out["marker"] = {"color": color}
    elif tr.get("type") == "bar":
        out["marker"] = {"pattern": {"shape": "/"}, **({"color": color} if color is not None else {})}
        x = out.get("x")
        if isinstance(x, list) and all(isinstance(v, str) for v in x):
            out["x"] = [f"pinned {v}" for v in x]
    return out


PERCENT = ("violation_rate",)
"""Summary columns that are shares: shown in % as everywhere else on the pages."""


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
                    fmt = captions.percent if col in PERCENT else captions.number
                    row[name] = f"{fmt(a)} → {fmt(b)} ({'+' if b >= a else '−'}{fmt(abs(b - a))})"
            rows.append(row)
    return pd.DataFrame(rows)


def export(kind: str) -> dict[str, Any]:
    """The pins of a page for the export bundle (``pins.json``); empty when nothing is pinned."""
    have = pinned(kind)
    return {"pins": have} if have else {}
