"""Paper replays: every synthetic experiment of both papers as a one-click preset, sweeps as phase diagrams,
and the regret rates of the theory against the runs.

Widgets → a :class:`~safebandit_core.presets.PresetRun` or :class:`~safebandit_core.sweep.SweepSpec` (plain
data in session state) → a cached core run, drawn with a progress bar the first time → figures.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from safebandit_core import export, presets, sweep
from safebandit_core.conservative.mv_sim import MVSettings
from safebandit_core.conservative.sim import ConservativeSettings
from safebandit_core.dose.sim import DoseSettings
from safebandit_core.settings import SettingsError
from safebandit_core.viz import replay as vr
from safebandit_ui import shell

PRESET_KEY = "replay_preset"
REQUEST_KEY = "replay_request"
SWEEP_REQUEST_KEY = "sweep_request"
THEORY_REQUEST_KEY = "theory_request"
UPLOAD_KEY = "replay_upload"
UPLOAD_MSG_KEY = "replay_upload_message"
BIG_WORK = 50_000_000
MODEL_NAMES = {"dose": "Dose model (seed 000): τ × δ", "gencb": "GenCB (seed 001): α × μ₀",
               "mv": "MV-CBP (seed 001): α × ρ"}
PROBLEM_NAMES = {"cmab": "CMAB (K arms)", "clb": "CLB (linear, K = 2d arms)", "cccb": "CCCB (combinatorial, K = 2d)"}
SWEEP_DEFAULTS: dict[str, dict[str, Any]] = {
    "dose": {"x": "0.1, 0.2, 0.5, 1.0", "y": "0.01, 0.05, 0.1, 0.2", "T": 1000, "seeds": 3},
    "gencb": {"x": "0.01, 0.05, 0.1, 0.2", "y": "0.5, 0.6, 0.7", "T": 2000, "seeds": 3},
    "mv": {"x": "0.05, 0.1, 0.2", "y": "10, 30, 60, 100", "T": 2000, "seeds": 3},
}


class _Missing(Exception):
    """Raised to look a result up without computing it."""


@st.cache_data(max_entries=12, show_spinner=False)
def _kept(key: str, _compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The result for ``key`` (request + device): computed once by ``_compute``, then copied to callers."""
    return _compute()


def _absent() -> dict[str, Any]:
    raise _Missing


def obtain(key: str, compute: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], bool]:
    """The stored result for ``key`` and True, or a freshly computed (and stored) one and False."""
    try:
        return _kept(key, _absent), True
    except _Missing:
        made = compute()
        return _kept(key, lambda: made), False


def queue(key: str, request: dict[str, Any]) -> None:
    """Button callback: remember the run a button asks for (plain data), so it survives any rerun."""
    st.session_state[key] = request


def progress_bar(first: str) -> tuple[Any, Callable[[float, str], None]]:
    """A progress bar and the callback that moves it."""
    bar = st.progress(0.0, text=first)
    return bar, lambda fraction, text: bar.progress(min(max(fraction, 0.0), 1.0), text=text)


def error_line(err: SettingsError, names: dict[str, str] | None = None) -> str:
    """A settings error in words a person can act on."""
    shown = "" if err.value is None else f" (now {err.value!r})"
    return f"**{(names or {}).get(err.field, err.field)}** must be {err.allowed}{shown}."


# ------------------------------------------------------------------------------------------------ upload
def restore_from_upload() -> None:
    """Callback of the uploader: recognise the file (settings JSON or a bundle) and queue the run it describes."""
    file = st.session_state.get(UPLOAD_KEY)
    if file is None:
        st.session_state.pop(UPLOAD_MSG_KEY, None)
        return
    try:
        kind, s = export.load_settings(file.getvalue())
    except SettingsError as err:
        st.session_state[UPLOAD_MSG_KEY] = ("error", f"{file.name}: {error_line(err)}")
        return
    if kind == "preset":
        st.session_state[PRESET_KEY] = s.preset
        st.session_state[f"replay_seeds_{s.preset}"] = s.seeds
        st.session_state[f"replay_T_{s.preset}"] = s.T
        st.session_state["replay_full"] = False
        st.session_state[REQUEST_KEY] = {"run": export.settings_dict(s), "device": None}
        where = "the preset tab"
    else:
        spec = s if kind == "sweep" else single_cell(kind, s)
        st.session_state[SWEEP_REQUEST_KEY] = {"spec": spec.to_dict(), "device": None}
        where = "the sweep tab"
    st.session_state[UPLOAD_MSG_KEY] = ("success", f"Re-created the {kind} run of {file.name}: see {where}.")


