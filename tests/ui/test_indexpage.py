"""The first page the browser loads names the server's address, so a page's URL opens without Streamlit's probe."""

from __future__ import annotations

import re
import urllib.request

import pytest

from safebandit_ui import indexpage, registry
from tests.ui.browserkit import Requests, wait_for_charts


def test_the_script_comes_first_in_the_head_and_names_every_page() -> None:
    html = "<html><head><script type=\"module\" src=\"./static/js/index.js\"></script></head></html>"
    out = indexpage.with_script(html, ["dose", "conservative"])
    assert out.index("BACKEND_BASE_URL") < out.index("index.js") and out.count("<script") == 2
    assert '["conservative", "dose"]' in out
    paths = registry.url_paths()
    assert {"dose", "nonlinear", "conservative", "meanvar", "home"} <= set(paths) and "mean_variance" in paths


NOT_HERE = "this Streamlit serves its static files another way (indexpage.supported() is False)"


def test_installing_twice_wraps_streamlits_static_files_once() -> None:
    if not indexpage.supported():
        assert indexpage.install(["dose"]) is False
        pytest.skip(NOT_HERE)
    from streamlit.web.server.starlette import starlette_static_routes as routes

    before = routes.create_streamlit_static_handler
    try:
        assert indexpage.install(["dose"]) and indexpage.install(["dose"])
        assert getattr(routes.create_streamlit_static_handler, "_safebandit", False)
        assert routes.create_streamlit_static_handler is not before or getattr(before, "_safebandit", False)
    finally:
        routes.create_streamlit_static_handler = before


@pytest.mark.browser
def test_a_page_opens_without_probing_its_own_url_for_the_server(server, page) -> None:
    if not indexpage.supported():
        pytest.skip(NOT_HERE)
    for path in ("", "/dose", "/conservative"):
        html = urllib.request.urlopen(server + path, timeout=30).read().decode()
        assert html.count("BACKEND_BASE_URL") == 1, path
    requests = Requests(page)
    page.goto(server + "/dose?T=1000")
    wait_for_charts(page)
    assert page.evaluate("window.__streamlit.BACKEND_BASE_URL") == server + "/"
    assert [u for u in requests.urls if re.search(r"^https?://[^/]+/[^/]+/_stcore/", u)] == []
    assert [u for u in requests.urls if u.endswith("/_stcore/health")] == [server + "/_stcore/health"]
    page.goto(server + "/")
    page.get_by_test_id("stSidebarNavLink").first.wait_for()
    assert page.evaluate("window.__streamlit === undefined")
    other = page.context.new_page()  # Streamlit says in the console that the page does not exist: not this tab's
    other.goto(server + "/no_such_page")
    other.get_by_test_id("stSidebarNavLink").first.wait_for()
    assert other.evaluate("window.__streamlit === undefined")
