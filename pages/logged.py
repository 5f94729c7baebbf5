"""Your data: fit the dose model to a logged table, then replay HPC-UCB, On-Expectation and ε-Greedy on the fit.

Upload → preview → column mapping → :class:`LoggedSettings` → the fit report (:mod:`safebandit_core.logged`) →
one shared replay (:mod:`safebandit_ui.live`) → the dose page's figures.
"""

from __future__ import annotations

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

import functools
from typing import Any

import pandas as pd
import streamlit as st

from safebandit_core import families, logged
from safebandit_core.dose import curves
from safebandit_core.logged.fit import CONTEXTS
from safebandit_core.logged.loader import MISSING, bundle_member, guess_map
from safebandit_core.logged.settings import LABEL_FIELDS
from safebandit_core.viz import dose as vd
from safebandit_core.viz import logged as lf
from safebandit_core.viz.common import by_label
from safebandit_ui import downloads, forms, links, live, pagekit, shell

DEFAULT = logged.LoggedSettings()
CONTROLS = forms.controls_of(logged.FAMILY.fields, DEFAULT)
CURVE_FIELDS = {"power": ("g_power",), "emax": ("g_ec50", "g_hill")}
HIDDEN = ("fit_lam", "split", "intercept", "hash_dim", "order_seed", "policies", "lam")  # no widget: kept on restore
ROLES = {"dose": "Dose column", "reward": "Benefit column", "cost": "Side-effect column"}
OPTIONAL = {"group": "Group column (optional)", "time": "Time column (optional)"}
NONE = "(none)"
EXTRA = ("g", "contexts", "missing", "order", "scale_dose", *ROLES)
RULE = ("tau", "delta", "delta_prime", "eps")
CHARTS = {"regret": ("Regret against the clairvoyant", "Benefit lost against one who knows the fitted truth and obeys "
                     "the same rule; a curve that flattens has learned."),
          "violations": ("How often the side effect passed τ", "HPC-UCB should stay under the dashed δ = {delta:g} "
                         "line over these {T:,} rounds; On-Expectation aims only at the mean."),
          "cost": ("Every round's side effect (first seed)", "{cost} per round; red crosses passed τ."),
          "safe": ("The safe doses", "The estimated upper safe dose closing in on the true one (grey).")}
# The fit's numbers: label, report field, format. Two rows of four, so labels and values stay whole at 1400 px.
METRICS = (("Rows fitted", "rows_fit", ","), ("Context dimension d", "d", "d"), ("Bound S (‖θ*‖, ‖μ*‖)", "S", ".3g"),
           ("Bound L (‖X‖)", "L", ".3g"), ("Held-out R², benefit", "heldout_r2_reward", ".2f"),
           ("Held-out R², side effect", "heldout_r2_cost", ".2f"), ("Noise κ_r (benefit)", "kappa_r", ".3g"),
           ("Noise κ_c (side effect)", "kappa_c", ".3g"))
slider = functools.partial(forms.slider, CONTROLS)
integer = functools.partial(forms.integer, CONTROLS)


def restore_extra(s: logged.LoggedSettings) -> None:
    """The restored mapping, options and names, which have no :class:`forms.Control`."""
    st.session_state.update({f"yd_{f}": getattr(s, f) for f in (*EXTRA, *LABEL_FIELDS)})
    st.session_state.update({f"yd_{f}": getattr(s, f) or NONE for f in OPTIONAL}, yd_context=list(s.context),
                            yd_categorical=list(s.categorical), yd_hidden={f: getattr(s, f) for f in HIDDEN},
                            yd_source="example" if s.source == "example" else "upload")  # a path is uploaded here


FORM = forms.SettingsForm(
    ("logged",), "the replay of logged data", CONTROLS, "yd_restore", int_fields=frozenset({"T", "seeds"}),
    field_names={"data": "Data file", "context": "Context columns", "categorical": "One-hot encoded columns",
                 **ROLES, **OPTIONAL, "missing": "Rows with missing values", "g": "Dose curve g",
                 "data_hash": "Data file (its content hash)", "precision": "Precision (sidebar)"},
    restore_extra=restore_extra)


