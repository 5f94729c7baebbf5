"""The app's own chart element in a real headless browser: a knob step draws each changed chart once, and a chart
drawn in a closed tab takes its column's width when the tab opens.

Needs the ``playwright`` Python package and Debian's Chromium (see :mod:`tests.ui.browserkit`).
"""

from __future__ import annotations

import pytest

from safebandit_ui import plot
from tests.ui.browserkit import CHART, WATCH_RUNS, slider_thumb, wait_drawn, wait_for_charts

pytestmark = pytest.mark.browser

COUNT_DRAWINGS = """() => { const P = window.Plotly; if (P.__sbCounted) return; P.__sbCounted = true;
    const react = P.react; window.__drawings = new Map();
    P.react = function (gd, ...rest) { window.__drawings.set(gd, (window.__drawings.get(gd) || 0) + 1);
        return react.call(this, gd, ...rest); }; }"""
"""Count plotly's ``react`` calls per chart from now on (the element draws with ``Plotly.react`` only)."""
CONTENTS = f"""() => Array.from(document.querySelectorAll("{CHART} .js-plotly-plot"))
    .map(gd => JSON.stringify([gd.data.map(t => t.y), gd.layout.title && gd.layout.title.text, gd.layout.shapes]))"""
DRAWINGS = f"""() => Array.from(document.querySelectorAll("{CHART} .js-plotly-plot"))
    .map(gd => [window.__drawings.get(gd) || 0, gd.closest(".st-key-scrub") !== null])"""
"""Per chart, in page order: how often it was drawn since :data:`COUNT_DRAWINGS`, and whether it is the scrub chart."""


def test_a_knob_step_draws_each_changed_chart_once(server, page):
    page.add_init_script(WATCH_RUNS)
    page.goto(server + "/dose?T=500")
    wait_for_charts(page, 180_000)  # every dose chart drawn (so plotly is loaded), then the page finished
    wait_drawn(page, 180_000)
    page.evaluate(COUNT_DRAWINGS)
    page.evaluate(f"""() => document.querySelectorAll("{CHART} .js-plotly-plot .main-svg")
        .forEach(svg => {{ svg.__sbBefore = true; }})""")
    before = page.evaluate(CONTENTS)
    runs = page.evaluate("() => window.__runsEnded")
    thumb = slider_thumb(page, "Cost limit τ")
    thumb.focus()
    thumb.press("ArrowRight")
    page.wait_for_function("(n) => window.__runsEnded > n", arg=runs, timeout=60_000)
    page.wait_for_function(f"""(old) => {{ const now = ({CONTENTS})();
        return now.length === old.length && now.filter((c, i) => c !== old[i]).length >= 4; }}""",
                           arg=before, timeout=60_000)
    wait_drawn(page, 60_000)
    page.wait_for_timeout(1500)  # charts below the fold are drawn when the browser is idle
    after = page.evaluate(CONTENTS)
    drawings = page.evaluate(DRAWINGS)
    changed = [a != b for a, b in zip(after, before, strict=True)]
    assert sum(changed) >= 4
    assert all(n <= 1 for n, _ in drawings), f"a chart was drawn more than once for one step: {drawings}"
    assert all(n == 1 for (n, _), c in zip(drawings, changed, strict=True) if c), (drawings, changed)
    assert [n for n, scrub in drawings if scrub] == [0], "the scrub chart, the same for every τ, was drawn again"
    kept = page.evaluate(f"""() => Array.from(document.querySelectorAll("{CHART} .js-plotly-plot"))
        .map(gd => gd.querySelector(".main-svg").__sbBefore === true)""")
    assert all(kept), f"a chart was built anew instead of updated in place (plotly's react saw a new config): {kept}"
    overflow = page.evaluate(f"""() => Array.from(document.querySelectorAll("{CHART} .js-plotly-plot"))
        .flatMap(gd => Object.keys(gd._fullLayout).filter(k => /^[xy]axis\\d*$/.test(k))
        .map(k => gd._fullLayout[k].ticklabeloverflow))""")
    assert overflow and set(overflow) == {"allow"}, f"plotly measures every tick label at each drawing: {overflow}"


