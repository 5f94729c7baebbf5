"""The app's own plotly element (safebandit_ui.plot): what it sends, where plotly's code comes from, its fallback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
import streamlit as st

from safebandit_ui import pagekit, plot
from tests.ui import browserkit
from tests.ui.helpers import charts, open_page, sent


def test_the_browser_kit_finds_the_elements_box():
    assert f".{plot.BOX_CLASS}" in browserkit.CHART
    assert f'class="{plot.BOX_CLASS}"' in plot.HTML


def test_the_template_is_streamlits_with_its_colours_filled_in():
    text = json.dumps(plot.TEMPLATE)
    left = re.findall(r"#0000[0-4][0-9]\b", text)
    assert left == [], f"placeholder colours of Streamlit's template left for the browser: {left}"
    assert len(plot.PLACEHOLDERS) == 39 and set(plot.PLACEHOLDERS) == set(range(1, 31)) | set(range(32, 41))
    assert plot.TEMPLATE["layout"]["colorway"] == plot.THEME["colorway"]
    assert plot.TEMPLATE["layout"]["font"]["family"] == plot.THEME["font"]["family"]


def test_a_figure_is_sent_as_it_is_with_only_its_template_replaced():
    fig = go.Figure(go.Scatter(x=np.arange(4), y=np.array([0.5, 1.0, 1.5, 2.0])),
                    layout={"title": {"text": "t"}, "height": 300})
    spec = pagekit.serialised(fig, keep=False).to_dict()
    out = json.loads(plot.encode(spec))
    assert out["layout"]["template"] == json.loads(json.dumps(plot.TEMPLATE))
    assert {k: v for k, v in out["layout"].items() if k != "template"} == \
        {k: v for k, v in json.loads(json.dumps(spec["layout"])).items() if k != "template"}
    assert out["data"] == json.loads(json.dumps(spec["data"]))


def test_a_shared_figure_is_encoded_once():
    fig = pagekit.serialised(go.Figure(go.Scatter(y=[1, 2, 3])), keep=False)
    assert fig.text() is fig.text()


def test_plotlys_code_is_put_next_to_the_app_once(tmp_path):
    assert plot.provide_script(tmp_path)
    target = tmp_path / "static" / plot.SCRIPT
    assert target.read_bytes() == plot.FULL.read_bytes()
    stamp = target.stat().st_mtime_ns
    assert plot.provide_script(tmp_path) and target.stat().st_mtime_ns == stamp, "copied again"
    target.write_bytes(b"stale")
    assert plot.provide_script(tmp_path) and target.read_bytes() == plot.FULL.read_bytes()


def bundle(root: Path, version: str | None) -> Path:
    """A stand-in for the cartesian bundle under ``root``, with the header of plotly.js ``version``."""
    path = root / plot.BUNDLE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"/**\n* plotly.js (cartesian - minified) v{version}\n*/\nwindow.Plotly = {{}};\n")
    return path


def test_the_cartesian_bundle_is_served_only_for_the_plotly_js_the_figures_are_made_for(tmp_path):
    assert plot.version(plot.FULL), "the Python plotly package's bundle names no plotly.js version"
    assert plot.source(tmp_path) == plot.FULL, "no bundle installed: the full one"
    ours = bundle(tmp_path, plot.version(plot.FULL))
    assert plot.version(ours) == plot.version(plot.FULL) and plot.source(tmp_path) == ours
    assert plot.provide_script(tmp_path) and (tmp_path / "static" / plot.SCRIPT).read_bytes() == ours.read_bytes()
    bundle(tmp_path, "0.0.1")
    assert plot.source(tmp_path) == plot.FULL, "a bundle of another plotly.js version was served"
    assert plot.provide_script(tmp_path) and (tmp_path / "static" / plot.SCRIPT).read_bytes() == \
        plot.FULL.read_bytes()


def test_a_page_served_from_another_folder_gets_the_apps_bundle(tmp_path):
    app, page = tmp_path / "app", tmp_path / "page"
    page.mkdir()
    ours = bundle(app, plot.version(plot.FULL))
    assert plot.provide_script(page, bundle_root=app)
    assert (page / "static" / plot.SCRIPT).read_bytes() == ours.read_bytes()
    assert plot.provide_script(page) and (page / "static" / plot.SCRIPT).read_bytes() == plot.FULL.read_bytes(), \
        "no bundle installed under the page's own folder: the full one"


def test_every_trace_type_the_app_makes_is_in_the_cartesian_bundle():
    """The figures are built with plotly's graph objects (``go.Scatter`` …) in the core's figure modules and the UI
    package; the element's bundle must hold each of their trace types."""
    root = Path(plot.__file__).resolve().parents[1]
    made = set()
    for path in [*(root / "safebandit_core").rglob("*.py"), *(root / "safebandit_ui").rglob("*.py"),
                 *(root / "pages").glob("*.py")]:
        made |= {name.lower() for name in re.findall(r"\bgo\.([A-Z][A-Za-z0-9]*)\(", path.read_text())}
    traces = made - {"figure", "frame", "layout"}
    assert "scatter" in traces and traces <= plot.BUNDLE_TRACES, traces - plot.BUNDLE_TRACES


