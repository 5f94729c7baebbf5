"""The conservative-bandits page through AppTest: it runs, its controls redraw the figures, its sentences follow the
numbers, bad input is explained, uploads restore the controls.

Every test starts from ``app.py`` and keeps one small CMAB shape (K = 12, T = 400, 2 seeds), so JAX
compiles each model once for the module; only the shape tests (K, problem, T) and the horizons
compile more.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from safebandit_core import settings
from safebandit_core.conservative import ConservativeSettings
from safebandit_core.viz import conservative as vc
from safebandit_ui import registry
from tests.ui.helpers import array, bundle_of, charts, download_labels, errors, open_boxes, open_page, uploader

PAGE = "pages/conservative.py"
SMALL = {"T": 400, "seeds": 2, "K": 12}
FIGURES = {"regret", "zoom", "reward", "slack", "default_pulls", "scrub"}
pytestmark = pytest.mark.usefixtures("fresh_caches")


OPEN = {"zoom_pct_box": True, "cb_pulls_box": True}
"""The page's secondary sections, open: the zoomed regret and the default-arm pulls."""


def page(**state) -> AppTest:
    """The page reached through the entry point, small shape, its secondary sections open (:data:`OPEN`), any
    widget values in ``state``."""
    return open_page(PAGE, {**SMALL, **OPEN, **state})


def ran(at: AppTest) -> str:
    """The caption saying where and how the run was made."""
    return next(c.value for c in at.caption if c.value.startswith("Ran on"))


def texts(at: AppTest) -> list[str]:
    """Every markdown and caption on the page."""
    return [m.value for m in at.markdown] + [c.value for c in at.caption]


def sentence(at: AppTest, start: str) -> str:
    """The one text that starts with ``start``."""
    return next(t for t in texts(at) if t.startswith(start))


def small_settings(**kw) -> ConservativeSettings:
    return ConservativeSettings(**{"K": 12, "T": 400, "seeds": 2, "policies": ("gencb", "conucb", "ucb"), **kw})


def test_page_is_registered_under_models():
    spec = next(p for p in registry.PAGES if p.path == PAGE)
    assert spec.section == "Models"


def test_page_runs_and_says_what_this_run_shows(monkeypatch):
    built = []
    zoom_figure = vc.zoom_figure
    monkeypatch.setattr(vc, "zoom_figure", lambda *a, **k: built.append("zoom") or zoom_figure(*a, **k))
    at = open_page(PAGE, SMALL)
    # Until opened, the secondary sections are closed boxes with nothing drawn in them, nor built on the server.
    assert set(charts(at)) == FIGURES - {"zoom", "default_pulls"} and built == []
    at = open_boxes(at, *OPEN, "cb_regret_symbols")
    assert built == ["zoom"], "opening the box builds its chart once"
    assert not errors(at)
    assert set(charts(at)) == FIGURES
    assert "400 rounds × 2 seeds × 3 policies" in ran(at)
    assert "μ₀ = 0.7" in at.info[0].value and "12 Bernoulli arms" in at.info[0].value
    slack_titles = [a["text"] for a in charts(at)["slack"]["layout"]["annotations"]]
    assert any("GenCB: never below 0" in t for t in slack_titles)
    table = at.table[0].value
    assert list(table["rule"]) == ["GenCB", "ConUCB", "UCB"]
    assert (table.loc[table["rule"] != "UCB", "min slack"] >= -1e-9).all()
    rule = next(m.value for m in at.markdown if r"\sum_{s=1}^{t} r_s" in m.value)
    assert rule.startswith("A **default arm**") and "\n$$\n" in rule  # the paragraph and its displayed formula
    # At this horizon ConUCB has less regret than GenCB: the page says so, and at which horizon it holds.
    verdict = sentence(at, "After 400 rounds")
    regret = dict(zip(table["rule"], table["reward lost at the end (mean)"], strict=True))
    assert regret["ConUCB"] < regret["GenCB"]
    assert "**ConUCB lost less**" in verdict and "This holds after 400 rounds" in verdict
    assert f"{regret['ConUCB']:,.1f} against GenCB's {regret['GenCB']:,.1f}" in verdict
    assert "GenCB's slack stayed ≥ 0 in all 2 runs" in sentence(at, "GenCB's slack")
    assert "UCB's slack went below 0" in sentence(at, "GenCB's slack")
    assert sentence(at, "GenCB played the default arm").endswith("GenCB held back less.")
    assert sentence(at, "At round 40 the dashed baseline")
    assert not any("more regret in practice" in t for t in texts(at))


