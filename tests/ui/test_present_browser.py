"""Presentation mode in a real browser at 1280×720: every panel on the first screen, nothing wider than it."""

from __future__ import annotations

import pytest

from tests.ui.browserkit import CHART, ROOT, Requests, wait_idle

pytestmark = pytest.mark.browser
WIDTH, HEIGHT = 1280, 720
SHOT = ROOT / "docs" / "present_mode.png"


def test_present_fits_one_projector_screen(server, browser):
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    pg = context.new_page()
    requests = Requests(pg)
    try:
        pg.goto(server + "/present?model=dose")
        pg.wait_for_function(f"document.querySelectorAll(\"{CHART} .js-plotly-plot .main-svg\").length >= 4",
                             timeout=120_000)
        wait_idle(pg)
        pg.wait_for_timeout(800)  # plotly's last resize
        assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert pg.evaluate("(m => m.scrollWidth <= m.clientWidth)(document.querySelector(\"[data-testid='stMain']\"))")
        assert not pg.get_by_test_id("stSidebar").is_visible()
        boxes = [c.bounding_box() for c in pg.locator(CHART).all()]
        assert len(boxes) == 4
        for b in boxes:
            assert b is not None and b["height"] > 200
            assert 0 <= b["y"] and b["y"] + b["height"] <= HEIGHT, b
            assert 0 <= b["x"] and b["x"] + b["width"] <= WIDTH, b
        assert "patient-rounds over the limit" in pg.locator(".st-key-present_headline").inner_text()
        assert pg.get_by_test_id("stException").count() == 0
        assert requests.foreign() == []
        SHOT.parent.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(SHOT))
    finally:
        context.close()
