"""Every page's first load, as a new visitor gets it (no state, no URL parameters), logs no Streamlit warning:
not the "created with a default value but also had its value set via the Session State API" of a widget,
nor any other. Streamlit's loggers do not propagate, so a handler is put on each of them."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from streamlit.elements.lib import policies
from streamlit.testing.v1 import AppTest

from safebandit_ui import registry
from tests.ui.helpers import open_page

pytestmark = pytest.mark.usefixtures("fresh_caches")


# What AppTest itself logs because no server runs (test code outside a script run): never seen on a server.
HARNESS = ("can be ignored when running in bare mode", "No runtime found")


class Records(logging.Handler):
    """Keeps every record at WARNING or above."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not any(s in record.getMessage() for s in HARNESS):
            self.records.append(record)


@pytest.fixture
def streamlit_warnings(monkeypatch: pytest.MonkeyPatch) -> Iterator[Records]:
    """The warnings Streamlit logs during a test (its once-per-process widget warning re-armed first)."""
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    handler = Records()
    loggers = [logging.getLogger(name) for name in list(logging.Logger.manager.loggerDict)
               if name == "streamlit" or name.startswith("streamlit.")]
    for log in loggers:
        log.addHandler(handler)
    yield handler
    for log in loggers:
        log.removeHandler(handler)


def test_the_check_sees_the_widget_warning(streamlit_warnings):
    """The check can fail: a widget given a default and also a value through Session State is caught."""
    at = AppTest.from_string("import streamlit as st\nst.session_state.setdefault('n', 3)\n"
                             "st.number_input('n', value=1, key='n')\n").run()
    assert not at.exception
    assert any('"n"' in r.getMessage() and "Session State" in r.getMessage() for r in streamlit_warnings.records)


@pytest.mark.parametrize("path", [p.path for p in registry.PAGES])
def test_a_pages_first_load_logs_no_streamlit_warning(path, streamlit_warnings):
    at = open_page(path, timeout=600)
    assert not at.exception, [e.message for e in at.exception]
    logged = [f"{r.name}: {r.getMessage()}" for r in streamlit_warnings.records]
    assert logged == [], logged


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
