"""Dose model: HPC-UCB against On-Expectation and ε-Greedy under a realized-cost constraint (Safety by Design).

Widgets → :class:`DoseSettings` → one shared run (:mod:`safebandit_ui.live`) → figures.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import captions, families
from safebandit_core.dose import FAMILY, LABELS, NAMES, DoseSettings, curves
from safebandit_core.dose.settings import MAX_D, MAX_SEEDS, MAX_T
from safebandit_core.model import Run
from safebandit_core.viz import dose as vd
from safebandit_core.viz.common import by_label
from safebandit_ui import downloads, forms, links, live, pagekit, pins, scrub, shell, tools
from safebandit_ui.forms import Control

DEFAULT = DoseSettings()
CONTROLS: dict[str, Control] = forms.with_defaults({
    "tau": Control("tau", "Cost limit τ", 0.05, 2.0, 0.05),
    "delta": Control("delta", "Allowed violation probability δ", 0.005, 0.5, 0.005),
    "delta_prime": Control("delta_prime", "Estimation confidence δ′", 0.005, 0.5, 0.005),
    "kappa_r": Control("kappa_r", "Reward noise κ_r", 0.0, 1.0, 0.01),
    "kappa_c": Control("kappa_c", "Cost noise κ_c", 0.0, 1.0, 0.01),
    "d": Control("d", "Context dimension d", 1, MAX_D, 1),
    "T": Control("T", "Rounds T", 100, MAX_T, 500),
    "seeds": Control("seeds", "Seeds", 1, MAX_SEEDS, 1),
    "g_power": Control("g_power", "Power p", curves.POWER_RANGE[0], curves.POWER_RANGE[1], 0.1),
    "g_ec50": Control("g_ec50", "EC50", 0.05, curves.EC50_RANGE[1], 0.05),
    "g_hill": Control("g_hill", "Hill coefficient n", curves.HILL_RANGE[0], curves.HILL_RANGE[1], 0.1),
    "eps": Control("eps", "ε (share of rounds at the safe dose)", 0.0, 1.0, 0.05),
    "S": Control("S", "Bound S on ‖θ*‖, ‖μ*‖", 0.01, 100.0, 0.1),
    "L": Control("L", "Bound L on ‖X_t‖", 0.01, 100.0, 0.1),
    "lam": Control("lam", "Ridge λ", 0.001, 1000.0, 0.1),
    "refresh_every": Control("refresh_every", "Exact inverse refresh every … rounds", 1, MAX_T, 100),
}, DEFAULT)
CURVE_NAMES = {"linear": "linear: g(α) = α", "power": "power: g(α) = αᵖ", "emax": "Emax (Hill)"}
slider = functools.partial(forms.slider, CONTROLS)
integer = functools.partial(forms.integer, CONTROLS)
number = functools.partial(forms.number, CONTROLS)


def restore_extra(s: DoseSettings) -> None:
    """The restored curve and policies, which have no :class:`forms.Control`."""
    st.session_state["g"] = s.g
    st.session_state["policies"] = list(s.policies)


FORM = forms.SettingsForm(
    ("dose",), "the dose model", CONTROLS, "dose_upload",
    int_fields=frozenset({"d", "T", "seeds", "refresh_every"}),
    field_names={"policies": "Policies", "g": "Dose curve g", "precision": "Precision (sidebar)",
                 "base_seed": "Base seed (sidebar)"},
    restore_extra=restore_extra)


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """Draw the page's controls; return the settings fields they chose."""
    v: dict[str, Any] = {}
    st.markdown("**The safety rule**")
    v["tau"] = slider("tau", "The cost of a round (e.g. a side effect) must stay below τ.")
    v["delta"] = slider("delta", "A round may exceed τ with probability at most δ.")
    st.markdown("**Noise and size**")
    v["kappa_r"] = slider("kappa_r", "Standard deviation of the reward noise, before scaling by g(α).")
    v["kappa_c"] = slider("kappa_c", "Standard deviation of the cost noise, before scaling by g(α). Larger noise "
                                     "needs a larger safety margin.")
    v["d"] = integer("d", "Length of the context vector X_t.")
    cols = st.columns(2)
    with cols[0]:
        v["T"] = integer("T", "Rounds per run.")
    with cols[1]:
        v["seeds"] = integer("seeds", "Independent runs, each on its own random stream; the charts show their "
                                      "mean and spread.")
    st.markdown("**Dose curve g**")
    v["g"] = links.bound(st.selectbox, "Shape", curves.KINDS, index=curves.KINDS.index(DEFAULT.g), key="g",
                         format_func=CURVE_NAMES.get,
                         help="How a dose turns into an effect: g(0) = 0, g(1) = 1, increasing.")
    v["g_power"], v["g_ec50"], v["g_hill"] = DEFAULT.g_power, DEFAULT.g_ec50, DEFAULT.g_hill
    if v["g"] == "power":
        v["g_power"] = slider("g_power", "p > 1: slow start; p < 1: quick saturation.")
    elif v["g"] == "emax":
        v["g_ec50"] = slider("g_ec50", "The dose giving half of the maximum effect (before rescaling).")
        v["g_hill"] = slider("g_hill", "Steepness of the curve around EC50.")
    grid = np.linspace(0.0, 1.0, 101)
    st.plotly_chart(vd.curve_figure(grid, curves.evaluate(v["g"], grid, v["g_power"], v["g_ec50"], v["g_hill"]),
                                    "g(α)"), key="g_curve", config={"displayModeBar": False})
    st.markdown("**Policies**")
    v["policies"] = tuple(links.bound(st.multiselect, "Compare", NAMES, default=list(DEFAULT.policies), key="policies",
                                      format_func=LABELS.get,
                                      help="All policies see the same contexts and noise."))
    v["eps"] = slider("eps", "ε-Greedy plays the round-1 safe dose with probability ε.")
    with st.container(key=shell.EXPERT_BOX.format("dose")), st.expander("Estimation (expert)"):
        v["delta_prime"] = slider("delta_prime", "The learner's estimates hold with probability 1 − δ′; smaller is "
                                                 "more cautious.")
        v["S"] = number("S", "The algorithms' assumed bound on the parameter norms (the truth has norm 1).")
        v["L"] = number("L", "The algorithms' assumed bound on the context norm (contexts have norm 1).")
        v["lam"] = number("lam", "Ridge regularisation of the estimates.")
        v["refresh_every"] = integer("refresh_every", "The running inverse is recomputed exactly this often.")
    forms.restore_section(FORM)
    v["base_seed"], v["precision"] = ctx.base_seed, ctx.precision
    return v


