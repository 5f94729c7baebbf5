"""Sweeps: any model over two of its safety settings at once, as phase diagrams.

Widgets → a :class:`~safebandit_core.sweep.SweepSpec` → :func:`~safebandit_core.sweep.run_sweep` in the
server's shared store (every cell, seed and policy in one compiled scan) → heatmaps of what safety costs and
where it holds, a per-cell table, the downloads and the command that runs it on several machines.
"""

from __future__ import annotations

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from safebandit_core import captions, families, settings, sweep
from safebandit_core.settings import SettingsError
from safebandit_core.viz import presets as vp
from safebandit_ui import downloads, forms, links, live, pagekit, registry, shell, store, tools
from safebandit_ui.forms import Control

KIND_KEY, BASE_KEY = "sweep_kind", "sweep_base"
KINDS = tuple(k for k, f in families.FAMILIES.items() if len(f.axes) >= 2)
CONTROLS: dict[str, Control] = {"T": Control("sweep_T", "Rounds T", 100, 200_000, 500, 2000),
                                 "seeds": Control("sweep_seeds", "Seeds", 1, 200, 1, 3)}
integer = functools.partial(forms.integer, CONTROLS)
# (name, column, shown when the cell summary's columns pass, heatmap options, caption) of every phase diagram.
HEATMAPS: tuple[tuple[str, str, Callable[[pd.DataFrame], bool], dict[str, Any], str], ...] = (
    ("regret", "cum_regret_mean", lambda c: True,
     {"title": "What safety costs: cumulative regret at T (mean over seeds)", "z_title": "regret", "fmt": ".4g",
      "safe_col": None},
     "Each square is one setting (mean over seeds); the policies share one colour scale. Reading along an axis "
     "shows the price of a stricter rule."),
    ("violations", "violation_rate", lambda c: "violation_rate" in c,
     {"title": "Where safety holds: share of rounds with C_t > τ (✗: above δ)", "z_title": "violations (%)",
      "fmt": ".2f", "percent": True, "colorscale": "Reds"},
     "The share of rounds whose realized cost passed τ; ✗ marks a setting where it passed that setting's δ."),
    ("slack", "min_slack", lambda c: "violation_rate" not in c,
     {"title": "Where safety holds: the smallest slack over every run and round (✗: below 0)",
      "z_title": "min slack", "fmt": ".3g", "colorscale": "RdBu", "zmid": 0.0},
     "How far the runs stayed on the safe side of the constraint at their worst round; below 0 (✗) it broke at "
     "least once."),
    ("default_pulls", "default_pulls_mean", lambda c: "default_pulls_mean" in c,
     {"title": "How often the safe default was played: N₀(T) (mean over seeds)", "z_title": "N₀(T)", "fmt": ".4g",
      "safe_col": None, "colorscale": "Blues"},
     "Plays of the safe default by the end: the price of safety in plays. Fewer means the learner trusted its "
     "estimates sooner."),
)
TABLE = {"label": "policy", "cum_regret_mean": "final regret (mean)", "cum_regret_lo": "95 % low",
         "cum_regret_hi": "95 % high", "violation_rate": "violation rate", "min_slack": "min slack",
         "default_pulls_mean": "N₀(T)", "safe": "safe"}


def values_key(kind: str, field: str) -> str:
    """The text box (and URL parameter) of one axis' values."""
    return f"sweep_{kind}_{field}"


def restore_extra(spec: sweep.SweepSpec) -> None:
    """The restored model, axes, values and base settings (the size is :data:`CONTROLS`), and its seed."""
    fx, fy = spec.axes
    state = st.session_state
    state[KIND_KEY], state[f"sweep_x_{spec.kind}"], state[f"sweep_y_{spec.kind}"] = spec.kind, fx, fy
    for field, values in ((fx, spec.xs), (fy, spec.y_values())):
        state[values_key(spec.kind, field)] = ", ".join(f"{v:g}" for v in values)
    state[BASE_KEY] = settings.to_dict(spec.base)
    state[shell.SEED_KEY] = spec.base.base_seed
    if spec.base.precision not in (None, "auto"):
        state[shell.PRECISION_KEY] = spec.base.precision


