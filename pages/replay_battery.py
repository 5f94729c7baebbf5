"""NASA Li-ion battery replay (seed 000 §7): real cycling data, a fitted truth, HPC-UCB against its baselines.

Widgets → the data (cached) → the fit (cached) → one cached, live replay per τ → figures.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import export
from safebandit_core import settings as core_settings
from safebandit_core.data import experiment as ex
from safebandit_core.data.battery import BatteryDataError, random_walk_discharges, raw_samples
from safebandit_core.data.embed import HASH_EMBEDDER, SENTENCE_EMBEDDER, EmbedderUnavailable, available_embedders
from safebandit_core.data.fit import BatteryProblem
from safebandit_core.dose import sim
from safebandit_core.dose.policies import LABELS
from safebandit_core.viz import battery as vb
from safebandit_core.viz import dose as vd
from safebandit_ui import pagekit, shell

SOURCES = dict(zip(ex.SOURCES, ("Embedded RW26 (no download)", "Upload a .mat file", "A .mat file on this machine"),
                   strict=True))
MAX_PAGE_T = ex.MAX_REPLAY_T
MAX_STEP_WINDOW = 2000
MAX_SAMPLE_WINDOW = 300
FIELD_NAMES = {"T": "Rounds T", "d": "Embedding size d", "seeds": "Seeds", "tau": "Cost limit τ",
               "fit_lam": "Ridge of the fit", "policies": "Policies", "dim": "Embedding size d", "source": "Data",
               "embedder": "Embedder", "taus": "Cost limit τ", "base_seed": "Base seed (sidebar)",
               "precision": "Precision (sidebar)", "path": "Path of a .mat file", "file": "File name"}
UPLOAD_KEY = "bat_settings_upload"
MESSAGE_KEY = f"{UPLOAD_KEY}_message"

RW26_NOTE = (
    "**About the data.** The embedded cell **RW26** comes from NASA's *40 °C right-skewed random walk* group "
    "(Randomized Battery Usage data set 4, cells RW25–RW28: discharge currents between 0.5 A and 5 A, skewed "
    "toward high currents, at about 40 °C). It is **not** one of the cells the paper used, **RW9–RW12** (data set "
    "1, room temperature, currents uniform over ±0.75 … 4.5 A). To run those: download *Randomized Battery Usage "
    "Data Set* from NASA's Prognostics Data Repository (data.nasa.gov, “Li-ion Battery Aging Datasets”), unzip "
    "it, then choose **Upload a .mat file** in the sidebar and upload e.g. `RW9.mat`, or choose **A .mat file on "
    "this machine** and give its path. The same loader, embedding, fit and replay run on them."
)


@dataclasses.dataclass(frozen=True)
class DataChoice:
    """The chosen data: a cache key, a label, and the bytes (upload) or path (local file) to read."""

    key: str
    label: str
    kind: str
    payload: bytes | str | None = None

    def opened(self) -> Any:
        """Something :mod:`safebandit_core.data` reads: None (embedded), a path, or a byte stream."""
        return io.BytesIO(self.payload) if isinstance(self.payload, bytes) else self.payload


@st.cache_data(max_entries=4, show_spinner=False)
def steps_of(key: str, _choice: DataChoice) -> pd.DataFrame:
    """The per-step table of the chosen data (``key`` identifies it)."""
    steps, _ = ex.load_source(_choice.opened())
    return steps


@st.cache_data(max_entries=8, show_spinner=False)
def samples_of(key: str, first: int, last: int, _choice: DataChoice) -> pd.DataFrame:
    """Per-sample rows of steps ``first..last`` of a user's file."""
    return raw_samples(_choice.opened(), range(first, last + 1))


@st.cache_resource(max_entries=4, show_spinner=False)
def problem_of(key: str, dim: int, embedder: str, fit_lam: float, _steps: pd.DataFrame) -> BatteryProblem:
    """The fitted problem (read-only arrays, shared by every session)."""
    return ex.fit_problem(_steps, dim=dim, embedder=embedder, fit_lam=fit_lam)


