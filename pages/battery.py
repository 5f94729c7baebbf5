"""NASA Li-ion battery replay (Safety by Design (2026), §7): real cycling data, a fitted truth, HPC-UCB replayed.

Widgets → :class:`BatteryReplaySettings` → :func:`battery.prepare` (read, embed, fit; memoised by content) →
one shared grid run over the chosen τ (:mod:`safebandit_ui.live`) → figures, plain words, the command line.
"""

from __future__ import annotations

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

import dataclasses
import os
from typing import Any

import streamlit as st

from safebandit_core import battery, jsondoc, model
from safebandit_core.battery import BatteryReplaySettings as Settings
from safebandit_core.battery import cli as battery_cli
from safebandit_core.battery.fields import CPU_DIM, start
from safebandit_core.data.embed import HASH_EMBEDDER, SENTENCE_EMBEDDER
from safebandit_core.dose.policies import LABELS
from safebandit_core.settings import SettingsError
from safebandit_core.viz import battery as vb
from safebandit_core.viz.common import by_label
from safebandit_ui import downloads, forms, links, live, pagekit, shell

NAMED_KEY = "bat_named_file"
MAX_WINDOW = 2000
CONTROLS = forms.controls_of(battery.FAMILY.fields, start())
CHARTS = {"regret": "Regret against the clairvoyant safe dose", "safe": "The estimated safe dose",
          "cost": "Realized cost against τ", "violations": "How often the realized cost passed τ"}
RW26_NOTE = (
    "**About the data.** The embedded cell **RW26** is from NASA's *40 °C right-skewed random walk* group (data "
    "set 4), **not** one of the paper's cells **RW9–RW12** (data set 1, room temperature). To run those, download "
    "*Randomized Battery Usage Data Set* from NASA's Prognostics Data Repository (data.nasa.gov, “Li-ion Battery "
    "Aging Datasets”), unzip it, choose **Upload a .mat file** in the sidebar and upload e.g. `RW9.mat`.")


TAU_HELP = ("The paper's are 0.1 and 0.2, on its cells RW9–RW12. On the embedded RW26 they leave a round-1 safe "
            "dose below 0.02 (the fit's norm bound S ≈ 11 makes HPC-UCB start very low), so the page opens on 0.3 "
            "and 0.5, where the limit still binds in almost every round.")


def restored_values(s: Settings) -> dict[str, float]:
    """The control values a restored file sets; an embedder this server lacks is refused before anything is set."""
    if s.embedder != HASH_EMBEDDER and SENTENCE_EMBEDDER not in battery.available_embedders():
        raise SettingsError("embedder", f"'{HASH_EMBEDDER}' here (sentence-transformers is not installed)", s.embedder)
    return {f: getattr(s, f) for f in CONTROLS}


def restore_extra(s: Settings) -> None:
    """The restored data choice, T, τ values and policies (no :class:`Control`); a user's file is named, not held."""
    st.session_state.update({"bat_source": "embedded" if s.source == "embedded" else "upload", "bat_T": s.T,
                             "bat_taus": [t for t in battery.TAUS if t in s.taus], "bat_policies": list(s.policies),
                             NAMED_KEY: None if s.source == "embedded" else s.file or os.path.basename(s.path or "")})
    if SENTENCE_EMBEDDER in battery.available_embedders():
        st.session_state["bat_model"] = s.embedder.partition(":")[2]


FORM = forms.SettingsForm(
    ("battery",), "the battery replay", CONTROLS, "bat_settings_upload", int_fields=frozenset({"dim", "seeds"}),
    field_names={"taus": "Cost limit τ", "T": "Rounds T", "policies": "Compare", "embedder": "Embedder",
                 "base_seed": "Base seed (sidebar)", "precision": "Precision (sidebar)"},
    values_of=restored_values, restore_extra=restore_extra)


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """The sidebar: the data, its embedding and fit, the replay, restore; returns the settings fields (and file)."""
    links.may_read(prefix="bat_")  # some controls are drawn only for some data
    v: dict[str, Any] = {"source": links.bound(st.radio, "Data", ("embedded", "upload"), key="bat_source",
                                               format_func={"embedded": "Embedded RW26 (no download)",
                                                            "upload": "Upload a .mat file"}.get)}
    v["upload"] = None if v["source"] == "embedded" else st.file_uploader(
        "NASA randomized-usage .mat file", type=["mat"], key="bat_upload", max_upload_size=pagekit.upload_limit_mb(),
        help=f"For example RW9.mat from data set 1; at most {pagekit.upload_limit_mb()} MB.")
    dim = dataclasses.replace(CONTROLS["dim"], default=battery.DEFAULT_DIM if ctx.device.startswith("gpu") else CPU_DIM)
    v["dim"] = forms.integer({"dim": dim}, "dim")
    v["embedder"] = HASH_EMBEDDER
    if SENTENCE_EMBEDDER in battery.available_embedders():
        name = links.bound(st.text_input, "Local sentence-transformers model (empty: feature hashing)",
                           key="bat_model").strip()
        v["embedder"] = f"{SENTENCE_EMBEDDER}:{name}" if name else HASH_EMBEDDER
    v["fit_lam"] = forms.number(CONTROLS, "fit_lam")
    v["taus"] = tuple(sorted(links.bound(st.pills, "Cost limit τ", battery.TAUS, selection_mode="multi",
                                         default=list(battery.OPEN_TAUS), key="bat_taus",
                                         format_func=lambda t: f"τ = {t:g}", help=TAU_HELP) or ()))
    v["T"] = links.bound(st.number_input, "Rounds T", 1, battery.MAX_REPLAY_T, None, 500, key="bat_T",
                         placeholder="every replay round", help="More goes through the contexts again.")
    v["seeds"] = forms.integer(CONTROLS, "seeds")
    v["policies"] = tuple(links.bound(st.multiselect, "Compare", battery.POLICIES, default=list(battery.POLICIES),
                                      key="bat_policies", format_func=LABELS.get,
                                      help="The rules replayed side by side on the same cell's data."))
    with st.expander("Safety rule and learner"):
        for f in ("delta", "delta_prime", "eps"):
            v[f] = forms.slider(CONTROLS, f)
        v["lam"] = forms.number(CONTROLS, "lam")
    forms.restore_section(FORM)
    return v