def build_settings(values: dict[str, Any], ctx: shell.RunContext) -> DoseSettings:
    """The checked settings, which must also fit the device's memory (raises :class:`SettingsError`)."""
    s = DoseSettings(**values).validate()
    FAMILY.check_fits(s, ctx.device)
    return s


def tidy(run: Run) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-round frame by label (with g(α_t) for the cost distribution) and the per-policy summary."""
    s = run.settings
    frame = by_label(families.tidy(run))
    frame["g_alpha"] = curves.evaluate(s.g, frame["alpha"].to_numpy(), s.g_power, s.g_ec50, s.g_hill)
    return frame, families.summary(run)


def main_figures(s: DoseSettings, frame: pd.DataFrame, summary: pd.DataFrame, band: str = "std"
                 ) -> dict[str, go.Figure]:
    """The charts that update live, by slot name."""
    return {"regret": vd.regret_figure(frame, band=band),
            "violations": vd.violation_figure(summary, s.delta), "cost": vd.cost_figure(frame, s.tau),
            "safe": vd.safe_interval_figure(frame)}


def draw_main(slots: dict[str, Any], s: DoseSettings, frame: pd.DataFrame, summary: pd.DataFrame, band: str,
              suffix: str = "") -> None:
    """The charts that update live (and stay as the final view): unique keys per live update."""
    pagekit.draw_charts(slots, pins.overlay_all(main_figures(s, frame, summary, band), "dose", s), suffix)


def layout() -> tuple[dict[str, Any], str]:
    """The result sections with their explanations; returns chart slots and the chosen regret band."""
    slots: dict[str, Any] = {}
    with pagekit.chart_row(slots, "regret", "Regret: how much reward the caution costs"):
        st.markdown("Reward lost against a clairvoyant that knows the truth and obeys the same rule. A curve "
                    "that flattens has learned; lower is better — unless it is negative, which means the "
                    "policy earned more by breaking the rule.")
        slots["regret_text"] = st.empty()
        st.latex(r"\mathcal{R}_T=\sum_{t=1}^{T}\big(g(\alpha^*_t)-g(\alpha_t)\big)\langle X_t,\theta^*\rangle")
        band = links.bound(st.radio, "Spread across seeds", ["std", "minmax"], key="band", horizontal=True,
                           format_func={"std": "± 1 std", "minmax": "min – max"}.get)
    with pagekit.chart_row(slots, "violations", "Safety: how often the realized cost passes τ"):
        st.markdown("Each round must keep its **realized** cost below τ with probability at least 1 − δ: the bar "
                    "of a safe policy stays under the dashed δ line. In this run:")
        slots["safety_text"] = st.empty()
        st.latex(r"\Pr(C_t\le\tau)\ge 1-\delta\quad\text{every round, where}")
        st.latex(r"C_t=g(\alpha_t)\big(\langle X_t,\mu^*\rangle+\xi^c_t\big)")
    slots["cost"] = st.empty()
    st.caption("Realized costs of the first seed at 150 evenly spaced rounds (the panel titles count every round); "
               "red crosses are rounds above τ. Costs can be negative: the noise ξ is added to the mean cost, and a "
               "dose of a context with ⟨X, μ*⟩ < 0 lowers it.")
    with pagekit.chart_row(slots, "safe", "The estimated safe set"):
        st.markdown("The learner may only dose inside [0, α̂max_t]. It starts small and grows towards the true "
                    "limit α*max_t (grey) as its estimate of the cost sharpens; the dots are the doses it chose, at "
                    "150 evenly spaced rounds (0 when it expects no benefit).")
        st.latex(r"\hat\alpha_{\max,t}=g^{-1}\Big(\min\Big\{1,\ \frac{\tau}{\hat B_t}\Big\}\Big)")
        st.latex(r"\hat B_t=\langle X_t,\hat\mu_t\rangle+\beta^c_t\,\|X_t\|_{\Sigma_t^{-1}}+b_\delta")
        st.latex(r"b_\delta=\kappa_c\sqrt{2\log(1/\delta)}")
        st.caption("μ̂_t: ridge estimate of the cost parameter; β^c_t‖X_t‖: its uncertainty in this direction; "
                   "b_δ: the noise margin that On-Expectation leaves out. On-Expectation is the expected-cost "
                   "policy of Pacchiano et al., which picks a distribution over doses; since reward and cost both "
                   "scale with g(α), its linear program depends only on E[g(α)] and is solved by the deterministic "
                   "dose with b_δ = 0, which is what runs here. A different dose curve g changes no safety number: "
                   "the margin acts on g(α), and g⁻¹ maps the same safe effect back to a dose.")
    return slots, band


def slack_and_table(s: DoseSettings, frame: pd.DataFrame, summary: pd.DataFrame, slack: go.Figure) -> None:
    """Slack distribution (``slack``, :func:`vd.slack_figure` of ``frame``) and the per-policy summary table."""
    st.subheader("Slack τ − C_t")
    left, right = st.columns([3, 2], gap="medium")
    pagekit.chart(left, slack, "slack")
    right.markdown("How much room each round left under the limit, over all seeds and rounds. Mass left of 0 is "
                   "a violation; a policy that hugs 0 from the right uses its budget fully but safely.")
    table = pd.DataFrame({
        "policy": summary["label"],
        "violation rate (%)": summary["violation_rate"] * 100,
        "95 % interval (%)": [f"{lo * 100:.3f} – {hi * 100:.3f}" for lo, hi in
                              zip(summary["violation_rate_lo"], summary["violation_rate_hi"], strict=True)],
        "violations": summary["violations"],
        "final regret (mean)": summary["cum_regret_mean"],
        "final regret (std)": summary["cum_regret_std"],
        "min slack": summary["min_slack"],
    })
    pagekit.number_table(table, {"violation rate (%)": "%.3f", "final regret (mean)": "%.2f",
                                 "final regret (std)": "%.2f", "min slack": "%.3f"})


@st.fragment
def round_inspector(s: DoseSettings, frame: pd.DataFrame) -> None:
    """Pick a round and a policy: the law of that round's cost at the dose chosen, against τ and δ."""
    st.subheader("Inside one round")
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