def single_cell(kind: str, s: Any) -> sweep.SweepSpec:
    """One model's settings as a one-cell sweep."""
    if kind == "dose":
        return sweep.SweepSpec("dose", s, (s.tau,), (s.delta,))
    if kind == "mv":
        return sweep.SweepSpec("mv", s, (s.alpha,), (s.rho,))
    return sweep.SweepSpec("gencb", s, (s.alpha,), () if s.mu0 is None else (s.mu0,))


def upload_box() -> None:
    """The uploader and its message."""
    with st.expander("Re-create a run from a settings file", icon=":material/upload_file:"):
        st.file_uploader("Settings JSON or a whole bundle (zip) saved by this app", type=["json", "zip"],
                         key=UPLOAD_KEY, on_change=restore_from_upload,
                         help="Preset runs, sweeps and the dose, conservative and mean-variance pages' settings "
                              "are all recognised.")
        message = st.session_state.get(UPLOAD_MSG_KEY)
        if message:
            (st.error if message[0] == "error" else st.success)(message[1])


# ------------------------------------------------------------------------------------------------ presets
def preset_run(ctx: shell.RunContext) -> presets.PresetRun:
    """The preset run the widgets describe now (read from session state, so a button callback sees the latest)."""
    name = st.session_state.get(PRESET_KEY, presets.NAMES[0])
    p = presets.get(name)
    if st.session_state.get("replay_full", False):
        seeds, T = p.full_seeds, p.full_T
    else:
        seeds = int(st.session_state.get(f"replay_seeds_{name}", p.quick_seeds))
        T = int(st.session_state.get(f"replay_T_{name}", p.quick_T))
    return presets.PresetRun(preset=name, seeds=seeds, T=T, base_seed=ctx.base_seed, precision=ctx.precision)


def queue_preset(ctx: shell.RunContext) -> None:
    """Run button callback: queue the preset run the widgets describe."""
    queue(REQUEST_KEY, {"run": export.settings_dict(preset_run(ctx)), "device": ctx.device})


def preset_controls(ctx: shell.RunContext) -> None:
    """Pick a preset and its size; the Run button queues that run."""
    name = st.selectbox("Experiment", presets.NAMES, key=PRESET_KEY,
                        format_func=lambda n: f"Seed {presets.PRESETS[n].paper} · {presets.PRESETS[n].artefact}: "
                                              f"{presets.PRESETS[n].title}")
    p = presets.get(name)
    left, mid, right = st.columns([1, 1, 2])
    left.number_input("Seeds (runs per setting)", 1, presets.MAX_SEEDS, p.quick_seeds, 1, key=f"replay_seeds_{name}")
    mid.number_input("Rounds T", presets.MIN_T, presets.MAX_T, p.quick_T, 500, key=f"replay_T_{name}")
    right.checkbox(f"Paper size: {p.full_seeds} seeds × T = {p.full_T:,}", key="replay_full",
                   help="Slow on a CPU (minutes for the seed-001 grids); seconds on a GPU.")
    run = preset_run(ctx)
    work = run.seeds * run.T * p.n_cells * len(p.sweeps[0].policies)
    if work > BIG_WORK:
        st.info(f"A large run: {work / 1e6:,.0f} million policy-rounds.", icon=":material/hourglass:")
    with st.expander("What the paper leaves open, and what we chose"):
        for line in p.choices:
            st.markdown(f"- {line}")
    st.button("Run this experiment", key="replay_run", type="primary", icon=":material/play_arrow:",
              on_click=queue_preset, args=(ctx,))


def compute_preset(run: presets.PresetRun, device: str) -> dict[str, Any]:
    """Run a preset with a progress bar; keep only what the page shows and the export bundle."""
    bar, tick = progress_bar("Compiling for these shapes (only the first run of a shape)…")
    result = presets.run_preset(run, device=device, progress=tick)
    bar.empty()
    return {"summary": result.summary(), "cells": result.cells(), "claims": presets.claim_checks(result),
            "figures": export.preset_figures(result), "bundle": export.preset_bundle(result),
            "seconds": result.seconds, "device": result.device, "precision": result.precision}


