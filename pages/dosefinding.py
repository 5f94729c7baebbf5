"""Clinical dose finding: 3+3, BOIN and the CRM side by side on the same simulated patients, and HPC-UCB beside
them when the patients come from the dose model.

Widgets (each bound to the link) → :func:`safebandit_core.dosefinding.simulate` or
:func:`safebandit_core.dosefinding.bandit.compare` (in the server's shared store, within its cap on one run) → bars of
the doses chosen and of the patients per dose, the operating characteristics with their CSV, and one trial's
patients dose by dose.
"""

from __future__ import annotations

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

from typing import Any

import streamlit as st

from safebandit_core.dosefinding import api, bandit, scenarios, table
from safebandit_core.dosefinding import cli as dfcli
from safebandit_core.dosefinding.designs import DESIGNS
from safebandit_core.dosefinding.table import NAMES
from safebandit_core.settings import SettingsError
from safebandit_core.viz import dosefinding as vdf
from safebandit_ui import forms, links, live, pagekit, shell, store

SOURCES = ("Chances of a DLT per dose", "The dose model's patients")
DEFAULT_TRIALS = 2000
DEFAULT_BANDIT_TRIALS = 250


def _text(values: tuple[float, ...]) -> str:
    return ", ".join(f"{v:g}" for v in values)


def fill_standard() -> None:
    """The scenario picker's callback: write the chosen scenario's chances and target into their boxes."""
    chosen = scenarios.STANDARD[st.session_state["scenario"]]
    st.session_state["truth"], st.session_state["target"] = _text(chosen.truth), chosen.target


def parse_truth(text: str) -> tuple[float, ...]:
    """The comma list of chances typed in the box as numbers; a piece that is not a number names the field."""
    pieces = [t.strip() for t in text.replace(";", ",").split(",") if t.strip()]
    out = []
    for piece in pieces:
        try:
            out.append(float(piece))
        except ValueError:
            raise SettingsError("truth", "numbers in [0, 1] separated by commas, lowest dose first", piece) from None
    return tuple(out)


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """The scenario (chances per dose, or the dose model's numbers), the trial's size and the number of trials."""
    v: dict[str, Any] = {"seed": ctx.base_seed}
    v["source"] = links.bound(st.radio, "Patients", SOURCES, key="source",
                              help="Either the true chance of a DLT at each dose, as published tables give it, or "
                                   "patients of the dose model, where HPC-UCB doses them too.")
    if v["source"] == SOURCES[0]:
        first = next(iter(scenarios.STANDARD.values()))
        links.bound(st.selectbox, "Standard scenario", list(scenarios.STANDARD), key="scenario",
                    format_func=lambda name: scenarios.STANDARD[name].title, on_change=fill_standard,
                    help="Fills in the chances and the target of a scenario of the kind published tables use.")
        v["truth"] = links.bound(st.text_input, "Chance of a DLT at each dose", _text(first.truth), 200,
                                 key="truth",
                                 help="Lowest dose first, increasing, each in [0, 1], separated by commas.")
        v["target"] = links.bound(st.number_input, "Target DLT rate φ", 0.0, 1.0, first.target, 0.05, "%.2f",
                                  key="target", help="The DLT rate the MTD should have, in (0, 1).")
    else:
        v["K"] = links.bound(st.number_input, "Doses K", 1, scenarios.MAX_DOSES, 5, 1, key="K",
                             help="Doses j/K for j = 1..K.")
        v["tau"] = links.bound(st.number_input, "Cost limit τ", 0.01, 5.0, 0.25, 0.05, key="tau",
                               help="A patient has a DLT when the side effect (cost) passes τ.")
        v["kappa_c"] = links.bound(st.number_input, "Side-effect noise κ_c", 0.0, 3.0, 0.3, 0.05, key="kappa_c",
                                   help="How much the side effect varies beyond what the patient's measurements say.")
        v["d"] = links.bound(st.number_input, "Measurements per patient d", 1, bandit.MAX_D, 5, 1, key="d")
        v["delta"] = links.bound(st.number_input, "Allowed risk δ (also the target φ)", 0.01, 0.5, 0.3, 0.01,
                                 key="delta", help="HPC-UCB keeps each patient's chance of a DLT at most δ; the "
                                                   "designs aim at a DLT rate of δ.")
    v["cohort"] = links.bound(st.number_input, "Cohort size", 1, api.MAX_COHORT, 3, 1, key="cohort",
                              help="Patients treated together at one dose before the next decision.")
    v["cohorts"] = links.bound(st.number_input, "Cohorts", 1, api.MAX_COHORTS, 10, 1, key="cohorts",
                               help="BOIN and the CRM treat cohort size × cohorts patients; 3+3 stops by its rule.")
    top = api.MAX_TRIALS if v["source"] == SOURCES[0] else bandit.MAX_BANDIT_TRIALS
    start = DEFAULT_TRIALS if v["source"] == SOURCES[0] else DEFAULT_BANDIT_TRIALS
    v["trials"] = links.bound(st.number_input, "Simulated trials", 1, top, start, 100, key="trials",
                              help="Every design runs each trial on the same patients.")
    return v


