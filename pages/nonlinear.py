"""Non-linear dose model: HPC-UCB over a finite function class (Safety by Design (2026), §6, Algorithm 2).

Widgets → :class:`NonlinearSettings` → one shared run (:mod:`safebandit_ui.live`) → figures; the
candidate functions at a chosen round come from :func:`class_curves` on that same run.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import families
from safebandit_core.dose import nonlinear as nl
from safebandit_core.dose.nonlinear.settings import MAX_D, MAX_HIDDEN, MAX_SEEDS, MAX_SIZE, MAX_T
from safebandit_core.model import Run
from safebandit_core.settings import SettingsError
from safebandit_core.viz import dose as vd
from safebandit_core.viz import nonlinear as vn
from safebandit_core.viz.common import by_label
from safebandit_ui import downloads, forms, links, live, pagekit, pins, scrub, shell, tools
from safebandit_ui.forms import Control

DEFAULT = nl.NonlinearSettings()
CONTROLS: dict[str, Control] = forms.with_defaults({
    "size": Control("nl_size", "Class size |F|", 1, MAX_SIZE, 1),
    "hidden": Control("nl_hidden", "Hidden units", 1, MAX_HIDDEN, 1),
    "d": Control("nl_d", "Context dimension d", 1, MAX_D, 1),
    "T": Control("nl_T", "Rounds T", 100, MAX_T, 500),
    "seeds": Control("nl_seeds", "Seeds", 1, MAX_SEEDS, 1),
    "tau": Control("nl_tau", "Cost limit τ", 0.05, 2.0, 0.05),
    "delta": Control("nl_delta", "Allowed violation probability δ", 0.005, 0.5, 0.005),
    "delta_prime": Control("nl_delta_prime", "Estimation confidence δ′", 0.005, 0.5, 0.005),
    "kappa_r": Control("nl_kappa_r", "Reward noise κ_r", 0.0, 1.0, 0.01),
    "kappa_c": Control("nl_kappa_c", "Cost noise κ_c", 0.0, 1.0, 0.01),
    "eps": Control("nl_eps", "ε (share of rounds at the safe dose)", 0.0, 1.0, 0.05),
}, DEFAULT)
CLASS_NAMES = {"linear-grid": "linear: f(x) = ⟨θ, x⟩, ‖θ‖ = 1", "logistic": "logistic: 2σ(⟨w, x⟩ + c) − 1",
               "mlp": "network: one hidden tanh layer"}
CLASS_FIELDS = {"mlp": {"hidden": "Width of the network's hidden layer."}}  # controls only some classes have
slider = functools.partial(forms.slider, CONTROLS)
integer = functools.partial(forms.integer, CONTROLS)


def restored_values(s: nl.NonlinearSettings) -> dict[str, float]:
    """The control values of uploaded settings; this page keeps the linear dose curve g(α) = α."""
    if s.g != DEFAULT.g:
        raise SettingsError("g", f"{DEFAULT.g!r} on this page (the dose model page has the other curves)", s.g)
    return {f: getattr(s, f) for f in CONTROLS}


def restore_extra(s: nl.NonlinearSettings) -> None:
    """The restored class and policies, which have no :class:`forms.Control`."""
    st.session_state["nl_class"] = s.function_class
    st.session_state["nl_policies"] = list(s.policies)


FORM = forms.SettingsForm(
    ("nonlinear",), "the non-linear dose model", CONTROLS, "nl_upload",
    int_fields=frozenset({"size", "hidden", "d", "T", "seeds"}),
    field_names={"policies": "Policies", "function_class": "Function class", "g": "Dose curve g",
                 "precision": "Precision (sidebar)", "base_seed": "Base seed (sidebar)"},
    values_of=restored_values, restore_extra=restore_extra)


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """Draw the page's controls; return the settings fields they chose."""
    v: dict[str, Any] = {"hidden": DEFAULT.hidden}
    st.markdown("**The function class**")
    v["function_class"] = links.bound(st.selectbox, "Class F (of both the reward and the cost function)",
                                      nl.CLASS_KINDS, index=nl.CLASS_KINDS.index(DEFAULT.function_class),
                                      key="nl_class", format_func=CLASS_NAMES.get,
                                      help="The learner knows the class; the true functions are two of its members.")
    v["size"] = integer("size", "Members of each class. A larger class takes longer to narrow down.")
    for field, text in CLASS_FIELDS.get(v["function_class"], {}).items():
        v[field] = integer(field, text)
    v["d"] = integer("d", "Length of the context vector X_t.")
    cols = st.columns(2)
    with cols[0]:
        v["T"] = integer("T", "Rounds per run.")
    with cols[1]:
        v["seeds"] = integer("seeds", "Independent runs on their own random streams (the classes are shared).")
    st.markdown("**The safety rule**")
    v["tau"] = slider("tau", "The cost of a round must stay below τ.")
    v["delta"] = slider("delta", "A round may exceed τ with probability at most δ.")
    v["delta_prime"] = slider("delta_prime", "The confidence sets hold the truth with probability 1 − δ′.")
    st.markdown("**Noise**")
    v["kappa_r"] = slider("kappa_r", "Reward noise; the reward set's radius grows with κ_r².")
    v["kappa_c"] = slider("kappa_c", "Cost noise; it sets both the cost set's radius and the margin b_δ.")
    st.markdown("**Policies**")
    v["policies"] = tuple(links.bound(st.multiselect, "Compare", nl.NAMES, default=list(DEFAULT.policies),
                                      key="nl_policies", format_func=nl.LABELS.get,
                                      help="All policies see the same contexts and noise."))
    v["eps"] = slider("eps", "ε-Greedy plays the round-1 safe dose with probability ε.")
    forms.restore_section(FORM)
    v["base_seed"], v["precision"] = ctx.base_seed, ctx.precision
    return v


