"""Fixtures of the AppTest tests: st caches emptied per test, or per module where a module shares its data; the
warnings Streamlit logs. Streamlit's loggers do not propagate, so a handler is put on each of them."""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator

import pytest
from streamlit.elements.lib import policies

from tests.ui.browserkit import browser, page, served, server  # noqa: F401  (the browser tests' fixtures)
from tests.ui.helpers import cleared_caches


@pytest.fixture(scope="session", autouse=True)
def one_component_scan() -> Iterator[None]:
    """Each new AppTest scans every installed package's metadata for Streamlit components (65 ms here, about 180
    AppTests a suite run); the installed packages do not change while the suite runs, so one scan serves them all."""
    from streamlit.components.v2 import manifest_scanner

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(manifest_scanner, "scan_component_manifests",
                   functools.cache(manifest_scanner.scan_component_manifests))
        yield


@pytest.fixture
def fresh_caches() -> Iterator[None]:
    """Isolate tests: AppTest shares st.cache_data / st.cache_resource across instances in one process."""
    yield from cleared_caches()


@pytest.fixture
def inline_scrub(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scrub grid computed within the page's run, as a grid timed as quick is: for the tests that look at all of a
    page's charts at its default settings, whose grid the page would otherwise leave to the background."""
    from safebandit_ui import scrub

    monkeypatch.setattr(scrub, "inline", lambda settings, field: True)


@pytest.fixture(scope="module")
def fresh_module_caches() -> Iterator[None]:
    """Start and leave a module with empty st caches, sharing them between its tests."""
    yield from cleared_caches()


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