def run(v: dict[str, Any], device_id: str | None) -> tuple[api.DoseFindingResult, bandit.BanditComparison | None]:
    """The run of the settings ``v``, computed once per server in the shared store (bounded in bytes, as every
    page's runs are); a bad setting, or a run larger than the server's cap on one run, raises
    :class:`SettingsError` naming the field (with the largest number of trials allowed)."""
    chances = v["source"] == SOURCES[0]
    if chances:
        truth = parse_truth(v["truth"])
        api.check_inputs(truth, v["target"], v["cohort"], v["cohorts"], v["trials"], v["seed"], DESIGNS)
        api.check_fits(len(truth), v["cohort"], v["cohorts"], v["trials"], device_id=device_id,
                       limit=store.run_limit())
        settings = {"truth": list(truth), "target": float(v["target"])}
    else:
        api.check_fits(v["K"], v["cohort"], v["cohorts"], v["trials"], device_id=device_id, limit=store.run_limit(),
                       extra=bandit.extra_bytes(v["K"], v["cohort"], v["cohorts"]))
        settings = {f: v[f] for f in ("K", "tau", "kappa_c", "d", "delta")}
    settings.update({f: v[f] for f in ("cohort", "cohorts", "trials", "seed")})
    key = store.key_of({"dosefinding": settings}, device_id or "")
    size = v["trials"] * v["cohort"] * v["cohorts"]

    def compute(tick: Any) -> tuple[api.DoseFindingResult, bandit.BanditComparison | None]:
        if chances:
            return api.simulate(settings["truth"], settings["target"], v["cohort"], v["cohorts"], v["trials"],
                                v["seed"]), None
        both = bandit.compare(v["K"], float(v["tau"]), float(v["kappa_c"]), v["d"], float(v["delta"]), v["cohort"],
                              v["cohorts"], v["trials"], v["seed"])
        return both.result, both

    value, _, _ = live.shared(key, size * (len(DESIGNS) + (0 if chances else v["d"])), compute)
    return value


def patient_words(res: api.DoseFindingResult, both: bandit.BanditComparison | None, trial: int,
                  patient: int) -> str:
    """What each design did for patient ``patient`` of the trial, in one line."""
    parts = []
    for name in res.designs:
        path = res.path(name, trial)
        if patient > path.doses.size:
            parts.append(f"{NAMES[name]}: trial over")
        else:
            dlt = " (DLT)" if path.dlt[patient - 1] else ""
            parts.append(f"{NAMES[name]}: dose {int(path.doses[patient - 1])}{dlt}")
    if both is not None:
        alpha, over = both.bandit_path(trial)
        if patient <= alpha.size:
            parts.append(f"HPC-UCB: dose {alpha[patient - 1]:.3f}" + (" (over the limit)" if over[patient - 1] else ""))
    return f"Patient {patient}: " + "; ".join(parts) + "."


def scenario_words(res: api.DoseFindingResult, both: bandit.BanditComparison | None) -> str:
    """The scenario in one sentence: the chances per dose, the target and which dose is right."""
    chances = ", ".join(f"{p:.3f}" for p in res.truth)
    right = ("no dose: even the lowest is too toxic (its chance of a DLT is above 1.4 × the target)"
             if res.true_mtd == 0 else f"dose {res.true_mtd}, whose chance of a DLT is closest to the target")
    where = (" These chances come from the dose model's patients: dose j is j/K, and a patient has a DLT when the "
             "side effect at that dose passes τ." if both is not None else "")
    return (f"True chance of a DLT at each dose: {chances}; target {res.target:g}. The right answer (the MTD) is "
            f"{right}.{where}")


def rerun(v: dict[str, Any], res: api.DoseFindingResult, both: bandit.BanditComparison | None) -> None:
    """How to get these same trials outside the page: the command (chances per dose) or the Python call (the dose
    model's patients, which HPC-UCB's own stream draws)."""
    with st.expander("Run these trials again outside the app", icon=":material/terminal:"):
        if both is None:
            st.markdown("From a terminal in the project's folder, with the same settings and seed: the numbers above, "
                        "exactly, as JSON (leave out `--json` for a table).")
            st.code(dfcli.rerun_command(res.truth, res.target, res.cohort, res.cohorts, res.trials, res.seed),
                    language="bash")
        else:
            st.markdown("In Python, with the same settings and seed: the designs and HPC-UCB on the same patients.")
            st.code(bandit.call_line(v["K"], v["tau"], v["kappa_c"], v["d"], v["delta"], v["cohort"], v["cohorts"],
                                     v["trials"], v["seed"]), language="python")