def controls(ctx: shell.RunContext) -> dict[str, Any]:
    """The sidebar: the data, the replay's size, the dose curve and the fit's options."""
    links.may_read(prefix="yd_")  # some controls are drawn only for some data
    v: dict[str, Any] = {"source": links.bound(st.radio, "Data", ["example", "upload"], key="yd_source",
                                               format_func={"example": "Built-in synthetic log",
                                                            "upload": "My own"}.get)}
    if v["source"] == "upload":
        st.file_uploader("CSV (or .csv.gz) or Parquet log", type=["csv", "gz", "parquet", "zip"], key="yd_upload",
                         max_upload_size=pagekit.upload_limit_mb(),
                         help="One row per treated case: contexts, the dose given, the benefit and the side effect.")
    v["T"], v["seeds"] = integer("T"), integer("seeds")
    v["g"] = links.bound(st.selectbox, "Dose curve g", curves.KINDS, key="yd_g",
                         help="How a dose scales benefit and side effect: both are g(α)·(⟨X, θ⟩ + noise).")
    for f in CURVE_FIELDS.get(v["g"], ()):
        v[f] = slider(f)
    with st.expander("Fit options"):
        v["contexts"] = links.bound(st.selectbox, "Contexts", CONTEXTS, key="yd_contexts",
                                    help="auto: standardise up to 64 columns, hash wider tables.")
        v["missing"] = links.bound(st.radio, "Rows with missing values", MISSING, key="yd_missing",
                                   horizontal=True)
        v["scale_dose"] = links.bound(st.checkbox, "Scale the dose to [0, 1] (min–max)", key="yd_scale_dose")
        v["min_g"] = slider("min_g")
        v["order"] = links.bound(st.radio, "Replay order", logged.replay.ORDERS, key="yd_order",
                                 horizontal=True, help="log: the rows in order; resample: drawn with replacement.")
    forms.restore_section(FORM)
    v["base_seed"], v["precision"] = ctx.base_seed, ctx.precision
    return v


def data_of(source: str) -> tuple[bytes, logged.RawTable] | None:
    """The bytes and the table of the data chosen (None while nothing is uploaded); memoised by content."""
    if source == "example":
        return logged.example_bytes(), logged.read(logged.example_bytes(), logged.EXAMPLE_FILE)
    file = st.session_state.get("yd_upload")
    if file is None:
        st.info("Upload a CSV or Parquet file: one row per case with its contexts, dose, benefit and side effect.",
                icon=":material/upload_file:")
        return None
    return file.getvalue(), logged.read(file.getvalue(), file.name)  # too large a file is refused before parsing


def _valid(key: str, options: list[str], default: Any) -> None:
    """Reset a mapping widget whose value is not a column of this table (another file was loaded)."""
    value = st.session_state.get(key)
    ok = all(c in options for c in value) and bool(value) if isinstance(value, list) else value in options
    if not ok:
        st.session_state[key] = default


