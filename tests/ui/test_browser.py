"""The dose page in a real headless browser: it loads, a slider moved by keyboard redraws the charts.

Needs the ``playwright`` Python package and Debian's Chromium at /usr/bin/chromium (no browser
download). Without them the tests skip, saying why, unless SAFEBANDIT_REQUIRE_BROWSER=1, which
turns the skip into a failure (CI sets it). A full-page screenshot goes to artifacts/dose_page.png.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "artifacts"
REQUIRED = os.environ.get("SAFEBANDIT_REQUIRE_BROWSER") == "1"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                "--disable-extensions", "--no-first-run", "--mute-audio"]
CHART = "[data-testid='stPlotlyChart']"
N_CHARTS = 7  # g curve, regret, violations, cost, safe interval, slack, cost distribution

pytestmark = pytest.mark.browser


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium, or a skip (a failure when SAFEBANDIT_REQUIRE_BROWSER=1) naming what is missing."""
    missing = _missing()
    if missing:
        if REQUIRED:
            pytest.fail(f"SAFEBANDIT_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(headless=True, executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(browser, tmp_path_factory):
    """``streamlit run app.py`` on a free port; yields its URL once the health endpoint answers."""
    port = _free_port()
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none"],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    url, deadline = f"http://127.0.0.1:{port}", time.time() + 90
    try:
        while True:
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise RuntimeError("streamlit did not start:\n" + log.read_text()[-3000:]) from None
                time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    yield pg
    context.close()


def wait_idle(pg, timeout_ms: int = 90_000) -> None:
    """Wait until the app is connected and its script is not running."""
    pg.locator("[data-testid='stApp'][data-test-connection-state='CONNECTED']").wait_for(state="attached",
                                                                                        timeout=timeout_ms)
    pg.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(state="attached",
                                                                                      timeout=timeout_ms)


def wait_for_charts(pg, timeout_ms: int = 120_000) -> None:
    """Wait until every dose-page chart is drawn by plotly and the script is idle."""
    pg.wait_for_function(f"document.querySelectorAll(\"{CHART} .js-plotly-plot .main-svg\").length >= {N_CHARTS}",
                         timeout=timeout_ms)
    wait_idle(pg, timeout_ms)


def chart_contents(pg) -> list[str]:
    """What plotly drew: each chart's title and trace values, as JSON strings."""
    return pg.evaluate(f"""() => Array.from(document.querySelectorAll("{CHART} .js-plotly-plot")).map(gd =>
        JSON.stringify({{title: gd.layout.title && gd.layout.title.text,
                        data: gd.data.map(t => [t.name, t.y])}}))""")


def slider_thumb(pg, label: str):
    return pg.get_by_test_id("stSlider").filter(has_text=label).get_by_role("slider")


def save_full_page(pg, path: Path) -> None:
    """A screenshot of the whole page (Streamlit scrolls inside its own container, so grow the viewport)."""
    height = pg.evaluate("""() => Math.max(document.querySelector("[data-testid='stMain']").scrollHeight,
        document.querySelector("[data-testid='stSidebarContent']").scrollHeight)""")
    pg.set_viewport_size({"width": 1400, "height": int(height) + 40})
    pg.wait_for_timeout(1500)
    path.parent.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(path))


def test_dose_page_redraws_when_a_slider_moves(server, page):
    page.goto(server + "/dose")  # the first visit of a fresh server, straight to a page
    wait_for_charts(page)
    assert page.get_by_test_id("stSidebarNavLink").filter(has_text="Dose model").count() == 1
    assert page.get_by_test_id("stSidebar").get_by_text("Device", exact=True).count() == 1
    assert page.get_by_test_id("stException").count() == 0
    before = chart_contents(page)
    assert len(before) == N_CHARTS

    thumb = slider_thumb(page, "Cost limit τ")
    assert thumb.input_value() == "0.5"
    thumb.focus()
    thumb.press("ArrowRight")
    page.wait_for_function("""(old) => {
        const now = Array.from(document.querySelectorAll("[data-testid='stPlotlyChart'] .js-plotly-plot"))
            .map(gd => JSON.stringify({title: gd.layout.title && gd.layout.title.text,
                                       data: gd.data.map(t => [t.name, t.y])}));
        return now.length === old.length && now.filter((c, i) => c !== old[i]).length >= 5;
    }""", arg=before, timeout=60_000)
    wait_for_charts(page)
    after = chart_contents(page)
    assert thumb.input_value() == "0.55"
    assert "tau=0.55" in page.url
    cost_titles = [json.loads(c)["title"] for c in after if "Realized cost" in (json.loads(c)["title"] or "")]
    assert cost_titles and "τ = 0.55" in cost_titles[0]
    assert after[0] == before[0], "the dose-curve plot does not depend on τ"
    assert page.get_by_test_id("stException").count() == 0
    save_full_page(page, ARTIFACTS / "dose_page.png")


def test_settings_in_the_link_are_restored(server, page):
    page.goto(server + "/dose?tau=0.8&kappa_c=0.1")
    wait_for_charts(page)
    assert slider_thumb(page, "Cost limit τ").input_value() == "0.8"
    assert slider_thumb(page, "Cost noise κ_c").input_value() == "0.1"
    titles = [json.loads(c)["title"] or "" for c in chart_contents(page)]
    assert any("τ = 0.8" in t for t in titles)
    assert page.get_by_test_id("stException").count() == 0
