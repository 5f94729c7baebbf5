"""The conservative-bandits page through AppTest: it runs, its controls redraw the figures, bad input is explained.

Every test starts from ``app.py`` and keeps one small CMAB shape (K = 12, T = 400, 2 seeds), so JAX
compiles each policy once for the module; only the K and problem tests compile one policy more.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from safebandit_core import settings
from safebandit_core.conservative import sim
from safebandit_ui import registry
from tests.ui.helpers import bundle_of, charts, download_labels, errors, open_page

PAGE = "pages/conservative.py"
SMALL = {"cb_T": 400, "cb_seeds": 2, "cb_K": 12}
FIGURES = {"regret", "zoom", "reward", "slack", "default_pulls"}
pytestmark = pytest.mark.usefixtures("fresh_caches")


def page(**state) -> AppTest:
    """The page reached through the entry point, small shape, any widget values in ``state``."""
    return open_page(PAGE, {**SMALL, **state})


def ran(at: AppTest) -> str:
    """The caption saying where and how the run was made."""
    return next(c.value for c in at.caption if c.value.startswith("Ran on"))


def small_settings(**kw) -> sim.ConservativeSettings:
    return sim.ConservativeSettings(K=12, T=400, seeds=2, policies=("gencb", "conucb", "ucb"), **kw)


def test_page_is_registered_under_models():
    spec = next(p for p in registry.PAGES if p.path == PAGE)
    assert spec.section == "Models"


def test_page_runs_and_shows_every_figure():
    at = page()
    assert not errors(at)
    assert set(charts(at)) == FIGURES
    assert "400 rounds × 2 seeds × 3 policies" in ran(at)
    assert "μ₀ = 0.7" in at.info[0].value and "12 Bernoulli arms" in at.info[0].value
    slack_titles = [a["text"] for a in charts(at)["slack"]["layout"]["annotations"]]
    assert any("GenCB: never below 0" in t for t in slack_titles)
    table = at.dataframe[0].value
    assert list(table["policy"]) == ["GenCB", "ConUCB", "UCB"]
    assert (table.loc[table["policy"] != "UCB", "min slack"] >= -1e-9).all()
    assert any(r"\sum_{s=1}^{t} r_s" in lat.value for lat in at.latex)


@pytest.mark.parametrize(
    ("control", "chart"),
    [("alpha", "slack"), ("mu0", "reward"), ("K", "regret"), ("problem", "regret")],
)
def test_each_main_control_changes_the_charts(control, chart):
    # One policy for the controls that change the compiled shape, so the test compiles little.
    at = page(cb_policies_cmab=["gencb"], cb_policies_clb=["gencb"]) if control in ("K", "problem") else page()
    before = charts(at)
    if control == "alpha":
        at.slider(key="cb_alpha").set_value(0.2).run()
    elif control == "mu0":
        at.toggle(key="cb_mu0_auto").set_value(False).run()
        assert at.slider(key="cb_mu0").value == pytest.approx(0.7)
        at.slider(key="cb_mu0").set_value(0.5).run()
        assert "μ₀ = 0.5 (set by you)" in at.info[0].value
    elif control == "K":
        at.number_input(key="cb_K").set_value(16).run()
    else:
        at.selectbox(key="cb_problem").select("clb").run()
        assert "CLB: 10 arms in R^5" in at.info[0].value
    assert not at.exception and not errors(at)
    after = charts(at)
    assert after[chart] != before[chart], f"changing {control} left the {chart} figure unchanged"
    assert "(stored result)" not in ran(at)


def test_zoom_window_redraws_only_the_zoom():
    at = page()
    before = charts(at)
    at.slider(key="cb_zoom").set_value(50).run()
    after = charts(at)
    assert after["zoom"] != before["zoom"] and "first 200 rounds" in after["zoom"]["layout"]["title"]["text"]
    assert after["regret"] == before["regret"]
    assert "(stored result)" in ran(at)


def test_malformed_upload_is_an_error():
    at = page()
    at.file_uploader(key="cb_upload").upload("broken.json", b"{not json", "application/json").run()
    assert not at.exception
    assert any("broken.json is not a JSON file" in m for m in errors(at))


def test_out_of_range_upload_names_the_field():
    at = page()
    data = settings.to_dict(small_settings(alpha=0.9))
    at.file_uploader(key="cb_upload").upload("bad.json", json.dumps(data).encode(), "application/json").run()
    assert not at.exception
    assert any("α (tolerated loss)" in m and "0.9" in m for m in errors(at))
    assert at.slider(key="cb_alpha").value == pytest.approx(sim.ConservativeSettings().alpha)


def test_upload_restores_the_controls():
    at = page()
    wanted = small_settings(alpha=0.1, mu0=0.6, base_seed=3)
    at.file_uploader(key="cb_upload").upload("run.json", settings.to_json(wanted).encode(), "application/json")
    at.run()
    assert not at.exception and not errors(at)
    assert [s.value for s in at.success] == ["Restored the settings of run.json."]
    assert at.slider(key="cb_alpha").value == pytest.approx(0.1)
    assert at.toggle(key="cb_mu0_auto").value is False and at.slider(key="cb_mu0").value == pytest.approx(0.6)
    assert at.number_input(key="base_seed").value == 3


def test_no_policy_and_too_large_runs_are_errors():
    at = page()
    at.multiselect(key="cb_policies_cmab").set_value([]).run()
    assert not at.exception and any("Policies" in m for m in errors(at))
    at.multiselect(key="cb_policies_cmab").set_value(["gencb"])
    at.number_input(key="cb_T").set_value(100_000)
    at.number_input(key="cb_seeds").set_value(100).run()
    assert not at.exception
    assert any("Rounds T × Seeds × policies" in m and "Lower T or Seeds" in m for m in errors(at))
    assert charts(at) == {}


def test_zip_download_and_zip_upload_restores_the_controls():
    at = page()
    assert {"Per-round CSV", "Per-round Parquet", "Settings JSON", "Everything (zip)"} <= download_labels(at)
    wanted = small_settings(alpha=0.1, mu0=0.6, base_seed=3)
    at.file_uploader(key="cb_upload").upload("run.zip", bundle_of(wanted), "application/zip").run()
    assert not at.exception and not errors(at)
    assert [s.value for s in at.success] == ["Restored the settings of run.zip."]
    assert at.slider(key="cb_alpha").value == pytest.approx(0.1)
    assert at.toggle(key="cb_mu0_auto").value is False and at.slider(key="cb_mu0").value == pytest.approx(0.6)
    assert at.number_input(key="base_seed").value == 3
    assert at.number_input(key="cb_T").value == 400 and at.number_input(key="cb_K").value == 12
