"""The mean-variance bandit's page: the guarantee note beside the controls, the rule with its condition, the
result sections with the sentences computed from the run, the constraint's verdict and the summary table."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import captions, families
from safebandit_core import meanvar as mv
from safebandit_core.meanvar import FAMILY, LABELS, NAMES, RISK_BOUND, MVSettings, assumption_ok, assumption_text
from safebandit_core.meanvar.fields import ARMS, CONSTRAINT, RUNS
from safebandit_core.model import Run
from safebandit_core.scenarios import Names
from safebandit_core.settings import SettingsError
from safebandit_core.viz import conservative as vc
from safebandit_core.viz import meanvar as vm

from .. import model_page, pagekit, shell
from ..present import HEIGHT, compact, slack_panel

MAX_ROWS = 3_000_000
FIELDS = ["slack", "cum_regret", "default_pulls", "baseline"]
POLICIES_KEY, ZOOM_KEY = "policies", "zoom_pct"
OLD_KEYS = {f"mv_{key}": key for key in (*(f.key for f in FAMILY.fields), POLICIES_KEY, ZOOM_KEY)}
"""The link parameters of before the keys took their fields' names (``mv_rho``), each with the name it has now."""


def need(alpha: float, mu0: float) -> float:
    """The threshold 2/(α μ₀) that ρ must exceed for MV-CUCB's guarantee."""
    return RISK_BOUND / (alpha * mu0)


def constraint_section(bar: model_page.Sidebar) -> None:
    """α and μ₀, and whether MV-CUCB's guarantee ρ > 2/(α μ₀) holds for the values chosen."""
    bar.section(CONSTRAINT)
    v = bar.values
    threshold = need(v["alpha"], v["mu0"])
    if assumption_ok(v["alpha"], v["mu0"], v["rho"]):
        st.caption(f"Guarantee holds: ρ = {v['rho']:g} > 2/(α·μ₀) = {threshold:.4g}.")
    else:
        st.warning(f"**No guarantee for these values.** {assumption_text(v['alpha'], v['mu0'], v['rho'])} Raise ρ "
                   f"above {threshold:.4g} (or raise α or μ₀) for the guarantee; the condition is sufficient, not "
                   "necessary.", icon=":material/warning:")


def runs_section(bar: model_page.Sidebar) -> None:
    """Rounds and seeds, and the policies compared."""
    bar.section(RUNS)
    bar.values["policies"] = model_page.policies(FAMILY, POLICIES_KEY,
                                                 "Both policies see the same reward draws in each run.",
                                                 MVSettings().policies)


def restore_extra(s: MVSettings) -> None:
    """The restored policies, which have no field control."""
    st.session_state[POLICIES_KEY] = list(s.policies)


def check(s: MVSettings) -> None:
    """Every round is drawn, so the run must stay small enough (raises SettingsError)."""
    rows = len(s.policies) * s.seeds
    if rows * s.T > MAX_ROWS:
        raise SettingsError("T", f"at most {MAX_ROWS // rows:,} with {s.seeds} seeds and {len(s.policies)} "
                                 "policies (this page draws every round; lower T or Runs)", s.T)


def views(run: Run) -> model_page.Views:
    """The per-round frame of the charted fields, its slack table (for the chart and the sentence), the summary and
    the per-arm pulls."""
    frame = vc.chart_frame(families.tidy(run, FIELDS))
    return {"frame": frame, "negative": vm.negative_slack(frame), "summary": families.summary(run),
            "arms": mv.arm_table(run)}


def figures(s: MVSettings, v: model_page.Views, zoom: float) -> model_page.Figures:
    """The charts of the result sections, by slot name (each built when first drawn)."""
    frame, best, window = v["frame"], mv.best_mv(s), vc.early_window(s.T, zoom / 100)
    return model_page.Figures(regret=lambda: vm.regret_figure(frame, best),
                              zoom=lambda: vm.zoom_figure(frame, best, window),
                              slack=lambda: vm.slack_figure(frame, v["negative"]),
                              default_pulls=lambda: vm.default_pulls_figure(frame),
                              arms=lambda: vm.arms_figure(v["arms"], s.rho, LABELS))