def main() -> None:
    """The page."""
    ctx, v = pagekit.page_start(
        "Dose finding in the clinic",
        "A phase-I trial looks for the **maximum tolerated dose (MTD)**: the dose whose chance of a "
        "**dose-limiting toxicity (DLT)**, a side effect severe enough to stop treatment, is closest to a target "
        "such as 30 %. Patients arrive in small cohorts and the design decides the next cohort's dose from the DLTs "
        "so far. Here the classic **3+3**, **BOIN** and the **CRM** run on exactly the same simulated patients, so "
        "every difference comes from the design.",
        "Dose finding", controls)
    out = forms.settings_or_error(None, lambda: run(v, ctx.device))
    if out is None:
        return
    res, both = out
    st.markdown(scenario_words(res, both))

    slots: dict[str, Any] = {}
    right = pagekit.chart_row(slots, "selection", "Which dose each design calls the MTD")
    right.markdown("Each bar is the share of the simulated trials that ended by naming that dose the MTD (or none, "
                   "when the trial stopped because even the lowest dose looked too toxic). A good design puts its "
                   "tallest bar on the right answer.")
    pagekit.chart(slots["selection"], vdf.selection_figure(res, NAMES), "dosefinding_selection", keep=False)
    right = pagekit.chart_row(slots, "patients", "Where the patients were treated")
    right.markdown("The mean number of patients each design treated at each dose. Patients treated above the MTD "
                   "were **overdosed**: they carried more risk than the target allows. 3+3 stops early and "
                   "treats fewer patients; BOIN and the CRM treat cohort size × cohorts.")
    pagekit.chart(slots["patients"], vdf.patients_figure(res, NAMES), "dosefinding_patients", keep=False)

    st.subheader("Operating characteristics")
    frame = table.oc_table(res, both)
    st.table(table.shown_table(frame).set_index("design"))
    st.caption(f"Over {res.trials:,} simulated trials; in brackets the 95 % Monte-Carlo interval. Right dose "
               "chosen: the share of trials naming the true MTD. DLT rate: DLTs over patients treated. Treated "
               "above the MTD: the share of all patients given a dose above it (all of them when no dose is "
               "acceptable)."
               + (" Over the limit: the share of treated patients whose side effect passed τ (for a design its "
                  "DLT rate), against HPC-UCB's allowed risk δ; benefit lost: how much less benefit than an "
                  "all-knowing rule, summed over the trial's patients (an untreated patient counts as dose 0)."
                  if both is not None else ""))
    st.download_button("Operating characteristics (CSV)", table.csv_table(frame).to_csv(index=False),
                       "dose_finding.csv", "text/csv", on_click="ignore", icon=":material/table:",
                       key="dosefinding_csv")
    rerun(v, res, both)

    st.subheader("One trial, patient by patient")
    longest = res.tolerances.shape[1]
    for key, top in (("trial", res.trials), ("patient", longest)):
        if isinstance(st.session_state.get(key), int) and st.session_state[key] > top:
            # Past the end of the new run: start from the control's default (the run's first trial, its last patient).
            st.session_state.pop(key)
            st.query_params.pop(key, None)
    left, mid = st.columns(2)
    with left:
        trial = links.bound(st.number_input, "Trial", 1, res.trials, 1, 1, key="trial",
                            help="Which simulated trial to follow; every design sees its same patients.") - 1
    with mid:
        patient = links.bound(st.slider, "Step to patient", 1, longest, longest, 1, key="patient",
                              help="The patients up to this one are drawn in full, the later ones faded.")
    slots = {}
    right = pagekit.chart_row(slots, "path", "Doses given, patient by patient")
    right.markdown("Every design treats the same patients in the same order: patient i has the same tolerance in "
                   "every design, so a DLT at one dose means a DLT at every higher dose. A red cross is a DLT. "
                   "Move the slider to step through the trial: the patients after it are faded.")
    if both is not None:
        right.markdown("**HPC-UCB** works differently: it reads each patient's measurements and picks a "
                       "continuous dose for that patient alone, not one of K doses for a cohort. Its promise is on "
                       "each patient's own risk: the chance that this patient's side effect passes τ stays at most "
                       f"δ = {both.delta:g}, from the first patient on.")
    pagekit.chart(slots["path"], vdf.path_figure(res, both, trial, patient, NAMES), "dosefinding_path", keep=False)
    st.markdown(patient_words(res, both, trial, patient))


main()
