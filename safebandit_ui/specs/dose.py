"""The dose model's page: the dose-curve and policy controls, the result sections (their formulas on demand), the
summary table with the slack chart on demand, and the round inspector on demand."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import captions, families
from safebandit_core.dose import FAMILY, DoseSettings, curves
from safebandit_core.dose.fields import CURVE, POLICIES
from safebandit_core.model import Run
from safebandit_core.scenarios import Names
from safebandit_core.viz import dose as vd
from safebandit_core.viz.common import (
    LIMIT_COLOR,
    MAX_DOTS,
    base_layout,
    by_label,
    distinct_dashes,
    figure,
    histogram_traces,
    labels_of,
    mean_band_figure,
    note,
    policy_colors,
    rolling_mean,
    shade_below_zero,
    vline,
)

from .. import links, model_page, pagekit, shell, tools
from ..present import compact

DEFAULT = DoseSettings()
CURVE_NAMES = {"linear": "linear: g(α) = α", "power": "power: g(α) = αᵖ", "emax": "Emax (Hill)"}
CURVE_FIELDS = {"power": ("g_power",), "emax": ("g_ec50", "g_hill")}
"""The curve parameters each dose curve shows (the others keep their defaults)."""


def curve_section(bar: model_page.Sidebar) -> None:
    """The dose curve's shape, its parameters and a small plot of it."""
    g = bar.values["g"] = links.bound(st.selectbox, "Shape", curves.KINDS, index=curves.KINDS.index(DEFAULT.g),
                                      key="g", format_func=CURVE_NAMES.get,
                                      help="How a dose turns into an effect: g(0) = 0, g(1) = 1, increasing.")
    for name in CURVE_FIELDS.get(g, ()):
        bar.field(name)
    v = bar.values
    doses, effect = curves.on_grid(g, v["g_power"], v["g_ec50"], v["g_hill"])
    pagekit.chart(st, vd.curve_figure(doses, effect, "g(α)"), "g_curve", keep=False, config={"displayModeBar": False})


def policies_section(bar: model_page.Sidebar) -> None:
    """Which policies to compare, and ε-Greedy's ε."""
    bar.values["policies"] = model_page.policies(FAMILY, "policies", "All policies see the same contexts and noise.",
                                                 DEFAULT.policies)
    bar.section(POLICIES)


def restore_extra(s: DoseSettings) -> None:
    """The restored curve and policies, which have no field control."""
    st.session_state["g"] = s.g
    st.session_state["policies"] = list(s.policies)


def views(run: Run) -> model_page.Views:
    """Per-round frame by label (with g(α_t) for the cost distribution) and the per-policy summary."""
    frame = by_label(families.tidy(run))
    frame["g_alpha"] = curves.effect(run.settings, frame["alpha"].to_numpy())
    return {"frame": frame, "summary": families.summary(run)}


def figures(s: DoseSettings, v: model_page.Views, band: str) -> dict[str, go.Figure]:
    """The charts of the result sections, by slot name."""
    return {"regret": vd.regret_figure(v["frame"], band=band),
            "violations": vd.violation_figure(v["summary"], s.delta), "cost": vd.cost_figure(v["frame"], s.tau),
            "safe": vd.safe_interval_figure(v["frame"])}


BANDS = ("std", "minmax")
"""The regret chart's spread across seeds: ± 1 std (the radio's first choice, the opening) or min – max."""