def mapping(frame: pd.DataFrame) -> dict[str, Any]:
    """The column mapping's widgets (reset to a guess when the table changes) and the display names."""
    cols, guess, v = [str(c) for c in frame.columns], guess_map(frame), {}
    st.subheader("Which column is which")
    _valid("yd_context", cols, list(guess.context))
    v["context"] = tuple(links.bound(st.multiselect, "Context columns (what is known before dosing)", cols,
                                     key="yd_context"))
    _valid("yd_categorical", list(v["context"]), [])
    v["categorical"] = tuple(links.bound(st.multiselect, "One-hot encode (categorical contexts)", list(v["context"]),
                                         key="yd_categorical"))
    row = st.columns(5)
    for i, (f, label) in enumerate({**ROLES, **OPTIONAL}.items()):
        options = cols if f in ROLES else [NONE, *cols]
        _valid(f"yd_{f}", options, getattr(guess, f) or NONE)
        v[f] = links.bound(row[i].selectbox, label, options, key=f"yd_{f}")
    v["group"], v["time"] = (None if v[f] == NONE else v[f] for f in OPTIONAL)
    with st.expander("Names and units (for the charts and tables)"):
        row = st.columns(3)
        for i, f in enumerate(LABEL_FIELDS):
            v[f] = links.bound(row[i // 2].text_input, f.replace("_", " ").capitalize(), getattr(DEFAULT, f),
                               max_chars=40, key=f"yd_{f}")
    return v


def fit_report(run: logged.LoggedRun) -> None:
    """The fit's numbers, its notes, the coefficients and the two diagnostic figures."""
    s, fit, rep, frame = run.settings, run.fit, run.report(), run.fit.residual_frame()
    names = (s.label("reward"), s.label("cost"))
    st.subheader("The fit: is the dose model a fair description of this log?")
    for row in (METRICS[:4], METRICS[4:]):
        for col, (label, field, fmt) in zip(st.columns(4), row, strict=True):
            col.metric(label, format(rep[field], fmt))
    st.caption(fit.rows_sentence())
    if fit.table.dose_scale:
        st.caption("Dose scaling: " + fit.table.dose_mapping(s.dose_unit) + ".")
    for line in fit.notes(None, names):
        st.warning(line, icon=":material/warning:")
    left, right = st.columns([3, 2], gap="medium")
    pagekit.chart(left, lf.fit_figure(frame, (rep["heldout_r2_reward"], rep["heldout_r2_cost"]), names), "fit_plot",
                  keep=False)
    right.markdown(f"Both outcomes are modelled as g(α)·(⟨X, θ*⟩ + noise): divided by g(dose), each is a linear "
                   f"function of the contexts. Ridge λ = {rep['lam_reward']:g} (benefit) and {rep['lam_cost']:g} "
                   f"(side effect), {'set' if s.fit_lam else 'each chosen on a held-out half'}. Points near the dashed "
                   "line are predicted well.")
    coefficients = fit.coefficients()
    if coefficients is not None:
        right.dataframe(coefficients.rename(columns={"reward": names[0], "cost": names[1]}), hide_index=True)
    left, right = st.columns([3, 2], gap="medium")
    pagekit.chart(left, lf.residual_figure(frame, names, s.label("dose")), "residuals", keep=False)
    right.markdown("If the dose curve g is right, the residuals form a band of even width across the doses; a "
                   "band that widens or narrows says another g fits better. " + logged.NOISE_NOTE)


def safety(run: logged.LoggedRun) -> str:
    """The log's own share of rounds above τ against the fitted model's (the realizability check at τ)."""
    shares, tau = run.fit.exceed_shares(run.settings.tau), run.settings.tau
    return (f"At τ = {tau:g}, **{shares.logged:.1%}** of the logged rounds had a {run.settings.label('cost')} above τ;"
            f" the fitted model gives **{shares.model:.1%}** at the same doses and contexts — " + ("close: it "
            "reproduces the log's tail." if shares.close else "not close: read the violation rates with care."))


def charts(run: Any, s: logged.LoggedSettings, slots: dict[str, Any], suffix: str = "") -> pd.DataFrame:
    """The dose page's live charts of a (partial) replay; returns the summary."""
    frame, summary = by_label(families.tidy(run)), families.summary(run)
    cost = vd.cost_figure(frame, s.tau).update_yaxes(title_text=s.label("cost"))
    pagekit.draw_charts(slots, {"regret": vd.regret_figure(frame), "violations": vd.violation_figure(summary, s.delta),
                                "cost": cost, "safe": vd.safe_interval_figure(frame)}, suffix)
    return summary


def main() -> None:
    """The page."""
    ctx, values = pagekit.page_start(
        "Your data: a semi-synthetic replay",
        "Bring a log of past decisions — who was treated (contexts), at which **dose**, with what **benefit** and "
        "what **side effect**. The app fits Safety by Design's dose model to it, treats the fit as the truth, and "
        "replays "
        "**HPC-UCB** (keeps each round's realized side effect below τ with probability 1 − δ) against "
        "**On-Expectation** (keeps only its mean below τ) and **ε-Greedy** on the log's own contexts.",
        "Your data", controls)
    chosen = forms.settings_or_error(FORM, lambda: data_of(values["source"]))
    if chosen is None:
        return
    data, raw = chosen
    st.subheader("The data")
    st.dataframe(raw.frame.head(20), hide_index=True)
    read_as = f", read as {raw.read_as}" if raw.read_as else ""
    synthetic = " — SYNTHETIC: no real patients." if values["source"] == "example" else ""
    st.caption(f"{raw.name}: {len(raw.frame):,} rows × {raw.frame.shape[1]} columns (first 20 shown){read_as}, content "
               f"hash {raw.digest[:12]}…{synthetic}")
    values.update(mapping(raw.frame))
    report_box, rule_box = st.container(), st.container()
    with rule_box:
        st.subheader("The safety rule")
        for col, f in zip(st.columns(4), RULE, strict=True):
            with col:
                values[f] = slider(f)
    settings = logged.LoggedSettings(**{**values, **st.session_state.get("yd_hidden", {}), "file": raw.name})
    run = forms.settings_or_error(FORM, lambda: logged.prepare(settings, data))
    if run is None:
        return
    s = run.settings
    with report_box:
        fit_report(run)
    rule_box.markdown(safety(run))
    st.subheader(f"The replay: {len(s.policies)} policies × {s.seeds} seeds × {s.T:,} rounds on the fitted model")
    for w in run.family.warnings(s):
        st.warning(w, icon=":material/warning:")
    status, slots = st.empty(), {}
    for name, (title, words) in CHARTS.items():
        pagekit.chart_row(slots, name, title).markdown(words.format(delta=s.delta, T=s.T, cost=s.label("cost")))
    result, shared, seconds = live.run(s.unlabelled(), ctx, lambda r: charts(r, s, slots, f"-live-{r.t_done}"))
    status.caption(live.caption(result, shared, seconds))
    summary = charts(result, s, slots)  # the final view, drawn over the live one
    last = "mean dose, last 10 % of rounds"
    table = pd.DataFrame({"policy": summary["label"], "violation rate (%)": summary["violation_rate"] * 100,
                          "final regret (mean)": summary["cum_regret_mean"], last: summary["final_dose_mean"]})
    pagekit.number_table(table, {"violation rate (%)": "%.3f", "final regret (mean)": "%.2f", last: "%.3f"})
    with_data = st.checkbox("Include the data file in the zip", key="yd_include_data",
                            help="Off by default: the settings name the file by its name and content hash only.")
    extra = {"fit": run.report(), **({"data": bundle_member(data, raw.name)} if with_data else {})}
    downloads.downloads(s, lambda: families.tidy(result), f"logged_T{s.T}_seed{s.base_seed}", summary=summary,
                        extra=lambda: extra, device=result.device, precision=result.precision)


main()