def show_preset(run: presets.PresetRun, out: dict[str, Any], from_cache: bool) -> None:
    """The figure in the paper's style, the paper-vs-run table, the claims, the summary and the downloads."""
    p = presets.get(run.preset)
    st.caption(f"{p.artefact} of seed {p.paper} on **{out['device']}** in **{out['precision']}**: {run.seeds} "
               f"seeds × T = {run.T:,} × {p.n_cells} setting{'s' if p.n_cells > 1 else ''} in {out['seconds']:.1f} s"
               + (" (stored result)" if from_cache else "") + ".")
    figs = out["figures"]
    cells = out["cells"]
    if p.figure == "regret_minmax":
        names = cells["name"].tolist()
        chosen = st.selectbox("Setting", names, key=f"replay_cell_{run.preset}") if len(names) > 1 else names[0]
        st.plotly_chart(figs[f"regret_{presets.slug(chosen)}"], key="replay_main")
        st.caption("As in seed 001's figures: the thick line is the mean over runs, the thin ones the best and worst "
                   "run. The dashed line is what a learner earning exactly the baseline (1 − α)·μ₀ each round would "
                   "lose; the right panel enlarges the exploration phase.")
        for key in (k for k in figs if k.startswith("grid_regret")):
            st.plotly_chart(figs[key], key=f"replay_{key}")
    else:
        for key, fig in figs.items():
            st.plotly_chart(fig, key=f"replay_{key}")
        if p.figure == "violation_table":
            st.caption("Table 1 of seed 000 as a chart: the share of rounds whose realized cost passed τ. HPC-UCB "
                       "stays under the allowed δ (dashed); On-Expectation, which only keeps the average cost "
                       "below τ, does not. The shaded band is the range the paper reports for On-Expectation.")
        else:
            st.caption("Figure 2 of seed 000: cumulative regret, mean ± 1 std over seeds. ε-Greedy spends half its "
                       "rounds at the known-safe dose yet learns about as fast.")
    summary = out["summary"]
    if p.paper_numbers:
        st.markdown("**Paper vs this run**")
        st.dataframe(presets.paper_table(summary), hide_index=True, key="replay_paper_table")
        st.caption("'consistent' means the paper's number lies inside this run's 95 % interval, or this run's value "
                   "inside the paper's range.")
    if out["claims"]:
        st.markdown("**The paper's claims, checked on this run**")
        for text, ok in out["claims"]:
            mark = {True: ":material/check_circle:", False: ":material/cancel:"}.get(ok, ":material/remove:")
            st.markdown(f"{mark} {text}")
    with st.expander("Every summary row"):
        shown = summary.drop(columns=["preset", "paper_low", "paper_high"])
        st.dataframe(shown, hide_index=True, key="replay_summary")
    downloads(out["bundle"], export.settings_dict(run), f"{run.preset}_T{run.T}_seeds{run.seeds}", "preset")


def downloads(bundle: bytes, settings: dict[str, Any], stem: str, key: str) -> None:
    """The zip bundle and the settings JSON."""
    left, right = st.columns(2)
    left.download_button("Everything (zip: per-round Parquet, summary CSV, settings, figures)", bundle, f"{stem}.zip",
                         "application/zip", on_click="ignore", icon=":material/folder_zip:", key=f"dl_zip_{key}")
    right.download_button("Settings JSON", json.dumps(settings, indent=2, sort_keys=True), f"{stem}.json",
                          "application/json", on_click="ignore", icon=":material/settings:", key=f"dl_json_{key}")
    st.caption("Upload either file under *Re-create a run* to run it again exactly.")


def preset_tab(ctx: shell.RunContext) -> None:
    """Pick, run and show a preset."""
    st.markdown("Each experiment of the two papers, ready to run. It starts at a reduced size that takes seconds "
                "on a laptop; raise the seeds and rounds, or tick *Paper size*, to get closer to the paper.")
    preset_controls(ctx)
    request = st.session_state.get(REQUEST_KEY)
    if request is None:
        st.info("Press **Run this experiment** to replay it.", icon=":material/science:")
        return
    request = {**request, "device": request["device"] or ctx.device}
    try:
        _, run = export.load_settings(json.dumps(request["run"]))
    except SettingsError as err:
        st.error(error_line(err))
        return
    key = json.dumps(request, sort_keys=True)
    out, from_cache = obtain(key, lambda: compute_preset(run, request["device"]))
    show_preset(run, out, from_cache)


