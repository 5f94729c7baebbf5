"""The charts follow the page's theme: the app lets a visitor choose it, the dark look covers every colour of the
light one, and the element's browser code (run here under Node, with the theme's CSS variables stubbed) turns a
figure dark only in a dark theme."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
import tomllib

from safebandit_ui import plot
from tests.ui.helpers import open_page

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
DARK_VARS = {"--st-background-color": "#0e1117", "--st-text-color": "#fafafa",
             "--st-secondary-background-color": "#262730"}
LIGHT_VARS = {"--st-background-color": "#ffffff", "--st-text-color": "#31333f",
              "--st-secondary-background-color": "#f0f2f6"}


def colour_paths(layout: dict[str, Any], path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Where a layout dict holds a single colour (``#...``), as key paths."""
    out: set[tuple[str, ...]] = set()
    for k, v in layout.items():
        if isinstance(v, dict):
            out |= colour_paths(v, (*path, k))
        elif isinstance(v, str) and v.startswith("#"):
            out.add((*path, k))
    return out


def role_paths(over: dict[str, Any], path: tuple[str, ...] = ()) -> dict[tuple[str, ...], str]:
    """The roles :data:`plot.DARK` names, by key path."""
    out: dict[tuple[str, ...], str] = {}
    for k, v in over.items():
        out.update(role_paths(v, (*path, k)) if isinstance(v, dict) else {(*path, k): v})
    return out


def test_the_theme_is_left_to_the_visitor_with_the_apps_accent_in_both():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    theme = config.get("theme", {})
    assert "base" not in theme, "a fixed theme.base hides the menu's theme choice"
    assert theme["light"]["primaryColor"] == theme["dark"]["primaryColor"] == "#1f77b4"
    assert config["client"]["toolbarMode"] == "viewer"  # the menu stays, without the developer's items


def test_the_dark_look_recolours_every_colour_of_the_light_one():
    roles = role_paths(plot.DARK)
    assert set(roles) == colour_paths(plot.THEME)
    assert set(roles.values()) <= {*plot.DARK_ROLES, "clear", "hover"}
    assert json.dumps(plot.DARK) in plot.JS and json.dumps(plot.DARK_ROLES) in plot.JS


def run_js(vars_: dict[str, str], fig: dict[str, Any], tmp_path: Path) -> Any:
    """The element's ``themed(fig, look(el))`` under Node, ``el`` showing the CSS variables ``vars_``."""
    module = tmp_path / "element.mjs"
    module.write_text(plot.JS + "\nexport { look, themed };\n")
    runner = tmp_path / "run.mjs"
    runner.write_text(f"""
globalThis.getComputedStyle = () => ({{ getPropertyValue: (name) => ({json.dumps(vars_)})[name] || "" }});
const {{ look, themed }} = await import({json.dumps(module.as_uri())});
const theme = look({{}});
console.log(JSON.stringify({{ theme: theme, fig: themed({json.dumps(fig)}, theme) }}));
""")
    done = subprocess.run([NODE, str(runner)], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


FIGURE = {
    "data": [{"type": "scatter", "y": [1, 2], "line": {"color": "#000000"}},
             {"type": "scatter", "y": [2, 1], "line": {"color": "#555555"},
              "marker": {"color": ["#B22222", "#0072B2"]}}],
    "layout": {"annotations": [{"text": "δ", "bgcolor": "rgba(255,255,255,0.85)", "font": {"color": "#B22222"}}],
               "shapes": [{"type": "line", "line": {"color": "#7F7F7F"}}],
               "template": plot.TEMPLATE},
}


@pytest.mark.skipif(NODE is None, reason="no node to run the element's browser code")
def test_a_dark_theme_lays_the_dark_look_over_the_template_and_turns_dark_greys_light(tmp_path):
    out = run_js(DARK_VARS, FIGURE, tmp_path)
    text = "rgba(250,250,250,{})"
    assert out["theme"]["colours"] == {"clear": "rgba(0,0,0,0)", "hover": "#262730", "heading": text.format(1),
                                       "text": text.format(0.6), "grid": text.format(0.12)}
    layout = out["fig"]["layout"]["template"]["layout"]
    assert layout["paper_bgcolor"] == layout["plot_bgcolor"] == "rgba(0,0,0,0)"
    assert layout["font"]["color"] == layout["xaxis"]["tickfont"]["color"] == text.format(0.6)
    assert layout["title"]["font"]["color"] == layout["legend"]["font"]["color"] == text.format(1)
    assert layout["yaxis"]["gridcolor"] == layout["hoverlabel"]["bordercolor"] == text.format(0.12)
    assert layout["hoverlabel"]["bgcolor"] == "#262730"
    # what the dark look leaves alone stays the light template's
    assert layout["font"]["family"] == plot.TEMPLATE["layout"]["font"]["family"]
    assert layout["colorway"] == plot.TEMPLATE["layout"]["colorway"]
    assert out["fig"]["layout"]["template"]["data"] == json.loads(json.dumps(plot.TEMPLATE["data"]))
    data = out["fig"]["data"]
    assert data[0]["line"]["color"] == "rgba(255,255,255,1)"  # black -> white
    assert data[1]["line"]["color"] == "rgba(170,170,170,1)"  # #555555 -> #aaaaaa
    assert data[1]["marker"]["color"] == ["#B22222", "#0072B2"]  # colours are kept
    assert data[0]["y"] == [1, 2]
    annotation = out["fig"]["layout"]["annotations"][0]
    assert annotation["bgcolor"] == "rgba(0,0,0,0.85)" and annotation["font"]["color"] == "#B22222"
    assert out["fig"]["layout"]["shapes"][0]["line"]["color"] == "rgba(128,128,128,1)"  # mid grey: its mirror


@pytest.mark.skipif(NODE is None, reason="no node to run the element's browser code")
def test_a_light_theme_draws_the_figure_as_it_was_sent(tmp_path):
    out = run_js(LIGHT_VARS, FIGURE, tmp_path)
    assert out["theme"] is None
    assert out["fig"] == json.loads(json.dumps(FIGURE))


@pytest.mark.usefixtures("inline_scrub")
def test_the_fallback_charts_take_streamlits_theme(monkeypatch):
    st.cache_resource.clear()
    monkeypatch.setattr(plot, "provide_script", lambda root=None: False)
    try:
        at = open_page("pages/dose.py")
        themes = {el.key: el.proto.theme for el in at.get("plotly_chart")}
        assert {"regret", "scrub"} <= set(themes)
        assert set(themes.values()) == {"streamlit"}
    finally:
        st.cache_resource.clear()
