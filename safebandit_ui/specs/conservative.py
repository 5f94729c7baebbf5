"""The conservative bandits' page: the problem and its shape, μ₀ derived unless set, the rule, the result sections
with the sentences computed from the run, the summary table and the regret over horizons."""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import captions, families, sweep
from safebandit_core import conservative as cb
from safebandit_core.conservative import BASELINE, LABELS, ConservativeSettings
from safebandit_core.conservative.fields import ADVANCED, CONSTRAINT, PROBLEM, RUNS
from safebandit_core.conservative.fields import FIELDS as CONTROLS
from safebandit_core.conservative.settings import FEATURES, MAX_T, SUPER_ARMS
from safebandit_core.model import Run
from safebandit_core.scenarios import Names
from safebandit_core.settings import SettingsError
from safebandit_core.viz import conservative as vc

from .. import links, model_page, pagekit, shell, tools
from ..present import compact, slack_panel

DEFAULT = ConservativeSettings()
MAX_ROWS, HORIZON_ROWS = 3_000_000, 20_000_000
PROBLEM_KEY, AUTO_KEY, POLICIES_KEY = "problem", "mu0_auto", "policies_{}"
ZOOM_KEY, HORIZON_KEY = "zoom_pct", "horizon_factor"
KEYS = (PROBLEM_KEY, AUTO_KEY, ZOOM_KEY, HORIZON_KEY, *(POLICIES_KEY.format(p) for p in cb.PROBLEMS))
"""The URL parameters of the page's controls beyond its fields."""
OLD_KEYS = {f"cb_{key}": key for key in (*(f.key for f in CONTROLS), *KEYS)}
"""The link parameters of before the keys took their fields' names (``cb_T``), each with the name it has now."""
FIELDS = ["slack", "cum_regret", "cum_reward", "default_pulls", "baseline_line"]


def mu0_field(problem: str) -> str:
    """Which μ₀ control a problem uses (a super arm's reward can exceed 1)."""
    return "mu0_super" if SUPER_ARMS[problem] else "mu0"


def problem_section(bar: model_page.Sidebar) -> None:
    """The problem and its shape: K, and d and m where it has them."""
    bar.values["problem"] = problem = links.bound(
        st.selectbox, "Problem", cb.PROBLEMS, index=cb.PROBLEMS.index(DEFAULT.problem), key=PROBLEM_KEY,
        format_func=str.upper, help="CMAB: K independent arms. CLB (linear): an arm is a feature vector x in R^d with "
                                    "mean ⟨x, θ*⟩. CCCB: each round picks m of K feature vectors, earning their sum.")
    bar.fields_of(*(("K_lin", "d") if FEATURES[problem] else ("K",)), *(("m",) if SUPER_ARMS[problem] else ()))


def derived_mu0(values: dict[str, Any], ctx: shell.RunContext) -> float | None:
    """The instance's own μ₀ for the chosen shape (None while the shape is invalid)."""
    try:
        shape = {k: values[k] for k in ("problem", "K", "d", "m")}
        return cb.make_instance(ConservativeSettings(**shape, base_seed=ctx.base_seed, T=1)).mu0
    except SettingsError:
        return None


def constraint_section(bar: model_page.Sidebar) -> None:
    """α, and μ₀: derived from the instance unless the user sets it."""
    bar.field("alpha")
    name = mu0_field(bar.values["problem"])
    bar.values["mu0"] = pagekit.derived_slider(
        bar.form.controls, name, derived_mu0(bar.values, bar.ctx), AUTO_KEY, "Derive μ₀ from the instance",
        "On: μ₀ sits one sixth of the way down from the best arm's mean to the worst (the One-size-fits-all paper's "
        "choice, 0.7 on its CMAB arms). Off: set it with the slider.", bar.fields[name].help)


def runs_section(bar: model_page.Sidebar) -> None:
    """Rounds and seeds, and the policies compared (each problem has its own)."""
    bar.section(RUNS)
    problem = bar.values["problem"]
    bar.values["policies"] = tuple(links.bound(
        st.multiselect, "Compare", cb.POLICIES[problem],
        default=list(ConservativeSettings(problem=problem).policy_list()), key=POLICIES_KEY.format(problem),
        format_func=LABELS.get, help="All policies see the same reward draws in each run."))


def restored_values(s: ConservativeSettings) -> dict[str, float]:
    """The control values of uploaded settings: only the controls their problem shows."""
    values: dict[str, float] = {"K_lin" if FEATURES[s.problem] else "K": s.K, "alpha": s.alpha, "T": s.T,
                                "seeds": s.seeds, "lam": s.lam, "L": s.L, "S": 0.0 if s.S is None else s.S}
    optional = {"d": s.dim, "m": s.m if SUPER_ARMS[s.problem] else None, mu0_field(s.problem): s.mu0}
    return values | {k: v for k, v in optional.items() if v is not None}