FORM = forms.SettingsForm(
    ("sweep",), "a sweep", CONTROLS, "sweep_upload", int_fields=frozenset({"T", "seeds"}),
    values_of=lambda spec: {"T": spec.base.T, "seeds": spec.base.seeds}, restore_extra=restore_extra,
    field_names={"y_axis": "y axis", "cells": "Grid cells", **{a.field: f"{a.symbol} values"
                                                                for f in families.FAMILIES.values() for a in f.axes}})


def axis_controls(fam: Any, slot: str, index: int, other: str | None = None) -> tuple[str, str]:
    """An axis picker (without the ``other`` axis' field: a setting swept against itself is no map) and its comma
    list; returns (field, text)."""
    fields = [a.field for a in fam.axes if a.field != other]
    default = fam.axes[index].field if fam.axes[index].field != other else fields[0]
    field = links.bound(st.selectbox, f"{slot} axis", fields, index=fields.index(default),
                        key=f"sweep_{slot.lower()}_{fam.kind}",
                        format_func=lambda f: f"{fam.axis(f).symbol}: {fam.axis(f).label}")
    a = fam.axis(field)
    text = links.bound(st.text_input, f"{a.symbol} values", ", ".join(f"{v:g}" for v in a.values),
                       key=values_key(fam.kind, field), help=f"Comma-separated, each in ({a.lo:g}, {a.hi:g}).")
    return field, text


def old_param(name: str) -> str | None:
    """A sweep link's parameter under a model's older name (``sweep_x_mv``, ``sweep_mv_rho``) by its current one."""
    for stem in ("sweep_x_", "sweep_y_", "sweep_"):
        if name.startswith(stem):
            kind, sep, rest = name[len(stem):].partition("_")
            return stem + families.canonical(kind) + sep + rest
    return None


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """The model, its two axes with their values, the size and the restore box (a link written with a model's
    older name first takes its current one)."""
    links.rename(old_param, {KIND_KEY: families.canonical})
    links.may_read(*(key for f in families.FAMILIES.values() for key in (
        f"sweep_x_{f.kind}", f"sweep_y_{f.kind}", *(values_key(f.kind, a.field) for a in f.axes))))
    kind = links.bound(st.selectbox, "Model", KINDS, key=KIND_KEY, format_func=lambda k: registry.entry(k).label,
                       help="Whose safety settings to sweep.")
    fam = families.get(kind)
    x, xs = axis_controls(fam, "X", 0)
    y, ys = axis_controls(fam, "Y", 1, other=x)
    cols = st.columns(2)
    with cols[0]:
        T = integer("T", "Rounds per run.")
    with cols[1]:
        seeds = integer("seeds", "Independent runs of every setting.")
    restored = st.session_state.get(BASE_KEY)
    base = fam.sweep_base() if fam.sweep_base is not None else fam.settings_cls()
    if restored and restored.get("kind") == fam.settings_cls.KIND:
        base = fam.from_dict(restored)
        st.caption("The other settings come from the restored file.")
        st.button("Use the page's defaults", key="sweep_forget", on_click=st.session_state.pop, args=(BASE_KEY,))
    forms.restore_section(FORM)
    return {"kind": kind, "x": x, "y": y, "xs": xs, "ys": ys, "base": dataclasses.replace(base, T=T, seeds=seeds)}


