"""The toy family's page: its controls come from :data:`.fields.FIELDS`, the rest from :data:`SPEC` (one regret chart,
one slack chart and a sentence), drawn by the same renderer as every model page."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from safebandit_core import families
from safebandit_core.model import Run
from safebandit_core.scenarios import Names
from safebandit_ui import model_page, pagekit, present

from .fields import ARMS, RUNS


def policies_section(bar: model_page.Sidebar) -> None:
    """The runs' size and the policies compared."""
    bar.section(RUNS)
    bar.values["policies"] = model_page.policies(families.get("toy"), "policies", "Both see the same draws.",
                                                 bar.family.settings_cls().policies)


def views(run: Run) -> model_page.Views:
    """The per-round frame and the summary."""
    return {"frame": families.tidy(run), "summary": families.summary(run)}


def mean_lines(frame, field: str, title: str, by: str = "label") -> go.Figure:
    """The mean over seeds of ``field`` per policy (named in column ``by``), against the round."""
    fig = go.Figure(layout={"title": title})
    for label, rows in frame.groupby(by, observed=True):
        mean = rows.groupby("t")[field].mean()
        fig.add_scatter(x=mean.index, y=mean.to_numpy(), name=str(label))
    return fig


def figures(s, v: model_page.Views, state: None) -> dict[str, go.Figure]:
    """The regret and slack charts."""
    return {"regret": mean_lines(v["frame"], "cum_regret", "cumulative regret"),
            "slack": mean_lines(v["frame"], "slack", "slack over half the default arm")}


def layout(s) -> tuple[model_page.Slots, None]:
    """Two chart rows, the regret one with a sentence slot."""
    slots: model_page.Slots = {}
    with pagekit.chart_row(slots, "regret", "Regret"):
        st.markdown("Reward lost against always playing the better arm.")
        slots["regret_text"] = st.empty()
    pagekit.chart_row(slots, "slack", "Slack").markdown("Reward so far minus half of what arm 0 would have paid.")
    return slots, None


def texts(slots: model_page.Slots, s, v: model_page.Views, state: None) -> None:
    """The final regret of each policy."""
    rows = v["summary"].itertuples()
    slots["regret_text"].markdown("; ".join(f"{r.label}: {r.cum_regret_mean:.1f}" for r in rows))


def present_panels(run: Run, frame, summary, n: Names) -> dict[str, go.Figure]:
    """Presentation mode's four panels: regret, slack, reward and loss per round (means over the runs; the frame is
    by label, its ``policy`` column the audience's names)."""
    t = f"{n.round} t"
    return {name: present.compact(mean_lines(frame, field, title, by="policy"), title, field, t)
            for name, field, title in (("regret", "cum_regret", "Reward lost so far"), ("slack", "slack", "Slack"),
                                       ("reward", "reward", "Reward a round"), ("loss", "regret", "Loss a round"))}


SPEC = model_page.Spec(
    section="Toy bandit", model="the toy bandit", upload_key="toy_upload", sidebar=(ARMS, RUNS),
    extras={RUNS: policies_section}, layout=layout, views=views, figures=figures, texts=texts,
    stem=lambda s: f"toy_T{s.T}_seed{s.base_seed}", key_prefix="toy_")
