"""Presentation mode: one screen per model for a board demo or a lecture hall's projector.

No sidebar, no expert controls: a model picker, the audience's scenario (:mod:`safebandit_core.scenarios`),
the names the audience uses, ONE headline computed from the run, and four compact panels that fit a
1280×720 screen. Runs go through the shared store (:mod:`safebandit_ui.live`). The URL carries
``?model=<kind>&scenario=<key>`` (``?present=1`` on any page switches here, see :mod:`safebandit_ui.shell`).
"""

from __future__ import annotations

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

from typing import Any

import streamlit as st

from safebandit_core import families, scenarios
from safebandit_core.scenarios import Names
from safebandit_core.viz.common import by_label
from safebandit_ui import forms, links, live, pagekit, present, registry, shell

MODEL_KEY = "present_model"
SCENARIO_PARAM = "scenario"
NAME_KEYS = {"round": "name_round", "dose_unit": "name_dose_unit", "full_dose": "name_full_dose",
             "effect": "name_effect", "limit": "name_limit", "default": "name_default", "new_rule": "name_new_rule",
             "usual_rule": "name_usual_rule", "other_rule": "name_other_rule"}
NAME_LABELS = {"round": "One round is a …", "dose_unit": "Dose unit", "full_dose": "Full dose (α = 1) in that unit",
               "effect": "Side effect", "limit": "Its limit", "default": "The safe default",
               "new_rule": "The new rule (HPC-UCB, GenCB, MV-CUCB)",
               "usual_rule": "The usual rule (On-Expectation, ConUCB, MV-UCB)",
               "other_rule": "Any other rule (ε-Greedy, UCB)"}
CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], header[data-testid="stHeader"],
[data-testid="stToolbar"] {display: none !important;}
[data-testid="stMainBlockContainer"] {padding: 0.6rem 1.4rem 2rem 1.4rem !important; max-width: 100% !important;}
.st-key-present_screen, .st-key-present_grid {gap: 0.45rem;}
.st-key-present_about p {font-size: 1.05rem; opacity: 0.85;}
.st-key-present_headline p {font-size: 1.3rem; line-height: 1.28; font-weight: 600;}
.st-key-present_notes li, .st-key-present_notes p {font-size: 1.15rem;}
</style>"""




def url_param(param: str, key: str, drop: str = "") -> None:
    """Callback of a picker: carry its value to the URL before the rerun reads it (and drop ``drop``)."""
    st.query_params[param] = st.session_state[key]
    st.query_params.pop(drop, None)


def leave() -> None:
    """Callback of *Exit*: presentation mode off."""
    st.session_state[shell.PRESENT_KEY] = False


def names_popover() -> Names:
    """What the audience calls things, in a popover (bound to the URL so a prepared link keeps them)."""
    base = Names()
    values: dict[str, Any] = {}
    with st.popover("Names", icon=":material/sell:", help="The words used in the headline and on the axes."):
        for field, key in NAME_KEYS.items():
            if isinstance(getattr(base, field), float):
                values[field] = links.bound(st.number_input, NAME_LABELS[field], 0.001, 1e6, base.full_dose, key=key)
            else:
                values[field] = links.bound(st.text_input, NAME_LABELS[field], getattr(base, field), key=key)
    return Names(**values).cleaned()


def pickers() -> tuple[str, scenarios.Scenario, Names]:
    """The top row: model, scenario, names and *Exit*; the URL's ``model``/``scenario`` win when they change."""
    models = scenarios.models()
    given = links.read(shell.MODEL_PARAM)
    asked = families.canonical(given or "")  # an older kind name in a link, too
    if asked in models:
        st.session_state[MODEL_KEY] = asked
    st.session_state.setdefault(MODEL_KEY, next(iter(models)))
    if given is not None and asked not in models:
        links.note(f"Ignored {links.echo(shell.MODEL_PARAM, given)} from the link: presentation mode has no such "
                   f"model; showing **{models[st.session_state[MODEL_KEY]].title}**.")
    with st.container(key="present_top"):
        cols = st.columns([3.2, 4.2, 0.9, 0.8], vertical_alignment="center")
        kind = cols[0].segmented_control("Model", list(models), key=MODEL_KEY, required=True,
                                         format_func=lambda k: models[k].title, label_visibility="collapsed",
                                         on_change=url_param, args=(shell.MODEL_PARAM, MODEL_KEY, SCENARIO_PARAM))
        options = scenarios.of_kind(kind)
        key = f"present_scenario_{kind}"
        wanted = links.read(SCENARIO_PARAM)
        st.session_state[key] = scenarios.find(kind, st.session_state.get(key) if wanted is None else wanted).key
        if wanted is not None and wanted != st.session_state[key]:
            links.note(f"Ignored {links.echo(SCENARIO_PARAM, wanted)} from the link: {models[kind].title} has no "
                       f"such scenario; showing **{scenarios.find(kind, st.session_state[key]).title}**.")
        chosen = cols[1].segmented_control("Scenario", [sc.key for sc in options], key=key, required=True,
                                           format_func=lambda k: scenarios.find(kind, k).title,
                                           label_visibility="collapsed", on_change=url_param,
                                           args=(SCENARIO_PARAM, key))
        with cols[2]:
            names = names_popover()
        if cols[3].button("Exit", icon=":material/close:", on_click=leave, help="Leave presentation mode."):
            st.switch_page(registry.page_of_kind(kind) or registry.PAGES[0].path)
    st.query_params[shell.MODEL_PARAM] = kind
    st.query_params[SCENARIO_PARAM] = chosen
    return kind, scenarios.find(kind, chosen), names


def main() -> None:
    """The page."""
    ctx = shell.current()
    st.html(CSS)
    with st.container(key="present_screen"):
        screen(ctx)


def screen(ctx: shell.RunContext) -> None:
    """Pickers, then (once the run and its figures are ready) the headline with the four panels, then what else the
    run shows (below the first screen). Nothing of the new scenario is drawn before its charts are: a headline over
    the last scenario's faded charts would say one thing while the charts show another."""
    kind, scenario, names = pickers()
    model = scenarios.models()[kind]
    about = st.container(key="present_about")
    s = forms.settings_or_error(None, lambda: scenario.settings(ctx.base_seed, ctx.precision))
    if s is None:
        return
    with about:
        run, shared, seconds = live.run(s, ctx)
    tidy, summary = scenarios.audience(families.tidy(run), families.summary(run), model, scenario, names)
    figures = present.panels(run, by_label(tidy), summary, names)
    about.markdown(f"**{model.title} · {scenario.title}** — {scenario.describe(names)}")
    st.container(key="present_headline").markdown(model.headline(s, summary, names))
    grid = st.container(key="present_grid")
    names_of = list(figures)
    for row in range(0, len(names_of), 2):
        cols = grid.columns(2, gap="small")
        for col, name in zip(cols, names_of[row:row + 2], strict=False):
            pagekit.chart(col, figures[name], f"present_{kind}_{name}", keep=False, config={"displayModeBar": False})
    with st.container(key="present_notes"):
        st.markdown(f"{model.question} In this run:")
        st.markdown("\n".join(f"- {x}" for x in model.notes(s, summary, tidy, names)))
        st.caption(f"Model and algorithms: *{model.paper}*. " + live.caption(run, shared, seconds, len(summary)))

main()
