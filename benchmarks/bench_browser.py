"""What a person waits for, in a real headless Chromium against the served app, per model page, each against its
target (2-core machine, the browser on the same cores).

Per model page (dose, non-linear, conservative, mean-variance), the rows of issue 22's table:

- first visit on a fresh server, its warm-up still running (compile cache warm);
- first visit once the warm-up has finished (each page's first visit on that server);
- reload with the same settings (served from the shared store);
- one slider step on the knob the model is about (the median of several steps, each as soon as the last has
  settled; each a new run), then as many again, each a second after the last (no target: what a visitor who looks
  at each step's charts waits for, the server having computed the step ahead meanwhile);
- T changed (fixed chunks with a masked tail: no compilation);
- d, |F| or K changed inside its padded width (no compilation);

Beside each page's first visit and reload, the same two on two floor pages served by plain ``streamlit run``:
Streamlit's floor (:mod:`benchmarks.floor_app`, a page with one line of text) and the floor of a page with one chart
(:mod:`benchmarks.floor_chart_app`, the same page with one slider and one small plotly chart drawn by the app's own
element, plotly's code included), and beside each page's slider steps the one-chart page's own steps (each redraws its
chart), so each row can be read against what Streamlit alone, and Streamlit with plotly, cost this machine at that
moment;

then 30 sessions opening model pages at once on the warm server, as clients of Streamlit's own websocket
protocol (:mod:`tests.ui.wsclient`: 30 Chromium tabs on 2 cores would time the browsers, not the server),
and 8 sessions at once on a fresh server, twice: as websocket clients (the server's answers, against issue 22's
30 s) and as 8 Chromium sessions (the same, with 8 browsers drawing on the server's 2 cores: what one machine
hosting a whole class would see). ``--quick``: two pages, fewer steps, 10 and 4 sessions.

A visit is over when the browser's own signal says so (``data-test-script-state`` on ``stApp`` back to
``notRunning``) and every chart container on the page holds a drawn plotly chart (:data:`SETTLED`); an action
is over when a script run has finished after it (counted from the websocket's messages, so a run too quick for the
page to show is not missed), the charts' data differ from before and no chart is still waiting to be redrawn. Each
row's note also gives the time until the charts in the window were drawn (``in view``): what a visitor sees first,
while the charts further down are still drawn.
No fixed waits. After a change that makes the page compute a new scrub grid in the background (T, a size), the bench
waits until that chart is drawn, so the next row (and the next page's first visit) does not share the server's cores
with it; the row's note says when it was drawn (the row itself ends with the charts above it, as the page does).

Skipped with a note when Playwright or Chromium is missing.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHARTS = ":is([data-testid='stPlotlyChart'], .sb-chart)"
"""A chart's box: Streamlit's plotly element, or the app's own (``safebandit_ui.plot.BOX_CLASS``)."""
TIMEOUT_MS = 240_000
TARGETS = {"first visit, fresh server (warm-up running)": None, "first visit after the warm-up": 2.0,
           "reload, same settings": 0.7, "one slider step (median)": 0.5,
           "one slider step, a second after the last (median)": None, "T changed": 1.0,
           "size changed inside its width": 1.0}
"""Seconds per row (None: reported, no target). Issue 22 sets the first visit, reload and slider targets."""
SESSIONS_S, FRESH_SESSIONS_S = 20.0, 30.0
PAUSE_S = 1.0
"""The pause before each step of the second series of slider steps: a visitor who looks at a step's charts before the
next finds that step's run made ahead (the first series steps again as soon as a step has settled)."""


@dataclass(frozen=True)
class ModelPage:
    """A model page and what the bench moves on it: the knob's slider, T's box, and a size box with two values
    inside one padded width."""

    path: str
    knob: str
    size: str
    size_value: str
    T_value: str


PAGES = (ModelPage("dose", "Cost limit τ", "Context dimension d", "6", "2500"),
         ModelPage("nonlinear", "Cost limit τ", "Class size |F|", "63", "2500"),
         ModelPage("conservative", "α (tolerated loss)", "K (arms)", "73", "10500"),
         ModelPage("meanvar", "ρ (weight of the mean", "K (arms)", "25", "10500"))

