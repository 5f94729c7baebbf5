"""``make bench``'s floor rows: each floor page against the first-visit and reload targets, read beside each page."""

from __future__ import annotations

import pytest

from benchmarks import bench_browser as bb


def _page(what: str, seconds: float) -> dict:
    return {"benchmark": f"browser: dose: {what}", "seconds": seconds}


def test_each_floor_is_the_median_beside_the_pages_and_says_how_far_above_it_they_were():
    floors = [{"text": (1.0, 0.3), "chart": (2.5, 0.6, 0.20)},
              {"text": (1.2, 0.2), "chart": (2.9, 0.5, 0.25)},
              {"text": (1.1, 0.4), "chart": (2.6, 0.7, 0.15)}]
    pages = []
    for first, reload, step in ((3.0, 1.5, 0.6), (3.4, 1.2, 0.5), (3.3, 1.1, 0.7)):
        pages += [_page("first visit after the warm-up", first), _page("reload, same settings", reload),
                  _page("one slider step (median)", step),
                  _page("one slider step, a second after the last (median)", 9.0)]
    rows = {r["benchmark"]: r for r in bb._floor_rows(floors, pages)}
    text, chart = (f"browser: {bb.FLOOR_NAMES[k]}" for k in ("text", "chart"))
    assert list(rows) == [f"{text}: first visit after the warm-up", f"{text}: reload",
                          f"{chart}: first visit after the warm-up", f"{chart}: reload",
                          f"{chart}: one slider step (median)"]
    first, reload = rows[f"{chart}: first visit after the warm-up"], rows[f"{chart}: reload"]
    assert (first["seconds"], first["target_s"], first["met"]) == (2.6, 2.0, "NO")
    assert (reload["seconds"], reload["target_s"], reload["met"]) == (0.6, 0.7, "yes")
    # each page against the floor measured beside it: 3.0 − 2.5, 3.4 − 2.9, 3.3 − 2.6
    assert first["note"] == "the model pages 0.50–0.70 s above it"
    assert rows[f"{text}: reload"]["seconds"] == 0.3
    assert rows[f"{text}: reload"]["note"] == "the model pages 0.70–1.20 s above it"
    # the steps only against the page's own step row (0.6 − 0.20, 0.5 − 0.25, 0.7 − 0.15), not the paused one
    step = rows[f"{chart}: one slider step (median)"]
    assert (step["seconds"], step["target_s"], step["met"]) == (0.2, 0.5, "yes")
    assert step["note"] == "the model pages 0.25–0.55 s above it"


def test_the_floor_note_beside_a_page_names_both_floors_and_only_the_chart_page_for_steps():
    floor = {"text": (1.234, 0.31), "chart": (2.5, 0.64, 0.183)}
    assert bb._floor_note(floor, 0) == "Streamlit's floor 1.23 s, with one chart 2.50 s"
    assert bb._floor_note(floor, 1) == "Streamlit's floor 0.31 s, with one chart 0.64 s"
    assert bb._floor_note(floor, 2) == "the floor with one chart 0.18 s"


@pytest.mark.parametrize("app", [bb.FLOOR_APP, bb.FLOOR_CHART_APP])
def test_the_floor_pages_run_and_only_the_chart_page_draws_one_chart_with_the_apps_own_element(app):
    from streamlit.testing.v1 import AppTest

    from safebandit_ui import plot
    from tests.ui.browserkit import ROOT
    from tests.ui.helpers import array, charts

    at = AppTest.from_file(str(ROOT / app), default_timeout=60).run()
    assert not at.exception
    if app == bb.FLOOR_CHART_APP:  # the very plotly code the app serves, not the full bundle
        assert (ROOT / "benchmarks" / "static" / plot.SCRIPT).read_bytes() == plot.source(ROOT).read_bytes()
    assert not at.get("plotly_chart")
    own = [el for el in at.get("bidi_component") if el.proto.component_name == plot.NAME]
    assert [el.key for el in own] == (["floor_chart"] if app == bb.FLOOR_CHART_APP else [])
    if own:
        (fig,) = charts(at).values()
        assert len(fig["data"]) == 1 and array(fig["data"][0]["x"]).tolist() == list(range(1, 201))
        assert array(fig["data"][0]["y"])[-1] == pytest.approx(200 ** 0.5, rel=1e-6)
        # the bench steps its slider: each step redraws the chart with new data
        (knob,) = at.sidebar.slider
        assert knob.label == bb.FLOOR_KNOB
        knob.set_value(0.55).run()
        assert not at.exception
        (fig,) = charts(at).values()
        assert array(fig["data"][0]["y"])[-1] == pytest.approx(200 ** 0.55, rel=1e-6)
