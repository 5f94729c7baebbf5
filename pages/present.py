"""Presentation mode: one screen per model for a board demo or a lecture hall's projector.

No sidebar, no expert controls: a model picker, the audience's scenario (:mod:`safebandit_core.scenarios`),
the names the audience uses, ONE headline computed from the run, and four compact panels that fit a
1280×720 screen. Runs go through the shared store (:mod:`safebandit_ui.live`). The URL carries
``?model=<kind>&scenario=<key>`` (``?present=1`` on any page switches here, see :mod:`safebandit_ui.shell`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import families, scenarios
from safebandit_core.conservative import make_instance
from safebandit_core.meanvar import arm_table, best_mv
from safebandit_core.model import Run
from safebandit_core.scenarios import MODELS, Names
from safebandit_core.viz import conservative as vc
from safebandit_core.viz import dose as vd
from safebandit_core.viz import mv as vm
from safebandit_core.viz.common import (
    LIMIT_COLOR,
    base_layout,
    by_label,
    distinct_dashes,
    figure,
    histogram_traces,
    hline,
    labels_of,
    mean_band_figure,
    note,
    policy_colors,
    rolling_mean,
    shade_below_zero,
    vline,
)
from safebandit_ui import forms, links, live, registry, shell

HEIGHT = 255
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
.st-key-present_about p {font-size: 1.05rem; color: #444;}
.st-key-present_headline p {font-size: 1.3rem; line-height: 1.28; font-weight: 600;}
.st-key-present_notes li, .st-key-present_notes p {font-size: 1.15rem;}
</style>"""


def legend_rows(fig: go.Figure, width: float = 560.0) -> int:
    """How many rows a chart's top legend takes at a half-screen width (about 6.6 px a character at size 12, plus
    the line sample and gap); audience names make the entries long."""
    rows, used = 1, 0.0
    for tr in fig.data:
        if tr.showlegend is False or not tr.name or (fig.layout.showlegend is False):
            continue
        need = 6.6 * len(tr.name) + 46
        if used and used + need > width:
            rows, used = rows + 1, 0.0
        used += need
    return rows


def compact(fig: go.Figure, title: str, y_title: str | None = None, x_title: str | None = None) -> go.Figure:
    """A figure restyled for a projector: fixed height, large fonts, the audience's title and axis names
    (``x_title`` on every x axis, ``y_title`` on the first y axis); the top margin grows with the legend's rows,
    so a long legend never covers the title."""
    fig.update_layout(height=HEIGHT, font={"size": 14}, margin={"l": 64, "r": 14, "t": 44 + 22 * legend_rows(fig),
                                                                "b": 46},
                      title={"text": title, "font": {"size": 17}},
                      legend={"font": {"size": 12}, "x": -0.08, "y": 1.0, "yanchor": "bottom"})
    if y_title is not None:
        fig.update_yaxes(title_text=y_title, selector=0)
    if x_title is not None:
        fig.update_xaxes(title_text=x_title)
    return fig


def slack_panel(frame: pd.DataFrame, title: str, n: Names) -> go.Figure:
    """Slack over the rounds (mean, min–max band over runs) with the zero line: below it the rule is broken."""
    fig = mean_band_figure(frame, "slack", title=title, y_title="slack", band="minmax",
                           colors=vc.colors_for(labels_of(frame)))
    fig.update_layout(shapes=[hline(0.0, LIMIT_COLOR)])
    return compact(fig, title, x_title=f"{n.round} t")


def dose_panels(run: Run, frame: pd.DataFrame, summary: pd.DataFrame, n: Names) -> dict[str, go.Figure]:
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


def conservative_panels(run: Run, frame: pd.DataFrame, summary: pd.DataFrame, n: Names) -> dict[str, go.Figure]:
    """Regret, reward against the line, the default's use and the slack of the sample-path rule."""
    best, t = make_instance(run.settings).best, f"{n.round} t"
    return {
        "regret": compact(vc.regret_figure(frame, best, baseline_name="most the rule lets it lose"),
                          "Reward lost against always choosing the best option", x_title=t),
        "reward": compact(vc.reward_figure(frame), f"Total reward against the line under the {n.default}'s",
                          x_title=t),
        "default": compact(vc.default_pulls_figure(frame), f"Times the {n.default} was chosen", "times", t),
        "slack": slack_panel(frame, "Room left under the rule (below 0: broken)", n),
    }


def mv_panels(run: Run, frame: pd.DataFrame, summary: pd.DataFrame, n: Names) -> dict[str, go.Figure]:
    """Mean-variance regret, slack, the default's use and where the pulls went."""
    s, t = run.settings, f"{n.round} t"
    return {
        "regret": compact(vm.regret_figure(frame, best_mv(s)), "Mean-variance lost against the best option",
                          "regret", t),
        "slack": slack_panel(frame, "Room left under the rule (below 0: broken)", n),
        "default": compact(vm.default_pulls_figure(frame), f"Times the {n.default} was chosen", "times", t),
        "arms": compact(vm.arms_figure(arm_table(run), s.rho, height=HEIGHT).update_layout(showlegend=False),
                        f"Where the pulls went: dot area ∝ pulls, ☆ best arm, ◇ {n.default}"),
    }


PANELS: dict[str, Callable[[Run, pd.DataFrame, pd.DataFrame, Names], dict[str, go.Figure]]] = {
    "dose": dose_panels, "conservative": conservative_panels, "mv": mv_panels}


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
    asked = st.query_params.get(shell.MODEL_PARAM)
    if asked in MODELS:
        st.session_state[MODEL_KEY] = asked
    st.session_state.setdefault(MODEL_KEY, "dose")
    with st.container(key="present_top"):
        cols = st.columns([3.2, 4.2, 0.9, 0.8], vertical_alignment="center")
        kind = cols[0].segmented_control("Model", list(MODELS), key=MODEL_KEY, required=True,
                                         format_func=lambda k: MODELS[k].title, label_visibility="collapsed",
                                         on_change=url_param, args=(shell.MODEL_PARAM, MODEL_KEY, SCENARIO_PARAM))
        options = scenarios.of_kind(kind)
        key = f"present_scenario_{kind}"
        st.session_state[key] = scenarios.find(kind, st.query_params.get(SCENARIO_PARAM,
                                                                         st.session_state.get(key))).key
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
    model = MODELS[kind]
    about = st.container(key="present_about")
    s = forms.settings_or_error(None, lambda: scenario.settings(ctx.base_seed, ctx.precision))
    if s is None:
        return
    with about:
        run, shared, seconds = live.run(s, ctx)
    tidy, summary = scenarios.audience(families.tidy(run), families.summary(run), model, scenario, names)
    figures = PANELS[kind](run, by_label(tidy), summary, names)
    about.markdown(f"**{model.title} · {scenario.title}** — {scenario.describe(names)}")
    st.container(key="present_headline").markdown(model.headline(s, summary, names))
    grid = st.container(key="present_grid")
    names_of = list(figures)
    for row in range(0, len(names_of), 2):
        cols = grid.columns(2, gap="small")
        for col, name in zip(cols, names_of[row:row + 2], strict=False):
            col.plotly_chart(figures[name], key=f"present_{kind}_{name}", config={"displayModeBar": False})
    with st.container(key="present_notes"):
        st.markdown(f"{model.question} In this run:")
        st.markdown("\n".join(f"- {x}" for x in model.notes(s, summary, tidy, names)))
        st.caption(f"Model and algorithms: *{model.paper}*. " + live.caption(run, shared, seconds))

main()
