"""A classroom opens the link: sessions at once on a fresh server, then reloads — no exception anywhere.

A fresh ``streamlit run app.py`` (warm-up on, as served) on a loopback port; one browser context per model
page navigates at the same moment (their navigations are all in flight before any is waited for); every
page must settle with its charts and without an exception element. A reload of the same settings must be
served from the shared store (its caption says so). Then two websocket sessions per model page open at
once: each session gets its own whole answer, also when another asks for the same page at the same time.

The suite's sizes (4 browser sessions, 8 websocket sessions) prove the isolation of sessions under
concurrency: the four model pages are served at once, and each page to two sessions at once. The classroom's
sizes (8 Chromium sessions on a fresh server, 30 websocket sessions) are benchmark targets, measured by
``make bench`` (benchmarks/bench_browser.py).
Bounded: every wait has a timeout; the server is stopped afterwards.
"""

from __future__ import annotations

import time

import pytest

from tests.ui import wsclient
from tests.ui.browserkit import CHART, Requests, serve, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PAGES = ("dose", "conservative", "meanvar", "nonlinear")
CHARTS = f"{CHART} .js-plotly-plot .main-svg"
SETTLE_MS = 240_000


def settle(pg) -> None:
    """Wait for a drawn chart and an idle script."""
    pg.wait_for_function(f"document.querySelectorAll(\"{CHARTS}\").length >= 1", timeout=SETTLE_MS)
    wait_idle(pg, SETTLE_MS)


def test_sessions_at_once_on_a_fresh_server_then_a_shared_reload(browser, tmp_path):
    with serve(tmp_path / "server.log", env={"SAFEBANDIT_WARMUP": "1"}) as url:
        contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in PAGES]
        try:
            pages = [c.new_page() for c in contexts]
            seen = [Requests(p) for p in pages]
            start = time.perf_counter()
            for pg, name in zip(pages, PAGES, strict=True):
                pg.goto(f"{url}/{name}", wait_until="commit")
            settled = []
            for pg in pages:
                settle(pg)
                settled.append(time.perf_counter() - start)
            for pg, name in zip(pages, PAGES, strict=True):
                assert pg.get_by_test_id("stException").count() == 0, f"{name}: an exception was shown"
            assert all(s.foreign() == [] for s in seen)
            first = pages[0]
            first.reload()
            settle(first)
            caption = first.get_by_text("already computed on this server", exact=False)
            assert caption.count() >= 1, "the reload recomputed instead of using the shared result"
            assert first.get_by_test_id("stException").count() == 0
            answers = wsclient.sessions(url, [*PAGES, *PAGES], timeout_s=SETTLE_MS / 1000)
            assert all(a.finished for a in answers)
            assert [a.exceptions for a in answers if a.exceptions] == []
            assert all(a.elements > 20 for a in answers), [a.elements for a in answers]
        finally:
            for c in contexts:
                c.close()
    print(f"{len(PAGES)} sessions settled after {max(settled):.1f} s (slowest); {len(answers)} websocket sessions "
          f"answered within {max(a.seconds for a in answers):.1f} s")
