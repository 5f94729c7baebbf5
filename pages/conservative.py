"""Conservative bandits (One-size-fits-all, AAAI 2021): GenCB against its expected-reward baselines.

Widgets → :class:`ConservativeSettings` → one shared run (:mod:`safebandit_ui.live`) → figures, and
sentences computed from that run (:mod:`safebandit_core.viz.conservative`).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import captions, families, sweep
from safebandit_core import conservative as cb
from safebandit_core.conservative import BASELINE, LABELS, ConservativeSettings
from safebandit_core.conservative.settings import FEATURES, MAX_T, SUPER_ARMS
from safebandit_core.settings import SettingsError
from safebandit_core.viz import conservative as vc
from safebandit_ui import downloads, forms, links, live, pagekit, pins, scrub, shell, tools
from safebandit_ui.forms import Control

DEFAULT = ConservativeSettings()
MAX_ROWS, HORIZON_ROWS = 3_000_000, 20_000_000
PROBLEM_KEY, AUTO_KEY, ZOOM_KEY = "cb_problem", "cb_mu0_auto", "cb_zoom"
POLICIES_KEY = "cb_policies_{}"
FIELDS = ["slack", "cum_regret", "cum_reward", "default_pulls", "baseline_line"]
CONTROLS: dict[str, Control] = {
    "K": Control("cb_K", "K (arms)", 2, 500, 1, DEFAULT.K),
    "K_lin": Control("cb_K_lin", "K (arms)", 2, cb.MAX_CCCB_ARMS, 1, 10),
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
slider = functools.partial(forms.slider, CONTROLS)
integer = functools.partial(forms.integer, CONTROLS)
number = functools.partial(forms.number, CONTROLS)


def mu0_field(problem: str) -> str:
    """Which μ₀ control a problem uses (a super arm's reward can exceed 1)."""
    return "mu0_super" if SUPER_ARMS[problem] else "mu0"


def restored_values(s: ConservativeSettings) -> dict[str, float]:
    """The control values of uploaded settings: only the controls their problem shows."""
    values: dict[str, float] = {"K_lin" if FEATURES[s.problem] else "K": s.K, "alpha": s.alpha, "T": s.T,
                                "seeds": s.seeds, "lam": s.lam, "L": s.L, "S": 0.0 if s.S is None else s.S}
    optional = {"d": s.dim, "m": s.m if SUPER_ARMS[s.problem] else None, mu0_field(s.problem): s.mu0}
    return values | {k: v for k, v in optional.items() if v is not None}


def restore_extra(s: ConservativeSettings) -> None:
    """The restored problem, μ₀ toggle and policies, which have no :class:`forms.Control`."""
    st.session_state[PROBLEM_KEY] = s.problem
    st.session_state[AUTO_KEY] = s.mu0 is None
    st.session_state[POLICIES_KEY.format(s.problem)] = list(s.policy_list())


FORM = forms.SettingsForm(
    ("conservative",), "the conservative bandits", CONTROLS, "cb_upload",
    int_fields=frozenset({"K", "K_lin", "d", "m", "T", "seeds"}),
    field_names={"problem": "Problem", "policies": "Policies", "S": "Bound S on ‖θ*‖",
                 "precision": "Precision (sidebar)", "base_seed": "Base seed (sidebar)"},
    values_of=restored_values, restore_extra=restore_extra)


def derived_mu0(problem: str, K: int, d: int, m: int, ctx: shell.RunContext) -> float | None:
    """The instance's own μ₀ for the chosen shape (None while the shape is invalid)."""
    try:
        return cb.make_instance(ConservativeSettings(problem, K=K, d=d, m=m, base_seed=ctx.base_seed, T=1)).mu0
    except SettingsError:
        return None


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """Draw the page's controls; return the settings fields they chose."""
    st.markdown("**The problem**")
    problem = links.bound(st.selectbox, "Problem", cb.PROBLEMS, index=cb.PROBLEMS.index(DEFAULT.problem),
                          key=PROBLEM_KEY, format_func=str.upper,
                          help="CMAB: K independent arms. CLB (linear): an arm is a feature vector x in R^d with "
                               "mean ⟨x, θ*⟩. CCCB: each round picks m of K feature vectors, earning their sum.")
    v: dict[str, Any] = {"problem": problem, "d": DEFAULT.d, "m": DEFAULT.m}
    if not FEATURES[problem]:
        v["K"] = integer("K", "Number of arms; their means go in equal steps from 0.8 down to 0.2.")
    else:
        cols = st.columns(2)
        with cols[0]:
            v["K"] = integer("K_lin", "Number of feature vectors (the One-size-fits-all paper uses K = 2d).")
        with cols[1]:
            v["d"] = integer("d", "Length of each feature vector.")
    if SUPER_ARMS[problem]:
        v["m"] = integer("m", "How many base arms one super arm holds.")
    st.markdown("**The constraint**")
    v["alpha"] = slider("alpha", "The share of the default reward the learner may give up: Σ r_s ≥ (1 − α)·μ₀·t.")
    v["mu0"] = pagekit.derived_slider(
        CONTROLS, mu0_field(problem), derived_mu0(problem, v["K"], v["d"], v["m"], ctx), AUTO_KEY,
        "Derive μ₀ from the instance", "On: μ₀ sits one sixth of the way down from the best arm's mean to the worst "
        "(the One-size-fits-all paper's choice, 0.7 on its CMAB arms). Off: set it with the slider.",
        "What the safe default arm pays every time (no noise); the learner must keep Σ r_s ≥ (1 − α)·μ₀·t.")
    v["T"], v["seeds"] = forms.runs_controls(CONTROLS)
    v["policies"] = tuple(links.bound(st.multiselect,
        "Compare", cb.POLICIES[problem], default=list(ConservativeSettings(problem=problem).policy_list()),
        key=POLICIES_KEY.format(problem), format_func=LABELS.get,
        help="All policies see the same reward draws in each run."))
    with st.expander("Advanced"):
        v["lam"] = number("lam", "Ridge regularisation of the linear estimates (CLB, CCCB); at least max(1, L²).")
        v["L"] = number("L", "Bound on the feature vectors' norm that the instance respects and the policies use.")
        v["S"] = number("S", "Bound on ‖θ*‖ the policies assume; 0: the default (√K for CMAB, else 1).") or None
    forms.restore_section(FORM)
    v["base_seed"], v["precision"] = ctx.base_seed, ctx.precision
    return v


def build_settings(values: dict[str, Any], ctx: shell.RunContext) -> ConservativeSettings:
    """The checked settings: at least one policy, every round drawable, fits the device (raises SettingsError)."""
    if not values["policies"]:
        raise SettingsError("policies", "at least one policy")
    s = ConservativeSettings(**values).validate()
    rows = len(s.policy_list()) * s.seeds
    if rows * s.T > MAX_ROWS:
        raise SettingsError("T", f"at most {MAX_ROWS // rows:,} with {s.seeds} seeds and {len(s.policy_list())} "
                                 "policies (this page draws every round; lower T or Seeds)", s.T)
    cb.FAMILY.check_fits(s, ctx.device)
    return s


def main_figures(frame: pd.DataFrame, best: float, T: int, zoom: float) -> dict[str, go.Figure]:
    """The charts that update live, by slot name."""
    window = vc.early_window(T, zoom / 100)
    return {"regret": vc.regret_figure(frame, best),
            "zoom": vc.zoom_figure(frame, best, window),
            "reward": vc.reward_figure(frame), "slack": vc.slack_figure(frame),
            "default_pulls": vc.default_pulls_figure(frame)}


def explain_rule() -> None:
    """What the constraint means and how the policies enforce it."""
    st.subheader("The rule: never fall far behind the safe default")
    left, right = st.columns([3, 2], gap="medium")
    left.markdown("A **default arm** x₀ pays a known μ₀ every time, with no noise: the treatment everyone trusts. "
                  "At **every** round t the learner's total reward must stay above what the default would have "
                  "earned, minus a tolerated share α, on the run itself (the *sample path*), not only on average:")
    left.latex(r"\sum_{s=1}^{t} r_s \;\ge\; (1-\alpha)\,\mu_0\,t \qquad \text{for every } t")
    right.markdown("**GenCB** explores only when it can afford the worst case (*this pull pays 0*), i.e. when what "
                   "it has earned already clears the line:")
    right.latex(r"r_S + N_0\,\mu_0 \;\ge\; (1-\alpha)\,\mu_0\,t")
    right.markdown("Otherwise it plays x₀; so by construction its slack never drops below zero.")
    right.caption("The baselines (ConUCB, CLUCB, CLUCB2, C3UCB) check a budget of **lower confidence bounds** (δ = "
                  "1/T; the rule holds with probability 1 − δ), wide early on, so they fall back on the default arm "
                  "often. Whether that costs more or less regret than GenCB depends on the horizon: the sentences "
                  "under the charts say which wins in this run. UCB, LinUCB and C2UCB ignore the rule.")


def layout() -> tuple[dict[str, Any], float]:
    """The result sections with their explanations; returns chart slots (``*_note`` for sentences) and the zoom."""
    slots: dict[str, Any] = {}
    with pagekit.chart_row(slots, "regret", "Regret: what the caution costs"):
        st.markdown("Reward lost against always playing the best arm; flat means it has learned, lower is better "
                    "(as the One-size-fits-all paper's Figure 1: mean over runs, min–max band).")
        st.latex(r"\mathcal{R}_T=\sum_{t=1}^{T}\big(\mu_{\mathrm{best}}-\mu_{x_t}\big),\quad \mu_{x_0}=\mu_0")
        st.caption("The dashed line is the baseline: a learner that earns exactly (1 − α)·μ₀ each round, the most "
                   "the rule lets it lose.")
        slots["regret_note"] = st.empty()
    zoom = pagekit.zoom_row(slots, ZOOM_KEY, "A curve above the dashed line has lost more expected reward than a "
                                             "learner earning exactly (1 − α)·μ₀ per round.")
    slots["zoom_note"] = st.empty()
    pagekit.chart_row(slots, "reward", "Reward against the line it must stay above").markdown(
        "Total reward Σ r_s so far; the red dashed line is (1 − α)·μ₀·t. GenCB is built never to go under it, the "
        "lower-confidence baselines with probability 1 − δ; the unconstrained one may dip under it while it explores.")
    right = pagekit.chart_row(slots, "slack", "Slack: how much room was left")
    right.markdown("Slack Σ r_s − (1 − α)·μ₀·t per policy; the rule is broken where it goes below the red zero line "
                   "(a cross marks the first such round; each row's title says what happened in this run).")
    slots["slack_note"] = right.empty()
    with pagekit.chart_row(slots, "default_pulls", "Default-arm pulls N₀(t)"):
        st.markdown("How often each policy fell back on the default arm; the unconstrained policy never does.")
        slots["pulls_note"] = st.empty()
    return slots, zoom


def sentences(slots: dict[str, Any], s: ConservativeSettings, frame: pd.DataFrame, summary: pd.DataFrame,
              best: float, zoom: float) -> None:
    """The comparisons, each computed from this run: regret, default pulls, slack, the zoom window."""
    base = BASELINE[s.problem]
    slots["zoom_note"].caption(vc.zoom_sentence(frame, best, vc.early_window(s.T, zoom / 100)))
    slots["slack_note"].markdown(captions.slack_runs(vc.negative_slack(frame)))
    if {"gencb", base} <= set(summary["policy"]):
        slots["regret_note"].markdown(captions.regret_verdict(summary, "gencb", base, s.seeds, s.K))
        slots["pulls_note"].markdown(captions.default_pulls_sentence(summary, "gencb", base))


def crossover(s: ConservativeSettings, ctx: shell.RunContext) -> None:
    """*Regret over horizons*: GenCB and the baseline, one run per horizon, computed only when asked."""
    base = BASELINE[s.problem]
    with st.expander(f"Regret over horizons: when does GenCB overtake {LABELS[base]}?", icon=":material/timeline:"):
        st.markdown(f"One run of GenCB and {LABELS[base]} per horizon T, the other settings as above: "
                    f"{LABELS[base]}'s confidence δ = 1/T depends on the horizon, so the first t rounds of a long "
                    "run are not a run of length t.")
        grid = pagekit.horizon_picker(s.T, s.seeds, 2, "cb_horizon_factor", HORIZON_ROWS, MAX_T)
        cross = dataclasses.replace(s, policies=("gencb", base), T=grid[-1])
        frame = pagekit.on_demand(cross, ctx, {"horizons": grid},
                                  lambda progress: sweep.over_horizons(cross, grid, ctx.device, progress),
                                  f"Run horizons {', '.join(f'{h:,}' for h in grid)}", "cb_crossover_run")
        if frame is not None:
            st.plotly_chart(vc.horizons_figure(frame), key="crossover")
            inst = cb.make_instance(s)
            st.caption(captions.crossover_caption(frame, "gencb", base, inst.best - inst.mu0))


def main() -> None:
    """The page."""
    ctx, values = pagekit.page_start(
        "Conservative bandits: never fall behind the safe default",
        "A learner must try unfamiliar options, but may never fall more than a share α behind what the trusted "
        "**default** would have earned. **GenCB** wraps a standard learner (UCB, LinUCB, C2UCB) and explores only "
        "when even a worthless pull keeps it above that line.",
        "Conservative bandits", controls)
    s = forms.settings_or_error(FORM, lambda: build_settings(values, ctx))
    if s is None:
        return
    st.info(cb.describe_instance(s), icon=":material/casino:")
    explain_rule()
    status, (slots, zoom), best = st.empty(), layout(), cb.make_instance(s).best
    run, shared, seconds = live.run(s, ctx, lambda r: pagekit.draw_charts(
        slots, main_figures(families.tidy(r, FIELDS), best, s.T, zoom), f"-live-{r.t_done}"))
    frame, summary = pagekit.per_run(run, "tidy", lambda: (families.tidy(run, FIELDS), families.summary(run)))
    status.caption(live.caption(run, shared, seconds))
    figures = pagekit.per_run(run, ("figures", zoom), lambda: main_figures(frame, best, s.T, zoom))
    pagekit.draw_charts(slots, pagekit.with_pins(figures, "conservative", s))
    sentences(slots, s, frame, summary, best, zoom)
    pagekit.conservative_summary(summary["label"], summary, "regret", "cum_regret")
    crossover(s, ctx)
    scrub.section(s, ctx)
    tools.panel("conservative", run, summary, tools.conservative_steps(run),
                lambda: figures)
    downloads.downloads(s, lambda: families.tidy(run), f"conservative_{s.problem}_T{s.T}_K{s.K}_seed{s.base_seed}",
                        "cb_", summary=summary, figures=lambda: main_figures(frame, best, s.T, zoom),
                        extra=lambda: pins.export("conservative"), device=run.device, precision=run.precision)


main()
