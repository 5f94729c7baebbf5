"""Conservative mean-variance bandits, MV-CBP (One-size-fits-all, AAAI 2021, §4): MV-CUCB against MV-UCB.

Widgets → :class:`MVSettings` → one shared run (:mod:`safebandit_ui.live`) → figures, and sentences
computed from that run (:mod:`safebandit_core.viz.mv`).
"""

from __future__ import annotations

import functools
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import captions, families
from safebandit_core import meanvar as mv
from safebandit_core.meanvar import FAMILY, LABELS, NAMES, RISK_BOUND, MVSettings, assumption_ok, assumption_text
from safebandit_core.model import Run
from safebandit_core.settings import SettingsError
from safebandit_core.viz import conservative as vc
from safebandit_core.viz import mv as vm
from safebandit_ui import downloads, forms, links, live, pagekit, pins, scrub, shell, tools
from safebandit_ui.forms import Control

DEFAULT = MVSettings()
MAX_ROWS = 3_000_000
POLICIES_KEY, ZOOM_KEY = "mv_policies", "mv_zoom"
FIELDS = ["slack", "cum_regret", "default_pulls", "baseline"]
CONTROLS: dict[str, Control] = forms.with_defaults({
    "K": Control("mv_K", "K (arms)", 1, 200, 1),
    "alpha": Control("mv_alpha", "α (tolerated loss)", 0.01, 0.5, 0.01),
    "mu0": Control("mv_mu0", "μ₀ (default arm's reward)", 0.05, 1.0, 0.01),
    "rho": Control("mv_rho", "ρ (weight of the mean in MV = ρμ − σ²)", 0.5, 300.0, 0.5, fmt="%.1f"),
    "T": Control("mv_T", "Rounds T", 100, 100_000, 500),
    "seeds": Control("mv_seeds", "Seeds (independent runs)", 1, 100, 1),
}, DEFAULT)
slider = functools.partial(forms.slider, CONTROLS)
integer = functools.partial(forms.integer, CONTROLS)


def restore_extra(s: MVSettings) -> None:
    """The restored policies, which have no :class:`forms.Control`."""
    st.session_state[POLICIES_KEY] = list(s.policies)


FORM = forms.SettingsForm(
    ("mv",), "the mean-variance bandit", CONTROLS, "mv_upload", int_fields=frozenset({"K", "T", "seeds"}),
    field_names={"policies": "Policies", "precision": "Precision (sidebar)", "base_seed": "Base seed (sidebar)"},
    restore_extra=restore_extra)


def need(alpha: float, mu0: float) -> float:
    """The threshold 2/(α μ₀) that ρ must exceed for MV-CUCB's guarantee."""
    return RISK_BOUND / (alpha * mu0)


def guarantee_note(v: dict[str, Any]) -> None:
    """Say next to the controls whether MV-CUCB's guarantee ρ > 2/(α μ₀) holds for these values."""
    threshold = need(v["alpha"], v["mu0"])
    if assumption_ok(v["alpha"], v["mu0"], v["rho"]):
        st.caption(f"Guarantee holds: ρ = {v['rho']:g} > 2/(α·μ₀) = {threshold:.4g}.")
    else:
        st.warning(f"**No guarantee for these values.** {assumption_text(v['alpha'], v['mu0'], v['rho'])} Raise ρ "
                   f"above {threshold:.4g} (or raise α or μ₀) for the guarantee; the condition is sufficient, not "
                   "necessary.", icon=":material/warning:")


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
    guarantee_note(v)
    v["T"], v["seeds"] = forms.runs_controls(CONTROLS)
    v["policies"] = tuple(links.bound(st.multiselect, "Compare", NAMES, default=list(DEFAULT.policies),
                                      key=POLICIES_KEY, format_func=LABELS.get,
                                      help="Both policies see the same reward draws in each run."))
    forms.restore_section(FORM)
    v["base_seed"], v["precision"] = ctx.base_seed, ctx.precision
    return v


def build_settings(values: dict[str, Any], ctx: shell.RunContext) -> MVSettings:
    """The checked settings; every round is drawn, so the run must stay small enough (raises SettingsError)."""
    s = MVSettings(**values).validate()
    rows = len(s.policies) * s.seeds
    if rows * s.T > MAX_ROWS:
        raise SettingsError("T", f"at most {MAX_ROWS // rows:,} with {s.seeds} seeds and {len(s.policies)} "
                                 "policies (this page draws every round; lower T or Seeds)", s.T)
    FAMILY.check_fits(s, ctx.device)
    return s


