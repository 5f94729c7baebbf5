"""The app through Streamlit's AppTest: pages run, controls redraw the figures, bad input is explained.

Every test starts from ``app.py`` (the entry point, so the shared sidebar is there) and keeps the
default shape (d = 5, 5 seeds, 3 policies) with T = 1000, so JAX compiles the dose model once
for the whole module.
"""

from __future__ import annotations

import json
import textwrap

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from safebandit_core import device, families, settings
from safebandit_core.dose import DoseSettings
from safebandit_core.dose import settings as dose_settings
from safebandit_ui import registry
from tests.support import run_with_host_devices
from tests.ui.helpers import (
    APP,
    ROOT,
    TIMEOUT,
    app,
    array,
    bundle_of,
    charts,
    download_labels,
    errors,
    lazy_boxes,
    open_boxes,
    open_page,
    uploader,
)

SMALL_T = 1000
pytestmark = pytest.mark.usefixtures("fresh_caches")


def dose_page(**state) -> AppTest:
    """The dose page reached through the entry point, with T = 1000 and any widget values in ``state``."""
    at = open_page("pages/dose.py", {"T": SMALL_T, **state})
    assert at.sidebar.number_input(key="base_seed").value == state.get("base_seed", 0)
    return at


def test_registry_lists_existing_pages_only():
    assert registry.missing_files() == []
    listed = {p.path for p in registry.PAGES}
    on_disk = {f"pages/{f.name}" for f in (ROOT / "pages").glob("*.py") if not f.name.startswith("_")}
    assert on_disk == listed, "every page file must be registered in safebandit_ui/registry.py (and only those)"


def test_home_page_runs_and_links_every_page():
    at = app().run()
    assert not at.exception
    assert at.title[0].value == "safebandit lab"
    links = at.get("page_link")
    assert len(links) == len([p for p in registry.PAGES if not p.default])
    captions = " ".join(c.value for c in at.caption)
    for p in registry.PAGES:
        if not p.default:
            assert p.blurb in captions
    assert at.selectbox(key="device").value == device.default_device_id()


def test_about_page_names_papers_and_device():
    at = app().run()
    at.switch_page("pages/about.py").run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "Safety by Design" in text and "One-Size-Fits-All" in text
    assert device.describe(device.default_device_id()) in text


def test_dose_page_runs_and_shows_every_figure():
    at = dose_page()
    assert not errors(at)
    # The main sections are drawn at once; the secondary ones and the formulas wait, closed, until opened.
    assert set(charts(at)) == {"g_curve", "regret", "violations", "cost", "safe", "scrub"}
    assert not at.latex and "Per rule, over every run" in [h.value for h in at.subheader]
    boxes = ["dose_regret_symbols", "dose_safety_symbols", "dose_safe_symbols", "dose_slack_box", "dose_round_box"]
    assert set(boxes) <= set(lazy_boxes(at))
    open_boxes(at, *boxes)
    assert set(charts(at)) == {"g_curve", "regret", "violations", "cost", "safe", "slack", "cost_distribution",
                                "scrub"}
    assert any(r"\hat\alpha_{\max,t}" in lat.value for lat in at.latex) and len(at.latex) == 6
    ran = next(c.value for c in at.caption if c.value.startswith("Ran on"))  # under the plain status line
    assert ran.startswith("Ran on") and f"{SMALL_T:,} rounds" in ran
    assert array(charts(at)["regret"]["data"][-1]["x"]).max() == SMALL_T


def test_a_page_opened_first_still_gets_the_entry_point_and_sidebar():
    """AppTest starts every run the way a fresh server serves its first visitor (old pages/ folder mode)."""
    at = app({"T": SMALL_T})
    at.switch_page("pages/dose.py").run()
    assert not at.exception
    assert [w.key for w in at.sidebar.selectbox][:2] == ["device", "precision"]
    assert "regret" in charts(at)


