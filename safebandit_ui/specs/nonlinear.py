"""The non-linear dose model's page: the function-class and policy controls, the result sections with their sentences
(their formulas on demand), and, on demand, the candidate cost functions at one round (from :func:`class_curves` on
the same run)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import families
from safebandit_core.dose import nonlinear as nl
from safebandit_core.dose.nonlinear import candidates as nc
from safebandit_core.dose.nonlinear.fields import CLASS, CLASS_FIELDS, FIELDS, NOISE, POLICIES, RULE
from safebandit_core.model import Run
from safebandit_core.settings import SettingsError
from safebandit_core.viz import dose as vd
from safebandit_core.viz import nonlinear as vn
from safebandit_core.viz.common import by_label

from .. import links, model_page, pagekit, shell, tools

DEFAULT = nl.NonlinearSettings()
CLASS_NAMES = {"linear-grid": "linear: f(x) = ⟨θ, x⟩, ‖θ‖ = 1", "logistic": "logistic: 2σ(⟨w, x⟩ + c) − 1",
               "mlp": "network: one hidden tanh layer"}
CLASS_KEY, POLICIES_KEY = "function_class", "policies"
OLD_KEYS = {**{f"nl_{f.key}": f.key for f in FIELDS}, "nl_class": CLASS_KEY, "nl_policies": POLICIES_KEY}
"""The link parameters of before the keys took their fields' names (``nl_T``), each with the name it has now."""


def class_section(bar: model_page.Sidebar) -> None:
    """The function class, its size (and width, for a network), the context dimension and the runs' size."""
    kind = bar.values["function_class"] = links.bound(
        st.selectbox, "Class F (of both the reward and the cost function)", nl.CLASS_KINDS,
        index=nl.CLASS_KINDS.index(DEFAULT.function_class), key=CLASS_KEY, format_func=CLASS_NAMES.get,
        help="The learner knows the class; the true functions are two of its members.")
    bar.fields_of("size", *CLASS_FIELDS.get(kind, ()), "d", "T", "seeds")


def policies_section(bar: model_page.Sidebar) -> None:
    """Which policies to compare, and ε-Greedy's ε."""
    bar.values["policies"] = model_page.policies(nl.FAMILY, POLICIES_KEY,
                                                 "All policies see the same contexts and noise.", DEFAULT.policies)
    bar.section(POLICIES)


def restored_values(s: nl.NonlinearSettings) -> dict[str, float]:
    """The control values of uploaded settings; this page keeps the linear dose curve g(α) = α."""
    if s.g != DEFAULT.g:
        raise SettingsError("g", f"{DEFAULT.g!r} on this page (the dose model page has the other curves)", s.g)
    return {f.name: getattr(s, f.name) for f in nl.FAMILY.fields}


def restore_extra(s: nl.NonlinearSettings) -> None:
    """The restored class and policies, which have no field control."""
    st.session_state[CLASS_KEY] = s.function_class
    st.session_state[POLICIES_KEY] = list(s.policies)


def views(run: Run) -> model_page.Views:
    """Per-round frame by label and the per-policy summary."""
    return {"frame": by_label(families.tidy(run)), "summary": families.summary(run)}


def figures(s: nl.NonlinearSettings, v: model_page.Views, state: None) -> dict[str, go.Figure]:
    """The charts of the result sections, by slot name."""
    return {"regret": vd.regret_figure(v["frame"]), "violations": vd.violation_figure(v["summary"], s.delta),
            "sets": vn.set_size_figure(v["frame"], s.size)}


def sentences(s: nl.NonlinearSettings, summary: pd.DataFrame) -> dict[str, str]:
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
        "regret": f"Benefit lost after {s.T:,} rounds (mean ± std over {s.seeds} runs): {regret}."
                  + (f" Below 0 for {', '.join(negative)}: more benefit than an all-knowing rival who keeps the "
                     "rule, from doses above the rule's limit." if negative else ""),
        "violations": f"{viol}. Allowed: δ = {s.delta:.2%} per round"
                      + (f"; above it: {', '.join(over)}." if over else "; every rule stayed within it."),
        "sets": f"At round {s.T:,}, of |F| = {s.size:,} (mean over runs): {sets}. "
                + (f"A true function left a set at some round for {'; '.join(lost)} runs"
                   if lost else "The true functions stayed in both sets at every round of every run")
                + f" (Lemma 10: with probability at least 1 − 2δ′ = {1 - 2 * s.delta_prime:.1%} they stay).",
    }


def texts(slots: model_page.Slots, s: nl.NonlinearSettings, v: model_page.Views, state: None) -> None:
    """The sentences beside the charts."""
    for name, text in sentences(s, v["summary"]).items():
        slots[f"{name}_text"].markdown(text)