def main_figures(s: MVSettings, frame: pd.DataFrame, arms: pd.DataFrame, zoom: float) -> dict[str, go.Figure]:
    """The charts that update live, by slot name."""
    best, window = mv.best_mv(s), vc.early_window(s.T, zoom / 100)
    return {"regret": vm.regret_figure(frame, best), "zoom": vm.zoom_figure(frame, best, window),
            "slack": vm.slack_figure(frame), "default_pulls": vm.default_pulls_figure(frame),
            "arms": vm.arms_figure(arms, s.rho, LABELS)}


def draw_main(slots: dict[str, Any], s: MVSettings, run: Run, zoom: float, suffix: str = "") -> None:
    """The charts that update live (and stay as the final view): unique keys per live update."""
    pagekit.draw_charts(slots, main_figures(s, families.tidy(run, FIELDS), mv.arm_table(run), zoom), suffix)


def explain_rule(s: MVSettings) -> Any:
    """What mean-variance means, the constraint, and whether it is guaranteed here; returns the slot for what the
    run's slack did."""
    st.subheader("The rule: keep the run's mean-variance near the default's")
    left, right = st.columns([3, 2], gap="medium")
    left.markdown("Here a good arm pays well **and** steadily. An arm's score is its mean-variance; the default arm "
                  "x₀ pays μ₀ with no spread, so MV₀ = ρ·μ₀:")
    left.latex(r"\mathrm{MV}_x=\rho\,\mu_x-\sigma_x^2")
    left.markdown("The learner's own run, default pulls included, must keep its empirical mean-variance above a "
                  "share 1 − α of the default's at **every** round:")
    left.latex(r"\widehat{\mathrm{MV}}_t=\rho\,\bar r_t-\frac1t\sum_{s\le t}(r_s-\bar r_t)^2"
               r"\;\ge\;(1-\alpha)\,\mathrm{MV}_0\quad\text{for every } t")
    right.markdown("**MV-CUCB** explores only when its path could absorb the worst a single pull can do to the "
                   "path's mean-variance (at most 2 for rewards in [0, 1]); otherwise it plays x₀. **MV-UCB** "
                   "ignores the rule. The One-size-fits-all paper proves the constraint holds on every path when")
    right.latex(r"\rho>\frac{2}{\alpha\,\mu_0}")
    right.caption("This condition is sufficient (Theorem 5); below it nothing is promised: the guarantee is gone, "
                  "but the slack may still stay ≥ 0. The line below says what it did in this run.")
    if assumption_ok(s.alpha, s.mu0, s.rho):
        right.success(assumption_text(s.alpha, s.mu0, s.rho), icon=":material/verified:")
    else:
        right.warning(assumption_text(s.alpha, s.mu0, s.rho), icon=":material/warning:")
    return right.empty()


def verdict(neg: pd.DataFrame) -> None:
    """One metric per policy: was the constraint broken in this run, and its smallest slack."""
    cols = st.columns(max(len(neg), 1))
    for col, row in zip(cols, neg.itertuples(index=False), strict=False):
        broken = row.runs_broken > 0
        value = f"broken in {row.runs_broken} of {row.runs} runs" if broken else "held in every run"
        col.metric(f"{row.policy}: constraint", value, delta=f"{row.min_slack:.3g} smallest slack",
                   delta_color="normal", help="Broken means the slack t·MV̂ₜ − (1 − α)·MV₀·t went below 0 in "
                                              "some round of a run.")