def chosen_data(v: dict[str, Any]) -> tuple[bytes | None] | None:
    """The uploaded bytes (None: the embedded table), or None after saying what is missing."""
    file = v.pop("upload")
    if v["source"] == "embedded":
        return (None,)
    named, problem = st.session_state.get(NAMED_KEY), file and pagekit.upload_problem(file)
    if file is None:
        st.info("Upload a NASA .mat file in the sidebar to continue" + (
            f": the restored settings ran on **{named}**, which a settings file names but does not hold." if named
            else "."), icon=":material/upload_file:")
    elif problem:
        st.error(problem, icon=":material/error:")
    if file is None or problem:
        return None
    v["file"] = file.name
    return (file.getvalue(),)


def build(v: dict[str, Any], ctx: shell.RunContext, data: bytes | None) -> battery.BatteryRun:
    """Checked settings, the data read, embedded and fitted (memoised), and the device's room checked."""
    for field, what in (("taus", "at least one of 0.1, 0.2"), ("policies", "at least one of the three")):
        if not v[field]:
            raise SettingsError(field, what)
    run = battery.prepare(Settings(**v, tau=v["taus"][0], base_seed=ctx.base_seed, precision=ctx.precision), data)
    battery.check_contexts_fit(run, ctx.device, cells=len(v["taus"]))
    return run


def data_section(prepared: battery.BatteryRun, data: bytes | None) -> dict[str, Any]:
    """The data (a window of steps, the rounds' currents) and the fit, each beside its words; returns the figures."""
    p, steps, digest = prepared.problem, battery.load_source(data)[0], prepared.settings.data_hash
    key = "embedded" if digest is None else f"upload-{digest}"
    st.header(f"The data and the fit: {prepared.source}")
    rounds, facts = battery.random_walk_discharges(steps), p.facts()
    first = int(rounds["step"].iloc[0])
    lo, hi = st.slider("Steps shown", 0, len(steps) - 1, (max(0, first - 2), min(len(steps) - 1, first + 120)),
                       key=f"bat_window_{key[:20]}", help=f"At most {MAX_WINDOW:,} steps at once.")
    figs = vb.data_figures(steps, rounds, battery.fit_frame(p), facts, lo, min(hi, lo + MAX_WINDOW - 1))
    for name, text in vb.data_texts(facts).items():
        left, right = st.columns([3, 2], gap="medium")
        pagekit.chart(left, figs[name], name, keep=False)
        right.markdown(text)
    return dict(figs)


def draw(tabs: list[dict[str, Any]], result: model.Run, suffix: str = "") -> list[dict[str, Any]]:
    """Each grid cell's (one τ's) charts into its tab, keyed uniquely per live update; returns them by cell."""
    charts = []
    for i, slots in enumerate(tabs):
        c = model.cell(result, i)
        charts.append(vb.replay_figures(by_label(model.tidy(c)), model.summary(c), c.settings.tau, c.settings.delta))
        pagekit.draw_charts(slots, charts[-1], f"_t{i}{suffix}")
    return charts


def tab_layout(box: Any) -> dict[str, Any]:
    """One τ's sections in ``box``: a metrics row, then each chart with a slot for its words."""
    with box:
        slots: dict[str, Any] = {"metrics": st.container()}
        for name, title in CHARTS.items():
            slots[f"{name}_words"] = pagekit.chart_row(slots, name, title).empty()
    return slots