def test_each_control_redraws_its_figure_and_the_sentences_follow():
    at = page()
    before = charts(at)
    at.slider(key="alpha").set_value(0.2).run()
    assert not at.exception and not errors(at)
    after = charts(at)
    assert after["slack"] != before["slack"], "changing α left the slack figure unchanged"
    at.slider(key="alpha").set_value(0.05)
    at.toggle(key="mu0_auto").set_value(False).run()
    assert at.slider(key="mu0").value == pytest.approx(0.7)
    before = charts(at)
    at.slider(key="mu0").set_value(0.5).run()
    assert "μ₀ = 0.5 (set by you)" in at.info[0].value
    assert charts(at)["reward"] != before["reward"], "changing μ₀ left the reward figure unchanged"
    # With μ₀ = 0.5 each default pull costs 0.3, and GenCB has the lower regret: the sentence flips.
    verdict = sentence(at, "After 400 rounds")
    assert "**GenCB lost less**" in verdict and "This holds after" not in verdict
    before = charts(at)
    at.slider(key="zoom_pct").set_value(50).run()
    after = charts(at)
    assert after["zoom"] != before["zoom"] and "first 200 rounds" in after["zoom"]["layout"]["title"]["text"]
    assert after["regret"] == before["regret"]
    assert "already computed on this server" in ran(at)
    assert sentence(at, "At round 200 the dashed baseline")
    at.number_input(key="T").set_value(600).run()
    assert not at.exception and not errors(at)
    assert array(charts(at)["regret"]["data"][0]["x"]).max() == 600
    assert "600 rounds" in ran(at) and sentence(at, "After 600 rounds")


def test_problem_switch_changes_the_shape():
    at = page(policies_clb=["gencb"])
    before = charts(at)
    at.selectbox(key="problem").select("clb").run()
    assert not at.exception and not errors(at)
    assert "CLB: 10 arms in R^5" in at.info[0].value and set(charts(at)) == FIGURES
    assert charts(at)["regret"] != before["regret"]
    assert not any(t.startswith("At T =") for t in texts(at)), "no comparison without a baseline in the run"


def test_regret_over_horizons_is_computed_on_demand_and_kept():
    at = page()
    assert "crossover" not in charts(at)
    at.select_slider(key="horizon_factor").set_value(1).run()
    button = at.button(key="cb_crossover_run")
    assert "400" in button.label
    button.click().run()
    assert not at.exception and not errors(at)
    fig = charts(at)["crossover"]
    assert [tr["name"] for tr in fig["data"]] == ["GenCB", "ConUCB", "GenCB", "ConUCB"]
    assert array(fig["data"][0]["x"]).max() == 400
    caption = next(t for t in texts(at) if "default pulls per run" in t)
    assert "ConUCB" in caption and "μ_best − μ₀ = 0.1" in caption
    at.slider(key="zoom_pct").set_value(20).run()  # a rerun without a click keeps the stored result
    assert "crossover" in charts(at)


def test_bad_input_is_an_error():
    at = page()
    at.multiselect(key="policies_cmab").set_value([]).run()
    assert not at.exception and any("Compare" in m for m in errors(at))
    at.multiselect(key="policies_cmab").set_value(["gencb"])
    at.number_input(key="T").set_value(100_000)
    at.number_input(key="seeds").set_value(100).run()
    assert not at.exception
    assert any("Rounds T" in m and "lower T or Runs" in m and "100000" in m for m in errors(at))
    assert charts(at) == {}
    uploader(at, "cb_upload").upload("broken.json", b"{not json", "application/json").run()
    assert not at.exception
    assert any(m.startswith("broken.json:") and "JSON settings file" in m for m in errors(at))
    data = settings.to_dict(small_settings(alpha=0.9))
    uploader(at, "cb_upload").upload("bad.json", json.dumps(data).encode(), "application/json").run()
    assert not at.exception
    assert any("α (tolerated loss)" in m and "0.9" in m for m in errors(at))
    assert at.slider(key="alpha").value == pytest.approx(ConservativeSettings().alpha)


def test_json_and_zip_uploads_restore_the_controls():
    at = page()
    assert {"Per-round CSV", "Per-round Parquet", "Settings JSON", "Everything (zip)"} <= download_labels(at)
    wanted = small_settings(alpha=0.1, mu0=0.6, base_seed=3)
    uploader(at, "cb_upload").upload("run.json", settings.to_json(wanted).encode(), "application/json")
    at.run()
    assert not at.exception and not errors(at)
    assert [s.value for s in at.success] == ["Restored the settings of run.json."]
    assert at.slider(key="alpha").value == pytest.approx(0.1)
    assert at.toggle(key="mu0_auto").value is False and at.slider(key="mu0").value == pytest.approx(0.6)
    assert at.number_input(key="base_seed").value == 3
    zipped = small_settings(alpha=0.15, base_seed=4, policies=("gencb", "ucb"))
    uploader(at, "cb_upload").upload("run.zip", bundle_of(zipped), "application/zip").run()
    assert not at.exception and not errors(at)
    assert [s.value for s in at.success] == ["Restored the settings of run.zip."]
    assert at.slider(key="alpha").value == pytest.approx(0.15) and at.toggle(key="mu0_auto").value is True
    assert at.number_input(key="base_seed").value == 4
    assert at.number_input(key="T").value == 400 and at.number_input(key="K").value == 12
    assert at.multiselect(key="policies_cmab").value == ["gencb", "ucb"]