def choose_data() -> DataChoice | None:
    """Sidebar: where the data comes from; None while a file is still to be given."""
    kind = st.radio("Data", list(SOURCES), format_func=SOURCES.get, key="bat_source",
                    help="The embedded table needs no download; NASA's own files can be uploaded or read from disk.")
    if kind == "embedded":
        return DataChoice(key="embedded-rw26", label=ex.EMBEDDED_LABEL, kind=kind)
    if kind == "upload":
        file = st.file_uploader("NASA randomized-usage .mat file", type=["mat"], key="bat_upload",
                                help="For example RW9.mat from NASA's Randomized Battery Usage data set 1.")
        if file is None:
            return None
        data = file.getvalue()
        return DataChoice(key="upload-" + hashlib.blake2b(data, digest_size=16).hexdigest(), label=file.name,
                          kind=kind, payload=data)
    path = st.text_input("Path of a .mat file", key="bat_path", placeholder="/data/nasa/RW9.mat").strip()
    if not path:
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return DataChoice(key=f"path-{path}", label=os.path.basename(path), kind=kind, payload=path)
    return DataChoice(key=f"path-{path}-{stat.st_size}-{stat.st_mtime_ns}", label=os.path.basename(path), kind=kind,
                      payload=path)


def choose_embedding(ctx: shell.RunContext) -> tuple[str, int, float]:
    """Sidebar: the embedder, its size and the fit's ridge."""
    kinds = available_embedders()
    embedder = HASH_EMBEDDER
    if SENTENCE_EMBEDDER in kinds:
        kind = st.selectbox("Embedder", kinds, key="bat_embedder",
                            format_func={HASH_EMBEDDER: "feature hashing (no model)",
                                         SENTENCE_EMBEDDER: "sentence-transformers (local model)"}.get)
        if kind == SENTENCE_EMBEDDER:
            model = st.text_input("Local model (directory or cached name)", key="bat_model").strip()
            if model:
                embedder = f"{SENTENCE_EMBEDDER}:{model}"
    else:
        st.caption("Embedder: feature hashing of the JSON window. Install sentence-transformers and a local model "
                   "to use a language-model embedding instead.")
    default_dim = ex.DEFAULT_DIM if ctx.device.startswith("gpu") else 256
    dim = int(st.number_input("Embedding size d", 1, sim.MAX_D, default_dim, 1, key="bat_dim", bind="query-params",
                              help="The paper's Gemma embedding has 2048 dimensions (the default on a GPU). On a "
                                   "CPU the default is 256: every replay round costs O(d²), and the fit is as good."))
    with st.expander("The fit"):
        fit_lam = float(st.number_input("Ridge of the fit λ_fit", 1e-6, 1e3, ex.DEFAULT_FIT_LAM, format="%g",
                                        key="bat_fit_lam",
                                        help="Larger: a smaller norm bound S (a larger first safe dose), a lower R²."))
    return embedder, dim, fit_lam


def choose_replay() -> dict[str, Any]:
    """Sidebar: τ values, horizon, seeds and policies."""
    v: dict[str, Any] = {}
    v["taus"] = st.pills("Cost limit τ (the paper's two)", list(ex.TAUS), selection_mode="multi",
                         default=list(ex.TAUS), key="bat_taus", format_func=lambda t: f"τ = {t:g}")
    v["T"] = st.number_input("Rounds T", 1, MAX_PAGE_T, None, 500, key="bat_T", placeholder="every replay round",
                             help="Empty: every round of the replay half once. More rounds go through its contexts "
                                  "again, in order, with fresh noise.")
    v["seeds"] = int(st.number_input("Seeds", 1, ex.MAX_REPLAY_SEEDS, 3, 1, key="bat_seeds", bind="query-params",
                                     help="Independent noise draws on the same contexts."))
    v["policies"] = tuple(st.multiselect("Policies", list(ex.POLICIES), default=list(ex.POLICIES),
                                         key="bat_policies", format_func=LABELS.get))
    return v


