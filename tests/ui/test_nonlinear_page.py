"""The non-linear dose page through AppTest: it runs, its controls redraw the figures, the sets are drawn honestly.

Every test starts from ``app.py`` at one small shape (|F| = 16, d = 2, T = 600, 2 seeds, three
policies), so JAX compiles the model once for the module; the class tests compile one model each.
The module shares the result store, so a test that opens the default page reuses the first run.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from safebandit_core import settings
from safebandit_core.dose.nonlinear import NonlinearSettings
from safebandit_ui import registry
from tests.ui.helpers import array, bundle_of, charts, download_labels, errors, open_boxes, open_page, uploader

PAGE = "pages/nonlinear.py"
SIZE, T = 16, 600
SMALL = {"size": SIZE, "d": 2, "T": T, "seeds": 2}
FIGURES = {"regret", "violations", "sets", "candidates", "scrub"}
ROUND = f"nl_round_{T}"
pytestmark = pytest.mark.usefixtures("fresh_module_caches")


def page(**state) -> AppTest:
    """The page reached through the entry point, small shape, its *Inside the cost class* box open, any widget
    values in ``state``."""
    return open_page(PAGE, {**SMALL, "nl_class_box": True, **state})


def trace(fig: dict, name: str) -> dict:
    return next(d for d in fig["data"] if d["name"] == name)


def curves_in(fig: dict, name: str) -> int:
    """How many member curves one trace of the candidates figure joins (they are separated by NaN)."""
    return int(np.isnan(array(trace(fig, name)["x"]).astype(float)).sum())


def small_settings(**kw) -> NonlinearSettings:
    return NonlinearSettings(size=SIZE, d=2, T=T, seeds=2, **kw)


def test_page_is_registered_under_models_after_the_dose_page():
    paths = [p.path for p in registry.PAGES]
    assert paths.index(PAGE) == paths.index("pages/dose.py") + 1
    assert registry.PAGES[paths.index(PAGE)].section == "Models"
    assert registry.title_of_kind("nonlinear") == "Non-linear dose model"


def test_page_runs_with_every_figure_and_sentences_from_the_run():
    at = open_page(PAGE, SMALL)
    # Until opened, the class at one round and the formulas are closed boxes with nothing drawn in them.
    assert set(charts(at)) == FIGURES - {"candidates"} and not at.latex
    at = open_boxes(at, "nl_class_box", "nl_regret_symbols", "nl_safety_symbols", "nl_sets_symbols",
                    "nl_bound_symbols")
    assert not errors(at)
    assert set(charts(at)) == FIGURES and len(at.latex) == 6
    assert any(f"{T} rounds × 2 seeds × 3 policies" in c.value for c in at.caption)
    text = " ".join(m.value for m in at.markdown)
    assert "Seed 000" not in text and "Safety by Design (2026)" in text
    bars = charts(at)["violations"]["data"][0]
    for tick, rate in zip(bars["x"], array(bars["y"]), strict=True):
        label = tick.split("<br>")[0]
        assert f"**{label}**: " in text and f"of {2 * T:,} rounds over the limit ({rate / 100:.2%})" in text
    assert "Allowed: δ = 5.00% per round" in text
    captions = " ".join(c.value for c in at.caption)
    assert "eluder dimension" in captions and "Theorem 3 of Safety by Design (2026)" in captions
    assert {"Per-round CSV", "Per-round Parquet", "Settings JSON", "Everything (zip)"} <= download_labels(at)


def test_set_sizes_stay_between_one_and_the_class_size():
    fig = charts(page())["sets"]
    assert fig["layout"]["yaxis"]["type"] == "log" and fig["layout"]["yaxis2"]["type"] == "log"
    assert len(fig["data"]) == 6, "three policies × (reward set, cost set)"
    for d in fig["data"]:
        y = array(d["y"]).astype(float)
        assert y[0] == SIZE, "round 1: no data yet, every member is in the set"
        assert 1.0 <= y[-1] <= SIZE and np.all((y >= 1.0) & (y <= SIZE))


@pytest.mark.parametrize(("key", "value", "chart"), [
    ("tau", 0.3, "violations"), ("delta", 0.2, "violations"), ("delta_prime", 0.3, "sets"),
    ("kappa_c", 0.6, "sets"), ("kappa_r", 0.6, "regret"),
])
def test_each_slider_changes_a_chart(key, value, chart):
    at = page()
    before = charts(at)[chart]["data"]
    at.slider(key=key).set_value(value).run()
    assert not at.exception and not errors(at)
    assert charts(at)[chart]["data"] != before, f"changing {key} left the {chart} data unchanged"


@pytest.mark.parametrize("kind", ["logistic", "mlp"])
def test_class_picker_switches_the_class(kind):
    at = page()
    before = charts(at)["candidates"]["data"]
    at.selectbox(key="function_class").select(kind).run()
    assert not at.exception and not errors(at)
    assert set(charts(at)) == FIGURES
    assert charts(at)["candidates"]["data"] != before
    assert ("hidden" in {n.key for n in at.number_input}) == (kind == "mlp")


def test_round_slider_moves_the_highlighted_set():
    at = page()
    fig = charts(at)["candidates"]
    t0 = at.select_slider(key=ROUND).value
    assert 1 < t0 < T, "the slider starts where the cost set is first down to √|F| members"
    assert curves_in(fig, "still in C^c_t") <= np.sqrt(SIZE) and curves_in(fig, "ruled out") >= SIZE - np.sqrt(SIZE)
    at.select_slider(key=ROUND).set_value(1).run()
    fig = charts(at)["candidates"]
    assert not at.exception
    assert curves_in(fig, "still in C^c_t") == SIZE and curves_in(fig, "ruled out") == 0
    assert f"round 1 (seed 0): {SIZE} of {SIZE} in C^c_t" in fig["layout"]["title"]["text"]
    at.select_slider(key=ROUND).set_value(T).run()
    fig = charts(at)["candidates"]
    assert curves_in(fig, "still in C^c_t") + curves_in(fig, "ruled out") == SIZE
    assert 1 <= curves_in(fig, "still in C^c_t") < SIZE


def test_no_policy_is_an_error_naming_the_field():
    at = page()
    at.multiselect(key="policies").set_value([]).run()
    assert not at.exception
    assert any("**Compare** must be" in m for m in errors(at))
    assert "regret" not in charts(at)


def test_upload_restores_the_controls_and_names_a_bad_field():
    at = page()
    wanted = small_settings(function_class="logistic", tau=0.4, kappa_c=0.2, policies=("hpucb", "on_expectation"),
                            base_seed=3)
    uploader(at, "nl_upload").upload("run.zip", bundle_of(wanted), "application/zip").run()
    assert not at.exception and not errors(at)
    assert at.slider(key="tau").value == pytest.approx(0.4)
    assert at.selectbox(key="function_class").value == "logistic"
    assert at.multiselect(key="policies").value == ["hpucb", "on_expectation"]
    assert at.number_input(key="base_seed").value == 3
    bad = settings.to_dict(small_settings(g="power"))
    uploader(at, "nl_upload").upload("bad.json", json.dumps(bad).encode(), "application/json").run()
    assert any("bad.json" in m and "**Dose curve g**" in m for m in errors(at))
