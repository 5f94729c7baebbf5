"""Paper presets: each synthetic experiment of both papers in one click, with the paper-vs-run verdicts.

Widgets → a :class:`~safebandit_core.presets.PresetRun` → one run in the server's shared store
(:mod:`safebandit_ui.store`) → the paper's figures, the claims checked on the run
(:func:`~safebandit_core.presets.claim_table`), the paper's numbers beside ours, and the bundle.
"""

from __future__ import annotations

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import streamlit as st

from safebandit_core import device, export, presets, report, sweep
from safebandit_core.viz import presets as vp
from safebandit_ui import downloads, forms, links, live, pagekit, shell, store, tools
from safebandit_ui.forms import Control

NAME_KEY, FULL_KEY = "preset", "preset_full"
CONTROLS: dict[str, Control] = {
    "seeds": Control("preset_seeds", "Seeds (runs per setting)", 1, presets.MAX_SEEDS, 1),
    "T": Control("preset_T", "Rounds T", presets.MIN_T, presets.MAX_T, 1000),
}
CLAIM_COLUMNS = ["claim", "statement", "paper", "ours", "verdict", "why"]
# Claims about GenCB against its baseline: their presets get the crossover chart over horizons.
CROSSOVER_CHECKS = frozenset({"gencb_beats_baseline", "default_pulls_level_off"})
REQUEST_KEY, CROSSOVER_KEY = "preset_request", "crossover_request"
FIGURE_NOTES = {
    "violation_table": "The paper's Table 1 as a chart: the share of rounds whose realized cost passed τ, per τ and "
                       "d, with 95 % intervals over seeds. The dashed line is the allowed δ; the shaded band and the "
                       "dotted line are the values the paper prints.",
    "learning_curves": "The paper's Figure 2: cumulative regret, mean ± 1 std over seeds, one panel per d. A curve "
                       "that bends over has learned; compare the heights at the last round.",
    "regret_minmax": "As in the paper's figures: the thick line is the mean over runs, the thin ones the best and "
                     "worst run. The dashed line is the regret of a learner that earns exactly the baseline each "
                     "round; the right panel enlarges the first rounds, where the learner explores.",
}


def title(name: str) -> str:
    """A preset as the menu shows it: the paper's short title, the artefact and what it compares."""
    p = presets.get(name)
    return f"{p.paper} · {p.artefact}: {p.title}"


def quick_size() -> None:
    """The preset selector's callback: a newly chosen preset starts at its own quick size."""
    p = presets.get(st.session_state[NAME_KEY])
    st.session_state[CONTROLS["seeds"].key], st.session_state[CONTROLS["T"].key] = p.quick_seeds, p.quick_T
    for c in CONTROLS.values():
        st.session_state.pop(stash_key(c.key), None)


def stash_key(key: str) -> str:
    """Where a size box keeps its own value while *Paper size* shows the paper's in it."""
    return f"{key}_before_paper_size"


def restore_extra(run: presets.PresetRun) -> None:
    """The restored preset and whether it is the paper's size (the sizes are :data:`CONTROLS`)."""
    p = presets.get(run.preset)
    st.session_state[NAME_KEY] = run.preset
    st.session_state[FULL_KEY] = (run.seeds, run.T) == (p.full_seeds, p.full_T)


FORM = forms.SettingsForm(("preset",), "a paper preset", CONTROLS, "preset_upload",
                          int_fields=frozenset({"seeds", "T"}), restore_extra=restore_extra,
                          field_names={"preset": "Experiment", "precision": "Precision (sidebar)",
                                       "base_seed": "Base seed (sidebar)"})


def request(slot: str, key: str) -> None:
    """A run button's callback: remember which run was asked for (a plain string, kept across reruns)."""
    st.session_state[slot] = key