FINGERPRINT = """() => Array.from(document.querySelectorAll("CHARTS .js-plotly-plot")).map(gd =>
  (gd.data || []).map(t => { const y = t.y && t.y.bdata !== undefined ? t.y.bdata : t.y;
    return y ? `${y.length}:${String(y.slice(0, 24))}:${String(y.slice(-24))}` : ""; }).join("|")).join("#")
""".replace("CHARTS", CHARTS)
"""Each chart's y values in short (plotly keeps a base64 array as sent: its text's ends), to see the data change."""
SETTLED = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute("data-test-script-state") !== "notRunning"
      || app.getAttribute("data-test-connection-state") !== "CONNECTED") return false;
  const boxes = Array.from(document.querySelectorAll("CHARTS"));
  return boxes.length > 0 && document.querySelector("[data-testid='stSkeleton']") === null
    && boxes.every(b => b.querySelector(".js-plotly-plot .main-svg")
                        && !(b.firstElementChild && b.firstElementChild.__sbNext));
}""".replace("CHARTS", CHARTS)
"""Every chart is drawn with the figure it was last sent: the script idle, every chart box holding a drawn plotly
chart (a chart has three ``.main-svg`` layers, so the box is what is counted), and none of the app's own chart boxes
holding a figure still to draw (``__sbNext``, set while a chart off the window waits for the browser's idle time)."""


IN_VIEW = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute("data-test-script-state") !== "notRunning"
      || app.getAttribute("data-test-connection-state") !== "CONNECTED") return false;
  const boxes = Array.from(document.querySelectorAll("CHARTS"));
  const seen = boxes.filter(b => { const r = b.getBoundingClientRect();
    return r.width > 0 && r.bottom >= 0 && r.top < window.innerHeight; });
  return seen.length > 0 && document.querySelector("[data-testid='stSkeleton']") === null
    && seen.every(b => b.querySelector(".js-plotly-plot .main-svg"));
}""".replace("CHARTS", CHARTS)
"""What a visitor sees is finished: the script idle and every chart box in the window drawn (a box not drawn yet
counts by its place, whatever its height); the charts further down may still be drawing."""


FLOOR_APP = "benchmarks/floor_app.py"
FLOOR_CHART_APP = "benchmarks/floor_chart_app.py"
"""The floor page with one slider and one small plotly chart drawn by the app's own element: what a page with any
chart costs, and what a slider step that redraws one chart costs."""
FLOOR_KNOB = "Exponent p"
"""The one-chart floor page's slider (``KNOB`` there)."""
FLOOR_STEPS = 5
"""Slider steps per measurement of the one-chart floor (the median is kept), each as soon as the last has settled."""
FLOOR_SETTLED = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return app !== null && app.getAttribute("data-test-script-state") === "notRunning"
    && app.getAttribute("data-test-connection-state") === "CONNECTED"
    && document.querySelector("[data-testid='stMarkdown']") !== null;
}"""
"""The floor page is shown: the script idle and its line of text drawn."""


def _floor(browser: Any, url: str, shown: str = FLOOR_SETTLED, knob: str | None = None) -> tuple[float, ...]:
    """A first visit (a new browser context) and a reload of a floor page: seconds until each was ``shown`` (for the
    page with a chart, :data:`SETTLED`: its chart drawn); with a ``knob``, then the median of :data:`FLOOR_STEPS`
    steps of its slider, each timed as a model page's (:func:`_step`)."""
    from tests.ui.browserkit import finished_runs

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = context.new_page()
        finished_runs(pg)  # before the page opens its websocket
        times = []
        for visit in (lambda: pg.goto(url), pg.reload):
            start = time.perf_counter()
            visit()
            pg.wait_for_function(shown, timeout=TIMEOUT_MS)
            times.append(time.perf_counter() - start)
        if knob is not None:
            times.append(statistics.median(_step(pg, knob)[1] for _ in range(FLOOR_STEPS)))
        return tuple(times)
    finally:
        context.close()


def _floors(browser: Any, url: str, chart_url: str) -> dict[str, tuple[float, ...]]:
    """Both floors, measured one after the other: the one-line page (a visit and a reload) and the one-chart page (a
    visit, a reload and its slider's steps)."""
    return {"text": _floor(browser, url), "chart": _floor(browser, chart_url, SETTLED, FLOOR_KNOB)}