def page_settings(choice: DataChoice, embedder: str, dim: int, fit_lam: float, options: dict[str, Any],
                  ctx: shell.RunContext) -> dict[str, Any]:
    """The JSON of the :class:`~safebandit_core.data.experiment.BatteryReplaySettings` that re-create this page's
    replays. A user's file is named, not stored: it must be given again."""
    return core_settings.to_dict(ex.BatteryReplaySettings(
        source=choice.kind,
        file=None if choice.kind == "embedded" else choice.label,
        path=str(choice.payload) if choice.kind == "path" else None,
        dim=int(dim),
        embedder=embedder,
        fit_lam=float(fit_lam),
        taus=tuple(sorted(float(t) for t in options["taus"] or [])),
        T=None if options["T"] is None else int(options["T"]),
        seeds=int(options["seeds"]),
        policies=tuple(options["policies"]),
        base_seed=int(ctx.base_seed),
        precision=ctx.precision,
    ))


def restored_widgets(data: Any) -> dict[str, Any]:
    """The widget values (by key) that settings saved by :func:`page_settings` set; raises on any problem."""
    if not isinstance(data, dict):
        raise ValueError("the file must hold one JSON object of settings")
    kind = data.get("kind", ex.BatteryReplaySettings.KIND)
    if kind != ex.BatteryReplaySettings.KIND:
        raise ValueError(f"these are settings of the {kind!r} model, not of the battery replay")
    s = ex.battery_settings(data)
    out: dict[str, Any] = {"bat_source": s.source, "bat_dim": s.dim, "bat_seeds": s.seeds,
                           shell.SEED_KEY: s.base_seed, "bat_fit_lam": float(s.fit_lam),
                           "bat_taus": [t for t in ex.TAUS if t in s.taus], "bat_T": s.T,
                           "bat_policies": list(s.policies)}
    if s.source == "path":
        out["bat_path"] = s.path
    kinds = available_embedders()
    if s.embedder == HASH_EMBEDDER:
        if SENTENCE_EMBEDDER in kinds:
            out["bat_embedder"] = HASH_EMBEDDER
    else:
        if SENTENCE_EMBEDDER not in kinds:
            raise core_settings.SettingsError("embedder", f"'{HASH_EMBEDDER}' here (sentence-transformers is not "
                                              "installed)", s.embedder)
        out["bat_embedder"] = SENTENCE_EMBEDDER
        out["bat_model"] = s.embedder.partition(":")[2]
    if s.precision not in (None, "auto"):
        out[shell.PRECISION_KEY] = s.precision
    return out


def restore_from_upload() -> None:
    """Callback of the settings uploader: put the settings of a JSON or zip into the widgets, or say what is wrong.

    The embedded RW26 run is re-created as it was; a run on a user's file gets every other setting back, and
    the message says that the file itself must be given again.
    """
    file = st.session_state.get(UPLOAD_KEY)
    if file is None:
        st.session_state.pop(MESSAGE_KEY, None)
        return
    try:
        data = pagekit.settings_file_dict(file.getvalue())
        widgets = restored_widgets(data)
    except core_settings.SettingsError as err:
        shown = "" if err.value is None else f" (the file has {err.value!r})"
        st.session_state[MESSAGE_KEY] = ("error", f"{file.name}: **{FIELD_NAMES.get(err.field, err.field)}** must be "
                                                  f"{err.allowed}{shown}.")
        return
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        st.session_state[MESSAGE_KEY] = ("error", f"{file.name} is not a JSON file ({err}). Upload a settings file "
                                                  "or a zip saved by this page.")
        return
    except (ValueError, TypeError) as err:
        st.session_state[MESSAGE_KEY] = ("error", f"{file.name}: {err}.")
        return
    st.session_state.update(widgets)
    source = widgets["bat_source"]
    named = data.get("file") or "your file"
    if source == "upload":
        st.session_state[MESSAGE_KEY] = (
            "warning", f"Restored the settings of {file.name}. They were run on an uploaded file, {named}, which a "
                       "settings file does not hold: **upload that file again** under *Upload a .mat file* to "
                       "re-create the run.")
    elif source == "path":
        st.session_state[MESSAGE_KEY] = (
            "warning", f"Restored the settings of {file.name}. Their data is read again from {widgets['bat_path']} on "
                       "this machine; if that file is not there, **give the file again** (upload it or its path).")
    else:
        st.session_state[MESSAGE_KEY] = ("success", f"Restored the settings of {file.name}: the replay below runs "
                                                    "them again on the embedded RW26 data.")


