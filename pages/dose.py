"""Dose model: HPC-UCB against On-Expectation and ε-Greedy under a realized-cost constraint (seed 000).

Widgets → :class:`DoseSettings` → a cached core run (live, in chunks, the first time) → figures.
"""

from __future__ import annotations

import dataclasses
import io
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from safebandit_core import settings as core_settings
from safebandit_core.dose import curves, sim
from safebandit_core.dose.policies import LABELS, NAMES
from safebandit_core.viz import dose as vd
from safebandit_ui import shell

DEFAULT = sim.DoseSettings()
LIVE_EVERY_S = 0.6
UPLOAD_KEY = "dose_upload"
UPLOAD_MSG_KEY = "dose_upload_message"


@dataclasses.dataclass(frozen=True)
class Control:
    """A settings field's widget: its key (also its URL parameter), label and range on this page."""

    key: str
    label: str
    lo: float
    hi: float
    step: float


CONTROLS: dict[str, Control] = {
    "tau": Control("tau", "Cost limit τ", 0.05, 2.0, 0.05),
    "delta": Control("delta", "Allowed violation probability δ", 0.001, 0.5, 0.001),
    "delta_prime": Control("delta_prime", "Estimation confidence δ′", 0.001, 0.5, 0.001),
    "kappa_r": Control("kappa_r", "Reward noise κ_r", 0.0, 1.0, 0.01),
    "kappa_c": Control("kappa_c", "Cost noise κ_c", 0.0, 1.0, 0.01),
    "d": Control("d", "Context dimension d", 1, sim.MAX_D, 1),
    "T": Control("T", "Rounds T", 100, sim.MAX_T, 500),
    "seeds": Control("seeds", "Seeds", 1, sim.MAX_SEEDS, 1),
    "g_power": Control("g_power", "Power p", curves.POWER_RANGE[0], curves.POWER_RANGE[1], 0.1),
    "g_ec50": Control("g_ec50", "EC50", 0.05, curves.EC50_RANGE[1], 0.05),
    "g_hill": Control("g_hill", "Hill coefficient n", curves.HILL_RANGE[0], curves.HILL_RANGE[1], 0.1),
    "eps": Control("eps", "ε (share of rounds at the safe dose)", 0.0, 1.0, 0.05),
    "S": Control("S", "Bound S on ‖θ*‖, ‖μ*‖", 0.01, 100.0, 0.1),
    "L": Control("L", "Bound L on ‖X_t‖", 0.01, 100.0, 0.1),
    "lam": Control("lam", "Ridge λ", 0.001, 1000.0, 0.1),
    "refresh_every": Control("refresh_every", "Exact inverse refresh every … rounds", 1, sim.MAX_T, 100),
}
INT_FIELDS = {"d", "T", "seeds", "refresh_every"}
CURVE_NAMES = {"linear": "linear: g(α) = α", "power": "power: g(α) = αᵖ", "emax": "Emax (Hill)"}
FIELD_NAMES = {**{f: c.label for f, c in CONTROLS.items()}, "policies": "Policies", "g": "Dose curve g",
               "precision": "Precision (sidebar)", "base_seed": "Base seed (sidebar)"}


def slider(field: str, help: str) -> float:
    """A float slider for a settings field, bound to the URL."""
    c = CONTROLS[field]
    return st.slider(c.label, float(c.lo), float(c.hi), float(getattr(DEFAULT, field)), float(c.step), key=c.key,
                     bind="query-params", help=help, format="%.3f" if c.step < 0.01 else "%.2f")


def integer(field: str, help: str) -> int:
    """An integer input for a settings field, bound to the URL."""
    c = CONTROLS[field]
    return int(st.number_input(c.label, int(c.lo), int(c.hi), int(getattr(DEFAULT, field)), int(c.step), key=c.key,
                               bind="query-params", help=help))


def number(field: str, help: str) -> float:
    """A float input for a settings field, bound to the URL."""
    c = CONTROLS[field]
    return float(st.number_input(c.label, float(c.lo), float(c.hi), float(getattr(DEFAULT, field)), float(c.step),
                                 key=c.key, bind="query-params", help=help))