def _settle(pg: Any, start: float, extra: str = "", arg: Any = None) -> tuple[float, float]:
    """Seconds since ``start`` until the charts in view are drawn (:data:`IN_VIEW`), then until every chart is
    (:data:`SETTLED`: the row's figure), each also waiting for the JavaScript condition ``extra`` on ``arg``."""
    times = []
    for done in (IN_VIEW, SETTLED):
        pg.wait_for_function(f"(arg) => ({done})(){extra}", arg=arg, timeout=TIMEOUT_MS)
        times.append(time.perf_counter() - start)
    return times[0], times[1]


def _visit(pg: Any, url: str) -> tuple[float, float]:
    start = time.perf_counter()
    pg.goto(url)
    return _settle(pg, start)


def _reload(pg: Any) -> tuple[float, float]:
    start = time.perf_counter()
    pg.reload()
    return _settle(pg, start)


def _act(pg: Any, action: Any) -> tuple[float, float]:
    """``action()``, then the seconds until a script run has finished after it (the websocket's count,
    ``browserkit.finished_runs``) and the charts' data changed, with the charts in view drawn, and with every chart
    drawn."""
    from tests.ui.browserkit import finished_runs, wait_for_run

    finished, before = finished_runs(pg)[0], pg.evaluate(FINGERPRINT)
    start = time.perf_counter()
    action()
    wait_for_run(pg, finished, TIMEOUT_MS)
    return _settle(pg, start, f" && ({FINGERPRINT})() !== arg", before)


QUIET = """() => {
  return document.querySelector(".st-key-scrub .js-plotly-plot .main-svg") !== null
  && document.querySelector("[data-testid='stApp']").getAttribute("data-test-script-state") === "notRunning"
}"""
"""The scrub chart is drawn and the script idle: a grid the page computes in the background is done."""


def _quiet(pg: Any) -> None:
    """Wait, untimed, until the page's background work (a new scrub grid after T or a size changed) is done, so the
    next row does not share the server's cores with it."""
    pg.wait_for_function(QUIET, timeout=TIMEOUT_MS)


def _step(pg: Any, label: str) -> tuple[float, float]:
    thumb = pg.get_by_test_id("stSlider").filter(has_text=label).get_by_role("slider").first
    thumb.focus()
    return _act(pg, lambda: thumb.press("ArrowRight"))


def _type(pg: Any, label: str, value: str) -> tuple[float, float]:
    box = pg.get_by_test_id("stNumberInput").filter(has_text=label).locator("input").first

    def enter() -> None:
        box.fill(value)
        box.press("Enter")

    return _act(pg, enter)


def _wait_warm(log: Path, timeout_s: float = 600.0) -> float:
    """Wait for the server's warm-up line in its log; the seconds the warm-up reported."""
    from safebandit_ui.warmup import DONE

    deadline = time.time() + timeout_s
    while time.time() < deadline:
        for line in log.read_text().splitlines():
            if line.startswith(DONE):
                return float(line[len(DONE):].split()[1])
        time.sleep(0.2)
    raise TimeoutError(f"no warm-up line in {log} after {timeout_s:.0f} s")


def _row(what: str, seconds: float, target: float | None, note: str = "") -> dict:
    met = "-" if target is None else ("yes" if seconds <= target else "NO")
    return {"benchmark": "browser: " + what, "seconds": round(seconds, 2), "target_s": "-" if target is None
            else target, "met": met, "note": note}


def _page_row(page: ModelPage, what: str, seconds: tuple[float, float], note: str = "") -> dict:
    """The row of ``what`` on ``page``: every chart drawn against the target; the charts in view in its note."""
    seen, every = seconds
    return _row(f"{page.path}: {what}", every, TARGETS[what], f"in view {seen:.2f} s" + (f"; {note}" if note else ""))


