"""The browser bench's end conditions on a page of real plotly charts: "every chart drawn" counts chart boxes, not
plotly's drawing layers (three per chart), and a chart still waiting to be redrawn keeps the page unsettled.

Needs the ``playwright`` Python package and Debian's Chromium (see :mod:`tests.ui.browserkit`); no server.
"""

from __future__ import annotations

import pytest

from benchmarks.bench_browser import IN_VIEW, SETTLED
from safebandit_ui import plot

pytestmark = pytest.mark.browser

PAGE = f"""<div data-testid="stApp" data-test-script-state="notRunning" data-test-connection-state="CONNECTED">
  <div class="{plot.BOX_CLASS}" id="top"><div style="width: 600px"></div></div>
  <div style="height: 3000px"></div>
  <div class="{plot.BOX_CLASS}" id="below"><div style="width: 600px"></div></div>
</div>"""
"""A settled app with two chart boxes of the app's own element: one in the window, one far below it."""
DRAW = """(id) => Plotly.newPlot(document.querySelector("#" + id + " > div"),
    [{type: "scatter", x: [1, 2, 3], y: [2, 1, 3]}], {height: 300})"""


def test_a_page_is_settled_only_when_every_chart_box_holds_a_drawn_chart(page):
    page.set_content(PAGE)
    page.add_script_tag(path=str(plot.FULL))
    settled, in_view = f"({SETTLED})()", f"({IN_VIEW})()"
    assert not page.evaluate(settled)
    page.evaluate(DRAW, "top")
    assert page.evaluate("document.querySelectorAll('#top .main-svg').length") >= 2  # the layers once miscounted
    assert page.evaluate(in_view), "the chart in the window is drawn"
    assert not page.evaluate(settled), "one chart of two is drawn"
    page.evaluate(DRAW, "below")
    assert page.evaluate(settled)
    page.evaluate("document.querySelector('#below > div').__sbNext = {fig: {}, config: {}}")
    assert not page.evaluate(settled), "a chart waits to be redrawn"
    assert page.evaluate(in_view), "the chart waiting is not in the window"
