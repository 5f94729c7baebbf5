"""What a person waits for, in a real headless Chromium against ``streamlit run app.py``, until the page settles.

Each row is one measurement against its target (2-core machine); "settled" means the script is
idle and the page's charts are drawn. A fresh server is started for each cold row, on a loopback
port, and stopped afterwards:

- first visit of each model page on a fresh server whose persistent compile cache is warm, once the
  server's own warm-up (:mod:`safebandit_ui.warmup`, begun at start by :mod:`safebandit_ui.serve`)
  has finished — a class arrives after the teacher started the server — and, for comparison, one
  without a warm-up;
- the first-ever visit (an empty compile cache, as on a new machine), arriving as the server starts;
- a reload / a second visitor with the same settings (served from the shared store);
- a slider step (τ, δ, κ_r, κ_c on the dose page — δ′ sits behind *Expert settings*; α on the conservative
  page; ρ on the mean-variance page);
- T changed (fixed-length chunks with a masked tail: no compilation);
- 8 sessions opening model pages at once on a fresh server (Chromium tabs), and 30 sessions on a warm one:
  clients of Streamlit's own websocket protocol (:mod:`tests.ui.wsclient`), since 30 Chromium tabs on the
  server's 2 cores would time the browsers' drawing, not the server; the row says when the server has
  answered every session (its script run finished).

"Warm server": every model page visited once (its shapes compiled, its default run stored), the
background warm-up off so that it does not compete with what is measured.

Skipped with a note when Playwright or Chromium is missing.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

MODEL_PAGES = ("dose", "conservative", "mean_variance", "nonlinear")
CHARTS = "[data-testid='stPlotlyChart'] .js-plotly-plot .main-svg"


def _settle(pg, timeout_ms: int = 240_000) -> None:
    from tests.ui.browserkit import wait_idle

    pg.wait_for_function(f"document.querySelectorAll(\"{CHARTS}\").length >= 1", timeout=timeout_ms)
    wait_idle(pg, timeout_ms)


def _visit(pg, url: str) -> float:
    start = time.perf_counter()
    pg.goto(url)
    _settle(pg)
    return time.perf_counter() - start


def _press(pg, control, key: str) -> float:
    """Press ``key`` on ``control``; the seconds until the rerun has started and the page has settled again."""
    start = time.perf_counter()
    control.press(key)
    pg.locator("[data-testid='stApp'][data-test-script-state='running']").wait_for(state="attached", timeout=10_000)
    _settle(pg)
    return time.perf_counter() - start


def _step(pg, label: str, key: str = "ArrowRight") -> float:
    """Press a key on a slider and wait for the rerun to start and the page to settle again."""
    thumb = pg.get_by_test_id("stSlider").filter(has_text=label).get_by_role("slider").first
    thumb.focus()
    return _press(pg, thumb, key)


def _wait_warm(log: Path, timeout_s: float = 300.0) -> float:
    """Wait for the server's warm-up line in its log; the seconds the warm-up reported."""
    from safebandit_ui.warmup import DONE

    deadline = time.time() + timeout_s
    while time.time() < deadline:
        for line in log.read_text().splitlines():
            if line.startswith(DONE):
                return float(line[len(DONE):].split()[1])
        time.sleep(0.2)
    raise TimeoutError(f"no warm-up line in {log} after {timeout_s:.0f} s")


def _type(pg, label: str, value: str) -> float:
    """Type ``value`` into the number box ``label``, press Enter, and wait for the rerun and the page to settle."""
    box = pg.get_by_test_id("stNumberInput").filter(has_text=label).locator("input").first
    box.fill(value)
    return _press(pg, box, "Enter")


def _row(what: str, seconds: float, target: float, note: str = "") -> dict:
    return {"benchmark": "browser: " + what, "seconds": round(seconds, 2), "target_s": target,
            "met": "yes" if seconds <= target else "NO", "note": note}


