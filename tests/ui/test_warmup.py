"""The server's warm-up stores each model page's default run under the very key the page asks for, so the
first visitor after it is served from the store (nothing computed, nothing compiled)."""

from __future__ import annotations

import pytest

from safebandit_core import device
from safebandit_ui import store, warmup
from tests.ui.helpers import cleared_caches, open_page

PAGES = ("pages/dose.py", "pages/nonlinear.py", "pages/conservative.py", "pages/mean_variance.py")


@pytest.fixture(autouse=True)
def _fresh_caches():
    yield from cleared_caches()


def test_a_page_with_untouched_controls_finds_the_warm_up_run():
    status = {"done": [], "failed": {}, "now": None}
    warmup._warm(device.default_device_id(), status)
    assert status["failed"] == {} and status["seconds"] > 0
    assert {"dose", "nonlinear", "conservative", "mv"} <= set(status["done"])
    assert {name for name, _ in warmup.presentation(device.default_device_id())} <= set(status["done"])
    assert {"scrub:dose", "scrub:nonlinear", "scrub:conservative", "scrub:mv"} <= set(status["done"])
    stored = set(store.store()._entries)
    for page in PAGES:
        at = open_page(page)
        ran = [c.value for c in at.caption if c.value.startswith("Ran on")]
        assert ran and "already computed on this server" in ran[0], (page, ran)
        assert "scrub" in {el.key for el in at.get("plotly_chart")}, page
    assert set(store.store()._entries) == stored, "a model page computed its run or its scrub chart again"
    for kind in ("dose", "conservative", "mv"):  # the Present page's first screen of each model
        open_page("pages/present.py", {"present_model": kind})
        assert set(store.store()._entries) == stored, f"the Present page computed its {kind} opening again"