# ------------------------------------------------------------------------------------------------ sweeps
def sweep_widgets() -> None:
    """The sweep's model, grid and size widgets (their values are read by :func:`sweep_spec`)."""
    model = st.radio("Model", list(MODEL_NAMES), format_func=MODEL_NAMES.get, key="sweep_model", horizontal=True)
    defaults = SWEEP_DEFAULTS[model]
    fx, fy = sweep.AXES[model]
    cols = st.columns(4)
    cols[0].number_input("Seeds", 1, 200, defaults["seeds"], 1, key=f"sweep_seeds_{model}")
    cols[1].number_input("Rounds T", 100, 200_000, defaults["T"], 500, key=f"sweep_T_{model}")
    if model == "dose":
        cols[2].number_input("Context dimension d", 1, 64, 5, 1, key="sweep_d")
    elif model == "gencb":
        problem = cols[2].selectbox("Problem", list(PROBLEM_NAMES), format_func=PROBLEM_NAMES.get,
                                    key="sweep_problem")
        if problem == "cmab":
            cols[3].number_input("Arms K", 2, 500, 24, 1, key="sweep_K")
        else:
            cols[3].number_input("Dimension d (K = 2d)", 2, 16, 5, 1, key="sweep_lin_d")
    else:
        cols[2].number_input("Arms K", 1, 500, 12, 1, key="sweep_mv_K")
    left, right = st.columns(2)
    left.text_input(f"{sweep.SYMBOLS[fx]} values", defaults["x"], key=f"sweep_x_{model}")
    right.text_input(f"{sweep.SYMBOLS[fy]} values", defaults["y"], key=f"sweep_y_{model}")


def sweep_spec(ctx: shell.RunContext) -> sweep.SweepSpec:
    """The sweep the widgets describe now; :class:`SettingsError` naming a bad value."""
    state = st.session_state
    model = state.get("sweep_model", "dose")
    defaults = SWEEP_DEFAULTS[model]
    fx, fy = sweep.AXES[model]
    seeds = int(state.get(f"sweep_seeds_{model}", defaults["seeds"]))
    T = int(state.get(f"sweep_T_{model}", defaults["T"]))
    if model == "dose":
        base: Any = DoseSettings(policies=("hpucb", "on_expectation"), d=int(state.get("sweep_d", 5)), T=T,
                                 seeds=seeds, kappa_r=presets.S000_BASE.kappa_r, kappa_c=presets.S000_BASE.kappa_c)
        ranges = {fx: (0.0, 10.0), fy: (0.0, 1.0)}
    elif model == "gencb":
        problem = state.get("sweep_problem", "cmab")
        if problem == "cmab":
            base = ConservativeSettings(problem="cmab", K=int(state.get("sweep_K", 24)), T=T, seeds=seeds)
        else:
            d = int(state.get("sweep_lin_d", 5))
            base = ConservativeSettings(problem=problem, d=d, K=2 * d, T=T, seeds=seeds)
        ranges = {fx: (0.0, 1.0), fy: (0.0, 2.0 if problem == "cccb" else 1.0)}
    else:
        base = MVSettings(K=int(state.get("sweep_mv_K", 12)), T=T, seeds=seeds)
        ranges = {fx: (0.0, 1.0), fy: (0.0, 1e6)}
    xs = sweep.grid_values(state.get(f"sweep_x_{model}", defaults["x"]), sweep.SYMBOLS[fx], *ranges[fx])
    ys = sweep.grid_values(state.get(f"sweep_y_{model}", defaults["y"]), sweep.SYMBOLS[fy], *ranges[fy])
    spec = sweep.SweepSpec(model, base, xs, ys).scaled(base_seed=ctx.base_seed, precision=ctx.precision)
    return spec.validate()


def queue_sweep(ctx: shell.RunContext) -> None:
    """Run-sweep button callback: queue the sweep the widgets describe (if they describe a valid one)."""
    try:
        queue(SWEEP_REQUEST_KEY, {"spec": sweep_spec(ctx).to_dict(), "device": ctx.device})
    except SettingsError:
        return