def layout(s: DoseSettings) -> tuple[model_page.Slots, str]:
    """The result sections with their explanations; returns chart slots and the chosen regret band."""
    slots: dict[str, Any] = {}
    with pagekit.chart_row(slots, "regret", "Benefit lost: what the caution costs"):
        st.markdown("Benefit lost against an all-knowing rival that knows the truth and keeps the same rule. A curve "
                    "that flattens has learned; lower is better — unless it is below 0, which means the "
                    "rule earned more by breaking the limit.")
        slots["regret_text"] = st.empty()
        pagekit.symbols("dose_regret_symbols",
                        r"\mathcal{R}_T=\sum_{t=1}^{T}\big(g(\alpha^*_t)-g(\alpha_t)\big)\langle X_t,\theta^*\rangle",
                        note="The papers call the benefit lost the regret R_T, against a clairvoyant that knows θ* "
                             "and μ* (the rival); X_t is round t's context (the patient), each curve a policy's "
                             "mean over the seeds (runs).")
        band = links.bound(st.radio, "Spread across runs", list(BANDS), key="band", horizontal=True,
                           format_func={"std": "± 1 std", "minmax": "min – max"}.get)
    with pagekit.chart_row(slots, "violations", "Safety: how often the realized cost passes τ"):
        st.markdown("Each round must keep its **realized** cost below τ with probability at least 1 − δ: the bar "
                    "of a safe rule stays under the dashed δ line. In this run:")
        slots["safety_text"] = st.empty()
        pagekit.symbols("dose_safety_symbols", r"\Pr(C_t\le\tau)\ge 1-\delta\quad\text{every round, where}",
                        r"C_t=g(\alpha_t)\big(\langle X_t,\mu^*\rangle+\xi^c_t\big)")
    slots["cost"] = st.empty()
    st.caption(f"Realized costs of the first run at {MAX_DOTS} evenly spaced rounds (the panel titles count every "
               "round); red crosses are rounds above τ. Costs can be negative: noise is added to the mean cost, "
               "and a dose given to a patient whose mean cost is below 0 lowers it.")
    with pagekit.chart_row(slots, "safe", "The estimated safe set"):
        st.markdown("The learner may only dose inside [0, α̂max_t]. It starts small and grows towards the true "
                    "limit α*max_t (grey) as its estimate of the cost sharpens; the dots are the doses it chose, at "
                    f"{MAX_DOTS} evenly spaced rounds (0 when it expects no benefit).")
        pagekit.symbols(
            "dose_safe_symbols", r"\hat\alpha_{\max,t}=g^{-1}\Big(\min\Big\{1,\ \frac{\tau}{\hat B_t}\Big\}\Big)",
            r"\hat B_t=\langle X_t,\hat\mu_t\rangle+\beta^c_t\,\|X_t\|_{\Sigma_t^{-1}}+b_\delta",
            r"b_\delta=\kappa_c\sqrt{2\log(1/\delta)}",
            note="μ̂_t: ridge estimate of the cost parameter; β^c_t‖X_t‖: its uncertainty in this direction; "
                 "b_δ: the noise margin that On-Expectation leaves out. On-Expectation is the expected-cost "
                 "policy of Pacchiano et al., which picks a distribution over doses; since reward and cost both "
                 "scale with g(α), its linear program depends only on E[g(α)] and is solved by the deterministic "
                 "dose with b_δ = 0, which is what runs here. A different dose curve g changes no safety number: "
                 "the margin acts on g(α), and g⁻¹ maps the same safe effect back to a dose.")
    return slots, band


def texts(slots: model_page.Slots, s: DoseSettings, v: model_page.Views, band: str) -> None:
    """The sentences under the regret and safety charts, from this run."""
    slots["safety_text"].markdown("\n".join(f"- {x}" for x in captions.violations(v["summary"], s.delta, s.seeds)))
    slots["regret_text"].markdown(captions.regret_order(v["summary"], s.T, plain=True))


def slack_figure(run: Run, v: model_page.Views) -> go.Figure:
    """The slack distribution, built once per run."""
    return pagekit.per_run(run, "slack", lambda: vd.slack_figure(v["frame"]))


def slack_and_table(s: DoseSettings, run: Run, v: model_page.Views, ctx: shell.RunContext) -> None:
    """The slack distribution (a collapsed box, drawn when opened) and the per-policy summary table."""
    summary = v["summary"]
    slots: model_page.Slots = {}
    right = pagekit.more_row(slots, "slack", "Slack τ − C_t: the room each round left", "dose_slack_box")
    if right is not None:
        pagekit.chart(slots["slack"], slack_figure(run, v), "slack")
        right.markdown("How much room each round left under the limit, over all seeds and rounds. Mass left of 0 is "
                       "a violation; a policy that hugs 0 from the right uses its budget fully but safely.")
    st.subheader("Per rule, over every run")
    table = pd.DataFrame({
        "rule": summary["label"],
        "violation rate (%)": summary["violation_rate"] * 100,
        "95 % interval (%)": [f"{lo * 100:.3f} – {hi * 100:.3f}" for lo, hi in
                              zip(summary["violation_rate_lo"], summary["violation_rate_hi"], strict=True)],
        "violations": summary["violations"],
        "benefit lost (mean)": summary["cum_regret_mean"],
        "benefit lost (std)": summary["cum_regret_std"],
        "min slack": summary["min_slack"],
    })
    pagekit.number_table(table, {"violation rate (%)": "%.3f", "benefit lost (mean)": "%.2f",
                                 "benefit lost (std)": "%.2f", "min slack": "%.3f"})


