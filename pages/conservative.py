"""Conservative bandits (seed 001): GenCB against the expected-reward baselines and the unconstrained policy.

Widgets → :class:`ConservativeSettings` → a cached core run (live, in chunks, the first time) → figures.
"""

from __future__ import annotations

import functools
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import settings as core_settings
from safebandit_core.conservative import sim
from safebandit_core.conservative.stream import BASELINE, LABELS, MAX_CCCB_ARMS, POLICIES, PROBLEMS, UNCONSTRAINED
from safebandit_core.viz import conservative as vc
from safebandit_ui import pagekit, shell
from safebandit_ui.pagekit import Control

DEFAULT = sim.ConservativeSettings()
MAX_ROWS = 3_000_000
PROBLEM_KEY = "cb_problem"
AUTO_KEY = "cb_mu0_auto"
DERIVED_KEY = "cb_mu0_derived"
ZOOM_KEY = "cb_zoom"


CONTROLS: dict[str, Control] = {
    "K": Control("cb_K", "K (arms)", 2, 500, 1, DEFAULT.K),
    "K_lin": Control("cb_K_lin", "K (arms)", 2, MAX_CCCB_ARMS, 1, 10),
    "d": Control("cb_d", "d (feature dimension)", 1, 32, 1, DEFAULT.d),
    "m": Control("cb_m", "m (base arms per super arm)", 1, 10, 1, DEFAULT.m),
    "alpha": Control("cb_alpha", "α (tolerated loss)", 0.005, 0.5, 0.005, DEFAULT.alpha),
    "mu0": Control("cb_mu0", "μ₀ (default arm's reward)", 0.01, 0.99, 0.01, 0.7),
    "mu0_super": Control("cb_mu0_super", "μ₀ (default super arm's reward)", 0.01, 9.99, 0.01, 1.5),
    "T": Control("cb_T", "Rounds T", 100, 100_000, 500, DEFAULT.T),
    "seeds": Control("cb_seeds", "Seeds (independent runs)", 1, 100, 1, DEFAULT.seeds),
    "lam": Control("cb_lam", "Ridge λ", 1.0, 1000.0, 0.5, DEFAULT.lam),
    "L": Control("cb_L", "Bound L on ‖x‖", 0.1, 10.0, 0.1, DEFAULT.L),
    "S": Control("cb_S", "Bound S on ‖θ*‖ (0: automatic)", 0.0, 100.0, 0.1, 0.0),
}
slider = functools.partial(pagekit.slider, CONTROLS)
integer = functools.partial(pagekit.integer, CONTROLS)
number = functools.partial(pagekit.number, CONTROLS)


def policies_key(problem: str) -> str:
    """The policy multiselect's key for a problem (each problem has its own list)."""
    return f"cb_policies_{problem}"


def default_policies(problem: str) -> list[str]:
    """GenCB, the problem's expected-reward baseline and its unconstrained policy."""
    return ["gencb", BASELINE[problem], UNCONSTRAINED[problem]]


def mu0_field(problem: str) -> str:
    """Which μ₀ control a problem uses (a super arm's reward can exceed 1)."""
    return "mu0_super" if problem == "cccb" else "mu0"


def restored_values(s: sim.ConservativeSettings) -> dict[str, float]:
    """The control values of uploaded settings: only the controls their problem shows."""
    k_field = "K" if s.problem == "cmab" else "K_lin"
    values: dict[str, float] = {k_field: s.K, "alpha": s.alpha, "T": s.T, "seeds": s.seeds, "lam": s.lam,
                                "L": s.L, "S": 0.0 if s.S is None else s.S}
    if s.problem != "cmab":
        values["d"] = s.d
    if s.problem == "cccb":
        values["m"] = s.m
    if s.mu0 is not None:
        values[mu0_field(s.problem)] = s.mu0
    return values


def restore_extra(s: sim.ConservativeSettings) -> None:
    """The restored problem, μ₀ toggle and policies, which have no :class:`pagekit.Control`."""
    st.session_state[PROBLEM_KEY] = s.problem
    st.session_state[AUTO_KEY] = s.mu0 is None
    st.session_state[policies_key(s.problem)] = list(s.policy_list())