def restore_from_upload() -> None:
    """Callback of the uploader: validate the JSON and put its values into the widgets (or say what is wrong)."""
    file = st.session_state.get(UPLOAD_KEY)
    if file is None:
        st.session_state.pop(UPLOAD_MSG_KEY, None)
        return
    try:
        data = json.loads(file.getvalue().decode("utf-8"))
        if not isinstance(data, dict):
            raise ValueError("the file must hold one JSON object of settings")
        kind = data.get("kind", sim.DoseSettings.KIND)
        if kind != sim.DoseSettings.KIND:
            raise ValueError(f"these are settings of the {kind!r} model, not of the dose model")
        s = core_settings.from_dict(sim.DoseSettings, data)
        values = {f: getattr(s, f) for f in CONTROLS}
        for field, value in values.items():
            c = CONTROLS[field]
            if not (c.lo <= value <= c.hi):
                raise core_settings.SettingsError(field, f"in [{c.lo:g}, {c.hi:g}] on this page", value)
    except core_settings.SettingsError as err:
        name = FIELD_NAMES.get(err.field, err.field)
        shown = "" if err.value is None else f" (the file has {err.value!r})"
        st.session_state[UPLOAD_MSG_KEY] = ("error", f"{file.name}: **{name}** must be {err.allowed}{shown}.")
        return
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        st.session_state[UPLOAD_MSG_KEY] = ("error", f"{file.name} is not a JSON file ({err}). Upload a settings "
                                                     "file saved by this page.")
        return
    except (ValueError, TypeError) as err:
        st.session_state[UPLOAD_MSG_KEY] = ("error", f"{file.name}: {err}.")
        return
    for field, value in values.items():
        st.session_state[CONTROLS[field].key] = int(value) if field in INT_FIELDS else float(value)
    st.session_state["g"] = s.g
    st.session_state["policies"] = list(s.policies)
    st.session_state[shell.SEED_KEY] = s.base_seed
    if s.precision != "auto":
        st.session_state[shell.PRECISION_KEY] = s.precision
    st.session_state[UPLOAD_MSG_KEY] = ("success", f"Restored the settings of {file.name}.")


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """Draw the page's controls; return the settings fields they chose."""
    v: dict[str, Any] = {}
    st.markdown("**The safety rule**")
    v["tau"] = slider("tau", "The cost of a round (e.g. a side effect) must stay below τ.")
    v["delta"] = slider("delta", "A round may exceed τ with probability at most δ.")
    v["delta_prime"] = slider("delta_prime", "The learner's estimates hold with probability 1 − δ′; smaller is "
                                             "more cautious.")
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
    v["g"] = st.selectbox("Shape", curves.KINDS, index=curves.KINDS.index(DEFAULT.g), key="g",
                          format_func=CURVE_NAMES.get, bind="query-params",
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
    v["policies"] = tuple(st.multiselect("Compare", NAMES, default=list(DEFAULT.policies), key="policies",
                                         format_func=LABELS.get, bind="query-params",
                                         help="All policies see the same contexts and noise."))
    v["eps"] = slider("eps", "ε-Greedy plays the round-1 safe dose with probability ε.")
    with st.expander("Advanced"):
        v["S"] = number("S", "The algorithms' assumed bound on the parameter norms (the truth has norm 1).")
        v["L"] = number("L", "The algorithms' assumed bound on the context norm (contexts have norm 1).")
        v["lam"] = number("lam", "Ridge regularisation of the estimates.")
        v["refresh_every"] = integer("refresh_every", "The running inverse is recomputed exactly this often.")
    st.markdown("**Restore a run**")
    st.file_uploader("Settings JSON saved by this page", type=["json"], key=UPLOAD_KEY,
                     on_change=restore_from_upload, help="Restores every control (and the base seed) from the file.")
    message = st.session_state.get(UPLOAD_MSG_KEY)
    if message:
        (st.error if message[0] == "error" else st.success)(message[1])
    v["base_seed"], v["precision"] = ctx.base_seed, ctx.precision
    return v


def settings_or_error(values: dict[str, Any], ctx: shell.RunContext) -> sim.DoseSettings | None:
    """Build and check the settings; on a problem show what to change and return None."""
    try:
        s = sim.DoseSettings(**values).validate()
        sim.check_fits(s, ctx.device)
    except core_settings.SettingsError as err:
        name = FIELD_NAMES.get(err.field, err.field)
        shown = "" if err.value is None else f" (now {err.value!r})"
        st.error(f"**{name}** must be {err.allowed}{shown}. Change it to run.", icon=":material/error:")
        return None
    return s


def chunk_size(T: int) -> int:
    """Rounds per live update: a few hundred for short runs, about 20 updates for long ones (few compilations)."""
    for c in (50_000, 5_000, 500):
        if T % c == 0 and T // c >= 10:
            return c
    return 500


def tidy(s: sim.DoseSettings, outputs: dict[str, np.ndarray]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-round frame (with g(α_t) for the cost distribution) and per-policy summary."""
    frame = sim.tidy_frame(s, outputs)
    frame["g_alpha"] = curves.evaluate(s.g, frame["alpha"].to_numpy(), s.g_power, s.g_ec50, s.g_hill)
    return frame, sim.summary(s, outputs)


class _Miss(Exception):
    """Raised to probe the result cache without filling it."""


@st.cache_data(max_entries=16, max_size="1GB", show_spinner=False)
def stored_run(key: str, _make: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The finished run for ``key`` (settings + device): computed once by ``_make``, then copied to callers."""
    return _make()


def _miss() -> dict[str, Any]:
    raise _Miss


def cached_run(key: str) -> dict[str, Any] | None:
    """The stored run for ``key``, or None without storing anything."""
    try:
        return stored_run(key, _miss)
    except _Miss:
        return None


def live_run(s: sim.DoseSettings, ctx: shell.RunContext, slots: dict[str, Any]) -> dict[str, Any]:
    """Run in chunks, updating a progress bar and (for runs longer than a moment) the main charts."""
    bar = st.progress(0.0, text="Compiling for this shape (only the first run of a shape)…")
    start = last_draw = time.perf_counter()
    outputs: dict[str, np.ndarray] = {}
    for i, chunk in enumerate(sim.simulate(s, ctx.device, chunk=chunk_size(s.T))):
        outputs = chunk.outputs
        bar.progress(chunk.fraction, text=f"Round {chunk.t_done:,} of {s.T:,}")
        if not chunk.done and time.perf_counter() - last_draw > LIVE_EVERY_S:
            frame, summary = tidy(s, outputs)
            draw_main(slots, s, frame, summary, band="std", suffix=f"-live-{i}")
            last_draw = time.perf_counter()
    seconds = time.perf_counter() - start
    bar.empty()
    frame, summary = tidy(s, outputs)
    return {"frame": frame, "summary": summary, "device": ctx.device_label, "precision": s.precision,
            "seconds": seconds, "settings_json": core_settings.to_json(s)}


def draw_main(slots: dict[str, Any], s: sim.DoseSettings, frame: pd.DataFrame, summary: pd.DataFrame, band: str,
              suffix: str = "") -> None:
    """The charts that update live (and stay as the final view): unique keys per live update."""
    slots["regret"].plotly_chart(vd.regret_figure(frame, band=band), key=f"regret{suffix}")
    slots["violations"].plotly_chart(vd.violation_figure(summary, s.delta), key=f"violations{suffix}")
    slots["cost"].plotly_chart(vd.cost_figure(frame, s.tau), key=f"cost{suffix}")
    slots["safe"].plotly_chart(vd.safe_interval_figure(frame), key=f"safe{suffix}")


def layout() -> tuple[dict[str, Any], str]:
    """The result sections with their explanations; returns chart slots and the chosen regret band."""
    slots: dict[str, Any] = {}
    st.subheader("Regret: how much reward the caution costs")
    left, right = st.columns([3, 2], gap="medium")
    slots["regret"] = left.empty()
    with right:
        st.markdown("Reward lost against a clairvoyant that knows the truth and obeys the same rule. A curve "
                    "that flattens has learned; lower is better.")
        st.latex(r"\mathcal{R}_T=\sum_{t=1}^{T}\big(g(\alpha^*_t)-g(\alpha_t)\big)\langle X_t,\theta^*\rangle")
        band = st.radio("Spread across seeds", ["std", "minmax"], key="band", bind="query-params", horizontal=True,
                        format_func={"std": "± 1 std", "minmax": "min – max"}.get)
    st.subheader("Safety: how often the realized cost passes τ")
    left, right = st.columns([3, 2], gap="medium")
    slots["violations"] = left.empty()
    with right:
        st.markdown("Each round must keep its **realized** cost below τ with probability at least 1 − δ. "
                    "HPC-UCB adds the noise margin b_δ and stays under the dashed δ line; On-Expectation only "
                    "keeps the *average* cost below τ and overshoots far more often.")
        st.latex(r"\Pr(C_t\le\tau)\ge 1-\delta\quad\text{every round, where}")
        st.latex(r"C_t=g(\alpha_t)\big(\langle X_t,\mu^*\rangle+\xi^c_t\big)")
    slots["cost"] = st.empty()
    st.caption("Every round's realized cost for the first seed; red crosses are rounds above τ.")
    st.subheader("The estimated safe set")
    left, right = st.columns([3, 2], gap="medium")
    slots["safe"] = left.empty()
    with right:
        st.markdown("The learner may only dose inside [0, α̂max_t]. It starts small and grows towards the true "
                    "limit α*max_t (grey) as its estimate of the cost sharpens; the dots are the doses it chose "
                    "(0 when it expects no benefit).")
        st.latex(r"\hat\alpha_{\max,t}=g^{-1}\Big(\min\Big\{1,\ \frac{\tau}{\hat B_t}\Big\}\Big)")
        st.latex(r"\hat B_t=\langle X_t,\hat\mu_t\rangle+\beta^c_t\,\|X_t\|_{\Sigma_t^{-1}}+b_\delta")
        st.latex(r"b_\delta=\kappa_c\sqrt{2\log(1/\delta)}")
        st.caption("μ̂_t: ridge estimate of the cost parameter; β^c_t‖X_t‖: its uncertainty in this direction; "
                   "b_δ: the noise margin that On-Expectation leaves out.")
    return slots, band


def slack_and_table(s: sim.DoseSettings, frame: pd.DataFrame, summary: pd.DataFrame) -> None:
    """Slack distribution and the per-policy summary table."""
    st.subheader("Slack τ − C_t")
    left, right = st.columns([3, 2], gap="medium")
    left.plotly_chart(vd.slack_figure(frame), key="slack")
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
    st.dataframe(table, hide_index=True, column_config={
        "violation rate (%)": st.column_config.NumberColumn(format="%.3f"),
        "final regret (mean)": st.column_config.NumberColumn(format="%.2f"),
        "final regret (std)": st.column_config.NumberColumn(format="%.2f"),
        "min slack": st.column_config.NumberColumn(format="%.3f"),
    })


@st.fragment
def round_inspector(s: sim.DoseSettings, frame: pd.DataFrame) -> None:
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
    left.plotly_chart(vd.cost_distribution_figure(row["cost_mean"], row["g_alpha"], s.kappa_c, s.tau, s.delta,
                                                  realized=row["cost"], title=title), key="cost_distribution")


def downloads(s: sim.DoseSettings, frame: pd.DataFrame) -> None:
    """Per-round CSV and Parquet (made on click) and the settings JSON."""
    st.subheader("Save this run")
    stem = f"dose_T{s.T}_d{s.d}_seed{s.base_seed}"

    def parquet() -> bytes:
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        return buf.getvalue()

    cols = st.columns(3)
    cols[0].download_button("Per-round CSV", lambda: frame.to_csv(index=False), f"{stem}.csv", "text/csv",
                            on_click="ignore", icon=":material/table:", key="dl_csv")
    cols[1].download_button("Per-round Parquet", parquet, f"{stem}.parquet", "application/vnd.apache.parquet",
                            on_click="ignore", icon=":material/dataset:", key="dl_parquet")
    cols[2].download_button("Settings JSON", core_settings.to_json(s), f"{stem}.json", "application/json",
                            on_click="ignore", icon=":material/settings:", key="dl_json")
    st.caption("Upload the settings JSON under *Restore a run* to recreate this run exactly (same base seed).")


def main() -> None:
    """The page."""
    ctx = shell.current()
    st.title("Dose model: safe by design")
    st.markdown("Each round a patient (a context X_t) arrives and the learner picks a dose α_t ∈ [0, 1]. The dose "
                "scales both the benefit and the side effect, **noise included**, so a bigger dose is riskier twice "
                "over. **HPC-UCB** keeps each round's realized side effect below τ with probability 1 − δ; "
                "**On-Expectation** only keeps its average below τ; **ε-Greedy** mixes in a known-safe dose.")
    with st.sidebar:
        st.divider()
        st.markdown("#### Dose model")
        values = controls(ctx)
    with st.container():
        s = settings_or_error(values, ctx)
        if s is None:
            return
        for w in sim.warnings_for(s):
            st.warning(w, icon=":material/warning:")
        work = len(s.policies) * s.seeds * s.T
        if work > 20_000_000:
            st.info(f"A large run ({work / 1e6:,.0f} million policy-rounds): the charts update as it goes; change "
                    "any control to stop it.", icon=":material/hourglass:")
        status = st.empty()
        slots, band = layout()
        key = json.dumps({"settings": core_settings.to_dict(s), "device": ctx.device}, sort_keys=True)
        result = cached_run(key)
        from_cache = result is not None
        if result is None:
            made = live_run(s, ctx, slots)
            result = stored_run(key, lambda: made)
        frame, summary = result["frame"], result["summary"]
        status.caption(f"Ran on **{result['device']}** in **{result['precision']}**: {s.T:,} rounds × {s.seeds} "
                       f"seeds × {len(s.policies)} policies in {result['seconds']:.2f} s"
                       + (" (stored result)" if from_cache else "") + ".")
        draw_main(slots, s, frame, summary, band)
        slack_and_table(s, frame, summary)
        round_inspector(s, frame)
        downloads(s, frame)


main()