def test_the_bundle_make_installs_is_the_one_the_element_serves():
    package = json.loads((Path(plot.__file__).resolve().parents[1] / "package.json").read_text())
    assert list(package["dependencies"]) == [plot.BUNDLE.parts[1]]


def test_a_copy_that_fails_is_reported_and_leaves_nothing_behind(tmp_path, monkeypatch):
    def full(src, dst):
        Path(dst).write_bytes(b"part")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(plot.shutil, "copyfile", full)
    assert not plot.provide_script(tmp_path)
    assert list((tmp_path / "static").iterdir()) == []


@pytest.mark.usefixtures("inline_scrub")
def test_a_model_pages_charts_go_through_the_own_element():
    at = open_page("pages/dose.py")
    own = {el.key for el in at.get("bidi_component") if el.proto.component_name == plot.NAME}
    assert {"regret", "violations", "cost", "safe", "g_curve", "scrub"} <= own
    assert not at.get("plotly_chart"), "a model page loads Streamlit's plotly code too"
    assert charts(at)["regret"]["data"], "the regret chart sent no traces"
    assert set(sent(at)) >= own


@pytest.mark.usefixtures("inline_scrub")
def test_without_static_serving_the_charts_fall_back_to_streamlits_element(monkeypatch):
    st.cache_resource.clear()
    monkeypatch.setattr(plot, "provide_script", lambda root=None: False)

    def unused(spec):
        raise AssertionError("a figure was encoded for the own element, which is not used")

    monkeypatch.setattr(plot, "encode", unused)
    try:
        at = open_page("pages/dose.py")
        assert {"regret", "scrub"} <= {el.key for el in at.get("plotly_chart")}
        assert not [el for el in at.get("bidi_component") if el.proto.component_name == plot.NAME]
    finally:
        st.cache_resource.clear()


def test_a_thread_asking_before_the_server_runs_does_not_settle_which_element_draws(monkeypatch):
    """The warm-up may make the pages' charts while the server is still starting: asked then, ``served`` says no
    without deciding (the server's options are not read yet); once the runtime exists, the charts go through the
    own element as before."""
    st.cache_resource.clear()
    asked = []
    decide = plot.provide_script
    monkeypatch.setattr(plot, "provide_script", lambda root=None: asked.append(1) or decide(root))
    try:
        assert not plot.served() and asked == [], "decided with no runtime"
        at = open_page("pages/dose.py")
        assert asked == [1] and "regret" in {el.key for el in at.get("bidi_component")
                                             if el.proto.component_name == plot.NAME}
    finally:
        st.cache_resource.clear()


def test_every_chart_of_the_app_goes_through_the_own_element():
    """One plotly per browser tab, the cartesian bundle's: no page calls Streamlit's plotly element, which would load
    Streamlit's own full bundle beside it (the element falls back to it by itself where it must)."""
    root = Path(plot.__file__).resolve().parents[1]
    calls = [f"{path.relative_to(root)}:{n}" for path in [*(root / "safebandit_ui").rglob("*.py"),
                                                         *(root / "pages").glob("*.py"), root / "app.py"]
             if path.name != "plot.py"
             for n, line in enumerate(path.read_text().splitlines(), 1) if "plotly_chart(" in line]
    assert calls == [], calls
