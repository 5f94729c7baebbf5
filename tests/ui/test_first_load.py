"""The check that a page logs no Streamlit warning (``streamlit_warnings``, tests/ui/conftest.py) can fail, and the
preset controls that set other widgets through Session State log none. Every page's first load, as a new visitor
gets it (no state, no URL parameters), is checked the same way by tests/ui/test_links.py, whose garbage test opens
each page that way first, and in a real browser by tests/ui/test_browser.py (the server's log)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.helpers import open_page

pytestmark = pytest.mark.usefixtures("fresh_caches")


def test_the_check_sees_the_widget_warning(streamlit_warnings):
    """The check can fail: a widget given a default and also a value through Session State is caught."""
    at = AppTest.from_string("import streamlit as st\nst.session_state.setdefault('n', 3)\n"
                             "st.number_input('n', value=1, key='n')\n").run()
    assert not at.exception
    assert any('"n"' in r.getMessage() and "Session State" in r.getMessage() for r in streamlit_warnings.records)


def test_choosing_another_preset_or_paper_size_logs_no_widget_warning(streamlit_warnings):
    """The preset selector and *Paper size* set the size boxes through Session State; the boxes then take no
    default of their own (Streamlit warns about a widget given both)."""
    at = open_page("pages/presets.py", timeout=300)
    at.selectbox(key="preset").select("s000-fig2").run()
    at.checkbox(key="preset_full").check().run()
    at.checkbox(key="preset_full").uncheck().run()
    assert not at.exception, [e.message for e in at.exception]
    logged = [f"{r.name}: {r.getMessage()}" for r in streamlit_warnings.records]
    assert logged == [], logged
