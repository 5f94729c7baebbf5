"""Presentation mode's four compact panels per model, restyled for a projector (no Streamlit here).

A family's app entry (:class:`.registry.Entry`) names its panels (``panels``: ``module:name`` of a function of the
run, its tidy frame by label, its summary and the audience's :class:`~safebandit_core.scenarios.Names`, returning
figures by name); :func:`panels` calls them.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from safebandit_core import families
from safebandit_core.conservative import make_instance
from safebandit_core.meanvar import arm_table, best_mv
from safebandit_core.model import Run
from safebandit_core.scenarios import Names
from safebandit_core.viz import conservative as vc
from safebandit_core.viz import dose as vd
from safebandit_core.viz import meanvar as vm
from safebandit_core.viz.common import (
    LIMIT_COLOR,
    base_layout,
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

from . import registry

HEIGHT = 255


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


def panels(run: Run, frame: pd.DataFrame, summary: pd.DataFrame, n: Names) -> dict[str, go.Figure]:
    """The run's family's panels (its app entry's ``panels``, :class:`.registry.Entry`)."""
    return families.resolve(registry.entry(run.family.kind).panels)(run, frame, summary, n)
