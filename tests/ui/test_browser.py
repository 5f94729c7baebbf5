"""The dose page in a real headless browser: it loads, a slider moved by keyboard redraws the charts.

Needs the ``playwright`` Python package and Debian's Chromium at /usr/bin/chromium (no browser
download). Without them the tests skip, saying why, unless SAFEBANDIT_REQUIRE_BROWSER=1, which
turns the skip into a failure (CI sets it). A full-page screenshot goes to artifacts/dose_page.png.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from safebandit_core import families
from safebandit_ui import registry
from tests.ui.browserkit import (
    ARTIFACTS,
    CHART,
    N_CHARTS,
    WATCH_RUNS,
    Requests,
    chart_contents,
    save_full_page,
    slider_thumb,
    switch_on,
    wait_drawn,
    wait_for_charts,
    wait_idle,
)

pytestmark = pytest.mark.browser


def test_dose_page_redraws_when_a_slider_moves(server, page):
    requests = Requests(page)
    page.goto(server + "/dose")  # the first visit of a fresh server, straight to a page
    wait_for_charts(page)
    assert page.get_by_test_id("stSidebarNavLink").get_by_text("Dose model", exact=True).count() == 1
    assert page.get_by_test_id("stSidebar").get_by_text("Device", exact=True).count() == 1
    assert page.get_by_test_id("stException").count() == 0
    before = chart_contents(page)
    assert len(before) == N_CHARTS

    thumb = slider_thumb(page, "Cost limit τ")
    assert thumb.input_value() == "0.5"
    thumb.focus()
    thumb.press("ArrowRight")
    page.wait_for_function("""(old) => {
        const now = Array.from(document.querySelectorAll("{CHART} .js-plotly-plot"))
            .map(gd => JSON.stringify({title: gd.layout.title && gd.layout.title.text,
                                       data: gd.data.map(t => [t.name, t.y])}));
        return now.length === old.length && now.filter((c, i) => c !== old[i]).length >= 4;
    }""".replace("{CHART}", CHART), arg=before, timeout=60_000)
    wait_for_charts(page)
    after = chart_contents(page)
    assert thumb.input_value() == "0.55"
    assert "tau=0.55" in page.url
    cost_titles = [json.loads(c)["title"] for c in after if "Realized cost" in (json.loads(c)["title"] or "")]
    assert cost_titles and "τ = 0.55" in cost_titles[0]
    assert after[0] == before[0], "the dose-curve plot does not depend on τ"
    assert json.loads(after[-1])["data"] == json.loads(before[-1])["data"], "the scrub chart moved with the page's τ"
    assert page.get_by_test_id("stException").count() == 0
    save_full_page(page, ARTIFACTS / "dose_page.png")
    assert requests.urls and requests.foreign() == [], f"requests left the machine: {requests.foreign()[:5]}"


def test_settings_in_the_link_are_restored(server, page):
    page.goto(server + "/dose?tau=0.8&kappa_c=0.1")
    wait_for_charts(page)
    assert slider_thumb(page, "Cost limit τ").input_value() == "0.8"
    assert slider_thumb(page, "Side-effect noise").input_value() == "0.1"
    titles = [json.loads(c)["title"] or "" for c in chart_contents(page)]
    assert any("τ = 0.8" in t for t in titles)
    assert page.get_by_test_id("stException").count() == 0


def test_step_through_plays_in_the_browser_without_a_rerun(server, page):
    page.goto(server + "/dose?T=1000")
    wait_for_charts(page)
    animated = """() => Array.from(document.querySelectorAll("{CHART} .js-plotly-plot"))
        .some(gd => gd.layout && gd.layout.updatemenus && gd.layout.updatemenus.length)""".replace("{CHART}", CHART)
    page.get_by_text("Step through one run, round by round").click()
    toggle = page.get_by_text("Show the animation", exact=True)
    toggle.wait_for(state="visible", timeout=30_000)
    page.wait_for_timeout(500)  # the expander's opening animation
    switch_on(page, "Show the animation")
    wait_idle(page, 180_000)
    page.wait_for_function(animated, timeout=180_000)
    wait_for_charts(page)
    page.evaluate(WATCH_RUNS)
    title = """() => { const gd = Array.from(document.querySelectorAll("{CHART} .js-plotly-plot"))
        .find(g => g.layout.updatemenus && g.layout.updatemenus.length); return gd.layout.title.text; }""".replace(
        "{CHART}", CHART)
    before = page.evaluate(title)
    play = page.locator(".updatemenu-button").filter(has_text="Play").first
    play.scroll_into_view_if_needed()
    play.dispatch_event("click")
    page.wait_for_function(f"() => ({title})() !== {json.dumps(before)}", timeout=20_000)
    page.wait_for_timeout(1500)
    assert page.evaluate(title) != before, "the animation did not advance"
    assert page.evaluate("window.__reruns") == 0, "playing the animation made the server rerun the page"


def test_logged_page_takes_an_uploaded_csv_and_draws_the_replay(server, page):
    import gzip

    from tests.ui.browserkit import ROOT

    raw = gzip.decompress((ROOT / "safebandit_core/logged/examples/dose_log.csv.gz").read_bytes())
    rows = raw.decode().splitlines()[:1201]  # a smaller log of the same layout, uploaded as a plain CSV
    requests = Requests(page)
    page.goto(server + "/logged?yd_source=upload&yd_T=600&yd_seeds=2")
    page.get_by_text("Upload a CSV or Parquet file").first.wait_for(timeout=60_000)
    page.locator("[data-testid='stFileUploader'] input[type=file]").set_input_files(
        files=[{"name": "my_log.csv", "mimeType": "text/csv", "buffer": "\n".join(rows).encode()}])
    page.get_by_text("my_log.csv").first.wait_for(timeout=60_000)
    wait_for_charts(page, n_charts=3)
    assert page.get_by_test_id("stException").count() == 0
    assert page.get_by_test_id("stAlertContentError").count() == 0
    cut = page.evaluate("""() => Array.from(document.querySelectorAll("[data-testid='stMetric'] *"))
        .filter(el => el.scrollWidth > el.clientWidth + 1).map(el => el.textContent)""")
    assert page.get_by_test_id("stMetric").count() >= 8 and cut == [], f"cut off at 1400 px: {cut}"
    assert requests.foreign() == []


def test_the_console_check_lets_only_streamlits_probes_through():
    """What the page fixture forgives (no browser needed): the 404s of ``/<page>/_stcore/health`` and
    ``host-config``; a 404 elsewhere, a JavaScript error or a foreign font is an error."""
    from tests.ui.browserkit import Console

    fail = "Failed to load resource: the server responded with a status of 404 (Not Found)"
    assert Console.is_probe(fail, "http://127.0.0.1:8501/dose/_stcore/health")
    assert Console.is_probe(fail, "http://127.0.0.1:8501/presets/_stcore/host-config")
    assert not Console.is_probe(fail, "http://127.0.0.1:8501/_stcore/health")
    assert not Console.is_probe(fail, "http://127.0.0.1:8501/dose/static/app.js")
    assert not Console.is_probe(fail, "https://fonts.gstatic.com/s/i/short-term/release/materialsymbolsrounded/x.svg")
    assert not Console.is_probe("Uncaught TypeError: x is undefined", "http://127.0.0.1:8501/dose/_stcore/health")


SCRUBBED = sorted({e.page for f in families.FAMILIES.values() if f.scrub and (e := registry.entry(f.kind)).spec})
"""The model pages with a scrub chart."""


@pytest.fixture(scope="module")
def visitor(browser):
    """One browser context for the first-load tests of this test process: each page is a new tab, so a new session
    (the first with an empty cache, the app's scripts cached for the others, as for a visitor going on to the next
    link). Its run watcher is installed in every tab before the page's own scripts."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(WATCH_RUNS)
    yield context
    context.close()