def explain_rule(s: MVSettings) -> model_page.Slots:
    """What mean-variance means, the constraint, and whether it is guaranteed here; returns the slot for what the
    run's slack did."""
    st.subheader("The rule: keep the run's mean-variance near the default's")
    left, right = st.columns([3, 2], gap="medium")
    left.markdown("Here a good arm pays well **and** steadily. An arm's score is its mean-variance; the default arm "
                  "x₀ pays μ₀ with no spread, so MV₀ = ρ·μ₀:" + pagekit.display(r"\mathrm{MV}_x=\rho\,\mu_x-\sigma_x^2")
                  + "\n\nThe learner's own run, default pulls included, must keep its empirical mean-variance above a "
                  "share 1 − α of the default's at **every** round:"
                  + pagekit.display(r"\widehat{\mathrm{MV}}_t=\rho\,\bar r_t-\frac1t\sum_{s\le t}(r_s-\bar r_t)^2"
                                    r"\;\ge\;(1-\alpha)\,\mathrm{MV}_0\quad\text{for every } t"))
    right.markdown("**MV-CUCB** explores only when its path could absorb the worst a single pull can do to the "
                   "path's mean-variance (at most 2 for rewards in [0, 1]); otherwise it plays x₀. **MV-UCB** "
                   "ignores the rule. The One-size-fits-all paper proves the constraint holds on every path when"
                   + pagekit.display(r"\rho>\frac{2}{\alpha\,\mu_0}"))
    right.caption("This condition is sufficient (Theorem 5); below it nothing is promised: the guarantee is gone, "
                  "but the slack may still stay ≥ 0. The line below says what it did in this run.")
    if assumption_ok(s.alpha, s.mu0, s.rho):
        right.success(assumption_text(s.alpha, s.mu0, s.rho), icon=":material/verified:")
    else:
        right.warning(assumption_text(s.alpha, s.mu0, s.rho), icon=":material/warning:")
    return {"condition": right.empty()}


def layout(s: MVSettings) -> tuple[model_page.Slots, float]:
    """The result sections with their explanations; returns chart slots (``*_note`` for sentences) and the zoom."""
    slots: dict[str, Any] = {}
    with pagekit.chart_row(slots, "regret", "Mean-variance lost T·R̃ₜ"):
        st.markdown("Mean-variance lost, in the cumulative form the One-size-fits-all paper plots: the "
                    "mean-variance lost against the best arm, plus a penalty for switching between arms of "
                    "different means (that switching itself adds variance). Mean over runs with the min–max band.")
        st.caption("The dashed line is the baseline (1 − α)·MV₀·T, drawn as what a run loses that earns exactly "
                   "(1 − α)·MV₀ each round: MV*·t − (1 − α)·MV₀·t.")
        slots["regret_note"] = st.empty()
    zoom = pagekit.zoom_row(slots, ZOOM_KEY, "A curve above the dashed line has lost more mean-variance than a run "
                                              "earning exactly (1 − α)·MV₀ per round.")
    st.subheader("Slack: was the constraint kept?")
    slots["verdict"] = st.container()
    left, right = st.columns([3, 2], gap="medium")
    slots["slack"] = left.empty()
    right.markdown("Slack t·MV̂ₜ − (1 − α)·MV₀·t per rule; the constraint is broken where it goes below the red "
                   "zero line, and a cross marks the first such round. With ρ > 2/(α·μ₀) MV-CUCB's never does; "
                   "below that threshold it may, and the row titles say whether it did.")
    right = pagekit.more_row(slots, "default_pulls", "Default-arm pulls N₀(t)", "mv_pulls_box")
    if right is not None:
        right.markdown("How often each rule fell back on the default arm. MV-UCB never does.")
        slots["pulls_note"] = right.empty()
    st.subheader("The arms in the mean–variance plane")
    slots["arms"] = st.empty()
    st.caption("Each ring is an arm at (mean, variance); the default arm is the diamond at (μ₀, 0). Arms on the "
               "dashed line σ² = ρμ − MV* are exactly as good as the best arm (star); arms right of it would be "
               "better. A dot's area is how often the rule pulled that arm per run.")
    return slots, zoom