def sweep_controls(ctx: shell.RunContext) -> None:
    """The sweep's widgets, what they describe, and the button that queues it (bad input is explained instead)."""
    sweep_widgets()
    try:
        spec = sweep_spec(ctx)
    except SettingsError as err:
        st.error(error_line(err), icon=":material/error:")
        return
    st.caption("This sweep: " + sweep.describe(spec) + ", in one compiled, vectorised run"
               + (" per policy." if spec.model == "gencb" else "."))
    st.button("Run sweep", key="sweep_run", type="primary", icon=":material/grid_on:", on_click=queue_sweep,
              args=(ctx,))


def compute_sweep(spec: sweep.SweepSpec, device: str) -> dict[str, Any]:
    """Run a sweep with a progress bar; keep its summaries and the export bundle."""
    bar, tick = progress_bar("Compiling for these shapes (only the first run of a shape)…")
    result = sweep.run_sweep(spec, device=device, progress=tick)
    bar.empty()
    per_cell = sweep.cell_summary(result)
    figures = sweep_figures(spec, per_cell)
    frames = {f"cell{i}": sweep.round_frame(result, i) for i in range(len(result.cells))}
    rows = sum(len(f) for f in frames.values())
    if rows > export.MAX_BUNDLE_ROWS:
        frames = {"per_seed": sweep.seed_frame(result)}
    bundle = export.bundle(frames, per_cell, spec.to_dict(), figures)
    return {"cell_summary": per_cell, "figures": figures, "bundle": bundle, "seconds": result.seconds,
            "device": result.device, "precision": result.precision}


def sweep_figures(spec: sweep.SweepSpec, per_cell: pd.DataFrame) -> dict[str, Any]:
    """The phase diagrams of a sweep: what safety costs (regret) and whether it held."""
    fx, fy = spec.axes
    kw = {"x_title": sweep.SYMBOLS[fx], "y_title": sweep.SYMBOLS[fy]}
    figs = {"regret": vr.heatmap_figure(per_cell, fx, fy, "regret_mean", title="What safety costs: cumulative "
                                        "regret at T (mean over seeds)", z_title="regret", fmt=".4g", safe_col=None,
                                        **kw)}
    if spec.model == "dose":
        figs["violations"] = vr.heatmap_figure(per_cell, fx, fy, "violation_rate", title="Where safety holds: "
                                               "violation rate (✗: above δ)", z_title="violations (%)", fmt=".2f",
                                               percent=True, colorscale="Reds", **kw)
    else:
        figs["slack"] = vr.heatmap_figure(per_cell, fx, fy, "min_slack", title="Where safety holds: the smallest "
                                          "slack over every run and round (✗: below 0)", z_title="min slack",
                                          fmt=".3g", colorscale="RdBu", zmid=0.0, **kw)
        figs["default_pulls"] = vr.heatmap_figure(per_cell, fx, fy, "default_pulls", title="How often the safe "
                                                  "default arm was played: N₀(T)", z_title="N₀(T)", fmt=".4g",
                                                  safe_col=None, colorscale="Blues", **kw)
    return figs


SWEEP_CAPTIONS = {
    "regret": "Each square is one setting; darker is less regret. Reading along an axis shows the price of a "
              "stricter rule.",
    "violations": "HPC-UCB's squares stay below δ everywhere; On-Expectation's are marked ✗ where its violation "
                  "rate passes the δ of that row.",
    "slack": "The slack is how far the run's reward stayed above the baseline line; below 0 (✗) the constraint "
             "broke. GenCB and MV-CUCB (when ρ > 2/(α μ₀)) never break it; the unconstrained policies do.",
    "default_pulls": "Default pulls are the price of safety in plays: fewer means the learner explored sooner.",
}


def sweep_tab(ctx: shell.RunContext) -> None:
    """Configure, run and show a sweep as phase diagrams."""
    st.markdown("A sweep runs every combination of two settings at once and maps the result: **where the safety "
                "guarantee holds** and **what it costs** in regret. Every setting and seed runs in one compiled, "
                "vectorised computation, split across devices when several are available.")
    sweep_controls(ctx)
    request = st.session_state.get(SWEEP_REQUEST_KEY)
    if request is None:
        return
    request = {**request, "device": request["device"] or ctx.device}
    try:
        spec = sweep.SweepSpec.from_dict(request["spec"])
    except SettingsError as err:
        st.error(error_line(err))
        return
    key = json.dumps(request, sort_keys=True)
    out, from_cache = obtain(key, lambda: compute_sweep(spec, request["device"]))
    st.caption(f"{sweep.describe(spec)} on **{out['device']}** in **{out['precision']}**: {out['seconds']:.1f} s"
               + (" (stored result)" if from_cache else "") + ".")
    for name, fig in out["figures"].items():
        st.plotly_chart(fig, key=f"sweep_{name}")
        st.caption(SWEEP_CAPTIONS[name])
    with st.expander("Every cell"):
        st.dataframe(out["cell_summary"], hide_index=True, key="sweep_table")
    fx, fy = spec.axes
    downloads(out["bundle"], spec.to_dict(), f"sweep_{spec.model}_{fx}_{fy}_T{spec.base.T}", "sweep")