def size_input(field: str, quick: int, paper: int | None, help: str) -> int:
    """A size box bound to the URL, starting at the preset's ``quick`` size.

    While *Paper size* is ticked (``paper`` is the paper's value) the box is greyed out and shows the
    value that will run; its own value is kept aside and comes back when the tick is removed. The
    default is passed only to a box that has no value yet (Streamlit warns when a widget gets both a
    default and a value set through Session State, as the preset selector and a restore do).
    """
    c = CONTROLS[field]
    state, stash = st.session_state, stash_key(c.key)
    if paper is not None:
        if stash not in state:
            state[stash] = state.get(c.key, quick) if state.get(c.key, quick) != paper else quick
        state[c.key] = paper
    elif stash in state:
        state[c.key] = state.pop(stash)
    default = {} if c.key in state else {"value": quick}
    return int(links.bound(st.number_input, c.label, int(c.lo), int(c.hi), step=int(c.step), key=c.key,
                           disabled=paper is not None, help=help, **default))


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """The preset, its size and the restore box; returns the :class:`PresetRun` fields."""
    name = links.bound(st.selectbox, "Experiment", presets.names(), key=NAME_KEY, format_func=title,
                       on_change=quick_size, help="Every synthetic table and figure of the two papers.")
    p = presets.get(name)
    full = links.bound(st.checkbox, f"Paper size: {p.full_seeds} seeds × T = {p.full_T:,}", key=FULL_KEY,
                       help="The paper's own seeds and rounds (minutes on a CPU for the grids); the boxes below "
                           "then show them, greyed out, and get their own values back when this is unticked.")
    cols = st.columns(2)
    with cols[0]:
        seeds = size_input("seeds", p.quick_seeds, p.full_seeds if full else None, "Independent runs of every setting.")
    with cols[1]:
        T = size_input("T", p.quick_T, p.full_T if full else None, "Rounds per run.")
    forms.restore_section(FORM)
    return {"preset": name, "seeds": seeds, "T": T, "base_seed": ctx.base_seed, "precision": ctx.precision}