def restore_section() -> None:
    """The *Restore a run* uploader and the message its last upload left."""
    st.markdown("**Restore a run**")
    st.file_uploader("Settings JSON or zip saved by this page", type=["json", "zip"], key=UPLOAD_KEY,
                     on_change=restore_from_upload,
                     help="Restores the data choice, embedding, fit, τ values, T, seeds, policies and the base seed. "
                          "A run on the embedded RW26 data is re-created exactly; a user's .mat file must be given "
                          "again.")
    message = st.session_state.get(MESSAGE_KEY)
    if message:
        {"error": st.error, "warning": st.warning}.get(message[0], st.success)(message[1])


def show_error(err: Exception) -> None:
    """One st.error naming what to change."""
    if isinstance(err, core_settings.SettingsError):
        name = FIELD_NAMES.get(err.field, err.field)
        shown = "" if err.value is None else f" (now {err.value!r})"
        st.error(f"**{name}** must be {err.allowed}{shown}. Change it to run.", icon=":material/error:")
    else:
        st.error(str(err), icon=":material/error:")


def data_section(choice: DataChoice, steps: pd.DataFrame, problem: BatteryProblem) -> None:
    """The raw data over a chosen window of steps, and the distribution of the rounds' currents."""
    st.header("The data")
    rounds = random_walk_discharges(steps)
    kinds = steps["comment"].astype(str).value_counts()
    cols = st.columns(4)
    cols[0].metric("Steps", f"{len(steps):,}")
    cols[1].metric("Random-walk discharges", f"{len(rounds):,}")
    cols[2].metric("Rounds fitted / replayed", f"{problem.n_fit:,} / {problem.n_replay:,}")
    cols[3].metric("Hours of cycling", f"{(steps['time_start'].max() - steps['time_start'].min()) / 3600:,.0f}")
    raw = choice.kind != "embedded"
    span = MAX_SAMPLE_WINDOW if raw else MAX_STEP_WINDOW
    first = int(rounds["step"].iloc[0]) if len(rounds) else 0
    last = len(steps) - 1
    default = (max(0, first - 2), min(last, first + (40 if raw else 120)))
    lo, hi = st.slider("Steps shown", 0, max(last, 1), default, key=f"bat_window_{choice.key[:40]}",
                       help=f"At most {span:,} steps at once.")
    if hi - lo + 1 > span:
        hi = lo + span - 1
        st.caption(f"Showing the first {span:,} steps of the chosen range.")
    left, right = st.columns([3, 2], gap="medium")
    with left:
        if raw:
            try:
                samples = samples_of(choice.key, lo, hi, choice)
            except BatteryDataError as err:
                show_error(err)
            else:
                st.plotly_chart(vb.samples_figure(samples), key="raw_window")
        else:
            st.plotly_chart(vb.steps_figure(steps.iloc[lo:hi + 1]), key="raw_window")
    with right:
        st.markdown("A round of the experiment is one **random-walk discharge**: about a minute at a randomly "
                    "drawn current. Between them the cell rests, is recharged, and runs reference and pulsed "
                    "tests, which provide context but are not rounds.")
        if raw:
            st.caption("Every sample of your file in this window (1 s apart in random-walk steps).")
        else:
            st.caption("The embedded table keeps one row per step (its first and last voltage, mean current, mean "
                       "and maximum temperature), so each step is one point here.")
        st.dataframe(kinds.rename("steps").rename_axis("step label").reset_index(), hide_index=True, height=220)
    left, right = st.columns([3, 2], gap="medium")
    currents = rounds.loc[rounds["n_samples"] >= 2, "current_mean"].to_numpy()
    left.plotly_chart(vb.current_histogram(currents, problem.current_min, problem.current_max), key="currents")
    right.markdown(f"The **dose** is the round's mean current scaled to [0, 1]: "
                   f"(I − {problem.current_min:.2f} A) / ({problem.current_max:.2f} A − {problem.current_min:.2f} A).")
    right.latex(r"\alpha_t=\frac{I_t-I_{\min}}{I_{\max}-I_{\min}}")