def _sessions(browser, url: str, n: int, pages: tuple[str, ...]) -> tuple[float, int]:
    """``n`` sessions navigating at once; the slowest time to settle and the count of exception elements."""
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(max(1, n // 10))]
    tabs = [contexts[i % len(contexts)].new_page() for i in range(n)]
    start = time.perf_counter()
    try:
        for i, pg in enumerate(tabs):
            pg.goto(f"{url}/{pages[i % len(pages)]}", wait_until="commit")
        slowest = 0.0
        for pg in tabs:
            _settle(pg)
            slowest = time.perf_counter() - start
        errors = sum(pg.get_by_test_id("stException").count() for pg in tabs)
    finally:
        for c in contexts:
            c.close()
    return slowest, errors


def bench(quick: bool) -> list[dict]:
    """Rows for ``make bench``: the issue's latency table, measured."""
    from tests.ui import wsclient
    from tests.ui.browserkit import BROWSER_ARGS, CHROMIUM, _missing, serve

    missing = _missing()
    if missing:
        return [{"benchmark": "browser latency", "note": f"skipped: {missing}"}]
    from playwright.sync_api import sync_playwright

    rows: list[dict] = []
    logs = Path(tempfile.mkdtemp(prefix="bench-browser-"))
    empty_cache = logs / "empty-cache"
    with sync_playwright() as p:
        browser = p.chromium.launch(headless=True, executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        with serve(logs / "cold.log", env={"SAFEBANDIT_CACHE_DIR": str(empty_cache)}) as url:
            pg = browser.new_page()
            seconds = _visit(pg, url + "/dose")
            pg.close()
            warm_s = _wait_warm(logs / "cold.log")
            rows.append(_row("first-ever visit, dose page (empty compile cache, arriving as the server starts)",
                             seconds, 12.0,
                             f"progress is shown while it compiles; the whole warm-up took {warm_s:.1f} s"))
        for name in MODEL_PAGES[: 2 if quick else None]:
            with serve(logs / f"warm-{name}.log", env={"SAFEBANDIT_CACHE_DIR": str(empty_cache)}) as url:
                warm_s = _wait_warm(logs / f"warm-{name}.log")
                pg = browser.new_page()
                rows.append(_row(f"first visit, {name} page (fresh server after its warm-up, compile cache warm)",
                                 _visit(pg, f"{url}/{name}"), 4.0, f"the warm-up took {warm_s:.1f} s"))
                pg.close()
        for name in MODEL_PAGES[:1]:
            with serve(logs / f"nowarm-{name}.log", env={"SAFEBANDIT_CACHE_DIR": str(empty_cache),
                                                         "SAFEBANDIT_WARMUP": "0"}) as url:
                pg = browser.new_page()
                rows.append({**_row(f"first visit, {name} page (fresh server, no warm-up, compile cache warm)",
                                    _visit(pg, f"{url}/{name}"), 4.0), "target_s": "-", "met": "-",
                             "note": "for comparison: the visitor's own run loads the compiled shapes"})
                pg.close()
        with serve(logs / "warm.log", env={"SAFEBANDIT_CACHE_DIR": str(empty_cache), "SAFEBANDIT_WARMUP": "0"}) as url:
            pg = browser.new_page()
            for name in MODEL_PAGES:  # a warm server: every model page has been visited once
                _visit(pg, f"{url}/{name}")
            _visit(pg, url + "/dose")
            rows.append(_row("reload, same settings (shared store)", _visit(pg, url + "/dose"), 1.0))
            steps = [_step(pg, label) for label in ("Cost limit τ", "Allowed violation probability δ",
                                                    "Reward noise κ_r", "Cost noise κ_c")]
            rows.append(_row("a slider step on the dose page (τ, δ, κ_r, κ_c; slowest)", max(steps), 0.7,
                             f"median {statistics.median(steps):.2f} s"))
            rows.append(_row("T changed 2000 → 2500 on the dose page (fixed chunks, masked tail: no compilation)",
                             _type(pg, "Rounds T", "2500"), 1.0))
            rows.append(_row("d changed 5 → 6 on the dose page (inside the width-8 bucket: no compilation)",
                             _type(pg, "Context dimension d", "6"), 1.0))
            for page_name, label in (("conservative", "α"), ("mean_variance", "ρ")):
                pg.goto(f"{url}/{page_name}")
                _settle(pg)
                try:
                    rows.append(_row(f"a slider step on the {page_name} page ({label})", _step(pg, label), 0.7))
                except Exception as err:  # a page without that slider label: say so instead of failing the bench
                    rows.append({"benchmark": f"browser: slider step on {page_name}", "note": f"not measured: {err}"})
            rows.append(_row("K changed 24 → 25 on the mean-variance page (inside the width-32 bucket: no compilation)",
                             _type(pg, "K (arms)", "25"), 1.0))
            pg.goto(f"{url}/conservative")
            _settle(pg)
            rows.append(_row("K changed 72 → 73 on the conservative page (inside the width-96 bucket: no compilation)",
                             _type(pg, "K (arms)", "73"), 1.0))
            pg.close()
            n = 10 if quick else 30
            answers = wsclient.sessions(url, [MODEL_PAGES[i % len(MODEL_PAGES)] for i in range(n)])
            errors = sum(len(a.exceptions) for a in answers)
            unfinished = sum(not a.finished for a in answers)
            rows.append(_row(f"{n} sessions at once, warm server (websocket-protocol clients)",
                             max(a.seconds for a in answers), 20.0,
                             f"{errors} exception elements, {unfinished} unfinished; median "
                             f"{statistics.median(a.seconds for a in answers):.2f} s"))
        with serve(logs / "fresh8.log") as url:
            slowest, errors = _sessions(browser, url, 8, MODEL_PAGES)
            rows.append(_row("8 sessions at once, fresh server", slowest, 40.0, f"{errors} exception elements"))
        browser.close()
    return rows
