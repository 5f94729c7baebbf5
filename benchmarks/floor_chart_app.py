"""Streamlit's floor with one chart, for ``make bench``: the one-line page, one slider and one small plotly line
chart drawn by the app's own chart element, plotly's code included.

What a page that shows any plotly chart costs a browser on this machine, before its own widgets, words and other
charts, on a visit, a reload and a slider step that redraws the chart: the issue's targets are read against it
(benchmarks/bench_browser.py)."""

from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from safebandit_ui import pagekit, plot
from safebandit_ui.approot import app_root


@st.cache_resource(show_spinner=False)
def _static() -> bool:
    """The app's own plotly code in this page's ``static/`` folder, put there once per server (as the app does with
    its own), not on every visit: the bench also puts it there before the server starts."""
    return plot.provide_script(Path(__file__).resolve().parent, bundle_root=app_root())


KNOB = "Exponent p"
"""The floor page's one slider (in the sidebar, as a model page's knob): each step redraws the chart."""

_static()
p = st.sidebar.slider(KNOB, 0.1, 1.0, 0.5, 0.05)
st.title("A one-line page with one chart")
st.markdown("Streamlit's own start-up in the browser, plotly's code, one slider and one small chart, and nothing "
            "else.")
rounds = np.arange(1, 201)
pagekit.chart(st, go.Figure(go.Scatter(x=rounds, y=rounds**p, mode="lines", name=f"t^{p:.2f}"),
                            layout={"title": {"text": "One line"}, "height": 300}), "floor_chart", keep=False)