def test_rerun_with_same_settings_uses_the_stored_result():
    at = dose_page()
    before = charts(at)
    at.run()
    assert "already computed on this server" in at.caption[0].value
    assert charts(at) == before


@pytest.mark.parametrize(
    ("key", "value", "chart"),
    [
        ("tau", 0.8, "cost"),
        ("delta", 0.2, "violations"),
        ("delta_prime", 0.3, "safe"),
        ("kappa_r", 0.6, "regret"),
        ("kappa_c", 0.1, "cost"),
        ("eps", 0.9, "regret"),
    ],
)
def test_each_slider_reruns_and_changes_the_figure(key, value, chart):
    at = dose_page()
    before = charts(at)
    at.slider(key=key).set_value(value).run()
    assert not at.exception and not errors(at)
    after = charts(at)
    assert after[chart] != before[chart], f"moving {key} left the {chart} figure unchanged"
    assert "already computed on this server" not in at.caption[0].value


def test_dose_curve_controls_redraw_the_curve():
    at = dose_page()
    linear = charts(at)["g_curve"]
    at.selectbox(key="g").select("power").run()
    assert not at.exception
    power = charts(at)["g_curve"]
    assert power != linear
    at.slider(key="g_power").set_value(0.5).run()
    assert not at.exception and charts(at)["g_curve"] != power


def test_round_inspector_follows_the_round_slider_and_policy():
    at = open_boxes(dose_page(), "dose_round_box")
    before = charts(at)["cost_distribution"]
    round_slider = next(s for s in at.slider if s.label == "Round t")
    target = 1 if round_slider.value != 1 else SMALL_T
    round_slider.set_value(target).run()
    assert not at.exception
    after = charts(at)["cost_distribution"]
    assert after != before and f"round {target} " in after["layout"]["title"]["text"]
    at.selectbox(key="inspect_policy").select("On-Expectation").run()
    assert not at.exception
    assert charts(at)["cost_distribution"]["layout"]["title"]["text"].startswith("On-Expectation, round")


def test_run_too_large_for_memory_is_an_error_not_a_traceback():
    at = dose_page()
    at.number_input(key="T").set_value(dose_settings.MAX_T)
    at.number_input(key="seeds").set_value(dose_settings.MAX_SEEDS).run()
    assert not at.exception
    msgs = errors(at)
    assert len(msgs) == 1 and "Rounds T" in msgs[0] and "at most about" in msgs[0]
    assert set(charts(at)) == {"g_curve"}


def test_no_policy_chosen_is_an_error():
    at = dose_page()
    at.multiselect(key="policies").set_value([]).run()
    assert not at.exception
    assert any("Compare" in m for m in errors(at))


def test_malformed_settings_upload_names_the_problem():
    at = dose_page()
    uploader(at, "dose_upload").upload("broken.json", b"{not json", "application/json").run()
    assert not at.exception
    assert any(m.startswith("broken.json: must be a JSON settings file") for m in errors(at))


def test_out_of_range_settings_upload_names_the_field():
    at = dose_page()
    data = settings.to_dict(DoseSettings(T=SMALL_T))
    data["delta"] = 1.5
    uploader(at, "dose_upload").upload("bad.json", json.dumps(data).encode(), "application/json").run()
    assert not at.exception
    assert any("Allowed violation probability δ" in m and "1.5" in m for m in errors(at))
    assert at.slider(key="delta").value == pytest.approx(DoseSettings().delta)


def test_settings_upload_restores_every_control():
    at = dose_page()
    wanted = DoseSettings(T=1500, tau=0.75, delta=0.1, kappa_c=0.2, eps=0.25, base_seed=3, precision="float64")
    uploader(at, "dose_upload").upload("run.json", settings.to_json(wanted).encode(), "application/json")
    at.run()
    assert not at.exception and not errors(at)
    assert [s.value for s in at.success] == ["Restored the settings of run.json."]
    assert at.slider(key="tau").value == pytest.approx(0.75)
    assert at.slider(key="eps").value == pytest.approx(0.25)
    assert at.number_input(key="T").value == 1500
    assert at.number_input(key="base_seed").value == 3
    assert "(run 3)" in charts(at)["safe"]["layout"]["title"]["text"]


