"""The served app starts with ``app.py``'s navigation, not Streamlit's page-folder mode: a fresh server's first
visitor gets one script run of the page they opened, as every later visitor does."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from streamlit.runtime.pages_manager import PagesManager

from safebandit_ui import serve as served_app
from tests.ui.browserkit import serve, wait_idle
from tests.ui.helpers import APP

STATES = """new MutationObserver(records => { for (const r of records) {
    window.__states = (window.__states || []).concat([r.target.getAttribute("data-test-script-state")]); } })
    .observe(document, {attributes: true, subtree: true, attributeFilter: ["data-test-script-state"]});"""
"""An init script: ``window.__states`` lists every script state the page's app element takes, from its first."""


@pytest.fixture
def flag() -> Iterator[None]:
    """Put Streamlit's process-wide page-folder flag back as it was (AppTest sets it afresh for each app)."""
    before = PagesManager.uses_pages_directory
    yield
    PagesManager.uses_pages_directory = before


def test_the_flag_streamlit_reads_exists_and_stays_off_once_set(flag):
    """``navigation_only`` sets a private class flag: fail loudly if Streamlit moves it, and check that a session's
    pages manager, made for an entry point with a ``pages/`` folder beside it, keeps it off."""
    assert hasattr(PagesManager, "uses_pages_directory")
    PagesManager.uses_pages_directory = None
    PagesManager(APP)
    assert PagesManager.uses_pages_directory is True, "app.py has a pages/ folder beside it"
    PagesManager.uses_pages_directory = None
    served_app.navigation_only()
    PagesManager(APP)
    assert PagesManager.uses_pages_directory is False


@pytest.mark.browser
def test_a_fresh_servers_first_visitor_gets_one_script_run(browser, tmp_path):
    """Without it the first visitor's page ran twice (its file on its own, then through the navigation): the
    browser saw running, notRunning, running, notRunning."""
    with serve(tmp_path / "server.log") as url:
        context = browser.new_context()
        try:
            pg = context.new_page()
            pg.add_init_script(STATES)
            pg.goto(f"{url}/about")
            wait_idle(pg)
            pg.locator("h1").filter(has_text="About").first.wait_for(timeout=60_000)
            pg.wait_for_timeout(1000)  # time for a second run to start, were there one
            assert pg.evaluate("window.__states") == ["running", "notRunning"]
        finally:
            context.close()
