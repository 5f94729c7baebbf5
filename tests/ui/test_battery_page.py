"""The battery replay page through AppTest, reached from app.py: the embedded RW26 path, an uploaded NASA file,
bad uploads (an oversized one included), restore, the command line it shows, and every control reaching a chart.

Runs are tiny (d = 32, T = 200, 2 seeds) and share their compiled shapes and stored runs within the module.
"""

from __future__ import annotations

import io
import json
import shlex

import pandas as pd
import pytest
import scipy.io
from streamlit.testing.v1 import AppTest

from safebandit_core import cli, export, uploads
from safebandit_core.battery import BatteryReplaySettings
from safebandit_core.dose import DoseSettings
from safebandit_ui import live, pagekit
from tests.battery.test_battery_experiment import cell_mat_bytes
from tests.support import inflating_mat
from tests.ui.helpers import app, bundle_of, charts, download_labels, errors, open_page, uploader

PAGE = "pages/battery.py"
TIMEOUT = 180
TINY = {"bat_dim": 32, "bat_T": 200, "bat_seeds": 2}
REPLAY_CHARTS = ("regret", "safe", "cost", "violations")
pytestmark = pytest.mark.usefixtures("fresh_module_caches")  # the module shares its compiled shapes and runs


def battery_page(**state) -> AppTest:
    """The page reached through the entry point at the tiny shape (and any widget values in ``state``)."""
    return open_page(PAGE, {**TINY, **state}, TIMEOUT)


def texts(at: AppTest) -> str:
    """Every piece of prose on the page, joined."""
    parts = [*at.title, *at.header, *at.subheader, *at.markdown, *at.caption, *at.info, *at.warning, *at.success]
    return "\n".join(str(p.value) for p in parts)


def mat_bytes(variables: dict) -> bytes:
    """A MAT file holding ``variables``."""
    buffer = io.BytesIO()
    scipy.io.savemat(buffer, variables)
    return buffer.getvalue()


def upload(at: AppTest, name: str, data: bytes, key: str = "bat_upload", mime: str = "application/octet-stream"):
    """Upload ``data`` as ``name`` into the uploader ``key`` and rerun."""
    return uploader(at, key).upload(name, data, mime).run()


def test_the_embedded_cell_replays_both_taus_offline_with_words_and_the_command_line():
    at = battery_page()
    assert not errors(at)
    shown = charts(at)
    assert {"raw_window", "currents", "fit_scatter"} | {f"{c}_t{i}" for c in REPLAY_CHARTS for i in (0, 1)} <= set(
        shown)
    assert "τ = 0.3" in shown["cost_t0"]["layout"]["title"]["text"]  # the page opens on τ = 0.3 and 0.5
    assert "τ = 0.5" in shown["cost_t1"]["layout"]["title"]["text"]
    assert not at.warning, [w.value for w in at.warning]  # no "starts almost at zero" on the defaults
    prose = texts(at)
    for words in ("Safety by Design (2026)", "RW26", "RW9–RW12", "Prognostics Data Repository", "R² =",
                  "treats θ*, μ* as the truth", "After these 200 rounds", "In these 200 rounds"):
        assert words in prose, words
    assert "seed 000" not in prose.lower()
    ran = [c.value for c in at.caption if c.value.startswith("Ran on")]
    assert len(ran) == 1 and "200 rounds × 2 seeds × 3 policies" in ran[0] and "d = 32" in ran[0]
    assert {"Round-1 safe dose α₁", "HPC-UCB violation rate", "HPC-UCB final regret"} <= {m.label for m in at.metric}
    commands = [c.value for c in at.code]
    assert commands == [f"python -m safebandit_core battery --tau {t} --T 200 --dim 32 --seeds 2 --precision float64 "
                        "--json" for t in ("0.3", "0.5")]
    assert {"Per-round CSV", "Per-round Parquet", "Settings JSON", "Everything (zip)"} <= download_labels(at)
    at.run()
    assert all("shared, not recomputed" in c.value for c in at.caption if c.value.startswith("Ran on"))