def build_settings(values: dict[str, Any], ctx: shell.RunContext) -> nl.NonlinearSettings:
    """The checked settings, which must also fit the device's memory (raises :class:`SettingsError`)."""
    s = nl.NonlinearSettings(**values).validate()
    nl.FAMILY.check_fits(s, ctx.device)
    return s


def tidy(run: Run) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-round frame by label and the per-policy summary."""
    return by_label(families.tidy(run)), families.summary(run)


def main_figures(s: nl.NonlinearSettings, frame: pd.DataFrame, summary: pd.DataFrame) -> dict[str, go.Figure]:
    """The charts that update live, by slot name."""
    return {"regret": vd.regret_figure(frame),
            "violations": vd.violation_figure(summary, s.delta), "sets": vn.set_size_figure(frame, s.size)}


def texts(s: nl.NonlinearSettings, summary: pd.DataFrame) -> dict[str, str]:
    """The sentences beside the charts, every number from the run."""
    rows = list(summary.itertuples())
    regret = "; ".join(f"{r.label} {r.cum_regret_mean:,.1f} ± {r.cum_regret_std:,.1f}" for r in rows)
    negative = [r.label for r in rows if r.cum_regret_mean < 0]
    viol = "; ".join(f"**{r.label}**: {r.violations:,} of {r.rounds * s.seeds:,} rounds over the limit "
                     f"({r.violation_rate:.2%})" for r in rows)
    over = [r.label for r in rows if r.violation_rate > s.delta]
    sets = "; ".join(f"{r.label}: |C^r| = {r.set_r_final:.3g}, |C^c| = {r.set_c_final:.3g}" for r in rows)
    lost = [f"{r.label} in {round(r.true_excluded_rate * s.seeds)} of {s.seeds}" for r in rows
            if r.true_excluded_rate > 0]
    return {
        "regret": f"After {s.T:,} rounds (mean ± std over {s.seeds} seeds): {regret}."
                  + (f" Negative for {', '.join(negative)}: more reward than the clairvoyant, from doses above "
                     "the rule's limit." if negative else ""),
        "violations": f"{viol}. Allowed: δ = {s.delta:.2%} per round"
                      + (f"; above it: {', '.join(over)}." if over else "; every policy stayed within it."),
        "sets": f"At round {s.T:,}, of |F| = {s.size:,} (mean over seeds): {sets}. "
                + (f"A true function left a set at some round for {'; '.join(lost)} seeds"
                   if lost else "The true functions stayed in both sets at every round of every seed")
                + f" (Lemma 10: with probability at least 1 − 2δ′ = {1 - 2 * s.delta_prime:.1%} they stay).",
    }


def draw_main(slots: dict[str, Any], s: nl.NonlinearSettings, figures: dict[str, go.Figure], summary: pd.DataFrame,
              suffix: str = "") -> None:
    """The finished run's charts (:func:`main_figures`) with the pins over them, and their sentences."""
    pagekit.draw_charts(slots, pagekit.with_pins(figures, "nonlinear", s), suffix)
    for name, text in texts(s, summary).items():
        slots[f"{name}_text"].markdown(text)