def round_inspector(s: DoseSettings, run: Run, v: model_page.Views, ctx: shell.RunContext) -> None:
    """*Inside one round*, a collapsed box drawn only while open (:func:`round_detail`)."""
    box = pagekit.lazy("Inside one round: the law of its cost", "dose_round_box")
    if box.open:
        with box:
            round_detail(s, v)


@st.fragment
def round_detail(s: DoseSettings, v: model_page.Views) -> None:
    """Pick a round and a policy: the law of that round's cost at the dose chosen, against τ and δ."""
    frame = v["frame"]
    left, right = st.columns([3, 2], gap="medium")
    with right:
        st.markdown("At a given round the cost is Gaussian: mean g(α)⟨X,μ*⟩, spread g(α)κ_c. A bigger dose "
                    "moves it right *and* widens it. The amber tail holds probability δ; the red area is the "
                    "chance this round breaks the rule. The slider starts at the policy's riskiest round.")
        labels = [str(c) for c in frame["policy"].cat.categories]
        policy = st.selectbox("Policy", labels, key="inspect_policy")
        start = vd.riskiest_round(frame, policy, s.tau, s.kappa_c)
        t = st.slider("Round t", 1, s.T, start, key=f"inspect_round_{s.T}_{labels.index(policy)}")
    row = vd.round_detail(frame, policy, t)
    title = f"{policy}, round {t} (seed {row['seed']}): dose α = {row['alpha']:.3f}, g(α) = {row['g_alpha']:.3f}"
    pagekit.chart(left, vd.cost_distribution_figure(row["cost_mean"], row["g_alpha"], s.kappa_c, s.tau, s.delta,
                                                    realized=row["cost"], title=title), "cost_distribution", keep=False)


def present_panels(run: Run, frame: pd.DataFrame, summary: pd.DataFrame, n: Names) -> dict[str, go.Figure]:
    """How often the limit was passed, the side effect's spread against it, the doses, the benefit lost."""
    s, t = run.settings, f"{n.round} t"
    labels = labels_of(frame)
    traces = histogram_traces({lab: frame.loc[frame["policy"] == lab, "cost"].to_numpy() for lab in labels},
                              policy_colors(labels))
    spread = base_layout("", f"{n.effect} per {n.round} (noisy: values below 0 are noise)",
                         f"share of {n.round}s")
    spread.update(hovermode="closest", shapes=[vline(s.tau, LIMIT_COLOR)],
                  annotations=[note(f"{n.limit} {s.tau:g}", s.tau, 1.0, xref="x", xanchor="left", yanchor="top",
                                    font={"color": LIMIT_COLOR})])
    spread["yaxis"]["tickformat"] = ".0%"
    window = max(10, s.T // 40)
    dosed = frame.assign(dose=frame.groupby(["policy", "seed"], observed=True)["alpha"].transform(
        lambda a: rolling_mean(a.to_numpy(), window)) * n.full_dose)
    return {
        "violations": compact(vd.violation_figure(summary, s.delta),
                              f"{n.round[:1].upper()}{n.round[1:]}s with the {n.effect} above the {n.limit}",
                              f"% of {n.round}s"),
        "spread": compact(figure(traces, spread), f"The {n.effect} of every {n.round}, against the {n.limit}"),
        "dose": compact(distinct_dashes(mean_band_figure(dosed, "dose", title="", y_title=""), labels),
                        f"Dose chosen ({n.dose_unit}; trailing mean over {window:,} rounds)", f"dose ({n.dose_unit})",
                        t),
        "regret": compact(shade_below_zero(vd.regret_figure(frame), f"Below 0: benefit taken by crossing the {n.limit}"
                                           f"<br>more often than allowed, not a better rule"),
                          "Benefit lost against an all-knowing doctor who keeps the rule", "benefit lost", t),
    }


SPEC = model_page.Spec(
    section="Dose model",
    model="the dose model",
    upload_key="dose_upload",
    keys=("g", "band", "policies"),
    sidebar=("The safety rule", "Noise and size", CURVE, POLICIES),
    extras={CURVE: curve_section, POLICIES: policies_section},
    field_names={"g": "Dose curve g"},
    restore_extra=restore_extra,
    layout=layout,
    views=views,
    figures=figures,
    texts=texts,
    sections=(slack_and_table, round_inspector),
    steps=tools.dose_steps,
    stem=lambda s: f"dose_T{s.T}_d{s.d}_seed{s.base_seed}",
    saved_figures=lambda s, v, band: {**figures(s, v, band), "slack": vd.slack_figure(v["frame"])},
    opening=BANDS[0],
)
