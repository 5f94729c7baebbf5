"""Conservative mean-variance bandits, MV-CBP (seed 001 §4): MV-CUCB against MV-UCB.

Widgets → :class:`MVSettings` → a cached core run (live, in chunks, the first time) → figures.
"""

from __future__ import annotations

import functools
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core.conservative import mv_sim
from safebandit_core.conservative.mv import POLICIES, RISK_BOUND, assumption_ok, assumption_text
from safebandit_core.viz import conservative as vc
from safebandit_core.viz import mv as vm
from safebandit_ui import pagekit, shell
from safebandit_ui.pagekit import Control

DEFAULT = mv_sim.MVSettings()
MAX_ROWS = 3_000_000
POLICIES_KEY = "mv_policies"
ZOOM_KEY = "mv_zoom"
CONTROLS: dict[str, Control] = pagekit.with_defaults({
    "K": Control("mv_K", "K (arms)", 1, 200, 1),
    "alpha": Control("mv_alpha", "α (tolerated loss)", 0.01, 0.5, 0.01),
    "mu0": Control("mv_mu0", "μ₀ (default arm's reward)", 0.05, 1.0, 0.01),
    "rho": Control("mv_rho", "ρ (weight of the mean in MV = ρμ − σ²)", 0.5, 300.0, 0.5, fmt="%.1f"),
    "T": Control("mv_T", "Rounds T", 100, 100_000, 500),
    "seeds": Control("mv_seeds", "Seeds (independent runs)", 1, 100, 1),
}, DEFAULT)
slider = functools.partial(pagekit.slider, CONTROLS)
integer = functools.partial(pagekit.integer, CONTROLS)


def restore_extra(s: mv_sim.MVSettings) -> None:
    """The restored policies, which have no :class:`pagekit.Control`."""
    st.session_state[POLICIES_KEY] = list(s.policies)


FORM = pagekit.SettingsForm(
    mv_sim.MVSettings, "the mean-variance bandit", CONTROLS, "mv_upload", int_fields=frozenset({"K", "T", "seeds"}),
    field_names={"policies": "Policies", "precision": "Precision (sidebar)", "base_seed": "Base seed (sidebar)"},
    restore_extra=restore_extra)


def guarantee_note(alpha: float, mu0: float, rho: float) -> None:
    """Say next to the controls whether MV-CUCB's guarantee ρ > 2/(α μ₀) holds for these values."""
    need = RISK_BOUND / (alpha * mu0)
    if assumption_ok(alpha, mu0, rho):
        st.caption(f"Guarantee holds: ρ = {rho:g} > 2/(α·μ₀) = {need:.4g}.")
    else:
        st.warning(f"**No guarantee for these values.** {assumption_text(alpha, mu0, rho)} Raise ρ above "
                   f"{need:.4g} (or raise α or μ₀) to restore it.", icon=":material/warning:")


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """Draw the page's controls; return the settings fields they chose."""
    v: dict[str, Any] = {}
    st.markdown("**Arms and risk**")
    v["K"] = integer("K", "Number of arms; their means go in equal steps from 0.8 down to 0.2 (Bernoulli, so "
                          "variance μ(1 − μ)).")
    v["rho"] = slider("rho", "How much the mean counts against the variance: large ρ cares mostly about the mean, "
                             "small ρ prefers steady arms.")
    st.markdown("**The constraint**")
    v["alpha"] = slider("alpha", "The share of the default arm's mean-variance the learner may give up while it "
                                 "explores.")
    v["mu0"] = slider("mu0", "What the safe default arm pays every time (variance 0), so MV₀ = ρ·μ₀.")
    guarantee_note(v["alpha"], v["mu0"], v["rho"])
    v["T"], v["seeds"] = pagekit.runs_controls(CONTROLS)
    v["policies"] = tuple(st.multiselect("Compare", POLICIES, default=list(DEFAULT.policies), key=POLICIES_KEY,
                                         format_func=vm.LABELS.get, bind="query-params",
                                         help="Both policies see the same reward draws in each run."))
    pagekit.restore_section(FORM)
    v["base_seed"], v["precision"] = ctx.base_seed, ctx.precision
    return v


