"""The battery replay page through AppTest, reached from app.py: data, fit, replay charts, the RW26 note.

Runs use d = 32, T = 200 and 2 seeds, the shape tests/test_battery_experiment.py compiles too.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from tests.test_battery_experiment import cell_mat_bytes

from safebandit_core import export
from safebandit_core.dose import sim
from tests.ui.helpers import charts, download_labels, open_page

PAGE = "pages/replay_battery.py"
TIMEOUT = 180
REPLAY_CHARTS = {"regret", "safe", "cost", "violations"}
pytestmark = pytest.mark.usefixtures("fresh_module_caches")  # the module shares its data and fits


def battery_page(**state) -> AppTest:
    """The page reached through the entry point, at d = 32, T = 200, 2 seeds (and any widget values in ``state``)."""
    return open_page(PAGE, {"bat_dim": 32, "bat_T": 200, "bat_seeds": 2, **state}, TIMEOUT)


def test_page_runs_from_the_app_and_replays_both_taus():
    at = battery_page()
    assert not at.error, [e.value for e in at.error]
    shown = charts(at)
    assert {"raw_window", "currents", "fit_scatter"} <= set(shown)
    assert {f"{c}_t{i}" for c in REPLAY_CHARTS for i in (0, 1)} <= set(shown)
    assert "τ = 0.1" in shown["cost_t0"]["layout"]["title"]["text"]
    assert "τ = 0.2" in shown["cost_t1"]["layout"]["title"]["text"]
    note = " ".join(i.value for i in at.info)
    for words in ("RW26", "40 °C right-skewed", "RW9–RW12", "Prognostics Data Repository", "Upload a .mat file"):
        assert words in note
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Computing on") for c in captions)
    ran = [c for c in captions if c.startswith("Ran on")]
    assert len(ran) == 2 and all("200 rounds × 2 seeds × 3 policies" in c and "d = 32" in c for c in ran)
    labels = {m.label for m in at.metric}
    assert {"R² reward / cost (fit half)", "Round-1 safe dose α₁", "HPC-UCB violation rate"} <= labels
    at.run()
    assert all("(stored result)" in c.value for c in at.caption if c.value.startswith("Ran on"))


def test_one_tau_only():
    at = battery_page(bat_taus=[0.2])
    assert not at.error
    shown = charts(at)
    assert {f"{c}_t0" for c in REPLAY_CHARTS} <= set(shown) and "regret_t1" not in shown
    assert "τ = 0.2" in shown["cost_t0"]["layout"]["title"]["text"]


def test_an_uploaded_nasa_file_is_shown_sample_by_sample_and_replayed():
    at = battery_page(bat_source="upload")
    assert any("Upload a NASA .mat file" in i.value for i in at.info)
    at.file_uploader(key="bat_upload").upload("cell.mat", cell_mat_bytes(), "application/octet-stream").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = charts(at)
    assert "samples" in shown["raw_window"]["layout"]["title"]["text"]
    assert {f"{c}_t0" for c in REPLAY_CHARTS} <= set(shown)


@pytest.mark.parametrize(
    ("state", "upload", "message"),
    [
        ({"bat_source": "upload"}, b"this is not a MAT file", "not a readable MAT file"),
        ({"bat_source": "path", "bat_path": "/no/such/RW9.mat"}, None, "no such file"),
    ],
)
def test_bad_data_is_an_error_not_a_traceback(state, upload, message):
    at = battery_page(**state)
    if upload is not None:
        at.file_uploader(key="bat_upload").upload("broken.mat", upload, "application/octet-stream").run()
    assert not at.exception
    assert any(message in e.value for e in at.error), [e.value for e in at.error]
    assert "regret_t0" not in charts(at)


def battery_settings(**kw) -> dict:
    """Settings as the page's *Settings JSON* saves them (d = 32, T = 200, 2 seeds on the embedded RW26)."""
    return {"kind": "battery", "source": "embedded", "file": None, "path": None, "dim": 32, "embedder": "hash",
            "fit_lam": 0.1, "taus": [0.1, 0.2], "T": 200, "seeds": 2,
            "policies": ["hpucb", "eps_greedy", "on_expectation"], "base_seed": 0, "precision": None, **kw}


def test_zip_download_and_zip_upload_re_create_the_replay():
    at = battery_page()
    assert {"Settings JSON", "Everything (zip)"} <= download_labels(at)
    frame = pd.DataFrame({"t": [1]})
    data = export.bundle({"tau0.2": frame}, pd.DataFrame(), battery_settings(taus=[0.2], base_seed=1), {})
    at.file_uploader(key="bat_settings_upload").upload("run.zip", data, "application/zip").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Restored the settings of run.zip" in s.value for s in at.success)
    assert at.number_input(key="bat_dim").value == 32 and at.number_input(key="bat_T").value == 200
    assert at.number_input(key="base_seed").value == 1
    assert at.button_group(key="bat_taus").value == [0.2]
    shown = charts(at)
    assert "τ = 0.2" in shown["cost_t0"]["layout"]["title"]["text"] and "regret_t1" not in shown
    assert "seed 1" in shown["cost_t0"]["layout"]["title"]["text"]
    # A run on a user's file: every other setting comes back, and the page says the file must be given again.
    user = json.dumps(battery_settings(source="upload", file="RW9.mat")).encode()
    at.file_uploader(key="bat_settings_upload").upload("rw9.json", user, "application/json").run()
    assert not at.exception
    assert any("RW9.mat" in w.value and "upload that file again" in w.value for w in at.warning)
    assert at.radio(key="bat_source").value == "upload"
    assert any("Upload a NASA .mat file" in i.value for i in at.info)
    other = export.bundle({}, pd.DataFrame(), export.settings_dict(sim.DoseSettings()), {})
    at.file_uploader(key="bat_settings_upload").upload("dose.zip", other, "application/zip").run()
    assert any("not of the battery replay" in e.value for e in at.error)