def test_a_chart_drawn_in_a_closed_tab_takes_its_width_when_the_tab_opens(server, page):
    page.add_init_script(WATCH_RUNS)
    page.goto(server + "/battery")
    page.get_by_role("tab").first.wait_for(timeout=240_000)
    wait_drawn(page, 240_000, min_charts=1)
    widths = f"""() => Array.from(document.querySelectorAll("{CHART} .js-plotly-plot"))
        .filter(gd => gd.getBoundingClientRect().width > 0)
        .map(gd => [Math.round(gd.getBoundingClientRect().width), gd._fullLayout.width])"""
    tabs = page.get_by_role("tab")
    assert tabs.count() >= 2
    shown = page.evaluate(widths)
    assert shown and all(abs(box - drawn) <= 1 for box, drawn in shown), shown
    tabs.nth(tabs.count() - 1).click()
    page.wait_for_function(f"""() => {{ const w = ({widths})();
        return w.length > 0 && w.every(([box, drawn]) => Math.abs(box - drawn) <= 1); }}""", timeout=30_000)


WATCHED = f"""() => {{ const tab = window.__sbPlot; const boxes = document.querySelectorAll(".{plot.BOX_CLASS} > div");
    return {{watched: tab ? tab.boxes.size : -1, gone: tab ? Array.from(tab.boxes).filter(gd => !gd.isConnected).length
             : -1, boxes: boxes.length,
             scripts: document.querySelectorAll("script[src$='/app/static/plotly.min.js']").length}}; }}"""
"""What the element's shared state of the tab watches, against the chart boxes on the page, and how often plotly's
code was put on the page."""


def test_charts_left_behind_by_another_page_are_no_longer_watched(server, page):
    """A visitor goes from one model page to another in the same tab: the charts of the first page leave it, and the
    element stops watching them (in view, resized); plotly, loaded once for the tab, serves the second page too."""
    page.add_init_script(WATCH_RUNS)
    page.goto(server + "/dose?T=500")
    wait_drawn(page, 180_000, min_charts=6)
    first = page.evaluate(WATCHED)
    assert first["watched"] == first["boxes"] >= 6 and first["gone"] == 0, first
    runs = page.evaluate("() => window.__runsEnded")
    page.get_by_test_id("stSidebarNavLink").get_by_text("Conservative bandits", exact=True).click()
    page.wait_for_function("(n) => window.__runsEnded > n", arg=runs, timeout=120_000)
    page.get_by_text("α (tolerated loss)").first.wait_for(timeout=120_000)
    wait_drawn(page, 180_000, min_charts=1)
    page.wait_for_timeout(500)  # cleanups run after the old page's elements are removed
    now = page.evaluate(WATCHED)
    assert now["gone"] == 0, f"charts no longer on the page are still watched: {now}"
    assert now["watched"] == now["boxes"] >= 1 and now["scripts"] == 1, now


def test_a_chart_opens_fullscreen_from_its_mode_bar_and_esc_brings_it_back(server, page):
    page.add_init_script(WATCH_RUNS)
    page.goto(server + "/dose?T=500")
    wait_drawn(page, 180_000, min_charts=6)
    chart = page.locator(".st-key-regret .js-plotly-plot")
    size = """(gd) => { const r = gd.parentElement.getBoundingClientRect();
        return [Math.round(r.width), Math.round(r.height), gd._fullLayout.height, window.innerWidth, window.innerHeight,
                gd.parentElement.classList.contains("FULL")]; }""".replace("FULL", plot.FULL_CLASS)
    before = chart.evaluate(size)
    assert not before[5] and before[0] < before[3], before
    chart.hover()
    titles = chart.evaluate("gd => Array.from(gd.querySelectorAll('.modebar-btn')).map(b => b.dataset.title)")
    assert "Download plot as a PNG" in titles and not [t for t in titles if "Share" in t], titles
    chart.locator(".modebar-btn[data-title^='View fullscreen']").click()
    page.wait_for_function(f"""() => {{ const gd = document.querySelector(".st-key-regret .js-plotly-plot");
        return ({size})(gd)[2] > {before[2]}; }}""", timeout=10_000)
    full = chart.evaluate(size)
    assert full[5] and full[0] == full[3] and full[1] == full[4], f"the box does not cover the window: {full}"
    drawn = chart.evaluate("gd => [gd._fullLayout.width, gd._fullLayout.height]")
    assert drawn[0] >= full[3] - 60 and drawn[1] >= full[4] - 60, f"the chart does not fill the window: {drawn}, {full}"
    page.keyboard.press("Escape")
    page.wait_for_function(f"""() => {{ const gd = document.querySelector(".st-key-regret .js-plotly-plot");
        return ({size})(gd)[2] === {before[2]}; }}""", timeout=10_000)
    assert chart.evaluate(size) == before