# ------------------------------------------------------------------------------------------------ theory
def compute_theory(T: int, seeds: int, ctx_seed: int, precision: str, device: str) -> dict[str, Any]:
    """Run the theory overlays with a progress bar; keep the figures."""
    bar, tick = progress_bar("Compiling…")
    res = presets.run_theory(T, seeds, ctx_seed, precision, device, progress=tick)
    bar.empty()
    return {"loglog": vr.loglog_figure(res.regret, res.slopes, res.fit_from), "slopes": res.slopes,
            "n0": vr.default_pulls_figure(res.default_pulls), "seconds": res.seconds, "device": res.device}


def queue_theory(ctx: shell.RunContext) -> None:
    """Run-overlays button callback: queue the horizon and seeds the widgets show now."""
    queue(THEORY_REQUEST_KEY, {"T": int(st.session_state.get("theory_T", 4000)),
                               "seeds": int(st.session_state.get("theory_seeds", 3)), "base_seed": ctx.base_seed,
                               "precision": ctx.precision, "device": ctx.device})


def theory_tab(ctx: shell.RunContext) -> None:
    """Regret growth against √T (seed 000 Theorem 2) and GenCB's N₀(T) against T."""
    st.markdown("The theorems say how results should grow with the horizon T. One run of length T shows the "
                "whole curve, because both algorithms are *anytime*: their first t rounds are a run of horizon t.")
    cols = st.columns(3)
    cols[0].number_input("Horizon T", 500, 200_000, 4000, 1000, key="theory_T")
    cols[1].number_input("Seeds", 1, 100, 3, 1, key="theory_seeds")
    st.button("Run the overlays", key="theory_run", icon=":material/show_chart:", on_click=queue_theory, args=(ctx,))
    request = st.session_state.get(THEORY_REQUEST_KEY)
    if request is None:
        return
    key = json.dumps({"theory": request}, sort_keys=True)
    out, _ = obtain(key, lambda: compute_theory(request["T"], request["seeds"], request["base_seed"],
                                                request["precision"], request["device"]))
    st.plotly_chart(out["loglog"], key="theory_loglog")
    slopes = ", ".join(f"{lab} {s:.2f}" for lab, (s, _) in out["slopes"].items())
    st.caption(f"On log–log axes a rate T^a is a straight line of slope a. Fitted slopes: {slopes}. Seed 000's "
               "Theorem 2 bounds HPC-UCB's regret by √T up to log factors (slope ½, dotted); a fitted slope near "
               "or below ½ agrees with it. ε-Greedy keeps spending half its rounds at the known-safe dose, so its "
               "slope drifts towards 1. Settings: seed 000's synthetic model, d = 5, τ = 0.5.")
    st.plotly_chart(out["n0"], key="theory_n0")
    st.caption("GenCB's default pulls N₀(T) level off: the price of its safety does not grow with T (seed 001's "
               "T-independent conservative regret). ConUCB, which checks its constraint with lower confidence "
               "bounds, keeps playing the default arm as T grows. CMAB, K = 10, α = 0.1, μ₀ = 0.7.")


def main() -> None:
    """The page."""
    ctx = shell.current()
    st.title("Paper replays and sweeps")
    st.markdown("Re-make the synthetic experiments of both papers with one click, next to the numbers they "
                "report; then go beyond them: sweep the safety settings and watch where each guarantee holds "
                "and what it costs.")
    upload_box()
    preset, grid, theory = st.tabs(["Replay a preset", "Sweep: where safety holds", "Theory: how results grow"])
    with preset:
        preset_tab(ctx)
    with grid:
        sweep_tab(ctx)
    with theory:
        theory_tab(ctx)


main()
