"""Export bundles of single model runs: bundle → read_bundle gives back the same per-round frame, summary and
settings (a dose run and a conservative run, as the pages' *Everything (zip)* button makes them), and every
settings kind's README names a page the app has."""

from __future__ import annotations

import io
import zipfile

import pandas as pd
import pytest

from safebandit_core import export, families
from safebandit_core.conservative.settings import ConservativeSettings
from safebandit_core.dose.settings import DoseSettings
from safebandit_core.viz import conservative as vc
from safebandit_core.viz import dose as vd
from safebandit_core.viz.common import by_label


def dose_run() -> tuple[DoseSettings, pd.DataFrame, pd.DataFrame, dict]:
    s = DoseSettings(d=3, T=200, seeds=2, tau=0.6, base_seed=4).validate()
    run = families.run(s)
    frame, summary = families.tidy(run), families.summary(run)
    return s, frame, summary, {"regret": vd.regret_figure(by_label(frame)),
                               "violations": vd.violation_figure(summary, s.delta)}


def conservative_run() -> tuple[ConservativeSettings, pd.DataFrame, pd.DataFrame, dict]:
    s = ConservativeSettings(K=6, T=200, seeds=2, alpha=0.1, policies=("gencb", "conucb", "ucb")).validate()
    run = families.run(s)
    frame = families.tidy(run)
    return s, frame, families.summary(run), {"default_pulls": vc.default_pulls_figure(by_label(frame))}


@pytest.mark.parametrize("make", [dose_run, conservative_run], ids=["dose", "conservative"])
def test_bundle_round_trips_frame_summary_and_settings(make):
    s, frame, summary, figures = make()
    data = export.bundle({"per_round": frame}, summary, export.settings_dict(s), figures)
    back = export.read_bundle(data)
    pd.testing.assert_frame_equal(back.frames["per_round"], frame)
    pd.testing.assert_frame_equal(back.summary, summary, check_dtype=False, check_exact=True)
    assert back.settings == export.settings_dict(s)
    assert sorted(back.figures) == sorted(figures)
    kind, restored = export.load_settings(data)
    assert kind == s.KIND and restored == s


def test_readme_names_the_page_that_takes_the_settings_back():
    from safebandit_ui import registry

    s, frame, summary, _ = dose_run()
    page = registry.title_of_kind(s.KIND)
    with zipfile.ZipFile(io.BytesIO(export.bundle({"per_round": frame}, summary, export.settings_dict(s), {},
                                                  page=page))) as zf:
        readme = zf.read("README.txt").decode("utf-8")
    assert page == "Dose model" and "app's Dose model page" in readme


def test_every_settings_kind_has_a_registered_page():
    from safebandit_ui import registry

    titles = {p.title for p in registry.PAGES}
    for kind in export.kinds():
        assert registry.title_of_kind(kind) in titles, f"no page takes {kind!r} settings back"
    assert registry.title_of_kind("preset") == "Paper presets"  # the title export.preset_bundle writes
    assert registry.title_of_kind("sweep") == "Sweeps"