def restore_extra(s: ConservativeSettings) -> None:
    """The restored problem, μ₀ toggle and policies, which have no field control."""
    st.session_state[PROBLEM_KEY] = s.problem
    st.session_state[AUTO_KEY] = s.mu0 is None
    st.session_state[POLICIES_KEY.format(s.problem)] = list(s.policy_list())


def check(s: ConservativeSettings) -> None:
    """At least one policy, and every round drawable (raises SettingsError)."""
    if not s.policies:
        raise SettingsError("policies", "at least one policy")
    rows = len(s.policy_list()) * s.seeds
    if rows * s.T > MAX_ROWS:
        raise SettingsError("T", f"at most {MAX_ROWS // rows:,} with {s.seeds} seeds and {len(s.policy_list())} "
                                 "policies (this page draws every round; lower T or Runs)", s.T)


def views(run: Run) -> model_page.Views:
    """The per-round frame of the charted fields, its slack table (for the chart and the sentence), the summary, and
    the best arm's mean."""
    frame = vc.chart_frame(families.tidy(run, FIELDS))
    return {"frame": frame, "negative": vc.negative_slack(frame), "summary": families.summary(run),
            "best": cb.make_instance(run.settings).best}


def figures(s: ConservativeSettings, v: model_page.Views, zoom: float) -> model_page.Figures:
    """The charts of the result sections, by slot name (each built when first drawn)."""
    frame, best, window = v["frame"], v["best"], vc.early_window(s.T, zoom / 100)
    return model_page.Figures(regret=lambda: vc.regret_figure(frame, best),
                              zoom=lambda: vc.zoom_figure(frame, best, window), reward=lambda: vc.reward_figure(frame),
                              slack=lambda: vc.slack_figure(frame, negative=v["negative"]),
                              default_pulls=lambda: vc.default_pulls_figure(frame))


def explain_rule(s: ConservativeSettings) -> model_page.Slots:
    """The instance drawn, what the constraint means and how the policies enforce it."""
    st.info(cb.describe_instance(s), icon=":material/casino:")
    st.subheader("The rule: never fall far behind the safe default")
    left, right = st.columns([3, 2], gap="medium")
    left.markdown("A **default arm** x₀ pays a known μ₀ every time, with no noise: the treatment everyone trusts. "
                  "At **every** round t the learner's total reward must stay above what the default would have "
                  "earned, minus a tolerated share α, on the run itself (the *sample path*), not only on average:"
                  + pagekit.display(r"\sum_{s=1}^{t} r_s \;\ge\; (1-\alpha)\,\mu_0\,t \qquad \text{for every } t"))
    right.markdown("**GenCB** explores only when it can afford the worst case (*this pull pays 0*), i.e. when what "
                   "it has earned already clears the line:"
                   + pagekit.display(r"r_S + N_0\,\mu_0 \;\ge\; (1-\alpha)\,\mu_0\,t")
                   + "\n\nOtherwise it plays x₀; so by construction its slack never drops below zero.")
    right.caption("The baselines (ConUCB, CLUCB, CLUCB2, C3UCB) check a budget of **lower confidence bounds** (δ = "
                  "1/T; the rule holds with probability 1 − δ), wide early on, so they fall back on the default arm "
                  "often. Whether that costs more or less reward than GenCB depends on the horizon: the sentences "
                  "under the charts say which wins in this run. UCB, LinUCB and C2UCB ignore the rule.")
    return {}


HORIZONS = "Reward lost over horizons"
"""The title of the box that runs GenCB and its baseline over longer horizons (the sentences name it)."""


def layout(s: ConservativeSettings) -> tuple[model_page.Slots, float]:
    """The result sections with their explanations; returns chart slots (``*_note`` for sentences) and the zoom."""
    slots: dict[str, Any] = {}
    with pagekit.chart_row(slots, "regret", "Reward lost: what the caution costs"):
        st.markdown("Reward lost against always playing the best arm; flat means it has learned, lower is better "
                    "(as the One-size-fits-all paper's Figure 1: mean over runs, min–max band).")
        st.caption("The dashed line is the baseline: a learner that earns exactly (1 − α)·μ₀ each round, the most "
                   "the rule lets it lose.")
        slots["regret_note"] = st.empty()
        pagekit.symbols("cb_regret_symbols",
                        r"\mathcal{R}_T=\sum_{t=1}^{T}\big(\mu_{\mathrm{best}}-\mu_{x_t}\big),\quad \mu_{x_0}=\mu_0",
                        note="The papers call the reward lost the regret R_T; each curve is a policy's mean over the "
                             "seeds (runs).")
    zoom = pagekit.zoom_row(slots, ZOOM_KEY, "A curve above the dashed line has lost more expected reward than a "
                                              "learner earning exactly (1 − α)·μ₀ per round.")
    pagekit.chart_row(slots, "reward", "Reward against the line it must stay above").markdown(
        "Total reward Σ r_s so far; the red dashed line is (1 − α)·μ₀·t. GenCB is built never to go under it, the "
        "lower-confidence baselines with probability 1 − δ; the unconstrained one may dip under it while it explores.")
    right = pagekit.chart_row(slots, "slack", "Slack: how much room was left")
    right.markdown("Slack Σ r_s − (1 − α)·μ₀·t per rule; the rule is broken where it goes below the red zero line "
                   "(a cross marks the first such round; each row's title says what happened in this run).")
    slots["slack_note"] = right.empty()
    right = pagekit.more_row(slots, "default_pulls", "Default-arm pulls N₀(t)", "cb_pulls_box")
    if right is not None:
        right.markdown("How often each rule fell back on the default arm; the unconstrained one never does.")
        slots["pulls_note"] = right.empty()
    return slots, zoom


