"""A real headless browser against a real ``streamlit run app.py``: the fixtures and helpers the browser tests share.

Needs the ``playwright`` Python package and Debian's Chromium at /usr/bin/chromium (no browser
download). Without them the tests skip, saying why, unless SAFEBANDIT_REQUIRE_BROWSER=1, which
turns the skip into a failure (CI sets it). Every server listens on 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.xlaflags import FULL_OPT_ENV, LARGE_RUN_ROUNDS, SERVER_XLA_FLAGS, TEST_XLA_FLAGS, with_server_flags

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "artifacts"
REQUIRED = os.environ.get("SAFEBANDIT_REQUIRE_BROWSER") == "1"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                "--disable-extensions", "--no-first-run", "--mute-audio"]
CHART = ":is([data-testid='stPlotlyChart'], .sb-chart)"
"""A chart's box: Streamlit's plotly element, or the app's own (``safebandit_ui.plot.BOX_CLASS``, spelled out so that
this kit imports no part of the app; a test checks that the two agree)."""
N_CHARTS = 6  # g curve, regret, violations, cost, safe interval, scrub (slack and one round: closed boxes)

pytestmark = pytest.mark.browser


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


def free_port() -> int:
    """A loopback port free now (another process may take it before a server binds it: see :data:`PORT_TRIES`)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium, or a skip (a failure when SAFEBANDIT_REQUIRE_BROWSER=1) naming what is missing.

    One per test process: every test opens its own context (its own cookies, storage and session)."""
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


def server_env(env: dict[str, str] | None = None, as_app: bool = False) -> dict[str, str]:
    """The environment a server starts with: this process's, the repository on ``PYTHONPATH``, then ``env``.

    A test server compiles at the test servers' XLA level (``SERVER_XLA_FLAGS``, tests/xlaflags.py), its large runs
    at XLA's full level (``LARGE_RUN_ROUNDS``), and runs the warm-up and computes ahead only when ``env`` turns them
    on (the suite's default is off). ``as_app`` starts it as ``make run`` does instead, for ``make bench``: XLA's
    default level, the warm-up and computing ahead on, whatever this process inherited."""
    out = {**os.environ, "PYTHONPATH": str(ROOT)}
    if as_app:
        out["XLA_FLAGS"] = out.get("XLA_FLAGS", "").replace(TEST_XLA_FLAGS, "").replace(SERVER_XLA_FLAGS, "").strip()
        out["SAFEBANDIT_WARMUP"] = "1"  # safebandit_ui.warmup.OFF_ENV
        out["SAFEBANDIT_AHEAD"] = "1"  # safebandit_ui.ahead.OFF_ENV
        out.pop(FULL_OPT_ENV, None)
    else:
        out["XLA_FLAGS"] = with_server_flags(out.get("XLA_FLAGS", ""))
        out[FULL_OPT_ENV] = str(LARGE_RUN_ROUNDS)
    return {**out, **(env or {})}


PORT_TRIES = 3
"""How many free ports a server is started on before its start counts as failed: a port found free can be taken by
another process before the server binds it, and that server then exits saying "Port N is not available"."""


def listening(log: Path, port: int) -> bool:
    """Whether the server's log says it is listening on ``port``: Streamlit prints its URL once it has bound it, so
    a health answer without that line came from another process on the port."""
    return f"127.0.0.1:{port}" in log.read_text(errors="replace")


def healthy(url: str) -> bool:
    """Whether a server at ``url`` answers its health endpoint with ``ok`` (False while nothing listens yet)."""
    try:
        return urllib.request.urlopen(url + "/_stcore/health", timeout=1).read() == b"ok"
    except OSError:
        return False


def start(command: Callable[[int], list[str]], log: Path, cwd: Path, env: dict[str, str], wait_s: float = 90,
          started: list[subprocess.Popen] | None = None) -> tuple[subprocess.Popen, str]:
    """Start the server ``command(port)`` on a free loopback port, its output in ``log``; return it and its URL once
    the health endpoint answers and its log shows it bound that port. A port taken between the look-up and the bind
    is tried again on another, :data:`PORT_TRIES` in all; any other failed start raises with the log's end.
    ``started`` receives each process started."""
    for attempt in range(PORT_TRIES):
        port = free_port()
        with open(log, "w") as out:
            proc = subprocess.Popen(command(port), cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
        if started is not None:
            started.append(proc)
        url, deadline = f"http://127.0.0.1:{port}", time.time() + wait_s
        while proc.poll() is None and time.time() <= deadline:
            if healthy(url) and listening(log, port):
                return proc, url
            time.sleep(0.25)
        taken = proc.poll() is not None and f"Port {port} is not available" in log.read_text(errors="replace")
        _stop(proc)
        if not (taken and attempt + 1 < PORT_TRIES):
            break
    raise RuntimeError("the server did not start:\n" + log.read_text(errors="replace")[-3000:])


@contextlib.contextmanager
def serve(log: Path, env: dict[str, str] | None = None,
          started: list[subprocess.Popen] | None = None, as_app: bool = False,
          script: str | None = None) -> Iterator[str]:
    """The server as ``make run`` starts it (:mod:`safebandit_ui.serve`: the core imported and the warm-up
    begun first, then ``streamlit run app.py``) on a free loopback port, with :func:`server_env`'s environment;
    yields its URL once the health endpoint answers and its log shows it bound the port (a port taken between the
    look-up and the bind is tried again on another, :data:`PORT_TRIES` in all), and stops it (terminate, then kill)
    afterwards. ``started`` receives the process. ``script`` (a path in the repository) is served by plain
    ``streamlit run`` instead of the app: ``make bench`` measures Streamlit's own floor with it."""
    command = [sys.executable, "-m", *(("safebandit_ui.serve",) if script is None else ("streamlit", "run", script)),
               "--server.headless", "true", "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
    proc, url = start(lambda port: [*command, "--server.port", str(port)], log, ROOT, server_env(env, as_app),
                      started=started)
    try:
        yield url
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    """Stop a server: terminate, then kill after 15 s."""
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


@dataclasses.dataclass(frozen=True)
class Served:
    """A running server: its URL and the file its output goes to."""

    url: str
    log: Path


@pytest.fixture(scope="session")
def served(browser, tmp_path_factory) -> Iterator[Served]:
    """One server (warm-up off) for every browser test of a test process that needs no fresh one: each test is a
    new visitor (its own browser context, so its own session), and the server compiles each shape once."""
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with serve(log) as url:
        yield Served(url, log)


@pytest.fixture
def server(served: Served) -> str:
    """The URL of the shared server."""
    return served.url


class Requests:
    """Every URL a page asked for; ``foreign()`` lists the ones to a host that is not this machine."""

    LOCAL = ("127.0.0.1", "localhost", "::1", "[::1]")

    def __init__(self, pg) -> None:
        self.urls: list[str] = []
        pg.on("request", lambda r: self.urls.append(r.url))

    def foreign(self) -> list[str]:
        out = []
        for u in self.urls:
            parts = urllib.parse.urlsplit(u)
            if parts.scheme in ("data", "blob", "about", "chrome", "chrome-extension"):
                continue
            if parts.hostname not in self.LOCAL:
                out.append(u)
        return out


class Console:
    """Every console error and uncaught page error; ``unexpected()`` lists them but Streamlit's own probes.

    Opening a sub-path that is not one of the app's pages (``/no_such_page``) makes Streamlit's frontend ask
    ``/no_such_page/_stcore/health`` and ``/no_such_page/_stcore/host-config`` first, which answer 404 before it
    falls back to the root ones (harmless: Streamlit's frontend finds the server's address that way). Anything else
    in the console is a defect of the page.
    """

    PROBE = re.compile(r"^/[^/]+/_stcore/(health|host-config)$")
    INTERRUPTED = "API call to Plotly.animate rejected"
    """Plotly's own note when an animation is interrupted (Pause, or a slider step while playing): its buttons leave
    the rejected promise unhandled, so the browser also reports an uncaught ``undefined``. Harmless: the new
    animation runs. Each such note excuses exactly one uncaught ``undefined``."""

    def __init__(self, pg) -> None:
        self.errors: list[tuple[str, str]] = []  # (text, url of the source)
        self.interrupted = 0
        pg.on("console", self._console)
        pg.on("pageerror", lambda e: self.errors.append((f"uncaught: {e}", "")))

    def _console(self, m) -> None:
        if m.type == "error":
            self.errors.append((m.text, m.location.get("url", "")))
        elif self.INTERRUPTED in m.text:
            self.interrupted += 1

    @classmethod
    def is_probe(cls, text: str, url: str) -> bool:
        """A failed request of Streamlit's sub-path health or host-config probe."""
        return text.startswith("Failed to load resource") and bool(cls.PROBE.match(urllib.parse.urlsplit(url).path))

    def unexpected(self) -> list[str]:
        """Every error but the probes and the uncaught rejections of interrupted animations, with its source."""
        excused, out = self.interrupted, []
        for text, url in self.errors:
            if text == "uncaught: undefined" and excused:
                excused -= 1
            elif not self.is_probe(text, url):
                out.append(f"{text} ({url})")
        return out


@pytest.fixture
def page(browser):
    """A 1400 × 1000 page; the test fails when the console showed an error other than Streamlit's probes."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    console = Console(pg)
    yield pg
    context.close()
    assert console.unexpected() == [], f"console errors: {console.unexpected()[:5]}"


def wait_idle(pg, timeout_ms: int = 90_000) -> None:
    """Wait until the app is connected and its script is not running."""
    pg.locator("[data-testid='stApp'][data-test-connection-state='CONNECTED']").wait_for(state="attached",
                                                                                        timeout=timeout_ms)
    pg.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(state="attached",
                                                                                      timeout=timeout_ms)


WATCH_RUNS = """(() => { window.__reruns = 0; window.__runsEnded = 0;
    const hook = () => { const app = document.querySelector("[data-testid='stApp']");
        if (!app) return false;
        new MutationObserver(records => { for (const r of records) {
            const ended = r.oldValue === "running";
            if (ended) window.__runsEnded += 1;
            if (ended || app.getAttribute("data-test-script-state") === "running") window.__reruns += 1;
        } }).observe(app, {attributes: true, attributeOldValue: true, attributeFilter: ["data-test-script-state"]});
        return true; };
    if (!hook()) { const seek = new MutationObserver(() => { if (hook()) seek.disconnect(); });
        seek.observe(document, {childList: true, subtree: true}); } })()"""
"""Script that watches the page's script runs from now on (``page.evaluate``), or from the page's first run
(``context.add_init_script``, before the app is on the page). ``window.__reruns`` counts runs seen starting or ending
(more than once a run is fine; 0 means none): a quick run can start and end within one batch of mutation records,
and the state read when the batch arrives is then already "notRunning". ``window.__runsEnded`` counts finished runs,
so a wait can tell a page whose run has ended from one whose run has not started yet (both are idle)."""


_RUNS: weakref.WeakKeyDictionary[Any, list[int]] = weakref.WeakKeyDictionary()


def finished_runs(pg) -> list[int]:
    """A one-element list counting the whole script runs the server reports finished to ``pg`` from now on, read
    from its websocket (Streamlit's ``script_finished`` message): a count that misses no run however quick, where
    the page's script-state attribute shows a run only if the page is drawn between its start and its end. A run cut
    short for the next one and a fragment's own run do not count. Call it before the page opens its websocket."""
    if pg not in _RUNS:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        count = _RUNS[pg] = [0]

        def seen(data: Any) -> None:
            if isinstance(data, bytes | bytearray) and len(data) < 256:  # the message is tiny; charts are not parsed
                msg = ForwardMsg.FromString(bytes(data))
                if msg.WhichOneof("type") == "script_finished" \
                        and msg.script_finished == ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY:
                    count[0] += 1

        pg.on("websocket", lambda ws: ws.on("framereceived", seen))
    return _RUNS[pg]


def wait_for_run(pg, after: int, timeout_ms: int = 120_000, what: str = "the action") -> None:
    """Wait until more than ``after`` script runs have finished on ``pg`` (:func:`finished_runs`): the run an action
    caused is over, whether or not the page was ever seen running."""
    runs = finished_runs(pg)
    deadline = time.perf_counter() + timeout_ms / 1000
    while runs[0] <= after:
        if time.perf_counter() > deadline:
            raise TimeoutError(f"no script run finished within {timeout_ms / 1000:.0f} s of {what}")
        pg.wait_for_timeout(5)  # lets the websocket's messages reach this process


def switch_on(container, label: str, tries: int = 3) -> None:
    """Click the toggle ``label`` in ``container`` until its switch shows on. About one click in ten on the
    step-through's toggle, right after its box opened, left the switch off and sent nothing (the page got no click;
    a visitor would click again), so the click is repeated, at most ``tries`` times."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    switch = container.get_by_test_id("stCheckbox").filter(has_text=label).locator("input").first
    for _ in range(tries):
        container.get_by_text(label, exact=True).click()
        with contextlib.suppress(PlaywrightTimeout):
            switch.page.wait_for_function("el => el.checked", arg=switch.element_handle(), timeout=10_000)
            return
    raise AssertionError(f"the switch {label!r} stayed off after {tries} clicks")


WAITING_KEY = "scrub_waiting"
"""The key of the scrub chart's background note (``safebandit_ui.scrub.WAITING_KEY``, spelled out so that this kit
imports no part of the app; a test checks that the two agree)."""

def drawn(min_charts: int = 0) -> str:
    """The page is finished: connected, its run ended (when :data:`WATCH_RUNS` watches it), no element still loading
    its code (Streamlit shows a skeleton until then), no scrub grid still computed in the background, at least
    ``min_charts`` chart boxes on it and every chart box holding a drawn plotly chart. ``min_charts`` matters on a
    page just opened: a run that ended before the page's charts arrived (the first run of a new session can be
    followed by another) leaves a page with no box yet, where "every box drawn" holds."""
    return f"""() => {{ const app = document.querySelector("[data-testid='stApp']");
    const boxes = Array.from(document.querySelectorAll("{CHART}"));
    return app !== null && app.getAttribute("data-test-connection-state") === "CONNECTED"
        && app.getAttribute("data-test-script-state") === "notRunning"
        && (window.__runsEnded === undefined || window.__runsEnded > 0)
        && document.querySelector("[data-testid='stSkeleton'], .st-key-{WAITING_KEY}") === null
        && boxes.length >= {int(min_charts)} && boxes.every(box => box.querySelector(".js-plotly-plot .main-svg"));
}}"""


def wait_drawn(pg, timeout_ms: int = 120_000, min_charts: int = 0) -> None:
    """Wait until the page is finished as :func:`drawn` says (at once on a finished page without charts): what a
    visitor sees as a finished page. For a page just opened, watch its runs first (:data:`WATCH_RUNS`): right after
    it connects, before its run starts, it is idle too; and name how many charts it has at least."""
    pg.wait_for_function(drawn(min_charts), timeout=timeout_ms)


def charts_drawn(n_charts: int, within: str = CHART) -> str:
    """A JavaScript condition: at least ``n_charts`` plotly charts under ``within`` are drawn (each counted once,
    though plotly draws three ``.main-svg`` layers a chart)."""
    return f"""Array.from(document.querySelectorAll("{within} .js-plotly-plot"))
        .filter(gd => gd.querySelector(".main-svg")).length >= {int(n_charts)}"""


def wait_for_charts(pg, timeout_ms: int = 120_000, n_charts: int = N_CHARTS) -> None:
    """Wait until ``n_charts`` charts (every dose-page chart by default) are drawn by plotly and the script is idle."""
    pg.wait_for_function(charts_drawn(n_charts), timeout=timeout_ms)
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