def test_shared_sidebar_reaches_the_page_and_the_core(monkeypatch):
    seen: list[str | None] = []
    real = families.simulate

    def spy(s, device_id=None, chunk=None, **kw):
        seen.append(device_id)
        return real(s, device_id, chunk, **kw)

    monkeypatch.setattr(families, "simulate", spy)
    chosen = device.list_devices()[-1].id
    at = app({"T": SMALL_T})
    at.run()
    at.selectbox(key="device").select(chosen).run()
    at.number_input(key="base_seed").set_value(11).run()
    at.switch_page("pages/dose.py").run()
    assert not at.exception
    assert seen == [chosen]
    assert device.describe(chosen) in at.caption[1].value  # the Details box under the plain status line
    assert "run 11" in charts(at)["cost"]["layout"]["title"]["text"]


def test_second_device_and_precision_reach_the_run():
    """With two (forced) host devices, choosing cpu:1 and float32 in the sidebar changes what the run reports."""
    script = textwrap.dedent(f"""
        import json
        from streamlit.testing.v1 import AppTest
        from safebandit_core import device
        assert [d.id for d in device.list_devices()] == ["cpu:0", "cpu:1"]
        at = AppTest.from_file({APP!r}, default_timeout={TIMEOUT})
        at.session_state["T"] = 500
        at.session_state["seeds"] = 1
        at.run()
        at.selectbox(key="device").select("cpu:1").run()
        at.selectbox(key="precision").select("float32").run()
        at.switch_page("pages/dose.py").run()
        print(json.dumps({{"exc": [e.message for e in at.exception], "ran": at.caption[1].value,
                           "label": device.describe("cpu:1")}}))
    """)
    got = run_with_host_devices(script, 2)
    assert got["exc"] == []
    assert got["label"] in got["ran"] and "float32" in got["ran"]


def test_the_download_buttons_are_drawn_only_once_their_box_is_open():
    at = dose_page(tau=0.75)
    assert "save_box" in lazy_boxes(at) and not at.get("download_button")
    assert download_labels(at) == {"Per-round CSV", "Per-round Parquet", "Settings JSON", "Everything (zip)"}
    assert at.session_state["save_box"]


def test_the_restore_uploader_is_drawn_only_once_its_box_is_open():
    at = dose_page(tau=0.75)
    assert "dose_upload_box" in lazy_boxes(at) and not at.get("file_uploader")
    uploader(at, "dose_upload")
    assert at.session_state["dose_upload_box"] and [u.key for u in at.get("file_uploader")] == ["dose_upload"]


def test_zip_download_and_a_zip_upload_re_creates_the_run():
    first = dose_page(tau=0.75, base_seed=2)
    assert {"Per-round CSV", "Per-round Parquet", "Settings JSON", "Everything (zip)"} <= download_labels(first)
    table = first.table[0].value
    wanted = DoseSettings(T=SMALL_T, tau=0.75, base_seed=2,
                              precision=first.sidebar.selectbox(key="precision").value)
    st.cache_data.clear()  # the upload must run it again, not find it stored
    st.cache_resource.clear()
    at = dose_page()
    uploader(at, "dose_upload").upload("run.zip", bundle_of(wanted), "application/zip").run()
    assert not at.exception and not errors(at)
    assert [s.value for s in at.success] == ["Restored the settings of run.zip."]
    assert at.slider(key="tau").value == pytest.approx(0.75)
    assert at.number_input(key="T").value == SMALL_T and at.number_input(key="base_seed").value == 2
    assert "already computed on this server" not in at.caption[0].value
    pd.testing.assert_frame_equal(at.table[0].value, table)