def layout(s: nl.NonlinearSettings) -> tuple[model_page.Slots, None]:
    """The result sections with their explanations; returns the chart and sentence slots."""
    slots: dict[str, Any] = {}
    with pagekit.chart_row(slots, "regret", "Benefit lost: what the caution costs"):
        st.markdown("Benefit lost against an all-knowing rival that knows the true functions and keeps the same "
                    "rule. A curve that flattens has learned; lower is better.")
        slots["regret_text"] = st.empty()
        pagekit.symbols("nl_regret_symbols",
                        r"\mathcal{R}(T)=\sum_{t=1}^{T}\big(g(\alpha^*_t)-g(\alpha_t)\big)\,\theta^*(X_t)",
                        note="The papers call the benefit lost the regret R(T), against a clairvoyant that knows θ* "
                             "and μ*; X_t is round t's context (the patient), each curve a policy's mean over the "
                             "seeds (runs).")
    with pagekit.chart_row(slots, "violations", "Safety: how often the realized cost passes τ"):
        st.markdown("Each round must keep its **realized** cost below τ with probability at least 1 − δ. "
                    "HPC-UCB adds a margin for the noise to the most pessimistic cost function still in its set; "
                    "On-Expectation leaves the margin out.")
        slots["violations_text"] = st.empty()
        pagekit.symbols("nl_safety_symbols", r"\Pr(C_t\le\tau)\ge1-\delta\quad\text{every round, where}",
                        r"C_t=g(\alpha_t)\big(\mu^*(X_t)+\xi^c_t\big)",
                        note="The noise margin is b_δ = κ_c √(2 log(1/δ)), κ_c the cost noise's spread.")
    with pagekit.chart_row(slots, "sets", "The confidence sets shrink"):
        st.markdown("The learner keeps every function of the class that stays within ρ of the least-squares fit "
                    "on the contexts it has dosed (a zero dose teaches nothing). Each new context rules out the "
                    "functions it tells apart from the fit.")
        slots["sets_text"] = st.empty()
        pagekit.symbols(
            "nl_sets_symbols", r"C^c_t=\big\{\mu\in\mathcal F^c:\ \|\mu-\hat\mu_t\|^2_{D_t}\le\rho^c\big\}",
            r"\|f\|^2_{D_t}=\sum_{s\in D_t}f(X_s)^2,\quad\rho^c=8\kappa_c^2\log\frac{|\mathcal F^c|}{\delta'}")
    st.caption("The **eluder dimension** of a class counts how many rounds it can keep surprising you: how long a "
               "run of contexts can be in which each new one is explained differently by functions that agreed "
               "on all the earlier ones. Theorem 3 of Safety by Design (2026) bounds the benefit lost, with "
               "probability 1 − δ′, by about √(eluder dimension × log|F| × T) times κ and log factors "
               "(the cost term over τ): for a finite class log|F| takes the place of one factor d in the linear "
               "model's d√T (Theorem 2).")
    pagekit.symbols("nl_bound_symbols", r"\mathcal{R}(T)=\mathcal{O}\Big(\sqrt{d^r_{\rm eluder}\,T\,"
                    r"\rho^r(T,\tfrac{\delta'}{3})}+\tfrac1\tau"
                    r"\sqrt{d^c_{\rm eluder}\,T\,\rho^c(T,\tfrac{\delta'}{3})}\Big)")
    return slots, None


def candidates(s: nl.NonlinearSettings, run: Run, v: model_page.Views, ctx: shell.RunContext) -> None:
    """*Inside the cost class at one round*, a collapsed box drawn only while open (:func:`class_at_round`)."""
    box = pagekit.lazy("Inside the cost class at one round", "nl_class_box")
    if box.open:
        with box:
            class_at_round(s, run)


@st.fragment
def class_at_round(s: nl.NonlinearSettings, run: Run) -> None:
    """Pick a policy, seed, direction and round: the cost class along that direction, the set highlighted."""
    left, right = st.columns([3, 2], gap="medium")
    directions = nc.directions(s)
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
        start = nc.default_round(run.policy_outputs(policy)["set_c"][seed], s.size, rounds)
        t = st.select_slider("Round t", rounds, start, key=f"nl_round_{s.T}",
                             help="On a log scale; it starts where the cost set is first down to √|F| functions.")
    c = nl.class_curves(s, seed, t, policy=policy, direction=directions[way], run=run)
    where = "inside" if c["in_set"][c["true"]] else "outside"
    title = f"{nl.LABELS[policy]}, round {t} (seed {s.base_seed + seed}): {c['set_size']:,} of {s.size:,} in C^c_t"
    pagekit.chart(left, vn.candidates_figure(c, title), "candidates", keep=False)
    st.caption(f"Round {t}: {c['set_size']:,} of {s.size:,} cost functions remain (radius ρ^c = {c['rho']:.3g}); "
               f"the fit is member {c['fit']}, the truth member {c['true']}, {where} the set.")


SPEC = model_page.Spec(
    section="Non-linear dose model",
    model="the non-linear dose model",
    upload_key="nl_upload",
    sidebar=(CLASS, RULE, NOISE, POLICIES),
    extras={CLASS: class_section, POLICIES: policies_section},
    field_names={"function_class": "Function class", "g": "Dose curve g"},
    values_of=restored_values,
    restore_extra=restore_extra,
    layout=layout,
    views=views,
    figures=figures,
    texts=texts,
    sections=(candidates,),
    steps=tools.dose_steps,
    keys=(CLASS_KEY, POLICIES_KEY),
    old_keys=OLD_KEYS,
    stem=lambda s: f"nonlinear_{s.function_class}_F{s.size}_T{s.T}_d{s.d}_seed{s.base_seed}",
)
