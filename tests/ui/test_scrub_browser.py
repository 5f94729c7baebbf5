"""The dose page's scrub chart in a real headless browser: a slider step redraws the curves and the caption,
and the server hears nothing (no websocket message from the page, no script run).

Needs the ``playwright`` Python package and Debian's Chromium (see :mod:`tests.ui.browserkit`).
"""

from __future__ import annotations

import pytest

from tests.ui.browserkit import WATCH_RUNS, wait_idle

pytestmark = pytest.mark.browser

SCRUB = ".st-key-scrub .js-plotly-plot"
STATE = f"""() => {{ const gd = document.querySelector("{SCRUB}");
    return {{data: JSON.stringify(gd.data.map(t => t.y)), title: gd.querySelector(".gtitle").textContent,
             current: gd.querySelector(".slider-group > .slider-label").textContent,
             active: gd.layout.sliders[0].active, names: gd.layout.sliders[0].steps.map(s => s.args[0][0])}}; }}"""
MAIN = """() => JSON.stringify(Array.from(document.querySelectorAll(".js-plotly-plot"))
    .filter(gd => !gd.closest(".st-key-scrub")).map(gd => gd.data.map(t => t.y)))"""
OUTSIDE = f"""() => {{ const gd = document.querySelector("{SCRUB}");
    const box = gd.querySelector(".main-svg").getBoundingClientRect();
    return Array.from(gd.querySelectorAll("g[class$='tick'] > text")).filter(t => t.textContent).filter(t => {{
        const r = t.getBoundingClientRect(); return r.left < box.left || r.right > box.right; }})
        .map(t => t.textContent); }}"""
"""The tick labels of the scrub chart that pass its edges (its margins are fixed, not fitted to the labels)."""
TITLED = f"""(want) => document.querySelector("{SCRUB}").querySelector(".gtitle").textContent.startsWith(want)"""
"""Whether the scrub chart's title shows the step ``want`` (``τ = 2``)."""
ARM = f"""() => {{ const gd = document.querySelector("{SCRUB}"); window.__animated = false;
    gd.once("plotly_animated", () => {{ window.__animated = true; }}); }}"""


def test_scrubbing_the_dose_chart_redraws_in_the_browser_only(server, page):
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload)[:40])))
    page.goto(server + "/dose?T=500")
    page.locator(f"{SCRUB} .main-svg").first.wait_for(state="attached", timeout=180_000)
    wait_idle(page, 180_000)
    page.evaluate(WATCH_RUNS)
    before = page.evaluate(STATE)
    assert len(before["names"]) >= 11 and before["names"][before["active"]] == "0.5"
    assert before["title"].startswith("τ = 0.5") and "0.5" in before["current"]
    assert page.evaluate(OUTSIDE) == [], "a tick label passes the chart's edge"
    heard = len(sent)
    assert heard > 0, "the websocket listener saw the page ask for its first run"

    rail = page.locator(f"{SCRUB} .slider-rail-rect").first
    rail.scroll_into_view_if_needed()
    box = rail.bounding_box()
    last = len(before["names"]) - 1
    seen = [before]
    for k in (last, 0, 12):
        page.evaluate(ARM)
        page.mouse.click(box["x"] + box["width"] * k / last, box["y"] + box["height"] / 2)
        page.wait_for_function("window.__animated === true", timeout=20_000)
        name = before["names"][k]
        # the frame's title is laid out as the animation ends, which under load can come after its event
        page.wait_for_function(TITLED, arg=f"τ = {name}", timeout=20_000)
        now = page.evaluate(STATE)
        assert now["active"] == k
        assert now["title"].startswith(f"τ = {name}") and now["current"].endswith(f"= {name}")
        assert now["data"] != seen[-1]["data"] and now["title"] != seen[-1]["title"]
        seen.append(now)
    assert len({s["data"] for s in seen}) == len(seen)
    assert page.evaluate("window.__reruns") == 0, "a scrub step made the server rerun the page"
    assert len(sent) == heard, f"the page sent the server {len(sent) - heard} message(s) while scrubbing"
    assert page.get_by_test_id("stException").count() == 0


def test_a_step_of_the_pages_own_knob_leaves_the_scrub_chart_as_the_visitor_left_it(server, page):
    """Moving the page's τ slider computes a new run (a store miss, with its spinner) but finds the same grid: the
    scrub chart stays the very plotly chart the browser drew (not rebuilt), at the step the visitor scrubbed to."""
    page.goto(server + "/dose?T=400")
    page.locator(f"{SCRUB} .main-svg").first.wait_for(state="attached", timeout=180_000)
    wait_idle(page, 180_000)
    rail = page.locator(f"{SCRUB} .slider-rail-rect").first
    rail.scroll_into_view_if_needed()
    box = rail.bounding_box()
    last = len(page.evaluate(STATE)["names"]) - 1
    page.evaluate(ARM)
    page.mouse.click(box["x"] + box["width"] - 1, box["y"] + box["height"] / 2)
    page.wait_for_function("window.__animated === true", timeout=20_000)
    page.evaluate(f"""() => {{ document.querySelector("{SCRUB}").__visited = true; }}""")
    page.evaluate(WATCH_RUNS)
    main = page.evaluate(MAIN)

    thumb = page.get_by_test_id("stSlider").filter(has_text="Cost limit τ").get_by_role("slider").first
    thumb.focus()
    thumb.press("ArrowRight")
    page.wait_for_function("window.__reruns > 0", timeout=60_000)
    # the page's other charts redrawn from the new run (its caption alone may read the same: "… in 0.06 s.")
    page.wait_for_function(f"before => ({MAIN})() !== before", arg=main, timeout=180_000)
    wait_idle(page, 180_000)
    caption = page.get_by_test_id("stCaptionContainer").filter(has_text="Ran on").first.text_content()
    assert "shared, not recomputed" not in caption, "the step found a stored run instead of computing one"
    after = page.evaluate(f"""() => {{ const gd = document.querySelector("{SCRUB}");
        return {{same: gd.__visited === true, active: gd.layout.sliders[0].active}}; }}""")
    assert after == {"same": True, "active": last}
    assert page.get_by_test_id("stException").count() == 0