FORM = pagekit.SettingsForm(
    sim.ConservativeSettings, "the conservative bandits", CONTROLS, "cb_upload",
    int_fields=frozenset({"K", "K_lin", "d", "m", "T", "seeds"}),
    field_names={"problem": "Problem", "policies": "Policies", "S": "Bound S on ‖θ*‖",
                 "precision": "Precision (sidebar)", "base_seed": "Base seed (sidebar)"},
    values_of=restored_values, restore_extra=restore_extra)


def derived_mu0(problem: str, K: int, d: int, m: int, ctx: shell.RunContext) -> float | None:
    """The instance's own μ₀ for the chosen shape (None while the shape is invalid)."""
    try:
        probe = sim.ConservativeSettings(problem=problem, K=K, d=d, m=m, base_seed=ctx.base_seed, T=1, seeds=1)
        return sim.make_instance(probe).mu0
    except core_settings.SettingsError:
        return None


def use_derived_mu0() -> None:
    """Callback of the μ₀ toggle: when it is switched off, the slider starts at the derived μ₀."""
    derived = st.session_state.get(DERIVED_KEY)
    if not st.session_state.get(AUTO_KEY) and derived is not None:
        c = CONTROLS[mu0_field(st.session_state.get(PROBLEM_KEY, DEFAULT.problem))]
        st.session_state[c.key] = min(max(round(derived, 2), c.lo), c.hi)


def mu0_control(problem: str, K: int, d: int, m: int, ctx: shell.RunContext) -> float | None:
    """The μ₀ toggle and slider; None means "derive μ₀ from the instance"."""
    auto = st.toggle("Derive μ₀ from the instance", value=True, key=AUTO_KEY, bind="query-params",
                     on_change=use_derived_mu0,
                     help="On: μ₀ sits one sixth of the way down from the best arm's mean to the worst "
                          "(seed 001's choice, 0.7 on its CMAB arms). Off: set it with the slider.")
    field = mu0_field(problem)
    c = CONTROLS[field]
    text = ("What the safe default arm pays every time (no noise). The learner must keep its total reward above "
            "(1 − α)·μ₀·t.")
    if not auto:
        return slider(field, text)
    derived = derived_mu0(problem, K, d, m, ctx)
    st.session_state[DERIVED_KEY] = derived
    shown = c.default if derived is None else min(max(derived, c.lo), c.hi)
    st.slider(c.label, float(c.lo), float(c.hi), float(shown), disabled=True, format="%.3f",
              help=text + " Switch off *Derive μ₀ from the instance* to set it.")
    return None


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """Draw the page's controls; return the settings fields they chose."""
    v: dict[str, Any] = {}
    st.markdown("**The problem**")
    problem = st.selectbox("Problem", PROBLEMS, index=PROBLEMS.index(DEFAULT.problem), key=PROBLEM_KEY,
                           format_func=str.upper, bind="query-params",
                           help="CMAB: K independent arms. CLB (linear): an arm is a feature vector x in R^d with "
                                "mean ⟨x, θ*⟩. CCCB (combinatorial): each round picks m of K feature vectors and "
                                "earns the sum of their rewards.")
    v["problem"] = problem
    v["d"], v["m"] = DEFAULT.d, DEFAULT.m
    if problem == "cmab":
        v["K"] = integer("K", "Number of arms; their means go in equal steps from 0.8 down to 0.2.")
    else:
        cols = st.columns(2)
        with cols[0]:
            v["K"] = integer("K_lin", "Number of feature vectors (seed 001 uses K = 2d).")
        with cols[1]:
            v["d"] = integer("d", "Length of each feature vector.")
        if problem == "cccb":
            v["m"] = integer("m", "How many base arms one super arm holds.")
    st.markdown("**The constraint**")
    v["alpha"] = slider("alpha", "The share of the default arm's reward the learner may give up while it "
                                 "explores: it must keep Σ r_s ≥ (1 − α)·μ₀·t.")
    v["mu0"] = mu0_control(problem, v["K"], v["d"], v["m"], ctx)
    v["T"], v["seeds"] = pagekit.runs_controls(CONTROLS)
    key = policies_key(problem)
    v["policies"] = tuple(st.multiselect("Compare", POLICIES[problem], default=default_policies(problem), key=key,
                                         format_func=LABELS.get, bind="query-params",
                                         help="All policies see the same reward draws in each run."))
    with st.expander("Advanced"):
        v["lam"] = number("lam", "Ridge regularisation of the linear estimates (CLB, CCCB); at least max(1, L²).")
        v["L"] = number("L", "Bound on the feature vectors' norm that the instance respects and the policies use.")
        S = number("S", "Bound on ‖θ*‖ the policies assume; 0 keeps the default (√K for CMAB's CLUCB, else 1).")
        v["S"] = None if S == 0 else S
    pagekit.restore_section(FORM)
    v["base_seed"], v["precision"] = ctx.base_seed, ctx.precision
    return v


