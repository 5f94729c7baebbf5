"""Every model page draws its scrub chart (key ``scrub``) without a click; moving the page's own knob reuses the grid.

Small runs (T = 100, 2 seeds) so each page compiles one run and one grid.
"""

from __future__ import annotations

import threading

import pytest

from safebandit_core import scrub
from tests.ui import browserkit
from tests.ui.helpers import charts, open_page

pytestmark = pytest.mark.usefixtures("fresh_caches")

PAGES = {
    "pages/dose.py": {"T": 100, "seeds": 2},
    "pages/nonlinear.py": {"T": 100, "seeds": 2, "size": 16},
    "pages/conservative.py": {"T": 100, "seeds": 2},
    "pages/meanvar.py": {"T": 100, "seeds": 2},
}


def frames_and_slider(spec: dict) -> tuple[list[str], dict]:
    return [f["name"] for f in spec["frames"]], spec["layout"]["sliders"][0]


@pytest.mark.parametrize("page", list(PAGES))
def test_each_model_page_has_a_scrub_chart(page):
    at = open_page(page, PAGES[page])
    spec = charts(at)["scrub"]
    names, slider = frames_and_slider(spec)
    assert len(names) >= 11
    assert [s["args"][0][0] for s in slider["steps"]] == names
    assert all(s["method"] == "animate" for s in slider["steps"])
    assert any("Nothing reruns on the server" in c.value for c in at.caption)


def test_moving_the_scrubbed_knob_reuses_the_grid(monkeypatch):
    calls = []
    compute = scrub.compute
    monkeypatch.setattr(scrub, "compute", lambda *a, **k: calls.append(a) or compute(*a, **k))
    at = open_page("pages/dose.py", PAGES["pages/dose.py"])
    names, slider = frames_and_slider(charts(at)["scrub"])
    assert names[slider["active"]] == "0.5" and len(calls) == 1
    before = charts(at)["scrub"]
    at.slider(key="tau").set_value(1.0).run()
    assert not at.exception and len(calls) == 1, "the τ grid was computed again"
    # The chart the visitor may be scrubbing stays as drawn (sent by reference, not redrawn); its caption points at
    # the run's own τ among its steps.
    assert charts(at)["scrub"] == before
    assert any("It opened at τ = 0.5; this page's τ = 1 is one of its steps." in c.value for c in at.caption)
    at.slider(key="delta").set_value(0.1).run()
    assert len(calls) == 2, "a change of another setting computes a new grid"


def test_a_large_grid_is_computed_in_the_background_and_drawn_when_ready(monkeypatch):
    from safebandit_ui import scrub as ui_scrub
    from safebandit_ui import store

    monkeypatch.setattr(ui_scrub, "INLINE_WORK", 0)  # no grid timed yet: the work units decide
    at = open_page("pages/dose.py", PAGES["pages/dose.py"])
    assert "scrub" not in charts(at) and "regret" in charts(at), "the page settles with its main charts first"
    assert any("in the background" in i.value for i in at.info)
    assert ui_scrub.WAITING_KEY == browserkit.WAITING_KEY, "a browser waits for the note by its key"
    # The note keeps free the height the caption and the chart will take, so nothing below them jumps when they
    # come (measured in Chromium: the next heading moves 3 px instead of 709 px).
    assert reserved(at, ui_scrub.WAITING_KEY) == ui_scrub.CAPTION_PX + 600 + 56 + 18 * (3 + 1)  # three policies
    # The grid waits for the note's first check (the browser asks for it once it has drawn the page), so it does
    # not share the cores with the charts above being drawn.
    assert not [t for t in threading.enumerate() if t.name == "safebandit-scrub"]
    assert not any(k.endswith("|figure 5") for k in store.store()._entries)
    at.run()  # the note's check (a page's next run draws it again too)
    assert not at.exception and "scrub" not in charts(at)
    threads = [t for t in threading.enumerate() if t.name == "safebandit-scrub"]
    assert len(threads) == 1
    threads[0].join(timeout=120)
    assert any(k.endswith("|figure 5") for k in store.store()._entries)
    at.run()  # what the waiting fragment's check does once the chart is stored
    assert not at.exception and "scrub" in charts(at)
    assert charts(at)["scrub"]["layout"]["height"] + ui_scrub.CAPTION_PX == 792


def reserved(at, key: str) -> int:
    """The fixed height in pixels of the container ``key`` on the page (0: none, or not a fixed height)."""
    todo = [at._tree]
    while todo:
        node = todo.pop()
        proto = getattr(node, "proto", None)
        if proto is not None and key in getattr(proto, "id", "") and hasattr(proto, "height_config"):
            return int(proto.height_config.pixel_height)
        todo.extend(getattr(node, "children", {}).values())
    return 0


def test_the_dose_page_scrubs_delta_too():
    at = open_page("pages/dose.py", PAGES["pages/dose.py"])
    assert charts(at)["scrub"]["layout"]["sliders"][0]["currentvalue"]["prefix"].startswith("τ")
    at.radio(key="dose_scrub_axis").set_value("delta").run()
    assert not at.exception
    names, slider = frames_and_slider(charts(at)["scrub"])
    assert slider["currentvalue"]["prefix"].startswith("δ") and names[slider["active"]] == "0.05"
    assert charts(at)["scrub"]["frames"][0]["layout"]["title"]["text"].startswith("δ = 0.001")


def test_the_servers_timing_of_a_models_grids_decides_whether_the_page_waits_for_one(monkeypatch):
    """A grid is computed within the page's run when this server's last grids of the model say it takes at most
    INLINE_S, however many work units it has; else in the background, even where its units are few (the non-linear
    model's class makes each cost more)."""
    from safebandit_ui import scrub as ui_scrub
    from safebandit_ui import store

    assert "scrub:dose" not in store.store().rates
    at = open_page("pages/dose.py", PAGES["pages/dose.py"])
    assert "scrub" in charts(at) and "scrub:dose" not in store.store().rates, "one chunk times compiling too"
    at = open_page("pages/dose.py", {**PAGES["pages/dose.py"], "T": scrub.CHUNK + 10})
    assert "scrub" in charts(at) and store.store().rates["scrub:dose"] > 0, "a grid of two chunks is timed"

    monkeypatch.setattr(ui_scrub, "INLINE_WORK", 0)
    store.store().learn("scrub:dose", 1, 0.0, fastest=True)
    at = open_page("pages/dose.py", {**PAGES["pages/dose.py"], "T": 120})
    assert "scrub" in charts(at), "a grid timed as quick is computed within the page's run, whatever its units"

    monkeypatch.setattr(ui_scrub, "INLINE_WORK", 10**12)
    store.store().learn("scrub:nonlinear", 1, 10.0)
    at = open_page("pages/nonlinear.py", PAGES["pages/nonlinear.py"])
    assert "scrub" not in charts(at) and any("in the background" in i.value for i in at.info)
    at.run()  # the note's first check starts the grid
    for t in [t for t in threading.enumerate() if t.name == "safebandit-scrub"]:
        t.join(timeout=120)
    at.run()
    assert not at.exception and "scrub" in charts(at)