def layout() -> dict[str, Any]:
    """The result sections with their explanations; returns the chart and sentence slots."""
    slots: dict[str, Any] = {}
    with pagekit.chart_row(slots, "regret", "Regret: how much reward the caution costs"):
        st.markdown("Reward lost against a clairvoyant that knows θ* and μ* and obeys the same rule. A curve that "
                    "flattens has learned; lower is better.")
        st.latex(r"\mathcal{R}(T)=\sum_{t=1}^{T}\big(g(\alpha^*_t)-g(\alpha_t)\big)\,\theta^*(X_t)")
        slots["regret_text"] = st.empty()
    with pagekit.chart_row(slots, "violations", "Safety: how often the realized cost passes τ"):
        st.markdown("Each round must keep its **realized** cost below τ with probability at least 1 − δ. "
                    "HPC-UCB adds the noise margin b_δ to the most pessimistic cost function still in its set; "
                    "On-Expectation leaves the margin out.")
        st.latex(r"\Pr(C_t\le\tau)\ge1-\delta\quad\text{every round, where}")
        st.latex(r"C_t=g(\alpha_t)\big(\mu^*(X_t)+\xi^c_t\big)")
        slots["violations_text"] = st.empty()
    with pagekit.chart_row(slots, "sets", "The confidence sets shrink"):
        st.markdown("The learner keeps every function of the class that stays within ρ of the least-squares fit "
                    "on the contexts it has dosed (a zero dose teaches nothing). Each new context rules out the "
                    "functions it tells apart from the fit.")
        st.latex(r"C^c_t=\big\{\mu\in\mathcal F^c:\ \|\mu-\hat\mu_t\|^2_{D_t}\le\rho^c\big\}")
        st.latex(r"\|f\|^2_{D_t}=\sum_{s\in D_t}f(X_s)^2,\quad\rho^c=8\kappa_c^2\log\frac{|\mathcal F^c|}{\delta'}")
        slots["sets_text"] = st.empty()
    st.caption("The **eluder dimension** of a class counts how many rounds it can keep surprising you: how long a "
               "run of contexts can be in which each new one is explained differently by functions that agreed "
               "on all the earlier ones. Theorem 3 of Safety by Design (2026) bounds the regret, with probability "
               "1 − δ′, by about √(eluder dimension × log|F| × T) times κ and log factors (the cost term over τ): "
               "for a finite class log|F| takes the place of one factor d in the linear model's d√T (Theorem 2).")
    st.latex(r"\mathcal{R}(T)=\mathcal{O}\Big(\sqrt{d^r_{\rm eluder}\,T\,\rho^r(T,\tfrac{\delta'}{3})}"
             r"+\tfrac1\tau\sqrt{d^c_{\rm eluder}\,T\,\rho^c(T,\tfrac{\delta'}{3})}\Big)")
    return slots


def default_round(sizes: np.ndarray, size: int, rounds: list[int]) -> int:
    """The first of ``rounds`` at or after the cost set is down to √|F| members (the last if it never is)."""
    small = np.flatnonzero(sizes <= max(1.0, np.sqrt(size)))
    return next((r for r in rounds if small.size and r > small[0]), rounds[-1])


