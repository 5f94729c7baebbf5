"""The server's warm-up stores every page's opening run under the very key the page asks for, so the first
visitor after it is served from the store (nothing computed, nothing compiled): each model page with untouched
controls, the *Your data* page's built-in example, every Present scenario and every lesson scene."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from safebandit_core import device, lessons, scenarios
from safebandit_ui import store, warmup
from tests.ui.helpers import cleared_caches, open_page

PAGES = ("pages/dose.py", "pages/nonlinear.py", "pages/conservative.py", "pages/mean_variance.py",
         "pages/your_data.py")


@pytest.fixture(scope="module")
def warmed() -> Iterator[dict]:
    """One warm-up for the module (the store is kept between its tests); its status."""
    caches = cleared_caches()
    next(caches)
    status = {"done": [], "failed": {}, "now": None}
    warmup._warm(device.default_device_id(), status)
    yield status
    next(caches, None)


def stored() -> set[str]:
    return set(store.store()._entries)


def test_every_opening_run_is_in_the_jobs():
    dev = device.default_device_id()
    names = [job.name for job in warmup.jobs(dev)]
    assert names[:4] == ["dose", "nonlinear", "conservative", "mv"], "the model pages come first"
    assert {f"present:{sc.key}" for sc in scenarios.SCENARIOS} <= set(names)
    assert {f"lesson:{scene.slug}" for scene in lessons.SCENES} <= set(names)
    assert "logged" in names and "battery" not in names


def test_the_warm_up_finishes_without_failures(warmed):
    assert warmed["failed"] == {} and warmed["seconds"] > 0
    assert warmed["now"] is None


@pytest.mark.parametrize("page", PAGES)
def test_a_page_with_untouched_controls_finds_the_warm_up_run(warmed, page):
    before = stored()
    at = open_page(page)
    ran = [c.value for c in at.caption if c.value.startswith("Ran on")]
    assert ran and "already computed on this server" in ran[0], (page, ran)
    assert stored() == before, f"{page} computed its opening run again"


@pytest.mark.parametrize("scenario", [(sc.kind, sc.key) for sc in scenarios.SCENARIOS], ids=lambda s: s[1])
def test_every_present_scenario_finds_the_warm_up_run(warmed, scenario):
    kind, key = scenario
    before = stored()
    at = open_page("pages/present.py", {"present_model": kind, f"present_scenario_{kind}": key})
    assert any("already computed on this server" in c.value for c in at.caption), key
    assert stored() == before, f"the Present page computed scenario {key} again"


@pytest.mark.parametrize("slug", [scene.slug for scene in lessons.SCENES])
def test_every_lesson_scene_finds_the_warm_up_runs(warmed, slug):
    before = stored()
    at = open_page("pages/lessons.py", {"scene": slug})
    status = [c.value for c in at.caption if "to compute" in c.value]
    assert status, slug
    runs = len(lessons.BY_SLUG[slug].jobs(lessons.Base(0, device.default_precision(device.default_device_id()))))
    assert f"({runs} already computed on this server" in status[0], (slug, status[0])
    assert stored() == before, f"the Lessons page computed scene {slug} again"