def _sessions(browser: Any, url: str, n: int) -> tuple[float, int]:
    """``n`` Chromium sessions navigating to the model pages at once; the slowest to settle, exception elements."""
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(n)]
    try:
        tabs = [c.new_page() for c in contexts]
        start = time.perf_counter()
        for i, pg in enumerate(tabs):
            pg.goto(f"{url}/{PAGES[i % len(PAGES)].path}", wait_until="commit")
        slowest = 0.0
        for pg in tabs:
            pg.wait_for_function(SETTLED, timeout=TIMEOUT_MS)  # every chart: eight tabs drawing at once
            slowest = time.perf_counter() - start
        errors = sum(pg.get_by_test_id("stException").count() for pg in tabs)
    finally:
        for c in contexts:
            c.close()
    return slowest, errors


FLOOR_NAMES = {"text": "Streamlit's floor (a page with one line of text)",
               "chart": "Streamlit and plotly's floor (one line of text, one slider and one small chart)"}
"""How the rows name the two floor pages (:data:`FLOOR_APP`, :data:`FLOOR_CHART_APP`)."""
FLOOR_ROWS = ("first visit after the warm-up", "reload, same settings", "one slider step (median)")
"""The model pages' rows a floor is read against, in the order :func:`_floor` measures them (the one-line page has
no slider: its first two)."""


def _floor_rows(floors: list[dict[str, tuple[float, ...]]], page_rows: list[dict]) -> list[dict]:
    """Each floor (median of its first visits, of its reloads and of its steps' medians, measured beside each page)
    against the targets of the model pages' rows of the same kind, with how far above it those pages were in this
    run."""
    out = []
    for kind, name in FLOOR_NAMES.items():
        for i, what in enumerate(FLOOR_ROWS[:len(floors[0][kind])]):
            floor = statistics.median(f[kind][i] for f in floors)
            rows = [r for r in page_rows if r["benchmark"].endswith(what)]
            above = [r["seconds"] - f[kind][i] for r, f in zip(rows, floors, strict=True)]
            out.append(_row(f"{name}: {what.split(',')[0]}", floor, TARGETS[what],
                            f"the model pages {min(above):.2f}–{max(above):.2f} s above it"))
    return out


def _class_row(what: str, url: str, n: int, target: float) -> dict:
    """``n`` websocket sessions opening the model pages at once: the server's answers, with no browser drawing on
    this machine's cores (each student draws on their own machine); the slowest against ``target``."""
    from tests.ui import wsclient

    answers = wsclient.sessions(url, [PAGES[i % len(PAGES)].path for i in range(n)])
    errors = sum(len(a.exceptions) for a in answers) + sum(not a.finished for a in answers)
    return _row(what, max(a.seconds for a in answers) if not errors else float("inf"), target,
                f"{errors} errors; median {statistics.median(a.seconds for a in answers):.2f} s, "
                f"{statistics.median(a.received_bytes for a in answers) / 1024:.0f} KiB per session")


def _received(pg: Any) -> list[int]:
    """A one-element list that counts the bytes ``pg`` receives over its websockets from now on (set it to 0 to
    start a count)."""
    count = [0]

    def add(data: Any) -> None:
        count[0] += len(data)

    pg.on("websocket", lambda ws: ws.on("framereceived", add))
    return count


def _floor_note(floor: dict[str, tuple[float, ...]], i: int) -> str:
    """The floors beside a page's first visit (``i`` 0), reload (1) or slider steps (2: the one-chart page's only)."""
    chart = f"with one chart {floor['chart'][i]:.2f} s"
    return f"Streamlit's floor {floor['text'][i]:.2f} s, {chart}" if i < len(floor["text"]) else f"the floor {chart}"