def fit_section(problem: BatteryProblem, fit_lam: float) -> None:
    """R², residual noise, norms, the scaling and the predicted-vs-observed scatter."""
    st.header("The fit: the replay's ground truth")
    cols = st.columns(4)
    cols[0].metric("R² reward / cost (fit half)", f"{problem.fit_r2_reward:.2f} / {problem.fit_r2_cost:.2f}")
    cols[1].metric("R² reward / cost (replay half)", f"{problem.replay_r2_reward:.2f} / {problem.replay_r2_cost:.2f}")
    cols[2].metric("Residual σ: κ_r / κ_c", f"{problem.kappa_r:.3f} / {problem.kappa_c:.3f}")
    cols[3].metric("‖θ*‖ / ‖μ*‖", f"{np.linalg.norm(problem.theta):.1f} / {np.linalg.norm(problem.mu):.1f}")
    left, right = st.columns([3, 2], gap="medium")
    left.plotly_chart(vb.fit_scatter_figure(ex.fit_frame(problem), problem.replay_r2_reward, problem.replay_r2_cost),
                      key="fit_scatter")
    with right:
        st.markdown(
            f"The context X_t embeds the previous {problem.k} steps, written as JSON, into d = {problem.dim} "
            f"dimensions ({problem.embedder}; unit-norm rows). θ*, μ* are ridge fits (λ_fit = {fit_lam:g}) of "
            f"reward/dose and cost/dose on the first {problem.n_fit:,} rounds; the replay then **treats them as the "
            "truth**, so the model holds exactly, and draws each round's noise with the fit's residual σ.")
        st.latex(r"R_t=\alpha_t\big(\langle X_t,\theta^*\rangle+\xi^r_t\big),\quad "
                 r"C_t=\alpha_t\big(\langle X_t,\mu^*\rangle+\xi^c_t\big)")
        st.markdown(
            f"**Reward**: the voltage drop from the rest before the round to the round's end, over the largest "
            f"drop ({problem.reward_scale:.3f} V). **Cost**: the temperature rise during the round over the largest "
            f"rise ({problem.cost_scale:.2f} °C), so τ = 0.1 allows a tenth of the largest rise seen.")
        st.markdown(
            f"**The algorithm's constants.** L = 1 (unit-norm contexts) and S = max(‖θ*‖, ‖μ*‖) = "
            f"{problem.norm_bound:.2f}, the fit's own norm, so the assumptions hold exactly. The contexts are nearly "
            "collinear (one direction carries most of their energy), so a fit with almost no ridge needs large "
            "coefficients: on RW26 at d = 2048, λ_fit = 0.001 gives ‖μ*‖ ≈ 33, a first safe dose τ/(b_δ + S·L) of "
            "0.003 at τ = 0.1, and a confidence width that stays wide for the whole replay. The default "
            f"λ_fit = {ex.DEFAULT_FIT_LAM:g} brings S down to about 11 for a few points of R² (0.63/0.68 → "
            "0.55/0.66). The learner's own ridge is λ = 1.")