@st.fragment
def candidates(s: nl.NonlinearSettings, run: Run) -> None:
    """Pick a policy, seed, direction and round: the cost class along that direction, the set highlighted."""
    st.subheader("Inside the cost class at one round")
    left, right = st.columns([3, 2], gap="medium")
    _, members_c, _, c_star = nl.draw_classes(s)
    directions = {"true": vn.gradient_direction(s.function_class, members_c, c_star),
                  **{f"e{j + 1}": np.eye(s.d)[j] for j in range(min(s.d, 8))}}
    with right:
        st.markdown("Every thin line is one candidate cost function along a line of contexts x = a·u. Grey ones "
                    "are ruled out by the data so far, blue ones are still in C^c_t; the bold line is the fit "
                    "μ̂_t, the dashed one the true μ*. The dose is set by the highest blue line at X_t.")
        policy = st.selectbox("Policy", s.policies, format_func=nl.LABELS.get,
                              key="nl_curve_policy_" + "-".join(s.policies))
        seed = st.selectbox("Seed", range(s.seeds), format_func=lambda i: str(s.base_seed + i),
                            key=f"nl_curve_seed_{s.seeds}")
        way = st.selectbox("Direction u", list(directions), key=f"nl_curve_dir_{s.d}",
                           format_func=lambda k: "where μ* rises fastest" if k == "true" else f"axis {k}")
        rounds = [int(r) for r in vn.log_rounds(s.T, 200)]
        start = default_round(run.policy_outputs(policy)["set_c"][seed], s.size, rounds)
        t = st.select_slider("Round t", rounds, start, key=f"nl_round_{s.T}",
                             help="On a log scale; it starts where the cost set is first down to √|F| functions.")
    c = nl.class_curves(s, seed, t, policy=policy, direction=directions[way], run=run)
    where = "inside" if c["in_set"][c["true"]] else "outside"
    title = f"{nl.LABELS[policy]}, round {t} (seed {s.base_seed + seed}): {c['set_size']:,} of {s.size:,} in C^c_t"
    pagekit.chart(left, vn.candidates_figure(c, title), "candidates", keep=False)
    st.caption(f"Round {t}: {c['set_size']:,} of {s.size:,} cost functions remain (radius ρ^c = {c['rho']:.3g}); "
               f"the fit is member {c['fit']}, the truth member {c['true']}, {where} the set.")


def main() -> None:
    """The page."""
    ctx, values = pagekit.page_start(
        "Non-linear dose model",
        "The dose model of Safety by Design (2026) with **non-linear** reward and cost functions: the learner knows "
        "a finite class F of candidate functions of the context and must find the true two (§6, Algorithm 2). "
        "It fits each class by least squares, keeps the functions that still fit the data, and doses for the "
        "most hopeful reward and the most pessimistic cost among them.",
        "Non-linear dose model", controls)
    with st.container():
        s = pagekit.checked(FORM, lambda: build_settings(values, ctx), nl.FAMILY.warnings)
        if s is None:
            return
        status, slots = st.empty(), layout()
        run, shared, seconds = live.run(s, ctx, lambda r: pagekit.draw_charts(
            slots, main_figures(s, *tidy(r)), f"-live-{r.t_done}"))
        frame, summary = pagekit.per_run(run, "tidy", lambda: tidy(run))
        status.caption(live.caption(run, shared, seconds))
        figures = pagekit.per_run(run, "figures", lambda: main_figures(s, frame, summary))
        draw_main(slots, s, figures, summary)
        candidates(s, run)
        scrub.section(s, ctx)
        tools.panel("nonlinear", run, summary, tools.dose_steps(run), lambda: figures)
        downloads.downloads(s, lambda: families.tidy(run), f"nonlinear_{s.function_class}_F{s.size}_T{s.T}_d{s.d}"
                            f"_seed{s.base_seed}", summary=summary, figures=lambda: main_figures(s, frame, summary),
                            extra=lambda: pins.export("nonlinear"), device=run.device, precision=run.precision)


main()