def tidy(s: mv_sim.MVSettings, outputs: dict[str, Any]) -> dict[str, Any]:
    """Per-round frame, per-policy summary and the arm table of the rounds done so far."""
    return {"frame": mv_sim.tidy_frame(s, outputs), "summary": mv_sim.summary(s, outputs),
            "arms": mv_sim.arm_table(s, outputs)}


def live_run(s: mv_sim.MVSettings, ctx: shell.RunContext, slots: dict[str, Any], zoom: float) -> dict[str, Any]:
    """Run in chunks, updating a progress bar and (for runs longer than a moment) the main charts."""

    def redraw(i: int, chunk: mv_sim.Chunk) -> None:
        draw_main(slots, s, tidy(s, chunk.outputs), zoom, suffix=f"-live-{i}")

    last, seconds = pagekit.live_chunks(mv_sim.simulate(s, ctx.device, chunk=pagekit.chunk_size(s.T)), s.T, redraw)
    return {**tidy(s, last.outputs), "device": ctx.device_label, "precision": mv_sim.precision_of(s, ctx.device),
            "seconds": seconds}


def main_figures(s: mv_sim.MVSettings, result: dict[str, Any], zoom: float) -> dict[str, go.Figure]:
    """The charts that update live, by slot name."""
    frame, arms = result["frame"], result["arms"]
    best = vm.best_mv(arms)
    return {
        "regret": vm.regret_figure(frame, best),
        "zoom": vm.zoom_figure(frame, best, vc.early_window(s.T, zoom / 100)),
        "slack": vm.slack_figure(frame),
        "default_pulls": vm.default_pulls_figure(frame),
        "arms": vm.arms_figure(arms, s.rho),
    }


def draw_main(slots: dict[str, Any], s: mv_sim.MVSettings, result: dict[str, Any], zoom: float,
              suffix: str = "") -> None:
    """The charts that update live (and stay as the final view): unique keys per live update."""
    pagekit.draw_charts(slots, main_figures(s, result, zoom), suffix)


def explain_rule(s: mv_sim.MVSettings) -> None:
    """What mean-variance means, the constraint, and whether it is guaranteed here."""
    st.subheader("The rule: keep the run's mean-variance near the default's")
    left, right = st.columns([3, 2], gap="medium")
    with left:
        st.markdown("Here a good arm pays well **and** steadily. An arm's score is its mean-variance; the "
                    "default arm x₀ pays μ₀ with no spread, so MV₀ = ρ·μ₀:")
        st.latex(r"\mathrm{MV}_x=\rho\,\mu_x-\sigma_x^2")
        st.markdown("The learner's own run, default pulls included, must keep its empirical mean-variance above "
                    "a share 1 − α of the default's at **every** round:")
        st.latex(r"\widehat{\mathrm{MV}}_t=\rho\,\bar r_t-\frac1t\sum_{s\le t}(r_s-\bar r_t)^2"
                 r"\;\ge\;(1-\alpha)\,\mathrm{MV}_0\quad\text{for every } t")
    with right:
        st.markdown("**MV-CUCB** explores only when its path could absorb the worst a single pull can do to "
                    "the path's mean-variance (at most 2 for rewards in [0, 1]); otherwise it plays x₀. "
                    "**MV-UCB** ignores the rule.")
        st.latex(r"\text{guarantee needs}\quad \rho>\frac{2}{\alpha\,\mu_0}")
        if assumption_ok(s.alpha, s.mu0, s.rho):
            st.success(assumption_text(s.alpha, s.mu0, s.rho), icon=":material/verified:")
        else:
            st.warning(assumption_text(s.alpha, s.mu0, s.rho), icon=":material/warning:")


