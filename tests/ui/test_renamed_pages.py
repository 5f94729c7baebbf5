"""The renamed pages: the old URLs (``/mean_variance``, ``/your_data``, ``/replay_battery``) open the new pages
with the link's settings, a settings file saved with the old kind ``mv`` restores on the mean-variance page, and
presentation mode's ``?model=mv`` opens the mean-variance model.

A browser that opens ``/mean_variance`` asks the server for the page whose hash is that URL path's: the tests do
the same through AppTest's page hash (``AppTest.switch_page`` takes file paths only). One small shape (K = 8,
T = 400, 2 seeds), test_meanvar_page.py's.
"""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from safebandit_core import settings
from safebandit_core.meanvar import MVSettings
from safebandit_ui import registry, shell
from tests.ui.browserkit import Console, wait_idle
from tests.ui.helpers import app, errors, open_page, uploader

SMALL = {"T": 400, "seeds": 2, "K": 8}
pytestmark = pytest.mark.usefixtures("fresh_caches")


def url_paths(at: AppTest) -> dict[str, str]:
    """The URL path of every page the app registered -> its page hash."""
    return {info.get("url_pathname"): page_hash for page_hash, info in at._registered_pages.items()}


def test_each_old_url_is_registered_and_names_a_page_now():
    at = app()
    at.run()
    paths = url_paths(at)
    assert registry.MOVED == {"mean_variance": "pages/meanvar.py", "your_data": "pages/logged.py",
                              "replay_battery": "pages/battery.py"}
    assert {p.path for p in registry.PAGES} >= set(registry.MOVED.values())
    for old, path in registry.MOVED.items():
        assert old in paths and old != path.removeprefix("pages/").removesuffix(".py")
        assert path.removeprefix("pages/").removesuffix(".py") in paths


def test_the_old_mean_variance_url_opens_the_new_page_with_the_links_settings():
    at = app(SMALL)
    at.run()
    at.query_params["rho"] = "40"
    at.query_params["alpha"] = "0.2"
    at._page_hash = url_paths(at)["mean_variance"]
    at.run()
    assert not at.exception and not errors(at)
    assert [t.value for t in at.title] == ["Mean-variance bandits: safe and steady"]
    assert at.slider(key="rho").value == pytest.approx(40.0)
    assert at.slider(key="alpha").value == pytest.approx(0.2)


def test_a_settings_file_of_kind_mv_restores_on_the_meanvar_page():
    at = open_page("pages/meanvar.py", SMALL)
    wanted = MVSettings(K=8, T=400, seeds=2, alpha=0.15, mu0=0.65, rho=40.0, base_seed=5)
    saved = json.dumps({**settings.to_dict(wanted), "kind": "mv"})
    uploader(at, "mv_upload").upload("old.json", saved.encode(), "application/json").run()
    assert not at.exception and not errors(at)
    assert "Restored the settings of old.json." in [s.value for s in at.success]
    assert at.slider(key="rho").value == pytest.approx(40.0)
    assert at.slider(key="mu0").value == pytest.approx(0.65)
    assert at.number_input(key="base_seed").value == 5


def test_presentation_mode_takes_the_old_kind_in_its_link():
    at = app()
    at.query_params["model"] = "mv"
    at.switch_page(shell.PRESENT_PAGE).run()  # the link opens the page itself
    assert not at.exception, [e.message for e in at.exception]
    assert at.segmented_control(key="present_model").value == "meanvar"


@pytest.mark.browser
def test_a_browser_at_the_old_url_lands_on_the_new_one_with_its_query(server, page):
    """After the server's first page view: before it, Streamlit still looks pages up in the pages/ folder, so the very
    first visit of a fresh server to an old URL shows a "page not found" note before it lands."""
    page.goto(server + "/")
    wait_idle(page)
    page.goto(server + "/mean_variance?T=400&seeds=2&K=8&rho=40")
    page.wait_for_url("**/meanvar?**", timeout=120_000)
    page.get_by_text("Mean-variance bandits: safe and steady").first.wait_for(timeout=120_000)
    assert "rho=40" in page.url and "K=8" in page.url
    assert page.get_by_test_id("stException").count() == 0


NOT_FOUND_LOG = "The page that you have requested does not seem to exist"
"""What Streamlit's frontend logs (in the console only) when it runs the main page for an unknown path."""


@pytest.mark.browser
def test_a_browser_at_a_page_the_app_does_not_have_is_told_which_page_opened(server, browser):
    """Streamlit runs the default page for an unknown path and says so only in the browser's console; the page's note
    names the path and the page shown. Nothing else reaches the console."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    console = Console(page)
    page.goto(server + "/")
    wait_idle(page)
    page.goto(server + "/no_such_page")
    page.get_by_text(f"opened {registry.home_title()} instead").first.wait_for(timeout=120_000)
    note = page.get_by_text("There is no page").first.inner_text()
    errors_shown = page.get_by_test_id("stException").count()
    context.close()
    assert errors_shown == 0
    assert "/no_such_page" in note, note
    assert [e for e in console.unexpected() if NOT_FOUND_LOG not in e] == []
