"""The app's private Streamlit calls: all in :mod:`safebandit_ui.stprivate`, and all still there.

This file fails loudly when an upgrade of Streamlit moves one of the internals the app uses, and when a module
other than the guarded one starts reaching into Streamlit's private modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import streamlit as st

from safebandit_ui import stprivate
from tests.conftest import ROOT

PUBLIC = {"streamlit", "streamlit.components.v2", "streamlit.web.cli", "streamlit.web", "streamlit.testing.v1"}
"""Streamlit's public entry points: the ``st`` namespace, custom components, the ``streamlit`` command's own
function (``serve`` runs it in-process) and AppTest."""


def streamlit_imports(path: Path) -> set[str]:
    """The Streamlit modules a file imports (``from streamlit.x import y`` gives ``streamlit.x``, and
    ``from streamlit import runtime`` gives ``streamlit.runtime``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "streamlit"}
        elif isinstance(node, ast.ImportFrom) and node.module == "streamlit":
            found |= {f"streamlit.{a.name}" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "streamlit":
            found.add(node.module)
    return found


def test_the_installed_streamlit_has_every_internal_the_app_uses():
    """Each private name :mod:`safebandit_ui.stprivate` reaches is where it expects, in a release it was read
    from."""
    assert stprivate.problems() == []


def test_a_streamlit_outside_the_tested_releases_is_refused_by_name(monkeypatch):
    """A newer release than the module was read from stops the app with a message naming the release, instead of
    dropping a link's note without a word."""
    monkeypatch.setattr(st, "__version__", "1.99.0")
    with pytest.raises(stprivate.StreamlitChanged, match=r"Streamlit 1\.99\.0 is outside the releases 1\.60–1\.69"):
        stprivate.check()


def test_a_moved_field_is_named(monkeypatch):
    """When the URL snapshot's field moves, the message names it."""
    from streamlit.runtime.state.query_params import QueryParams

    monkeypatch.delattr(QueryParams, "_send_query_param_msg")
    assert "QueryParams._send_query_param_msg is gone" in stprivate.problems()


def test_requirements_allow_only_the_tested_releases():
    """``pip install`` cannot bring a Streamlit the guard refuses: requirements.txt caps it below the next minor
    release after :data:`safebandit_ui.stprivate.TESTED`."""
    (_, _), (major, minor) = stprivate.TESTED
    line = next(x for x in (ROOT / "requirements.txt").read_text().splitlines() if x.startswith("streamlit"))
    assert f"<{major}.{minor + 1}" in line, line


def test_no_module_but_the_guarded_one_imports_a_private_streamlit_module():
    """The app, its pages and the core import only Streamlit's public entry points; the private ones live in
    :mod:`safebandit_ui.stprivate` alone."""
    files = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "safebandit_ui").rglob("*.py"),
             *(ROOT / "safebandit_core").rglob("*.py")]
    private = {f.relative_to(ROOT).as_posix(): sorted(streamlit_imports(f) - PUBLIC)
               for f in files if f.name != "stprivate.py"}
    assert {f: mods for f, mods in private.items() if mods} == {}
    assert streamlit_imports(ROOT / "safebandit_ui" / "stprivate.py") - PUBLIC, "the guarded module reaches nothing"


def test_a_moved_page_intent_is_named(monkeypatch):
    """The page a run asked for (read to name a link to a page the app does not have) is checked like the rest."""
    from streamlit.runtime.pages_manager import PagesManager

    monkeypatch.delattr(PagesManager, "intended_page_name")
    assert "PagesManager.intended_page_name is gone" in stprivate.problems()
