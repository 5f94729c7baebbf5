"""The mean-variance page through AppTest: it runs, its controls redraw the figures, the guarantee is explained.

Every test starts from ``app.py`` and keeps one small shape (K = 8, T = 400, 2 seeds, both policies),
so JAX compiles the model once for the module; only the K test compiles a second shape.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from safebandit_core import settings
from safebandit_core.conservative import mv_sim, sim
from tests.ui.helpers import bundle_of, charts, download_labels, errors, open_page, warnings

PAGE = "pages/mean_variance.py"
SMALL = {"mv_T": 400, "mv_seeds": 2, "mv_K": 8}
FIGURES = {"regret", "zoom", "slack", "default_pulls", "arms"}
pytestmark = pytest.mark.usefixtures("fresh_caches")


def page(**state) -> AppTest:
    """The page reached through the entry point, small shape, any widget values in ``state``."""
    return open_page(PAGE, {**SMALL, **state})


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_page_runs_shows_every_figure_and_the_constraint_verdict():
    at = page()
    assert not errors(at)
    assert set(charts(at)) == FIGURES
    assert not warnings(at), "ρ = 30 > 2/(0.1·0.7) ≈ 28.57: the guarantee holds by default"
    assert any("guaranteed on every run" in s.value for s in at.success)
    verdict = metrics(at)
    assert verdict["MV-CUCB: constraint"] == "held in every run"
    assert verdict["MV-UCB: constraint"].startswith("broken in")
    assert list(at.dataframe[0].value["policy"]) == ["MV-CUCB", "MV-UCB"]


def test_warning_appears_at_or_below_the_threshold_and_not_above():
    at = page()
    at.slider(key="mv_rho").set_value(20.0).run()
    assert not at.exception
    shown = warnings(at)
    assert shown and all("28.57" in w and "NOT guaranteed" in w for w in shown)
    assert "Raise ρ above 28.57" in at.sidebar.warning[0].value
    assert "slack" in charts(at) and "MV-CUCB: constraint" in metrics(at)
    at.slider(key="mv_alpha").set_value(0.2).run()  # threshold 2/(0.2·0.7) ≈ 14.29 < 20
    assert not warnings(at)
    at.slider(key="mv_mu0").set_value(0.5).run()  # threshold 2/(0.2·0.5) = 20 = ρ: not strictly above
    assert any("2/(α·μ₀) = 20" in w for w in warnings(at))


@pytest.mark.parametrize(
    ("key", "value", "chart"),
    [("mv_rho", 60.0, "regret"), ("mv_alpha", 0.3, "slack"), ("mv_mu0", 0.5, "regret"), ("mv_K", 12, "arms")],
)
def test_each_main_control_changes_the_charts(key, value, chart):
    at = page()
    before = charts(at)
    widget = at.number_input(key=key) if key == "mv_K" else at.slider(key=key)
    widget.set_value(value).run()
    assert not at.exception and not errors(at)
    assert charts(at)[chart] != before[chart], f"changing {key} left the {chart} figure unchanged"


def test_upload_of_another_models_settings_is_an_error():
    at = page()
    other = settings.to_json(sim.ConservativeSettings(T=400))
    at.file_uploader(key="mv_upload").upload("cmab.json", other.encode(), "application/json").run()
    assert not at.exception
    assert any("not of the mean-variance bandit" in m for m in errors(at))
    at.file_uploader(key="mv_upload").upload("broken.json", b"[1, 2", "application/json").run()
    assert any("broken.json is not a JSON file" in m for m in errors(at))


def test_upload_restores_the_controls():
    at = page()
    wanted = mv_sim.MVSettings(K=8, T=400, seeds=2, alpha=0.2, mu0=0.6, rho=12.5, base_seed=2)
    at.file_uploader(key="mv_upload").upload("run.json", settings.to_json(wanted).encode(), "application/json")
    at.run()
    assert not at.exception and not errors(at)
    assert at.slider(key="mv_rho").value == pytest.approx(12.5)
    assert at.slider(key="mv_alpha").value == pytest.approx(0.2)
    assert at.number_input(key="base_seed").value == 2
    assert warnings(at), "ρ = 12.5 < 2/(0.2·0.6) ≈ 16.7"


def test_zip_download_and_zip_upload_restores_the_controls():
    at = page()
    assert {"Per-round CSV", "Per-round Parquet", "Settings JSON", "Everything (zip)"} <= download_labels(at)
    at.file_uploader(key="mv_upload").upload("cmab.zip", bundle_of(sim.ConservativeSettings(T=400)),
                                             "application/zip").run()
    assert not at.exception
    assert any(m.startswith("cmab.zip:") and "not of the mean-variance bandit" in m for m in errors(at))
    wanted = mv_sim.MVSettings(K=8, T=400, seeds=2, alpha=0.2, mu0=0.6, rho=12.5, base_seed=2)
    at.file_uploader(key="mv_upload").upload("run.zip", bundle_of(wanted), "application/zip").run()
    assert not at.exception and not errors(at)
    assert [s.value for s in at.success] == ["Restored the settings of run.zip."]
    assert at.slider(key="mv_rho").value == pytest.approx(12.5)
    assert at.slider(key="mv_alpha").value == pytest.approx(0.2)
    assert at.slider(key="mv_mu0").value == pytest.approx(0.6)
    assert at.number_input(key="base_seed").value == 2