def test_four_model_pages_have_a_scrub_chart():
    assert SCRUBBED == ["pages/conservative.py", "pages/dose.py", "pages/meanvar.py", "pages/nonlinear.py"]


@pytest.mark.parametrize("spec", registry.PAGES, ids=[Path(spec.path).stem for spec in registry.PAGES])
def test_a_pages_first_load_leaves_the_console_and_the_server_log_clean(visitor, served, spec):
    """A visitor opening the page straight from its address, until every chart on it is drawn: no console error
    but Streamlit's probes, and no warning or traceback in the server's log (the server the browser tests of this
    process share; its whole log is checked, from its start). A model page is finished once its scrub chart is drawn
    too, after its grid was computed in the background where it takes longer than the page may wait. One test per
    page, so that the two test processes share the pages."""
    from tests.ui.browserkit import Console

    pg = visitor.new_page()
    console = Console(pg)
    pg.goto(f"{served.url}/{'' if spec.default else Path(spec.path).stem}")
    wait_drawn(pg, 300_000, min_charts=1 if spec.path in SCRUBBED else 0)
    scrubs = pg.locator(".st-key-scrub .js-plotly-plot .main-svg").count()
    pg.close()
    assert console.unexpected() == []
    assert spec.path not in SCRUBBED or scrubs > 0, "finished without its scrub chart"
    text = served.log.read_text().splitlines()
    lines = [i for i, line in enumerate(text) if "WARNING" in line or "Traceback" in line or "Error" in line]
    assert lines == [], "\n".join(text[lines[0]:lines[0] + 40]) if lines else ""