def main() -> None:
    """The page."""
    ctx, values = pagekit.page_start(
        "Dose model: safe by design",
        "Each round a patient (a context X_t) arrives and the learner picks a dose α_t ∈ [0, 1]. The dose scales both "
        "the benefit and the side effect, **noise included**, so a bigger dose is riskier twice over. **HPC-UCB** "
        "keeps each round's realized side effect below τ with probability 1 − δ; **On-Expectation** only keeps its "
        "average below τ; **ε-Greedy** mixes in a known-safe dose.",
        "Dose model", controls)
    with st.container():
        s = pagekit.checked(FORM, lambda: build_settings(values, ctx), FAMILY.warnings)
        if s is None:
            return
        status = st.empty()
        slots, band = layout()
        run, shared, seconds = live.run(s, ctx, lambda r: draw_main(slots, s, *tidy(r), band="std",
                                                                    suffix=f"-live-{r.t_done}"))
        frame, summary = pagekit.per_run(run, "tidy", lambda: tidy(run))
        status.caption(live.caption(run, shared, seconds))
        figures = pagekit.per_run(run, ("figures", band), lambda: main_figures(s, frame, summary, band))
        pagekit.draw_charts(slots, pagekit.with_pins(figures, "dose", s))
        slots["safety_text"].markdown("\n".join(f"- {x}" for x in captions.violations(summary, s.delta, s.seeds)))
        slots["regret_text"].markdown(captions.regret_order(summary, s.T))
        slack_and_table(s, frame, summary, pagekit.per_run(run, "slack", lambda: vd.slack_figure(frame)))
        round_inspector(s, frame)
        scrub.section(s, ctx)
        tools.panel("dose", run, summary, tools.dose_steps(run), lambda: figures)
        downloads.downloads(s, lambda: families.tidy(run), f"dose_T{s.T}_d{s.d}_seed{s.base_seed}", summary=summary,
                            figures=lambda: {**main_figures(s, frame, summary, band), "slack": vd.slack_figure(frame)},
                            extra=lambda: pins.export("dose"), device=run.device, precision=run.precision)


main()