def build_settings(values: dict[str, Any]) -> sim.ConservativeSettings:
    """The checked settings, with at least one policy (raises :class:`SettingsError`)."""
    if not values["policies"]:
        raise core_settings.SettingsError("policies", "at least one policy")
    return sim.ConservativeSettings(**values).validate()


def live_run(s: sim.ConservativeSettings, ctx: shell.RunContext, slots: dict[str, Any], zoom: float
             ) -> dict[str, Any]:
    """Run in chunks, updating a progress bar and (for runs longer than a moment) the main charts."""

    def redraw(i: int, partial: sim.SimResult) -> None:
        draw_main(slots, sim.tidy_frame(partial), partial.instance.best, s.T, zoom, suffix=f"-live-{i}")

    result, seconds = pagekit.live_chunks(sim.simulate(s, ctx.device, chunk=pagekit.chunk_size(s.T)), s.T, redraw)
    return {"frame": sim.tidy_frame(result), "summary": sim.summary(result), "best": result.instance.best,
            "mu0": result.instance.mu0, "device": ctx.device_label, "precision": result.precision,
            "seconds": seconds}


def main_figures(frame: pd.DataFrame, best: float, T: int, zoom: float) -> dict[str, go.Figure]:
    """The charts that update live, by slot name."""
    return {
        "regret": vc.regret_figure(frame, best, labels=LABELS),
        "zoom": vc.zoom_figure(frame, best, vc.early_window(T, zoom / 100), labels=LABELS),
        "reward": vc.reward_figure(frame, labels=LABELS),
        "slack": vc.slack_figure(frame, labels=LABELS),
        "default_pulls": vc.default_pulls_figure(frame, labels=LABELS),
    }


def draw_main(slots: dict[str, Any], frame: pd.DataFrame, best: float, T: int, zoom: float, suffix: str = "") -> None:
    """The charts that update live (and stay as the final view): unique keys per live update."""
    pagekit.draw_charts(slots, main_figures(frame, best, T, zoom), suffix)


def explain_rule() -> None:
    """What the constraint means and how the policies enforce it."""
    st.subheader("The rule: never fall far behind the safe default")
    left, right = st.columns([3, 2], gap="medium")
    with left:
        st.markdown("A **default arm** x₀ pays a known μ₀ every time, with no noise: the treatment everyone "
                    "already trusts. The learner may try the other arms, but at **every** round t its total "
                    "reward must stay above what the default would have earned, minus a tolerated share α:")
        st.latex(r"\sum_{s=1}^{t} r_s \;\ge\; (1-\alpha)\,\mu_0\,t \qquad \text{for every } t")
        st.markdown("This holds on the run itself (the *sample path*), not only on average.")
    with right:
        st.markdown("**GenCB** explores only when it can afford the worst case: *this pull pays 0*. Rewards "
                    "are never negative, so if what it has already earned still clears the line,")
        st.latex(r"r_S + N_0\,\mu_0 \;\ge\; (1-\alpha)\,\mu_0\,t,")
        st.markdown("the rule holds whatever this pull brings; otherwise it plays x₀. So its slack never drops "
                    "below zero, in any run.")
        st.caption("The baselines (ConUCB, CLUCB, CLUCB2, C3UCB) check a budget built from **lower confidence "
                   "bounds** of the arms' means. Early on those bounds are wide, the budget looks small, and they "
                   "play the default arm more often than they need to: safer on paper, more regret in practice. "
                   "The unconstrained policy (UCB, LinUCB, C2UCB) ignores the rule.")


