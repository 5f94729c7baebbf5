"""Export bundles of single model runs: bundle → read_bundle gives back the same per-round frame, summary and
settings (a dose run and a conservative run, as the pages' *Everything (zip)* button makes them)."""

from __future__ import annotations

import io
import json
import zipfile

import pandas as pd
import pytest

from safebandit_core import export
from safebandit_core.conservative import sim as cb_sim
from safebandit_core.data.experiment import BatteryReplaySettings
from safebandit_core.dose import sim as dose_sim
from safebandit_core.settings import SettingsError
from safebandit_core.viz import conservative as vc
from safebandit_core.viz import dose as vd


def dose_run() -> tuple[dose_sim.DoseSettings, pd.DataFrame, pd.DataFrame, dict]:
    s = dose_sim.DoseSettings(d=3, T=200, seeds=2, tau=0.6, base_seed=4).validate()
    outputs = dose_sim.run(s)
    frame, summary = dose_sim.tidy_frame(s, outputs), dose_sim.summary(s, outputs)
    return s, frame, summary, {"regret": vd.regret_figure(frame), "violations": vd.violation_figure(summary, s.delta)}


def conservative_run() -> tuple[cb_sim.ConservativeSettings, pd.DataFrame, pd.DataFrame, dict]:
    s = cb_sim.ConservativeSettings(K=6, T=200, seeds=2, alpha=0.1, policies=("gencb", "conucb", "ucb")).validate()
    result = cb_sim.run_all(s)
    frame = cb_sim.tidy_frame(result)
    return s, frame, cb_sim.summary(result), {"regret": vc.regret_figure(frame, result.instance.best)}


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


def test_load_settings_accepts_battery_settings_and_the_readme_names_the_page():
    battery = {"kind": "battery", "source": "embedded", "file": None, "path": None, "dim": 32, "embedder": "hash",
               "fit_lam": 0.1, "taus": [0.1, 0.2], "T": 200, "seeds": 2,
               "policies": ["hpucb", "eps_greedy", "on_expectation"], "base_seed": 0, "precision": None}
    kind, s = export.load_settings(json.dumps(battery))
    assert kind == "battery" and isinstance(s, BatteryReplaySettings) and export.settings_dict(s) == battery
    with pytest.raises(SettingsError) as err:
        export.load_settings(json.dumps({**battery, "dim": 0}))
    assert err.value.field == "dim"
    s, frame, summary, _ = dose_run()
    with zipfile.ZipFile(io.BytesIO(export.bundle({"per_round": frame}, summary, export.settings_dict(s), {}))) as zf:
        readme = zf.read("README.txt").decode("utf-8")
    assert '"Dose model" page' in readme and "replay page" not in readme


def test_readme_pages_are_the_apps_page_titles():
    from safebandit_ui import registry

    titles = {p.title for p in registry.PAGES}
    assert set(export.PAGE_OF_KIND) == set(export.KINDS)
    assert set(export.PAGE_OF_KIND.values()) <= titles