def chunk_for(T: int) -> int:
    """Rounds per live update: one refresh block (500) for short runs, about 20 updates for long ones."""
    return max(500, (T // 20) // 500 * 500)


def tidy(run: ex.BatteryRun, outputs: dict[str, np.ndarray]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-round frame (g = identity, so g(α_t) = α_t) and per-policy summary."""
    frame = sim.tidy_frame(run.settings, outputs)
    frame["g_alpha"] = frame["alpha"]
    return frame, sim.summary(run.settings, outputs)


def replay_figures(run: ex.BatteryRun, frame: pd.DataFrame, summary: pd.DataFrame) -> dict[str, go.Figure]:
    """The charts of one replay, by slot name."""
    return {"regret": vd.regret_figure(frame), "safe": vd.safe_interval_figure(frame),
            "cost": vd.cost_figure(frame, run.settings.tau),
            "violations": vd.violation_figure(summary, run.settings.delta)}


def draw_live(slots: dict[str, Any], run: ex.BatteryRun, frame: pd.DataFrame, summary: pd.DataFrame,
              tag: str) -> None:
    """The charts that update while the replay runs and stay as its final view."""
    pagekit.draw_charts(slots, replay_figures(run, frame, summary), f"_{tag}")


def live_replay(run: ex.BatteryRun, ctx: shell.RunContext, slots: dict[str, Any], tag: str) -> dict[str, Any]:
    """Run in chunks with a progress bar, redrawing the charts as it goes."""

    def redraw(i: int, chunk: sim.runner.Chunk) -> None:
        draw_live(slots, run, *tidy(run, chunk.outputs), f"{tag}_live{i}")

    last, seconds = pagekit.live_chunks(ex.replay(run, ctx.device, chunk=chunk_for(run.settings.T)), run.settings.T,
                                        redraw, first="Compiling for this shape (the first replay of a shape only)…")
    outputs = last.outputs
    frame, summary = tidy(run, outputs)
    return {"frame": frame, "summary": summary, "seconds": seconds, "device": ctx.device_label,
            "precision": run.settings.resolved_precision(ctx.device),
            "record": ex.summary_row(run, outputs, seconds=seconds, device=ctx.device)}


def replay_view(run: ex.BatteryRun, ctx: shell.RunContext, problem_key: str, tag: str
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One τ: a stored or live replay, its headline numbers, charts and table; returns its frame and summary."""
    s = run.settings
    status = st.empty()
    metrics = st.container()
    slots: dict[str, Any] = {}
    right = pagekit.chart_row(slots, "regret", "Regret against the clairvoyant safe dose")
    right.markdown("The clairvoyant knows θ*, μ* and plays the largest dose whose realized cost stays below τ with "
                   "probability 1 − δ. A curve that bends has learned; a straight line pays the same every round.")
    right = pagekit.chart_row(slots, "safe", "The estimated safe interval")
    right.markdown("HPC-UCB starts at its round-1 safe dose and raises its estimated upper end α̂max_t towards "
                   "the true α\\*max_t as its estimate of μ\\* sharpens in the directions the contexts take.")
    right.latex(r"\alpha_1=\frac{\tau}{b_\delta+S L},\qquad b_\delta=\kappa_c\sqrt{2\log(1/\delta)}")
    st.subheader("Realized cost against τ")
    slots["cost"] = st.empty()
    left, right = st.columns([3, 2], gap="medium")
    slots["violations"] = left.empty()
    right.markdown("HPC-UCB keeps each round's **realized** temperature rise below τ with probability 1 − δ; "
                   "On-Expectation only keeps its mean below τ.")
    key = json.dumps({"data": problem_key, "run": pagekit.run_key(s, ctx.device)}, sort_keys=True)
    result, stored = pagekit.stored_or_run(key, lambda: live_replay(run, ctx, slots, tag))
    frame, summary, record = result["frame"], result["summary"], result["record"]
    status.caption(pagekit.run_caption(result, s.T, s.seeds, len(s.policies), stored)
                   + f" Contexts of d = {s.d}.")
    with metrics:
        cols = st.columns(4)
        cols[0].metric("Round-1 safe dose α₁", f"{record['first_safe_dose']:.4f}")
        rows = {r["policy"]: r for r in record["by_policy"]}
        if "hpucb" in rows:
            cols[1].metric("HPC-UCB violation rate", f"{rows['hpucb']['violation_rate']:.2%}",
                           help=f"Allowed: δ = {s.delta:g} per round.")
            cols[2].metric("HPC-UCB final regret", f"{rows['hpucb']['cum_regret_mean']:.1f}",
                           f"{rows['hpucb']['cum_regret_mean'] - record['first_dose_regret']:.1f} vs staying at α₁",
                           delta_color="inverse")
            cols[3].metric("HPC-UCB dose, last 10 % of rounds",
                           f"{rows['hpucb']['final_dose_mean']:.3f}",
                           f"safe dose {rows['hpucb']['final_safe_dose_mean']:.3f}", delta_color="off",
                           delta_arrow="off")
    draw_live(slots, run, frame, summary, tag)
    table = pd.DataFrame({
        "policy": [r["label"] for r in record["by_policy"]],
        "violation rate (%)": [100 * r["violation_rate"] for r in record["by_policy"]],
        "final regret (mean)": [r["cum_regret_mean"] for r in record["by_policy"]],
        "final regret (std)": [r["cum_regret_std"] for r in record["by_policy"]],
        "dose, last 10 %": [r["final_dose_mean"] for r in record["by_policy"]],
        "safe dose, last 10 %": [r["final_safe_dose_mean"] for r in record["by_policy"]],
    })
    pagekit.number_table(table, {c: "%.3f" for c in table.columns if c != "policy"})
    st.download_button("Summary JSON", json.dumps(record, indent=1), f"battery_tau{s.tau:g}_T{s.T}_d{s.d}.json",
                       "application/json", on_click="ignore", icon=":material/download:", key=f"dl_{tag}")
    return frame, summary


def replay_section(problem: BatteryProblem, choice: DataChoice, options: dict[str, Any], fit_lam: float,
                   ctx: shell.RunContext, problem_key: str
                   ) -> list[tuple[ex.BatteryRun, pd.DataFrame, pd.DataFrame]]:
    """The replays, one per chosen τ (tabs when there are two); returns each run with its frame and summary."""
    st.header("The replay")
    taus = sorted(options["taus"] or [])
    if not taus:
        st.info("Choose at least one cost limit τ in the sidebar.", icon=":material/tune:")
        return []
    if not options["policies"]:
        show_error(core_settings.SettingsError("policies", "at least one of the three"))
        return []
    runs = []
    try:
        for tau in taus:
            settings = ex.settings_for(problem, tau=tau, T=None if options["T"] is None else int(options["T"]),
                                       seeds=options["seeds"], precision=ctx.precision, policies=options["policies"],
                                       base_seed=ctx.base_seed)
            run = ex.BatteryRun(problem=problem, settings=settings, source=choice.label, fit_lam=fit_lam)
            ex.check_contexts_fit(run, ctx.device)
            runs.append(run)
    except core_settings.SettingsError as err:
        show_error(err)
        return []
    s = runs[0].settings
    st.markdown(
        f"Each round replays one context of the second half ({problem.n_replay:,} rounds"
        + (f", gone through {runs[0].passes:.1f} times" if runs[0].passes > 1 else "") + "), draws reward and cost "
        f"from the fit with κ_r = {s.kappa_r:.3f}, κ_c = {s.kappa_c:.3f}, and lets each policy choose the dose. "
        f"Constants: S = {s.S:.2f}, L = {s.L:.2f}, λ = {s.lam:g}, δ = δ′ = {s.delta:g}, ε = {s.eps:g}.")
    containers = st.tabs([f"τ = {r.settings.tau:g}" for r in runs]) if len(runs) > 1 else [st.container()]
    done = []
    for i, (run, box) in enumerate(zip(runs, containers, strict=True)):
        with box:
            done.append((run, *replay_view(run, ctx, problem_key, f"t{i}")))
    return done


def save_section(settings: dict[str, Any], problem: BatteryProblem,
                 replays: list[tuple[ex.BatteryRun, pd.DataFrame, pd.DataFrame]]) -> None:
    """The settings JSON and everything as one zip (per-round Parquet per τ, the summaries, the figures)."""
    st.subheader("Save this run")
    stem = (f"battery_{settings['source']}_d{settings['dim']}_T{settings['T'] or 'all'}"
            f"_seed{settings['base_seed']}")

    def everything() -> bytes:
        frames = {f"tau{run.settings.tau:g}": frame for run, frame, _ in replays}
        summary = pd.concat([summary.assign(tau=run.settings.tau) for run, _, summary in replays], ignore_index=True)
        figures: dict[str, go.Figure] = {"fit_scatter": vb.fit_scatter_figure(
            ex.fit_frame(problem), problem.replay_r2_reward, problem.replay_r2_cost)}
        for run, frame, summ in replays:
            figures.update({f"{name}_tau{run.settings.tau:g}": fig
                            for name, fig in replay_figures(run, frame, summ).items()})
        return export.bundle(frames, summary, settings, figures)

    cols = st.columns(2)
    cols[0].download_button("Settings JSON", json.dumps(settings, indent=2, sort_keys=True), f"{stem}.json",
                            "application/json", on_click="ignore", icon=":material/settings:", key="bat_dl_json")
    pagekit.zip_button(everything, stem, "bat_dl_zip", cols[1])
    note = ("Upload either file under *Restore a run* to re-create this replay exactly (same base seed)."
            if settings["source"] == "embedded" else
            f"Upload either file under *Restore a run* to restore these settings; the data, {settings['file']}, is "
            "not in them and must be given again.")
    st.caption(note)


def main() -> None:
    """The page."""
    ctx = shell.current()
    st.title("NASA Li-ion battery replay")
    st.markdown("Seed 000's real-data experiment: a battery cell is the patient, the **discharge current** is the "
                "dose, the **voltage drop** is the benefit and the **temperature rise** is the side effect that must "
                "stay below τ. Contexts are embeddings of the previous five steps; the ground truth is fitted on the "
                "first half of the data and HPC-UCB, ε-Greedy and On-Expectation are replayed on the second.")
    st.info(RW26_NOTE, icon=":material/battery_charging_full:")
    with st.sidebar:
        st.divider()
        st.markdown("#### Battery replay")
        choice = choose_data()
        embedder, dim, fit_lam = choose_embedding(ctx)
        options = choose_replay()
        restore_section()
    st.caption(f"Computing on **{ctx.device_label}** in **{ctx.precision}** (change it in the sidebar).")
    if choice is None:
        st.info("Upload a NASA .mat file or give its path in the sidebar to continue.", icon=":material/upload_file:")
        return
    try:
        with st.spinner(f"Reading {choice.label}…"):
            steps = steps_of(choice.key, choice)
        with st.spinner("Embedding the JSON windows and fitting θ*, μ*…"):
            problem = problem_of(choice.key, dim, embedder, fit_lam, steps)
    except (BatteryDataError, EmbedderUnavailable, ValueError) as err:
        show_error(err)
        return
    problem_key = f"{choice.key}|{embedder}|{dim}|{fit_lam:g}"
    data_section(choice, steps, problem)
    fit_section(problem, fit_lam)
    replays = replay_section(problem, choice, options, fit_lam, ctx, problem_key)
    if replays:
        save_section(page_settings(choice, embedder, dim, fit_lam, options, ctx), problem, replays)


main()