def compute(run: presets.PresetRun, dev: str, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Run the preset; keep the result with the views the page draws on every rerun."""
    result = presets.run_preset(run, device=dev, progress=progress)
    return {"result": result, "figures": export.preset_figures(result), "claims": presets.claim_table(result),
            "summary": result.summary(), "cells": result.cells()}


def figures(p: presets.Preset, view: dict[str, Any]) -> int:
    """The preset's figures with what they show; returns the cell chosen for the per-setting views."""
    names = view["cells"]["name"].tolist()
    cell = 0
    if p.figure == "regret_minmax" and len(names) > 1:
        cell = names.index(st.selectbox("Setting", names, key="preset_cell"))
    for key, fig in view["figures"].items():
        if not key.startswith("regret_") or key == f"regret_{presets.slug(names[cell])}":
            pagekit.chart(st, fig, f"fig_{key}", keep=False)
    st.caption(FIGURE_NOTES[p.figure])
    return cell


def claims(table: Any) -> None:
    """The paper-vs-run table: every claim, the paper's statement, our number and the computed verdict."""
    st.subheader("Paper vs this run: the claims")
    st.markdown("Each verdict is computed from the run above: **consistent** (the run agrees with the claim), "
                "**inconsistent** (it contradicts it) or **not shown at this size** (too few rounds or runs to "
                "tell; *why* says what to raise).")
    st.table(vp.styled_claims(table[CLAIM_COLUMNS]), hide_index=True, border="horizontal")


def crossover(result: presets.PresetResult, cell: int, ctx: shell.RunContext) -> None:
    """GenCB against its baseline over horizons (each its own run), computed when asked for."""
    k, i = result.index()[cell]
    spec = result.specs[k]
    s = dataclasses.replace(spec.cell_settings(i), policies=spec.policies[:2])
    horizons = tuple(dict.fromkeys(sweep.horizon_grid(s.T)))
    st.subheader("Where GenCB overtakes its baseline")
    st.markdown(f"N₀ and the regret of {' and '.join(result.sweeps[k].labels[:2])} at the horizons "
                f"{', '.join(f'{h:,}' for h in horizons)}, each horizon its own run: the baseline's confidence "
                "δ = 1/T depends on the horizon, so a longer run's first rounds are not a shorter run.")
    key = store.key_of(s, ctx.device, {"horizons": horizons})
    st.button("Compute the crossover", key="crossover_run", on_click=request, args=(CROSSOVER_KEY, key))
    if st.session_state.get(CROSSOVER_KEY) != key and store.store().peek(key) is None:
        return
    units = 2 * s.seeds * sum(horizons)
    frame, _, _ = live.shared(key, units,
                              lambda tick: sweep.over_horizons(s, horizons, device=ctx.device, progress=tick))
    pagekit.chart(st, vp.horizons_figure(frame), "crossover", keep=False)
    st.caption("Left: default-arm pulls N₀ at the end of each run; right: the cumulative regret. Where the lines "
               "cross, the cheaper policy changes; the bars are 95 % intervals over seeds.")


def show(run: presets.PresetRun, view: dict[str, Any], stored: bool, seconds: float, ctx: shell.RunContext) -> None:
    """Everything about a finished run: figures, verdicts, numbers, crossover and downloads."""
    p, result = presets.get(run.preset), view["result"]
    st.caption(f"Ran on **{result.device}** in **{result.precision}**: {p.n_cells} setting"
               f"{'s' if p.n_cells > 1 else ''} × {run.seeds} seeds × T = {run.T:,} in {seconds:.1f} s"
               + (" (already computed on this server: shared, not recomputed)" if stored else "") + ".")
    cell = figures(p, view)
    claims(view["claims"])
    st.subheader("The paper's numbers and ours")
    paper = presets.paper_table(view["summary"])
    if len(paper):
        st.dataframe(paper, hide_index=True, key="paper_table")
        st.caption("Each number the paper prints, beside this run's value and its 95 % interval over seeds.")
    else:
        st.caption("The paper prints no numbers for this experiment (only figures); the claims above are checked.")
    with st.expander("Every summary row"):
        st.dataframe(view["summary"].drop(columns=["preset", "paper_low", "paper_high"]), hide_index=True,
                     key="summary")
    if any(c.check in CROSSOVER_CHECKS for c in p.claims):
        crossover(result, cell, ctx)
    st.subheader("Save this run")
    stem = f"{run.preset}_T{run.T}_seeds{run.seeds}"
    cols = st.columns(3)
    precision = device.default_precision(ctx.device)
    cols[0].download_button("Download report", lambda: report.preset_report(result, precision),
                            f"{stem}.html", "text/html", on_click="ignore", icon=":material/description:",
                            key="preset_report", help="One HTML file that opens offline: the claims with their "
                            "verdicts, the paper's numbers and ours, the figures, the settings, the versions and "
                            "device, and the command that re-creates the run.")
    downloads.zip_button(lambda: export.preset_bundle(result), stem, "preset_zip", cols[1])
    cols[2].download_button("Settings JSON", json.dumps(export.settings_dict(run), indent=2, sort_keys=True),
                            f"{stem}.json", "application/json", on_click="ignore", icon=":material/settings:",
                            key="preset_json")
    st.caption("The zip holds the per-round data, the summary, the figures and claims.json (the verdicts above). "
               "Upload either file under *Restore a run* to run it again exactly.")


def fits(run: presets.PresetRun, ctx: shell.RunContext) -> bool:
    """Whether this server runs the preset at this size: its quick size always; larger ones within the server's
    cap on one run (``SAFEBANDIT_RUN_MB``), so that a link or a click cannot take a classroom's memory. Otherwise
    an error names the largest T that fits, and a note the two ways to run it at this size."""
    quick = presets.memory_bytes(presets.PresetRun.quick(run.preset))
    limit = max(store.run_limit(), quick)
    if forms.settings_or_error(FORM, lambda: presets.check_fits(run, ctx.device, limit) or run) is not None:
        return True
    need = presets.memory_bytes(run)
    st.caption(f"At this size it runs from a terminal with the command above, or on a server started with "
               f"`{store.RUN_ENV}={-(-need // 2**20)}` (MB one run may take) or more.")
    return False


def main() -> None:
    """The page."""
    ctx, values = pagekit.page_start(
        "Paper presets",
        "Every synthetic experiment of *Safety by Design* and *One-size-fits-all conservative bandits*, ready to run. "
        "Each starts at a reduced size (seconds to a minute on a laptop); tick *Paper size* for the papers' own. "
        "Next to the figures, every claim of the paper is checked on the run.",
        "Paper preset", controls)
    run = forms.settings_or_error(FORM, lambda: presets.PresetRun(**values).validate())
    if run is None:
        return
    p = presets.get(run.preset)
    st.markdown(f"**{p.paper}, {p.artefact}**: {p.title}. {p.n_cells} setting{'s' if p.n_cells > 1 else ''} × "
                f"{len(p.sweeps[0].policies)} policies × {run.seeds} seeds × T = {run.T:,}.")
    with st.expander("What the paper leaves open, and what we chose"):
        st.markdown("\n".join(f"- {line}" for line in p.choices))
    st.markdown("The same run from a terminal:")
    st.code(tools.preset_command(run, ctx.device), language="bash")
    if not fits(run, ctx):
        return
    key = store.key_of(run, ctx.device)
    st.button("Run this experiment", key="preset_run", type="primary", icon=":material/play_arrow:",
              on_click=request, args=(REQUEST_KEY, key))
    if st.session_state.get(REQUEST_KEY) != key and store.store().peek(key) is None:
        st.info("Press **Run this experiment** to run it (a result already computed on this server shows at "
                "once).", icon=":material/science:")
        return
    units = run.seeds * run.T * p.n_cells * len(p.sweeps[0].policies)
    out = forms.settings_or_error(FORM, lambda: live.shared(key, units, lambda tick: compute(run, ctx.device, tick)))
    if out is not None:
        show(run, *out, ctx)


main()