def texts(slots: model_page.Slots, s: ConservativeSettings, v: model_page.Views, zoom: float) -> None:
    """The comparisons, each computed from this run: regret, default pulls, slack, the zoom window."""
    frame, summary, base = v["frame"], v["summary"], BASELINE[s.problem]
    if "zoom_note" in slots:
        slots["zoom_note"].caption(vc.zoom_sentence(frame, v["best"], vc.early_window(s.T, zoom / 100)))
    slots["slack_note"].markdown(captions.slack_runs(v["negative"]))
    if {"gencb", base} <= set(summary["policy"]):
        slots["regret_note"].markdown(captions.regret_verdict(summary, "gencb", base, s.seeds, s.K, plain=True,
                                                              horizons=HORIZONS))
        if "pulls_note" in slots:
            slots["pulls_note"].markdown(captions.default_pulls_sentence(summary, "gencb", base))


def summary_table(s: ConservativeSettings, run: Run, v: model_page.Views, ctx: shell.RunContext) -> None:
    """*Summary over runs*: default pulls, final regret and the smallest slack per policy."""
    pagekit.conservative_summary(v["summary"]["label"], v["summary"], "reward lost", "cum_regret")


def crossover(s: ConservativeSettings, run: Run, v: model_page.Views, ctx: shell.RunContext) -> None:
    """*Regret over horizons*: GenCB and the baseline, one run per horizon, computed only when asked."""
    base = BASELINE[s.problem]
    with st.expander(f"{HORIZONS}: when does GenCB overtake {LABELS[base]}?", icon=":material/timeline:"):
        st.markdown(f"One run of GenCB and {LABELS[base]} per horizon T, the other settings as above: "
                    f"{LABELS[base]}'s confidence δ = 1/T depends on the horizon, so the first t rounds of a long "
                    "run are not a run of length t.")
        grid = pagekit.horizon_picker(s.T, s.seeds, 2, HORIZON_KEY, HORIZON_ROWS, MAX_T)
        cross = dataclasses.replace(s, policies=("gencb", base), T=grid[-1])
        frame = pagekit.on_demand(cross, ctx, {"horizons": grid},
                                  lambda progress: sweep.over_horizons(cross, grid, ctx.device, progress),
                                  f"Run horizons {', '.join(f'{h:,}' for h in grid)}", "cb_crossover_run")
        if frame is not None:
            pagekit.chart(st, vc.horizons_figure(frame), "crossover", keep=False)
            inst = cb.make_instance(s)
            st.caption(captions.crossover_caption(frame, "gencb", base, inst.best - inst.mu0))


def present_panels(run: Run, frame: pd.DataFrame, summary: pd.DataFrame, n: Names) -> dict[str, go.Figure]:
    """Regret, reward against the line, the default's use and the slack of the sample-path rule."""
    best, t = cb.make_instance(run.settings).best, f"{n.round} t"
    return {
        "regret": compact(vc.regret_figure(frame, best, baseline_name="most the rule lets it lose"),
                          "Reward lost against always choosing the best option", x_title=t),
        "reward": compact(vc.reward_figure(frame), f"Total reward against the line under the {n.default}'s",
                          x_title=t),
        "default": compact(vc.default_pulls_figure(frame), f"Times the {n.default} was chosen", "times", t),
        "slack": slack_panel(frame, "Room left under the rule (below 0: broken)", n),
    }


SPEC = model_page.Spec(
    section="Conservative bandits",
    model="the conservative bandits",
    upload_key="cb_upload",
    sidebar=(PROBLEM, CONSTRAINT, RUNS, ADVANCED),
    collapsed=(ADVANCED,),
    extras={PROBLEM: problem_section, CONSTRAINT: constraint_section, RUNS: runs_section},
    field_names={"problem": "Problem", "S": "Bound S on ‖θ*‖"},
    values_of=restored_values,
    restore_extra=restore_extra,
    check=check,
    warnings=False,
    explain=explain_rule,
    layout=layout,
    views=views,
    figures=figures,
    texts=texts,
    sections=(summary_table, crossover),
    steps=tools.conservative_steps,
    stem=lambda s: f"conservative_{s.problem}_T{s.T}_K{s.K}_seed{s.base_seed}",
    key_prefix="cb_",
    keys=KEYS,
    old_keys=OLD_KEYS,
    opening=float(pagekit.ZOOM_DEFAULT),
)
