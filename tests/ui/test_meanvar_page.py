"""The mean-variance page through AppTest: it runs, its controls redraw the figures, the guarantee is explained
next to what the run's slack did, uploads restore the controls.

Every test starts from ``app.py`` and keeps one small shape (K = 8, T = 400, 2 seeds, both policies),
so JAX compiles the model once for the module; only the K change compiles a second shape.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from safebandit_core import settings
from safebandit_core.conservative import ConservativeSettings
from safebandit_core.meanvar import MVSettings
from tests.ui.helpers import bundle_of, charts, download_labels, errors, open_boxes, open_page, uploader, warnings

PAGE = "pages/meanvar.py"
SMALL = {"T": 400, "seeds": 2, "K": 8}
FIGURES = {"regret", "zoom", "slack", "default_pulls", "arms", "scrub"}
pytestmark = pytest.mark.usefixtures("fresh_caches")


OPEN = {"zoom_pct_box": True, "mv_pulls_box": True}
"""The page's secondary sections, open: the zoomed regret and the default-arm pulls."""


def page(**state) -> AppTest:
    """The page reached through the entry point, small shape, its secondary sections open (:data:`OPEN`), any
    widget values in ``state``."""
    return open_page(PAGE, {**SMALL, **OPEN, **state})


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def condition(at: AppTest) -> str:
    """The sentence on the guarantee ρ > 2/(α μ₀) and what MV-CUCB's slack did in this run."""
    return next(m.value for m in at.markdown if m.value.startswith("ρ = "))


def test_page_runs_shows_every_figure_and_the_constraint_verdict():
    at = open_page(PAGE, SMALL)
    # Until opened, the secondary sections are closed boxes with nothing drawn in them.
    assert set(charts(at)) == FIGURES - {"zoom", "default_pulls"}
    at = open_boxes(at, *OPEN)
    assert not errors(at)
    assert set(charts(at)) == FIGURES
    assert not warnings(at), "ρ = 30 > 2/(0.1·0.7) ≈ 28.57: the guarantee holds by default"
    assert any("guaranteed on every run" in s.value for s in at.success)
    verdict = metrics(at)
    assert verdict["MV-CUCB: constraint"] == "held in every run"
    assert verdict["MV-UCB: constraint"].startswith("broken in")
    table = at.table[0].value
    assert list(table["rule"]) == ["MV-CUCB", "MV-UCB"]
    text = condition(at)
    assert "> 2/(α·μ₀) = 28.57, so the guarantee applies" in text
    assert f"smallest slack {table['min slack'].iloc[0]:.4g})" in text and "all 2 runs" in text
    regret = dict(zip(table["rule"], table["mean-variance lost T·R̃ at the end (mean)"], strict=True))
    low = min(regret, key=regret.get)
    assert any(m.value.startswith("After 400 rounds") and f"**{low} lost less**" in m.value for m in at.markdown)
    assert any(c.value.startswith("At round 40 the dashed baseline") for c in at.caption)
    assert any("sufficient (Theorem 5); below it nothing is promised" in c.value for c in at.caption)


def test_warning_and_condition_sentence_follow_the_threshold():
    at = page()
    at.slider(key="rho").set_value(20.0).run()
    assert not at.exception
    shown = warnings(at)
    assert shown and all("28.57" in w and "NOT guaranteed" in w for w in shown)
    assert "Raise ρ above 28.57" in at.sidebar.warning[0].value
    assert "slack" in charts(at) and "MV-CUCB: constraint" in metrics(at)
    text = condition(at)
    assert text.startswith("ρ = 20 ≤ 2/(α·μ₀) = 28.57, so the guarantee does not apply")
    assert "sufficient (Theorem 5); below it nothing is promised" in text
    held = metrics(at)["MV-CUCB: constraint"] == "held in every run"
    assert ("In this run it stayed ≥ 0 in all 2 runs" in text) == held
    at.slider(key="alpha").set_value(0.2).run()  # threshold 2/(0.2·0.7) ≈ 14.29 < 20
    assert not warnings(at) and "so the guarantee applies" in condition(at)
    at.slider(key="mu0").set_value(0.5).run()  # threshold 2/(0.2·0.5) = 20 = ρ: not strictly above
    assert any("2/(α·μ₀) = 20" in w for w in warnings(at)) and "does not apply" in condition(at)


def test_each_control_changes_its_figure():
    at = page()
    for key, value, chart in (("rho", 60.0, "regret"), ("alpha", 0.3, "slack"), ("mu0", 0.5, "regret"),
                              ("zoom_pct", 40, "zoom"), ("K", 12, "arms")):
        before = charts(at)
        widget = at.number_input(key=key) if key == "K" else at.slider(key=key)
        widget.set_value(value).run()
        assert not at.exception and not errors(at)
        assert charts(at)[chart] != before[chart], f"changing {key} left the {chart} figure unchanged"


def test_uploads_restore_the_controls_or_say_what_is_wrong():
    at = page()
    assert {"Per-round CSV", "Per-round Parquet", "Settings JSON", "Everything (zip)"} <= download_labels(at)
    other = settings.to_json(ConservativeSettings(T=400))
    uploader(at, "mv_upload").upload("cmab.json", other.encode(), "application/json").run()
    assert not at.exception
    assert any("not of the mean-variance bandit" in m for m in errors(at))
    uploader(at, "mv_upload").upload("broken.json", b"[1, 2", "application/json").run()
    assert any(m.startswith("broken.json:") and "JSON settings file" in m for m in errors(at))
    uploader(at, "mv_upload").upload("cmab.zip", bundle_of(ConservativeSettings(T=400)),
                                             "application/zip").run()
    assert any(m.startswith("cmab.zip:") and "not of the mean-variance bandit" in m for m in errors(at))
    wanted = MVSettings(K=8, T=400, seeds=2, alpha=0.2, mu0=0.6, rho=12.5, base_seed=2)
    uploader(at, "mv_upload").upload("run.json", settings.to_json(wanted).encode(), "application/json")
    at.run()
    assert not at.exception and not errors(at)
    assert at.slider(key="rho").value == pytest.approx(12.5)
    assert at.slider(key="alpha").value == pytest.approx(0.2)
    assert at.number_input(key="base_seed").value == 2
    assert warnings(at), "ρ = 12.5 < 2/(0.2·0.6) ≈ 16.7"
    zipped = MVSettings(K=8, T=400, seeds=2, alpha=0.15, mu0=0.65, rho=40.0, base_seed=5, policies=("mvcucb",))
    uploader(at, "mv_upload").upload("run.zip", bundle_of(zipped), "application/zip").run()
    assert not at.exception and not errors(at)
    assert "Restored the settings of run.zip." in [s.value for s in at.success]
    assert at.slider(key="rho").value == pytest.approx(40.0)
    assert at.slider(key="mu0").value == pytest.approx(0.65)
    assert at.number_input(key="base_seed").value == 5
    assert at.multiselect(key="policies").value == ["mvcucb"]
