"""Presentation mode in a real browser at 1280×720: every panel, the headline in the audience's names and the
explanation of a negative regret on the first screen, nothing wider than it."""

from __future__ import annotations

import os

import pytest

from tests.ui.browserkit import ARTIFACTS, CHART, ROOT, Requests, wait_for_charts

pytestmark = pytest.mark.browser
WIDTH, HEIGHT = 1280, 720
SHOT = "present_mode.png"
UPDATE_DOCS = "SAFEBANDIT_UPDATE_DOCS"
"""Set to 1 to refresh the README's screenshot in docs/; otherwise the test leaves its screenshot in artifacts/, so
a test run changes no tracked file."""


def within(box: dict | None) -> None:
    """The box lies wholly on the first 1280×720 screen (no scrolling)."""
    assert box is not None
    assert 0 <= box["y"] and box["y"] + box["height"] <= HEIGHT, box
    assert 0 <= box["x"] and box["x"] + box["width"] <= WIDTH, box


def test_present_fits_one_projector_screen(server, browser):
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    pg = context.new_page()
    requests = Requests(pg)
    try:
        pg.goto(server + "/present?model=dose")
        wait_for_charts(pg, 120_000, n_charts=4)  # every chart of the board drawn, the script idle
        pg.wait_for_timeout(800)  # plotly's last resize
        assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert pg.evaluate("(m => m.scrollWidth <= m.clientWidth)(document.querySelector(\"[data-testid='stMain']\"))")
        assert not pg.get_by_test_id("stSidebar").is_visible()
        boxes = [c.bounding_box() for c in pg.locator(CHART).all()]
        assert len(boxes) == 4
        for b in boxes:
            assert b is not None and b["height"] > 200
            within(b)
        head = pg.locator(".st-key-present_headline")
        assert "in 5 runs × 4,000 patient-rounds: new rule (HPC-UCB)" in head.inner_text()
        assert "usual rule (On-Expectation)" in head.inner_text() and "ε-Greedy" not in head.inner_text()
        within(head.bounding_box())
        legend = pg.locator(f"{CHART} .legendtext").evaluate_all("els => els.map(e => e.textContent)")
        assert "new rule (HPC-UCB)" in legend and "usual rule (On-Expectation)" in legend, legend
        why = pg.locator(f"{CHART} .annotation-text").filter(has_text="not a better rule")
        assert why.count() == 1, "the negative regret is explained on the first screen"
        within(why.bounding_box())
        assert pg.get_by_test_id("stException").count() == 0
        assert requests.foreign() == []
        shot = (ROOT / "docs" if os.environ.get(UPDATE_DOCS) == "1" else ARTIFACTS) / SHOT
        shot.parent.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(shot))
    finally:
        context.close()