def verdict(frame: pd.DataFrame) -> None:
    """One metric per policy: was the constraint broken in this run, and its smallest slack."""
    neg = vm.negative_slack(frame)
    cols = st.columns(max(len(neg), 1))
    for col, row in zip(cols, neg.itertuples(index=False), strict=False):
        broken = row.runs_broken > 0
        value = f"broken in {row.runs_broken} of {row.runs} runs" if broken else "held in every run"
        col.metric(f"{row.policy}: constraint", value, delta=f"{row.min_slack:.3g} smallest slack",
                   delta_color="normal", help="Broken means the slack t·MV̂ₜ − (1 − α)·MV₀·t went below 0 in "
                                              "some round of a run.")


def layout() -> tuple[dict[str, Any], float]:
    """The result sections with their explanations; returns chart slots and the zoom share (%)."""
    slots: dict[str, Any] = {}
    with pagekit.chart_row(slots, "regret", "Regret T·R̃ₜ"):
        st.markdown("Mean-variance regret in the cumulative form seed 001 plots: the mean-variance lost against "
                    "the best arm, plus a penalty for switching between arms of different means (that "
                    "switching itself adds variance). Mean over runs with the min–max band.")
        st.caption("The dashed line is the baseline (1 − α)·MV₀·T, drawn as the regret of a run that earns "
                   "exactly (1 − α)·MV₀ each round: MV*·t − (1 − α)·MV₀·t.")
    zoom = pagekit.zoom_row(slots, ZOOM_KEY, "MV-UCB loses more than the baseline while it tries every arm; "
                            "MV-CUCB follows the baseline, and pays only a constant extra regret overall.")
    st.subheader("Slack: was the constraint kept?")
    slots["verdict"] = st.container()
    left, right = st.columns([3, 2], gap="medium")
    slots["slack"] = left.empty()
    right.markdown("Slack t·MV̂ₜ − (1 − α)·MV₀·t per policy; the constraint is broken where it goes below the red "
                   "zero line, and a cross marks the first such round. With ρ above the threshold MV-CUCB's "
                   "never does; below it, it may.")
    right = pagekit.chart_row(slots, "default_pulls", "Default-arm pulls N₀(t)")
    right.markdown("How often each policy fell back on the default arm. MV-UCB never does.")
    st.subheader("The arms in the mean–variance plane")
    slots["arms"] = st.empty()
    st.caption("Each ring is an arm at (mean, variance); the default arm is the diamond at (μ₀, 0). Arms on the "
               "dashed line σ² = ρμ − MV* are exactly as good as the best arm (star); arms right of it would be "
               "better. A dot's area is how often the policy pulled that arm per run.")
    return slots, zoom


def summary_table(summary: pd.DataFrame) -> None:
    """Default pulls, final regret and smallest slack per policy."""
    pagekit.conservative_summary(summary["policy"].map(vm.LABELS), summary, "T·R̃", "regret")


def main() -> None:
    """The page."""
    ctx, values = pagekit.page_start(
        "Mean-variance bandits: safe and steady",
        "When a steady outcome matters as much as a good one (a portfolio, a dosing schedule), the learner scores arms "
        "by **mean-variance** and must keep its own run's mean-variance close to that of a known, riskless "
        "**default**. **MV-CUCB** does so with certainty when ρ is large enough; **MV-UCB** learns without the rule.",
        "Mean-variance bandit", controls)
    s = pagekit.settings_or_error(FORM, lambda: mv_sim.MVSettings(**values).validate())
    if s is None or not pagekit.rows_fit(len(s.policies) * s.seeds * s.T, MAX_ROWS, "Lower T or Seeds to run."):
        return
    explain_rule(s)
    status = st.empty()
    slots, zoom = layout()
    result, from_cache = pagekit.stored_or_run(pagekit.run_key(s, ctx.device), lambda: live_run(s, ctx, slots, zoom))
    status.caption(pagekit.run_caption(result, s.T, s.seeds, len(s.policies), from_cache))
    draw_main(slots, s, result, zoom)
    with slots["verdict"]:
        verdict(result["frame"])
    summary_table(result["summary"])
    pagekit.downloads(s, result["frame"], f"mean_variance_T{s.T}_K{s.K}_rho{s.rho:g}_seed{s.base_seed}", "mv_",
                      summary=result["summary"], figures=lambda: main_figures(s, result, zoom))


main()