def layout() -> tuple[dict[str, Any], float]:
    """The result sections with their explanations; returns chart slots and the zoom share (%)."""
    slots: dict[str, Any] = {}
    with pagekit.chart_row(slots, "regret", "Regret: what the caution costs"):
        st.markdown("Reward lost against always playing the best arm; flat means it has learned, lower is "
                    "better. As in seed 001's Figure 1: mean over runs with the min–max band.")
        st.latex(r"\mathcal{R}_T=\sum_{t=1}^{T}\big(\mu_{\mathrm{best}}-\mu_{x_t}\big),\quad \mu_{x_0}=\mu_0")
        st.caption("The dashed line is the baseline: a learner that earns exactly (1 − α)·μ₀ each round, the "
                   "most the rule lets it lose.")
    zoom = pagekit.zoom_row(slots, ZOOM_KEY, "Early on, the unconstrained policy loses more than the baseline "
                            "allows. GenCB and the baselines stay at or under it, GenCB closer to the line because "
                            "it spends its budget on exploration sooner.")
    right = pagekit.chart_row(slots, "reward", "Reward against the line it must stay above")
    right.markdown("Total reward Σ r_s so far; the red dashed line is (1 − α)·μ₀·t. Every conservative policy "
                   "stays above it; the unconstrained one may dip under it while it explores.")
    right = pagekit.chart_row(slots, "slack", "Slack: how much room was left")
    right.markdown("Slack Σ r_s − (1 − α)·μ₀·t per policy; the rule is broken where it goes below the red zero "
                   "line (a cross marks the first such round). GenCB's never does, in any run: it explores only "
                   "while a zero reward would still leave the slack at or above 0, so it hugs the line early on.")
    right = pagekit.chart_row(slots, "default_pulls", "Default-arm pulls N₀(t)")
    right.markdown("How often each policy fell back on the default arm. The lower-confidence-bound baselines "
                   "hold back more than GenCB; the unconstrained policy never does.")
    return slots, zoom


def summary_table(summary: pd.DataFrame) -> None:
    """Default pulls, final regret and smallest slack per policy."""
    pagekit.conservative_summary(summary["label"], summary, "regret", "cum_regret")


def main() -> None:
    """The page."""
    ctx, values = pagekit.page_start(
        "Conservative bandits: never fall behind the safe default",
        "A learner must try unfamiliar options to find the best one, but here it may never fall more than a share α "
        "behind what the trusted **default** would have earned. **GenCB** wraps a standard learner (UCB, LinUCB, "
        "C2UCB) and explores only when even a worthless pull would keep it above that line; it is compared with the "
        "earlier conservative algorithms and the unconstrained learner.",
        "Conservative bandits", controls)
    s = pagekit.settings_or_error(FORM, lambda: build_settings(values))
    if s is None or not pagekit.rows_fit(len(s.policy_list()) * s.seeds * s.T, MAX_ROWS,
                                         "Lower T or Seeds (or compare fewer policies) to run."):
        return
    st.info(sim.describe_instance(s), icon=":material/casino:")
    explain_rule()
    status = st.empty()
    slots, zoom = layout()
    result, from_cache = pagekit.stored_or_run(pagekit.run_key(s, ctx.device), lambda: live_run(s, ctx, slots, zoom))
    frame, summary = result["frame"], result["summary"]
    status.caption(pagekit.run_caption(result, s.T, s.seeds, len(s.policy_list()), from_cache))
    draw_main(slots, frame, result["best"], s.T, zoom)
    summary_table(summary)
    pagekit.downloads(s, frame, f"conservative_{s.problem}_T{s.T}_K{s.K}_seed{s.base_seed}", "cb_", summary=summary,
                      figures=lambda: main_figures(frame, result["best"], s.T, zoom))


main()