def test_the_command_line_shown_gives_the_pages_numbers(capsys):
    at = battery_page(bat_taus=[0.2])
    (command,) = [c.value for c in at.code]
    assert cli.main(shlex.split(command)[3:]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tau"] == 0.2 and doc["T"] == 200 and doc["dim"] == 32
    hpucb = next(r for r in doc["rows"] if r["policy"] == "hpucb")
    regret = next(m for m in at.metric if m.label == "HPC-UCB final regret")
    assert regret.value == f"{hpucb['cum_regret_mean']:.1f}"


def test_an_uploaded_nasa_file_is_fitted_and_replayed():
    at = battery_page(bat_source="upload")
    assert any("Upload a NASA .mat file" in i.value for i in at.info)
    assert "regret_t0" not in charts(at)
    upload(at, "cell.mat", cell_mat_bytes())
    assert not at.exception and not errors(at), errors(at)
    shown = charts(at)
    assert {"raw_window", "fit_scatter"} | {f"{c}_t{i}" for c in REPLAY_CHARTS for i in (0, 1)} <= set(shown)
    assert all(c.value.startswith("python -m safebandit_core battery --data cell.mat ") for c in at.code)
    assert "cell.mat" in texts(at) and "does not hold it" in texts(at)


@pytest.mark.parametrize(("name", "data", "message"), [
    ("broken.mat", b"this is not a MAT file", "not a readable MAT file"),
    ("empty.mat", b"", "is empty"),
    ("other.mat", mat_bytes({"x": 1.0}), "no top-level variable 'data'"),
    ("short.mat", cell_mat_bytes(rounds=3), "fewer than two fit rounds"),
])
def test_a_bad_upload_is_one_error_and_leaves_nothing_behind(name, data, message):
    at = battery_page(bat_source="upload")
    upload(at, name, data)
    assert not at.exception
    assert len(errors(at)) == 1 and message in errors(at)[0] and name in errors(at)[0], errors(at)
    assert "regret_t0" not in charts(at)
    at.radio(key="bat_source").set_value("embedded").run()
    assert not at.exception and not errors(at) and "regret_t0" in charts(at)


def test_an_oversized_upload_is_refused_before_it_is_read_and_the_limit_is_named(monkeypatch):
    monkeypatch.setattr(uploads, "MAX_UPLOAD_MB", 1)
    at = battery_page(bat_source="upload")
    upload(at, "RW9.mat", b"\0" * 1_500_000)
    assert not at.exception
    (error,) = errors(at)
    assert "RW9.mat" in error and "1.5 MB" in error and "at most 1 MB" in error
    assert "fit_scatter" not in charts(at)


def test_a_mat_file_crafted_to_inflate_is_one_error_naming_the_limit(monkeypatch):
    monkeypatch.setattr(uploads, "MAX_MAT_INFLATED_BYTES", 2_000_000)
    at = battery_page(bat_source="upload")
    upload(at, "RW9.mat", inflating_mat(3_000_000))
    assert not at.exception
    (error,) = errors(at)
    assert "RW9.mat" in error and "inflate to more than 2 MB" in error, error
    assert "fit_scatter" not in charts(at)


def test_restore_brings_every_control_back_and_refuses_what_does_not_fit():
    at = battery_page()
    s = BatteryReplaySettings(dim=16, T=300, seeds=3, taus=(0.2,), base_seed=1, delta=0.1, eps=0.3,
                              precision="float64")
    upload(at, "run.zip", bundle_of(s), key="bat_settings_upload", mime="application/zip")
    assert not at.exception and not errors(at), errors(at)
    assert any("Restored the settings of run.zip" in m.value for m in at.success)
    assert (at.number_input(key="bat_dim").value, at.number_input(key="bat_T").value) == (16, 300)
    assert at.number_input(key="bat_seeds").value == 3 and at.number_input(key="base_seed").value == 1
    assert at.slider(key="bat_delta").value == pytest.approx(0.1) and at.button_group(key="bat_taus").value == [0.2]
    shown = charts(at)
    assert "regret_t1" not in shown and "run 1" in shown["cost_t0"]["layout"]["title"]["text"]
    assert at.code[0].value.startswith("python -m safebandit_core battery --tau 0.2 --T 300 --dim 16 --seeds 3 ")
    bad = BatteryReplaySettings(dim=16, embedder="sentence-transformers:some-model", base_seed=0)
    upload(at, "st.json", json.dumps(export.settings_dict(bad)).encode(), key="bat_settings_upload",
           mime="application/json")
    assert any("Embedder" in e and "not installed" in e for e in errors(at)), errors(at)
    assert at.number_input(key="bat_dim").value == 16 and at.number_input(key="bat_T").value == 300
    upload(at, "dose.zip", bundle_of(DoseSettings()), key="bat_settings_upload", mime="application/zip")
    assert any("not of the battery replay" in e for e in errors(at)), errors(at)
    user = BatteryReplaySettings(dim=32, T=200, seeds=2, source="upload", file="RW9.mat", base_seed=0)
    upload(at, "rw9.json", json.dumps(export.settings_dict(user)).encode(), key="bat_settings_upload",
           mime="application/json")
    assert not at.exception and at.radio(key="bat_source").value == "upload"
    assert any("RW9.mat" in i.value and "does not hold" in i.value for i in at.info)


def test_each_control_changes_a_chart():
    at = battery_page()
    changes = [
        ("taus", lambda: at.button_group(key="bat_taus").set_value([0.2]), "cost_t0"),
        ("T", lambda: at.number_input(key="bat_T").set_value(300), "regret_t0"),
        ("seeds", lambda: at.number_input(key="bat_seeds").set_value(3), "regret_t0"),
        ("dim", lambda: at.number_input(key="bat_dim").set_value(16), "fit_scatter"),
        ("fit_lam", lambda: at.number_input(key="bat_fit_lam").set_value(1.0), "fit_scatter"),
        ("delta", lambda: at.slider(key="bat_delta").set_value(0.1), "violations_t0"),
        ("delta_prime", lambda: at.slider(key="bat_delta_prime").set_value(0.2), "safe_t0"),
        ("eps", lambda: at.slider(key="bat_eps").set_value(0.9), "regret_t0"),
        ("lam", lambda: at.number_input(key="bat_lam").set_value(5.0), "safe_t0"),
        ("policies", lambda: at.multiselect(key="bat_policies").set_value(["hpucb", "on_expectation"]), "regret_t0"),
        ("base seed", lambda: at.number_input(key="base_seed").set_value(2), "cost_t0"),
        ("steps shown", lambda: at.slider(key="bat_window_embedded").set_value((0, 50)), "raw_window"),
    ]
    before = charts(at)
    for name, change, chart in changes:
        change()
        at.run()
        assert not at.exception and not errors(at), (name, errors(at))
        after = charts(at)
        assert after[chart] != before[chart], name
        before = after
    assert "regret_t1" not in before and not any("ε-Greedy" in str(t.get("name")) for t in before["regret_t0"]["data"])
    assert "--policy" not in at.code[0].value and "--base-seed 2" in at.code[0].value


def test_no_policy_or_no_tau_is_one_error_naming_it():
    at = battery_page(bat_policies=[])
    assert any("**Compare** must be at least one of the three" in e for e in errors(at)), errors(at)
    at.session_state["bat_policies"] = ["hpucb"]
    at.button_group(key="bat_taus").set_value([]).run()
    assert any("**Cost limit τ**" in e for e in errors(at)), errors(at)
    assert "regret_t0" not in charts(at)


def test_a_saved_zip_round_trips():
    at = battery_page()
    frame = pd.DataFrame({"t": [1]})
    s = BatteryReplaySettings(dim=32, T=200, seeds=2, taus=(0.2,), base_seed=0, precision="float64")
    data = export.bundle({"per_round": frame}, pd.DataFrame(), export.settings_dict(s), {})
    upload(at, "saved.zip", data, key="bat_settings_upload", mime="application/zip")
    assert not errors(at) and [c.value for c in at.code] == [
        "python -m safebandit_core battery --tau 0.2 --T 200 --dim 32 --seeds 2 --precision float64 --json"]


def test_the_settings_live_in_the_url():
    at = app({}, TIMEOUT)
    for key, value in {"bat_dim": "16", "bat_T": "200", "bat_seeds": "2", "bat_taus": "τ = 0.2",
                       "bat_delta": "0.1"}.items():
        at.query_params[key] = value
    at.switch_page(PAGE).run()  # the link opens the page itself
    assert not at.exception and not errors(at)
    assert (at.number_input(key="bat_dim").value, at.slider(key="bat_delta").value) == (16, 0.1)
    assert [c.value for c in at.code] == [
        "python -m safebandit_core battery --tau 0.2 --T 200 --dim 16 --seeds 2 --delta 0.1 --precision float64 --json"]


def test_a_long_replay_streams_its_charts_and_ends_on_the_final_ones(monkeypatch):
    monkeypatch.setattr(live, "SHORT_WORK", 0)  # streamed whether this process's store knows the model's speed or not
    monkeypatch.setattr(live, "LIVE_AFTER_S", 0.0)
    monkeypatch.setattr(live, "REDRAW_EVERY_S", 0.0)
    suffixes, draw = [], pagekit.draw_charts
    monkeypatch.setattr(pagekit, "draw_charts", lambda slots, figs, suffix="": (suffixes.append(suffix),
                                                                                 draw(slots, figs, suffix)))
    at = battery_page(base_seed=7, bat_T=1200)  # chunks are whole refresh blocks (500 rounds)
    assert not at.exception and not errors(at)
    assert any(s.startswith("_t0_live") for s in suffixes) and suffixes[-2:] == ["_t0", "_t1"]
    shown = charts(at)
    assert {f"{c}_t{i}" for c in REPLAY_CHARTS for i in (0, 1)} <= set(shown)
    assert not any("_live" in key for key in shown)
    assert "run 7" in shown["cost_t0"]["layout"]["title"]["text"]


def test_the_defaults_make_the_point_without_a_warning_and_match_the_command_line():
    """On its defaults the page replays τ = 0.3 and 0.5 on RW26: a round-1 safe dose above the warning's 0.02,
    a limit that binds (the true safe dose below 1), and the command line's default τ is the page's first."""
    import argparse

    from safebandit_core.battery import OPEN_TAUS
    from safebandit_core.battery import cli as battery_cli

    at = battery_page()
    assert at.button_group(key="bat_taus").value == list(OPEN_TAUS)
    assert not at.warning, [w.value for w in at.warning]
    doses = [float(m.value) for m in at.metric if m.label == "Round-1 safe dose α₁"]
    assert len(doses) == 2 and all(d > 0.02 for d in doses), doses
    finals = [m.delta for m in at.metric if m.label == "HPC-UCB dose, last 10 %"]
    assert finals and all(float(f.split()[-1]) < 1.0 for f in finals), finals  # the limit binds
    parser = argparse.ArgumentParser()
    battery_cli.add_arguments(parser)
    assert parser.parse_args([]).tau == OPEN_TAUS[0]
    assert "seed 00" not in parser.format_help().lower()
