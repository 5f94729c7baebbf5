"""The charts follow the page's theme in a real headless browser: a visitor whose system prefers dark gets dark
charts (the page's own background, light words), one on a light system gets the light charts as before, and
picking a theme in the page's menu turns every chart at once, with no rerun.

Needs the ``playwright`` Python package and Debian's Chromium (see :mod:`tests.ui.browserkit`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.ui.browserkit import CHART, WATCH_RUNS, Console, wait_drawn

pytestmark = pytest.mark.browser

DOSE = "/dose?T=200&seeds=2"
LOOKS = f"""() => Array.from(document.querySelectorAll("{CHART} .js-plotly-plot"))
    .filter(gd => gd.querySelector(".main-svg")).map(gd => {{
        const title = gd.querySelector(".gtitle"), tick = gd.querySelector(".xtick text, .ytick text");
        return {{paper: getComputedStyle(gd.querySelector(".main-svg")).backgroundColor,
                 title: title ? getComputedStyle(title).fill : null, tick: tick ? getComputedStyle(tick).fill : null}};
    }})"""
"""Per drawn chart: the background the browser paints under it and the colours of its title and a tick label."""
WHITE = "rgb(255, 255, 255)"
LIGHT_TITLE = "rgb(49, 51, 63)"  # safebandit_ui.plot's heading grey, #31333f
LIGHT_TICK = "rgb(128, 132, 149)"  # its tick labels' grey, #808495


def luma(css: str) -> float:
    """The luma (0 black to 1 white) of a computed ``rgb(...)``/``rgba(...)`` colour."""
    r, g, b = (float(v) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def alpha(css: str) -> float:
    """The opacity of a computed colour (1 for ``rgb(...)``)."""
    parts = css[css.index("(") + 1:css.index(")")].split(",")
    return float(parts[3]) if len(parts) == 4 else 1.0


@pytest.fixture
def scheme_page(browser, request) -> Iterator:
    """A page of a browser whose system prefers ``request.param`` (light or dark); fails on a console error."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme=request.param)
    pg = context.new_page()
    console = Console(pg)
    pg.add_init_script(WATCH_RUNS)
    yield pg
    context.close()
    assert console.unexpected() == [], f"console errors: {console.unexpected()[:5]}"


def opened(pg, server: str) -> list[dict]:
    """The dose page opened and drawn; its charts' looks."""
    pg.goto(server + DOSE)
    wait_drawn(pg, 180_000, min_charts=4)
    looks = pg.evaluate(LOOKS)
    assert len(looks) >= 4, looks
    return looks


def dark_looks(looks: list[dict]) -> None:
    """Every chart shows the page through it (no white box) and writes in light colours."""
    for look in looks:
        assert look["paper"] != WHITE and (alpha(look["paper"]) == 0 or luma(look["paper"]) < 0.5), look
        assert luma(look["title"]) > 0.7, look
        assert look["tick"] is None or luma(look["tick"]) > 0.5, look


def light_looks(looks: list[dict]) -> None:
    """Every chart is drawn as in the light theme: white, with the heading and tick greys."""
    for look in looks:
        assert look["paper"] == WHITE, look
        assert look["title"] == LIGHT_TITLE, look
        assert look["tick"] in (None, LIGHT_TICK), look


@pytest.mark.parametrize("scheme_page", ["dark"], indirect=True)
def test_a_dark_system_gets_dark_charts_and_the_menu_turns_them_light(server, scheme_page):
    pg = scheme_page
    looks = opened(pg, server)
    page_bg = luma(pg.evaluate("getComputedStyle(document.querySelector(\"[data-testid='stApp']\")).backgroundColor"))
    assert page_bg < 0.5, "the page itself did not follow the system's dark preference"
    dark_looks(looks)
    reruns = pg.evaluate("window.__reruns")
    pg.get_by_test_id("stMainMenu").click()
    pg.get_by_test_id("stMainMenuItem-theme-Light").click()
    pg.wait_for_function(f"() => ({LOOKS})().every(l => l.paper === '{WHITE}')", timeout=30_000)
    light_looks(pg.evaluate(LOOKS))
    assert pg.evaluate("window.__reruns") == reruns, "picking a theme made the server rerun the page"


@pytest.mark.parametrize("scheme_page", ["light"], indirect=True)
def test_a_light_system_gets_the_light_charts_and_the_menu_offers_dark(server, scheme_page):
    pg = scheme_page
    light_looks(opened(pg, server))
    pg.get_by_test_id("stMainMenu").click()
    for choice in ("System", "Light", "Dark"):
        item = pg.get_by_test_id(f"stMainMenuItem-theme-{choice}")
        item.wait_for(timeout=10_000)
        assert item.inner_text().strip().endswith(choice), f"the menu offers no {choice!r} theme"
    pg.get_by_test_id("stMainMenuItem-theme-Dark").click()
    pg.wait_for_function(f"() => ({LOOKS})().every(l => l.paper !== '{WHITE}')", timeout=30_000)
    dark_looks(pg.evaluate(LOOKS))