def verdict(neg: pd.DataFrame) -> None:
    """One metric per policy: was the constraint broken in this run, and its smallest slack."""
    cols = st.columns(max(len(neg), 1))
    for col, row in zip(cols, neg.itertuples(index=False), strict=False):
        broken = row.runs_broken > 0
        value = f"broken in {row.runs_broken} of {row.runs} runs" if broken else "held in every run"
        col.metric(f"{row.policy}: constraint", value, delta=f"{row.min_slack:.3g} smallest slack",
                   delta_color="normal", help="Broken means the slack t·MV̂ₜ − (1 − α)·MV₀·t went below 0 in "
                                              "some round of a run.")


def texts(slots: model_page.Slots, s: MVSettings, v: model_page.Views, zoom: float) -> None:
    """What the slack did against the condition, the verdict, and the comparisons, each computed from this run."""
    frame, summary, neg = v["frame"], v["summary"], v["negative"]
    slots["condition"].markdown(vm.condition_sentence(assumption_ok(s.alpha, s.mu0, s.rho), need(s.alpha, s.mu0),
                                                      s.rho, neg, LABELS["mvcucb"]))
    with slots["verdict"]:
        verdict(neg)
    if "zoom_note" in slots:
        slots["zoom_note"].caption(vm.zoom_sentence(frame, mv.best_mv(s), vc.early_window(s.T, zoom / 100)))
    if set(NAMES) <= set(summary["policy"]):
        slots["regret_note"].markdown(captions.ranking(summary, "mvcucb", "mvucb", s.seeds, plain=True))
        if "pulls_note" in slots:
            slots["pulls_note"].markdown(captions.default_pulls_sentence(summary, "mvcucb", "mvucb"))


def summary_table(s: MVSettings, run: Run, v: model_page.Views, ctx: shell.RunContext) -> None:
    """*Summary over runs*: default pulls, final T·R̃ and the smallest slack per policy."""
    pagekit.conservative_summary(v["summary"]["label"], v["summary"], "mean-variance lost T·R̃", "cum_regret")


def present_panels(run: Run, frame: pd.DataFrame, summary: pd.DataFrame, n: Names) -> dict[str, go.Figure]:
    """Mean-variance regret, slack, the default's use and where the pulls went."""
    s, t = run.settings, f"{n.round} t"
    return {
        "regret": compact(vm.regret_figure(frame, mv.best_mv(s)), "Mean-variance lost against the best option",
                          "regret", t),
        "slack": slack_panel(frame, "Room left under the rule (below 0: broken)", n),
        "default": compact(vm.default_pulls_figure(frame), f"Times the {n.default} was chosen", "times", t),
        "arms": compact(vm.arms_figure(mv.arm_table(run), s.rho, height=HEIGHT).update_layout(showlegend=False),
                        f"Where the pulls went: dot area ∝ pulls, ☆ best arm, ◇ {n.default}"),
    }


SPEC = model_page.Spec(
    section="Mean-variance bandit",
    model="the mean-variance bandit",
    upload_key="mv_upload",
    sidebar=(ARMS, CONSTRAINT, RUNS),
    extras={CONSTRAINT: constraint_section, RUNS: runs_section},
    restore_extra=restore_extra,
    check=check,
    warnings=False,  # the guarantee note beside the controls and the rule's section say it
    explain=explain_rule,
    layout=layout,
    views=views,
    figures=figures,
    texts=texts,
    sections=(summary_table,),
    stem=lambda s: f"meanvar_T{s.T}_K{s.K}_rho{s.rho:g}_seed{s.base_seed}",
    key_prefix="mv_",
    keys=(POLICIES_KEY, ZOOM_KEY),
    old_keys=OLD_KEYS,
    opening=float(pagekit.ZOOM_DEFAULT),
)