def words(slots: dict[str, Any], record: dict[str, Any]) -> None:
    """The metrics and the words beside each chart, computed from this τ's replay over its T rounds: its facts
    (:func:`battery.facts`), ``T`` and its generic summary's rows under ``by_policy``."""
    h, cols = next((r for r in record["by_policy"] if r["policy"] == "hpucb"), None), slots["metrics"].columns(4)
    cols[0].metric("Round-1 safe dose α₁", f"{record['first_safe_dose']:.4f}")
    if h:
        cols[1].metric("HPC-UCB violation rate", f"{h['violation_rate']:.2%}",
                       help=f"Allowed: δ = {record['delta']:g}.")
        cols[2].metric("HPC-UCB final regret", f"{h['cum_regret_mean']:.1f}", delta_color="inverse",
                       delta=f"{h['cum_regret_mean'] - record['first_dose_regret']:.1f} vs staying at α₁")
        cols[3].metric("HPC-UCB dose, last 10 %", f"{h['final_dose_mean']:.3f}", delta_color="off", delta_arrow="off",
                       delta=f"true safe dose {h['final_safe_dose_mean']:.3f}")
    for name, text in vb.replay_texts(record).items():
        slots[f"{name}_words"].markdown(text)


def replay_section(prepared: battery.BatteryRun, ctx: shell.RunContext, figs: dict[str, Any]) -> None:
    """One shared grid run over the chosen τ (a tab each): charts, words, the command line; then the downloads."""
    s = prepared.settings
    st.header("The replay")
    st.markdown("Each round replays one context of the second half" + (
        f" (gone through {prepared.passes:.1f} times)" if prepared.passes > 1 else "") + ", draws reward and cost "
        f"from the fit and lets each policy choose the dose. Constants: S = {prepared.dose.S:.2f}, L = "
        f"{prepared.dose.L:.2f}, λ = {s.lam:g}, δ = {s.delta:g}, δ′ = {s.delta_prime:g}, ε = {s.eps:g}.")
    for w in prepared.family.warnings(s):
        st.warning(w, icon=":material/warning:")
    status = st.empty()
    boxes = st.tabs([f"τ = {t:g}" for t in s.taus]) if len(s.taus) > 1 else [st.container()]
    tabs = [tab_layout(box) for box in boxes]
    extra, simulate = live.in_chunks(battery.tau_grid(s), live.PAGE_CHUNK)
    result, shared, seconds = live.run(s, ctx, lambda r: draw(tabs, r, f"_live{r.t_done}"), extra, simulate)
    status.caption(live.caption(result, shared, seconds) + f" d = {prepared.problem.dim}; every τ in one run.")
    for i, (box, slots, charts) in enumerate(zip(boxes, tabs, draw(tabs, result), strict=True)):
        figs.update({f"{name}_tau{s.taus[i]:g}": fig for name, fig in charts.items()})
        c = model.cell(result, i)
        words(slots, {**battery.facts(prepared, result, i), "T": c.T, "by_policy": jsondoc.rows_of(model.summary(c))})
        with box:
            st.markdown("**The same replay from the command line** (copy it; it prints one JSON summary" + (
                "; it runs one policy or all three" if 1 < len(s.policies) < len(battery.POLICIES) else "") + "):")
            st.code(battery_cli.rerun_command(s, s.taus[i]), language="bash")
    downloads.downloads(s, lambda: model.tidy(result), f"battery_{s.source}_d{s.dim}_T{s.T}_seed{s.base_seed}",
                        summary=model.summary(result), figures=lambda: figs, device=result.device,
                        precision=result.precision)
    if s.source != "embedded":
        st.caption(f"A settings file names your data, {s.file}, but does not hold it: give the file again to restore.")


def main() -> None:
    """The page."""
    ctx, v = pagekit.page_start(
        "NASA Li-ion battery replay",
        "The real-data experiment of *Safety by Design (2026)*: a battery cell is the patient, the **discharge "
        "current** is the dose, the **voltage drop** is the benefit and the **temperature rise** is the side effect "
        "that must stay below τ. Contexts embed the previous five steps; the truth is fitted on the first half of "
        "the data and HPC-UCB, ε-Greedy and On-Expectation are replayed on the second.",
        "Battery replay", controls)
    st.info(RW26_NOTE, icon=":material/battery_charging_full:")
    chosen = chosen_data(v)
    if chosen is None:
        return
    try:
        with st.spinner("Reading the data, embedding its JSON windows and fitting θ*, μ*…"):
            prepared = forms.settings_or_error(FORM, lambda: build(v, ctx, chosen[0]))
    except (battery.BatteryDataError, battery.EmbedderUnavailable, ValueError) as err:
        st.error(f"**{v.get('file', 'The data')}** cannot be replayed: {err}.", icon=":material/error:")
        return
    if prepared is not None:
        replay_section(prepared, ctx, data_section(prepared, chosen[0]))


main()