def layout() -> tuple[dict[str, Any], float]:
    """The result sections with their explanations; returns chart slots (``*_note`` for sentences) and the zoom."""
    slots: dict[str, Any] = {}
    with pagekit.chart_row(slots, "regret", "Regret T·R̃ₜ"):
        st.markdown("Mean-variance regret in the cumulative form the One-size-fits-all paper plots: the "
                    "mean-variance lost against the best arm, plus a penalty for switching between arms of "
                    "different means (that switching itself adds variance). Mean over runs with the min–max band.")
        st.caption("The dashed line is the baseline (1 − α)·MV₀·T, drawn as the regret of a run that earns exactly "
                   "(1 − α)·MV₀ each round: MV*·t − (1 − α)·MV₀·t.")
        slots["regret_note"] = st.empty()
    zoom = pagekit.zoom_row(slots, ZOOM_KEY, "A curve above the dashed line has lost more mean-variance than a run "
                                             "earning exactly (1 − α)·MV₀ per round.")
    slots["zoom_note"] = st.empty()
    st.subheader("Slack: was the constraint kept?")
    slots["verdict"] = st.container()
    left, right = st.columns([3, 2], gap="medium")
    slots["slack"] = left.empty()
    right.markdown("Slack t·MV̂ₜ − (1 − α)·MV₀·t per policy; the constraint is broken where it goes below the red "
                   "zero line, and a cross marks the first such round. With ρ > 2/(α·μ₀) MV-CUCB's never does; "
                   "below that threshold it may, and the row titles say whether it did.")
    with pagekit.chart_row(slots, "default_pulls", "Default-arm pulls N₀(t)"):
        st.markdown("How often each policy fell back on the default arm. MV-UCB never does.")
        slots["pulls_note"] = st.empty()
    st.subheader("The arms in the mean–variance plane")
    slots["arms"] = st.empty()
    st.caption("Each ring is an arm at (mean, variance); the default arm is the diamond at (μ₀, 0). Arms on the "
               "dashed line σ² = ρμ − MV* are exactly as good as the best arm (star); arms right of it would be "
               "better. A dot's area is how often the policy pulled that arm per run.")
    return slots, zoom


def sentences(slots: dict[str, Any], s: MVSettings, frame: pd.DataFrame, summary: pd.DataFrame, zoom: float) -> None:
    """The comparisons, each computed from this run: regret, default pulls, the zoom window."""
    slots["zoom_note"].caption(vm.zoom_sentence(frame, mv.best_mv(s), vc.early_window(s.T, zoom / 100)))
    if set(NAMES) <= set(summary["policy"]):
        slots["regret_note"].markdown(captions.ranking(summary, "mvcucb", "mvucb", s.seeds))
        slots["pulls_note"].markdown(captions.default_pulls_sentence(summary, "mvcucb", "mvucb"))


def main() -> None:
    """The page."""
    ctx, values = pagekit.page_start(
        "Mean-variance bandits: safe and steady",
        "When a steady outcome matters as much as a good one (a portfolio, a dosing schedule), the learner scores arms "
        "by **mean-variance** and must keep its own run's mean-variance close to that of a known, riskless "
        "**default**. **MV-CUCB** does so with certainty when ρ is large enough; **MV-UCB** learns without the rule.",
        "Mean-variance bandit", controls)
    s = forms.settings_or_error(FORM, lambda: build_settings(values, ctx))
    if s is None:
        return
    condition = explain_rule(s)
    status = st.empty()
    slots, zoom = layout()
    run, shared, seconds = live.run(s, ctx, lambda r: draw_main(slots, s, r, zoom, suffix=f"-live-{r.t_done}"))
    frame, summary, arms = pagekit.per_run(run, "tidy", lambda: (families.tidy(run, FIELDS), families.summary(run),
                                                                 mv.arm_table(run)))
    status.caption(live.caption(run, shared, seconds))
    figures = pagekit.per_run(run, ("figures", zoom), lambda: main_figures(s, frame, arms, zoom))
    pagekit.draw_charts(slots, pagekit.with_pins(figures, "mv", s))
    neg = vm.negative_slack(frame)
    condition.markdown(vm.condition_sentence(assumption_ok(s.alpha, s.mu0, s.rho), need(s.alpha, s.mu0), s.rho, neg,
                                             LABELS["mvcucb"]))
    with slots["verdict"]:
        verdict(neg)
    sentences(slots, s, frame, summary, zoom)
    pagekit.conservative_summary(summary["label"], summary, "T·R̃", "cum_regret")
    scrub.section(s, ctx)
    tools.panel("mv", run, summary, None, lambda: figures)
    downloads.downloads(s, lambda: families.tidy(run), f"mean_variance_T{s.T}_K{s.K}_rho{s.rho:g}_seed{s.base_seed}",
                        "mv_", summary=summary, figures=lambda: main_figures(s, frame, arms, zoom),
                        extra=lambda: pins.export("mv"), device=run.device, precision=run.precision)


main()