def build(v: dict[str, Any], ctx: shell.RunContext) -> sweep.SweepSpec:
    """The checked sweep, which must fit the device's memory (raises :class:`SettingsError`)."""
    fam = families.get(v["kind"])
    ax, ay = fam.axis(v["x"]), fam.axis(v["y"])
    if ax.field == ay.field:
        raise SettingsError("y_axis", f"another setting than the x axis ({ax.symbol})", ay.symbol)
    xs = sweep.grid_values(v["xs"], ax.field, ax.lo, ax.hi)
    ys = sweep.grid_values(v["ys"], ay.field, ay.lo, ay.hi)
    spec = sweep.SweepSpec(fam.kind, v["base"], xs, ys, ax.field, ay.field).scaled(
        base_seed=ctx.base_seed, precision=ctx.precision).validate()
    fam.check_fits(spec.base, ctx.device, cells=len(spec.cells()), limit=store.run_limit())
    return spec


def phase_diagrams(spec: sweep.SweepSpec, per_cell: pd.DataFrame) -> dict[str, Any]:
    """Every heatmap of :data:`HEATMAPS` whose column the cell summary has, by name."""
    fx, fy = spec.axes
    kw = {"x_title": sweep.symbol(fx), "y_title": sweep.symbol(fy)}
    return {name: vp.heatmap_figure(per_cell, fx, fy, col, **opts, **kw)
            for name, col, shown, opts, _ in HEATMAPS if shown(per_cell.columns)}


def show(spec: sweep.SweepSpec, run: Any, stored: bool, seconds: float) -> None:
    """The phase diagrams with their words, the verdict per policy, the table, downloads and the CLI line."""
    st.caption(f"{sweep.describe(spec)} on **{run.device}** in **{run.precision}**, in {seconds:.1f} s"
               + (" (already computed on this server: shared, not recomputed)" if stored else "") + ".")
    per_cell = sweep.cell_summary(run)
    st.markdown(captions.safety_held(per_cell, spec.base.T))
    figures = phase_diagrams(spec, per_cell)
    notes = {name: note for name, *_, note in HEATMAPS}
    for name, fig in figures.items():
        pagekit.chart(st, fig, f"sweep_{name}", keep=False)
        st.caption(notes[name])
    st.subheader("Every cell")
    fx, fy = spec.axes
    names = {fx: sweep.symbol(fx), fy: sweep.symbol(fy), **TABLE}
    table = per_cell[[c for c in names if c in per_cell.columns]].rename(columns=names)
    shown = ("cum_regret_mean", "cum_regret_lo", "cum_regret_hi", "violation_rate", "min_slack",
             "default_pulls_mean")
    pagekit.number_table(table, {TABLE[c]: "%.4g" for c in shown if TABLE[c] in table})
    stem = f"sweep_{spec.kind}_{fx}_{fy}_T{spec.base.T}"
    downloads.downloads(spec, lambda: families.tidy(run), stem, summary=per_cell, figures=lambda: figures,
                        device=run.device, precision=run.precision)
    st.markdown("**On several machines.** Save the *Settings JSON* above (raise T or the seeds in it for the full "
                "size), copy it to every machine, and run there, with N the number of machines, I = 0 … N − 1 each "
                "machine's number and HOST:PORT the first machine's address:")
    st.code(tools.sweep_command(f"{stem}.json"), language="bash")


def main() -> None:
    """The page."""
    ctx, v = pagekit.page_start(
        "Sweeps",
        "A sweep runs every combination of two settings at once and maps the result: **where the safety guarantee "
        "holds** and **what it costs** in regret. Every setting, seed and policy runs in one compiled computation, "
        "split across devices when several are available.",
        "Sweep", controls)
    spec = forms.settings_or_error(FORM, lambda: build(v, ctx))
    if spec is None:
        return
    n = sweep.sizes(spec)
    units = n["cells"] * n["policies"] * n["seeds"] * n["T"]
    out = forms.settings_or_error(FORM, lambda: live.shared(store.key_of(spec, ctx.device), units,
                                                       lambda tick: sweep.run_sweep(spec, ctx.device, progress=tick)))
    if out is not None:
        show(spec, *out)


main()
