"""Presentation mode's compact panels, restyled for a projector (no Streamlit here): what every model's share.

A family's app entry (:class:`.registry.Entry`) names its four panels (``panels``: ``module:name`` of a function of
the run, its tidy frame by label, its summary and the audience's :class:`~safebandit_core.scenarios.Names`,
returning figures by name, kept beside the family's page spec in :mod:`safebandit_ui.specs`, restyled with
:func:`compact`); :func:`panels` calls them.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from safebandit_core import families
from safebandit_core.model import Run
from safebandit_core.scenarios import Names
from safebandit_core.viz import conservative as vc
from safebandit_core.viz.common import LIMIT_COLOR, hline, labels_of, mean_band_figure

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


def panels(run: Run, frame: pd.DataFrame, summary: pd.DataFrame, n: Names) -> dict[str, go.Figure]:
    """The run's family's panels (its app entry's ``panels``, :class:`.registry.Entry`)."""
    return families.resolve(registry.entry(run.family.kind).panels)(run, frame, summary, n)