def test_pin_then_change_shows_before_after_and_a_faded_overlay():
    at = dose_page()
    at.button(key="dose_pin").click().run()
    at.slider(key="tau").set_value(0.3).run()
    assert not at.exception
    assert [c.value for c in at.caption if c.value.startswith("Pin ")] == ["Pin 1: tau=0.5"]
    shown = charts(at)
    pinned = {t["name"] for t in shown["regret"]["data"] if "(pin 1)" in t["name"]}
    assert {"HPC-UCB (pin 1)", "On-Expectation (pin 1)", "ε-Greedy (pin 1)"} <= pinned
    for name in ("violations", "cost", "safe"):  # every chart carries the pin, faded
        faded = [t for t in shown[name]["data"] if "(pin 1)" in t.get("name", "")]
        assert faded and all(t["opacity"] == 0.4 for t in faded), name
    table = next(t.value for t in at.table if "pin" in t.value.columns)
    assert len(table) == 3 and all("→" in v for v in table["regret (mean)"])
    assert all(v.count("%") == 3 for v in table["violation rate"]), "rates in % as on the rest of the page"
    for name in ("regret", "violations", "cost"):
        entries = [t for t in shown[name]["data"] if t.get("legendgroup") == "pin1" and t.get("showlegend")]
        assert [t["name"] for t in entries] == ["pinned: τ = 0.5"], name
    now = {t["name"]: t["line"]["color"] for t in shown["regret"]["data"] if t.get("line", {}).get("color")}
    faded = {t["name"]: t["line"].get("color") for t in shown["regret"]["data"] if "(pin 1)" in t["name"]}
    assert faded["HPC-UCB (pin 1)"] == now["HPC-UCB"] and faded["ε-Greedy (pin 1)"] == now["ε-Greedy"]
    bars = next(t for t in shown["violations"]["data"] if "(pin 1)" in t["name"])
    assert bars["marker"]["pattern"]["shape"] == "/" and all(x.startswith("pinned ") for x in bars["x"])
    assert bars["marker"]["color"] == shown["violations"]["data"][0]["marker"]["color"]
    at.button(key="dose_unpin").click().run()
    assert not any("(pin" in t["name"] for t in charts(at)["regret"]["data"])


def test_step_through_is_client_side_frames_and_the_command_line_is_shown():
    at = dose_page()
    assert "dose_steps_on" not in [t.key for t in at.toggle], "the step-through is made only once it is opened"
    at.session_state["dose_steps_box"] = True
    at.run()
    at.toggle(key="dose_steps_on").set_value(True).run()
    assert not at.exception
    fig = charts(at)["dose_steps"]
    assert len(fig["frames"]) >= 20 and fig["layout"]["updatemenus"][0]["buttons"][0]["method"] == "animate"
    assert not at.code, "the command line is made only once its section is opened"
    at.session_state["dose_cli"] = True
    at.run()
    line = at.code[0].value
    assert line.startswith("python -m safebandit_core dose --policy all --T 1000")


def test_with_two_dimensions_the_step_through_also_shows_the_confidence_ellipse_shrinking():
    at = dose_page(d=2)
    at.session_state["dose_steps_box"] = True
    at.run()
    at.toggle(key="dose_steps_on").set_value(True).run()
    assert not at.exception
    fig = charts(at)["dose_ellipse"]
    assert len(fig["frames"]) >= 20 and fig["layout"]["xaxis"]["title"]["text"] == "μ₁"


def test_probability_sliders_move_in_steps_a_lecturer_can_use():
    """An arrow key moves δ and δ′ by 0.005 (ten presses: 0.01 → 0.06), not 0.001."""
    at = dose_page()
    for key in ("delta", "delta_prime"):
        proto = at.slider(key=key).proto
        assert proto.step == pytest.approx(0.005) and proto.min == pytest.approx(0.005), key