def _one_page(browser: Any, url: str, page: ModelPage, steps: int,
              floor: dict[str, tuple[float, ...]]) -> list[dict]:
    """First visit (after the warm-up), reload, slider steps, T and the size changed, on one page; the reload and
    step rows note the bytes the page received over its websocket (a figure that does not depend on the load), the
    first visit, the reload and the steps the floors measured just before (``floor``: :func:`_floors`)."""
    from tests.ui.browserkit import finished_runs

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = context.new_page()
        received = _received(pg)
        finished_runs(pg)  # before the page opens its websocket
        rows = [_page_row(page, "first visit after the warm-up", _visit(pg, f"{url}/{page.path}"),
                          _floor_note(floor, 0))]
        received[0] = 0
        rows.append(_page_row(page, "reload, same settings", _reload(pg),
                              f"{received[0] / 1024:.0f} KiB received; {_floor_note(floor, 1)}"))
        received[0] = 0
        taken = [_step(pg, page.knob) for _ in range(steps)]
        every = [t[1] for t in taken]
        rows.append(_page_row(page, "one slider step (median)", (statistics.median(t[0] for t in taken),
                                                                 statistics.median(every)),
                              f"{page.knob.split(' (')[0]}: {len(taken)} steps, slowest {max(every):.2f} s, "
                              f"{received[0] / 1024 / len(taken):.0f} KiB received per step; {_floor_note(floor, 2)}"))
        paused = []
        for _ in range(steps):
            time.sleep(PAUSE_S)
            paused.append(_step(pg, page.knob))
        rows.append(_page_row(page, "one slider step, a second after the last (median)",
                              (statistics.median(t[0] for t in paused), statistics.median(t[1] for t in paused)),
                              f"slowest {max(t[1] for t in paused):.2f} s"))
        for what, label, value in (("T changed", "Rounds T", page.T_value),
                                   ("size changed inside its width", page.size, page.size_value)):
            start = time.perf_counter()
            seconds = _type(pg, label, value)
            _quiet(pg)
            rows.append(_page_row(page, what, seconds, f"{label.split(' (')[0]} → {value}; the new scrub chart drawn "
                                                       f"at {time.perf_counter() - start:.2f} s"))
        return rows
    finally:
        context.close()


def bench(quick: bool) -> list[dict]:
    """Rows for ``make bench``: issue 22's table per model page, and a class at once, each against its target."""
    from safebandit_ui import plot
    from tests.ui.browserkit import BROWSER_ARGS, CHROMIUM, ROOT, _missing, serve

    missing = _missing()
    if missing:
        return [{"benchmark": "browser latency", "note": f"skipped: {missing}"}]
    from playwright.sync_api import sync_playwright

    pages = PAGES[:2] if quick else PAGES
    rows: list[dict] = []
    logs = Path(tempfile.mkdtemp(prefix="bench-browser-"))
    with sync_playwright() as p:
        browser = p.chromium.launch(headless=True, executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        for page in pages:
            with serve(logs / f"fresh-{page.path}.log", as_app=True) as url:
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                seconds = _visit(context.new_page(), f"{url}/{page.path}")
                context.close()
                rows.append(_page_row(page, "first visit, fresh server (warm-up running)", seconds))
        # the floor page's static folder holds the app's plotly code before its server starts
        plot.provide_script(ROOT / Path(FLOOR_CHART_APP).parent, bundle_root=ROOT)
        with (serve(logs / "warm.log", as_app=True) as url, serve(logs / "floor.log", script=FLOOR_APP) as floor_url,
              serve(logs / "floor-chart.log", script=FLOOR_CHART_APP) as chart_url):
            warm_s = _wait_warm(logs / "warm.log")
            first, floors = len(rows), []
            _floors(browser, floor_url, chart_url)  # the floor servers' own first answers are not a visitor's
            for page in pages:
                floors.append(_floors(browser, floor_url, chart_url))
                rows += _one_page(browser, url, page, 2 if quick else 5, floors[-1])
            rows[first]["note"] += f"; the warm-up took {warm_s:.1f} s"
            rows += _floor_rows(floors, rows[first:])
            n = 10 if quick else 30
            rows.append(_class_row(f"{n} sessions at once, warm server (websocket clients)", url, n, SESSIONS_S))
        n = 4 if quick else 8
        with serve(logs / "fresh-ws.log", as_app=True) as url:
            rows.append(_class_row(f"{n} sessions at once, fresh server (websocket clients)", url, n,
                                   FRESH_SESSIONS_S))
        with serve(logs / "fresh-class.log", as_app=True) as url:
            slowest, errors = _sessions(browser, url, n)
            rows.append(_row(f"{n} Chromium sessions at once, fresh server", slowest if not errors else float("inf"),
                             FRESH_SESSIONS_S, f"{errors} exception elements"))
        browser.close()
    return rows
