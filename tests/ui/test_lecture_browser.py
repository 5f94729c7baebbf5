"""The lecture tools in a real browser: the step-through's title follows the round while it plays or its slider
moves (the frames' layout is applied, not only their traces), its controls clear of the titles; a pin has a legend
entry naming what differs and its table shows rates in %."""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.ui.browserkit import (
    CHART,
    ROOT,
    Served,
    finished_runs,
    slider_thumb,
    switch_on,
    wait_for_charts,
    wait_for_run,
    wait_idle,
)

pytestmark = pytest.mark.browser
SHOT = ROOT / "artifacts" / "step_through.png"
EXPANDER = "Step through one run, round by round"


STATE = f"""box => {{ const d = box.querySelector('details');
    const charts = [...box.querySelectorAll({CHART!r})];
    const tab = window.__sbPlot || {{}};
    return JSON.stringify({{open: d && d.open,
        switches: [...box.querySelectorAll('input[type=checkbox]')].map(i => i.checked),
        charts: charts.map(c => {{ const gd = c.querySelector('div > div');
            return {{html: c.innerHTML.length, next: !!(gd && gd.__sbNext), drawn: !!(gd && gd.__sbDrawn),
                     rect: gd && gd.getBoundingClientRect().width}}; }}),
        queue: (tab.queue || []).length, pumping: tab.pumping,
        errors: [...document.querySelectorAll("[data-testid='stException'], [data-testid='stAlertContentError']")]
            .map(e => e.innerText.slice(0, 800)),
        script: document.querySelector("[data-testid='stApp']").getAttribute('data-test-script-state'),
        connection: document.querySelector("[data-testid='stApp']").getAttribute('data-test-connection-state')}});
}}"""
"""What the step-through box shows, as JSON: open or not, its switches, its chart boxes and their drawing state,
the charts waiting to be drawn, errors shown on the page, the script's and the connection's state (the message
when its chart never draws)."""


def open_steps(pg, served: Served):
    """The dose page's step-through, open and drawn; returns its chart."""
    runs = finished_runs(pg)
    pg.goto(served.url + "/dose?T=1000")
    wait_for_charts(pg)
    box = pg.get_by_test_id("stExpander").filter(has_text=EXPANDER)
    try:
        before = runs[0]
        box.get_by_text(EXPANDER).click()
        wait_for_run(pg, before, 90_000, "opening the box")  # the run that drew its contents is over, not only begun
        before = runs[0]
        switch_on(box, "Show the animation")
        wait_for_run(pg, before, 90_000, "switching the animation on")
        box.locator(f"{CHART} .main-svg").first.wait_for(state="attached", timeout=120_000)
    except (PlaywrightTimeout, TimeoutError) as err:
        log = served.log.read_text(errors="replace").splitlines()[-40:]
        raise AssertionError(f"the step-through's chart was not drawn ({err}): " + box.evaluate(STATE)
                             + f"\nruns finished: {runs[0]}\nserver log:\n" + "\n".join(log)) from None
    wait_idle(pg)
    assert box.evaluate("e => e.querySelector('details').open"), "switching the animation on folded the section"
    chart = box.locator(CHART).first
    chart.scroll_into_view_if_needed()
    return chart


def title_of(chart) -> str:
    return chart.locator(".gtitle").text_content() or ""


def test_playing_and_sliding_change_the_title(served, page):
    chart = open_steps(page, served)
    assert "round 1:" in title_of(chart)
    chart.get_by_text("▶ Play").click()
    page.wait_for_function("""el => !el.querySelector('.gtitle').textContent.includes('round 1:')""",
                           arg=chart.element_handle(), timeout=30_000)
    chart.get_by_text("Pause").click()
    assert "round 1:" not in title_of(chart) and "rounds over τ" in title_of(chart)
    rail = chart.locator(".slider-rail-rect").bounding_box()
    page.mouse.click(rail["x"] + rail["width"] - 2, rail["y"] + rail["height"] / 2)
    page.wait_for_function("el => el.querySelector('.gtitle').textContent.includes('round 1,000:')",
                           arg=chart.element_handle(), timeout=30_000)
    title = chart.locator(".gtitle").bounding_box()
    for other in (".updatemenu-container", ".slider-container"):
        b = chart.locator(other).bounding_box()
        assert b["y"] > title["y"] + title["height"], f"{other} lies below the title"
    subplot_titles = chart.locator(".annotation").all()
    slider = chart.locator(".slider-container").bounding_box()
    assert all(a.bounding_box()["y"] + a.bounding_box()["height"] < slider["y"] for a in subplot_titles)
    SHOT.parent.mkdir(parents=True, exist_ok=True)
    chart.screenshot(path=str(SHOT))


def test_a_pin_has_a_legend_entry_and_its_table_shows_percent(server, page):
    page.goto(server + "/dose?T=1000")
    wait_for_charts(page)
    page.get_by_role("button", name="Pin this run").click()
    wait_idle(page)
    slider_thumb(page, "Cost limit τ").press("ArrowLeft")
    # The pinned entry is drawn only once the new run differs from the pin, so it is the signal to wait for; the
    # script's brief "running" state is not (a quick rerun can come and go between two polls of the browser).
    page.wait_for_function("new URLSearchParams(location.search).get('tau') === '0.45'", timeout=60_000)
    legend_texts = f"() => [...document.querySelectorAll({CHART!r} + ' .legendtext')].map(e => e.textContent)"
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"({legend_texts})().includes('pinned: τ = 0.5')", timeout=120_000)
    wait_for_charts(page)
    legend = page.evaluate(legend_texts)
    assert "pinned: τ = 0.5" in legend, legend
    table = page.get_by_test_id("stTable").filter(has_text="→").inner_text()
    assert "%" in table and "→" in table
