"""Theory overlays: how the papers' results should grow with the horizon T, against runs.

Widgets → :func:`safebandit_core.theory.run_theory` (in the server's shared store) → HPC-UCB's
regret against √T on log–log axes with the fitted slope (Safety by Design, Theorem 2), and N₀ and the
regret over horizons for GenCB and ConUCB (One-size-fits-all, Theorem 1).
"""

from __future__ import annotations

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

import functools
from typing import Any

import streamlit as st

from safebandit_core import captions, theory
from safebandit_core.viz import presets as vp
from safebandit_ui import forms, live, pagekit, shell, store
from safebandit_ui.forms import Control

CONTROLS: dict[str, Control] = {
    "T": Control("theory_T", "Horizon T", 1000, 200_000, 1000, 4000),
    "seeds": Control("theory_seeds", "Seeds", 1, 100, 1, 3),
}
integer = functools.partial(forms.integer, CONTROLS)
DOSE, GENCB = theory.THEORY_DOSE, theory.THEORY_GENCB


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """The horizon and the number of runs."""
    values = {"T": integer("T", "The longest horizon; the regret curve runs to it and the horizons end at it."),
              "seeds": integer("seeds", "Independent runs; the curves are their mean.")}
    return {**values, "base_seed": ctx.base_seed, "precision": ctx.precision}


def regret_section(res: theory.TheoryResult, T: int) -> None:
    """HPC-UCB's regret against √T, with the fitted slopes in words."""
    st.subheader("Regret against √T (Safety by Design, Theorem 2)")
    pagekit.chart(st, vp.loglog_figure(res.regret, res.slopes, res.fit_from), "theory_loglog", keep=False)
    slopes = ", ".join(f"{label} {slope:.2f}" for label, (slope, _) in res.slopes.items())
    st.markdown(f"On log–log axes a rate T^a is a straight line of slope a; the dotted line has slope ½. Fitted on "
                f"t ≥ {res.fit_from:,} at T = {T:,}: **{slopes}**.")
    note = theory.slope_note(res.slopes.get("HPC-UCB", (float("nan"), 0.0))[0], T)
    if note is not None:
        st.info(note, icon=":material/trending_down:")
    reached = "; ".join(f"{s:.2f} at T = {n:,}" for n, s in theory.SLOPE_MEASURED)
    st.caption("Theorem 2 bounds HPC-UCB's regret by Õ(d√T): √T times log factors, so as T grows its fitted slope "
               "should sit near ½ (slightly above, from the log factors); at short horizons the early rounds "
               f"(burn-in) pull it up. On this model it is {reached}. HPC-UCB is anytime (its confidence radius "
               "uses the rounds so far), so one run of length T gives the whole curve. Settings: the paper's "
               f"synthetic model with d = {DOSE.d}, τ = {DOSE.tau:g}, δ = {DOSE.delta:g}, κ = {DOSE.kappa_c:g}.")


def horizons_section(res: theory.TheoryResult) -> None:
    """N₀ and the regret of GenCB and ConUCB at each horizon, each horizon its own run."""
    st.subheader("Default pulls over horizons (One-size-fits-all, Theorem 1)")
    pagekit.chart(st, vp.horizons_figure(res.horizons), "theory_horizons", keep=False)
    st.markdown(f"Default-arm pulls N₀: {captions.growth(res.horizons, 'default_pulls_mean')}.  \nCumulative regret: "
                f"{captions.growth(res.horizons, 'cum_regret_mean')}.")
    st.caption("Theorem 1 says GenCB's N₀ does not grow with T: a flat GenCB line agrees with it. GenCB is anytime, "
               "but ConUCB's confidence δ = 1/T depends on the horizon, so each horizon here is its own run (for "
               "both, to compare like with like). Bars are 95 % intervals over seeds. Settings: CMAB with "
               f"K = {GENCB.K}, α = {GENCB.alpha:g}, μ₀ = {GENCB.mu0:g}.")


def main() -> None:
    """The page."""
    ctx, v = pagekit.page_start(
        "Theory overlays",
        "The theorems say how results should grow with the horizon T. Here they meet runs: HPC-UCB's regret "
        "against the √T rate, and what GenCB and ConUCB pay for safety (plays of the default arm) as T grows.",
        "Theory overlays", controls)
    key = store.key_of({"theory": v}, ctx.device)
    units = v["seeds"] * v["T"] * (len(DOSE.policies) + 2 * len(theory.THEORY_GENCB.policies))
    out = forms.settings_or_error(None, lambda: live.shared(key, units, lambda tick: theory.run_theory(
        v["T"], v["seeds"], v["base_seed"], v["precision"], ctx.device, progress=tick)))
    if out is None:
        return
    res, stored, seconds = out
    st.caption(f"Ran on **{res.device}** in **{res.precision}**: {v['seeds']} seeds, horizon {v['T']:,}, in "
               f"{seconds:.1f} s" + (" (already computed on this server: shared, not recomputed)" if stored else "")
               + ".")
    regret_section(res, v["T"])
    horizons_section(res)


main()
