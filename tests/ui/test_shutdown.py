"""Shutdown: a busy server stopped by SIGTERM exits 0, its background work stopped in order first.

A server with the warm-up running and several sessions computing their pages has threads inside JAX when it is
told to stop; at exit, before JAX's own exit hook, :func:`safebandit_ui.stopping.stop` runs
:func:`safebandit_ui.warmup.stop` (computing ahead, then the warm-up, then every run in flight in the store) and
waits for the sessions' threads, so the interpreter never finalises under one (which ended in a signal:
"terminate called ... FATAL: exception not rethrown", or a segmentation fault). Ten busy plain
``streamlit run app.py`` servers, two at a time, each stopped while its warm-up and its sessions are computing.
"""

from __future__ import annotations

import signal
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from safebandit_ui import ahead, stopping, store, warmup
from tests.ui import wsclient
from tests.ui.browserkit import serve

STOPS = 10
AT_ONCE = 2
PAGES = ["dose", "conservative", "meanvar", "nonlinear", "present", "lessons", "logged", "home"]
CRASHED = ("terminate called", "FATAL", "Segmentation fault", "Traceback", "core dumped")


@pytest.fixture
def own_background(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stop flag, worker list and store of this test's own, so the stop it tests reaches no other test."""
    monkeypatch.setattr(warmup, "_STOP", threading.Event())
    monkeypatch.setattr(warmup, "_THREAD", [])
    monkeypatch.setattr(ahead, "_WORKER", [])
    shared = store.Store()
    monkeypatch.setattr(store, "store", lambda: shared)
    monkeypatch.setattr(stopping, "_THREADS", weakref.WeakSet())
    monkeypatch.setattr(stopping, "_STOPS", [])
    monkeypatch.setattr(stopping, "_ARMED", [])
    monkeypatch.setattr(stopping, "arm", lambda: None)


def compute_in_thread(seconds: float) -> threading.Thread:
    """A run of ``seconds`` being computed through the shared store in another thread, as a page's is."""
    started = threading.Event()

    def slow() -> str:
        started.set()
        time.sleep(seconds)
        return "run"

    thread = threading.Thread(target=store.store().get_or_compute, args=("a run", slow))
    thread.start()
    started.wait(5)
    return thread


def test_stop_waits_for_the_run_in_flight(own_background):
    thread = compute_in_thread(0.6)
    start = time.perf_counter()
    assert warmup.stop(timeout=10) is True
    assert time.perf_counter() - start >= 0.4 and not store.store().busy()
    thread.join(5)
    assert store.store().peek("a run").value == "run"


def test_stop_is_bounded_and_says_when_work_is_left(own_background):
    thread = compute_in_thread(1.5)
    start = time.perf_counter()
    assert warmup.stop(timeout=0.2) is False
    assert time.perf_counter() - start < 1.0 and store.store().busy()
    thread.join(5)
    assert warmup.stop(timeout=0.2) is True


def test_stop_stops_computing_ahead_first(own_background):
    worker = ahead.worker()
    assert warmup.stop(timeout=5) is True
    worker.submit([ahead.Job(settings=None, device="cpu", prepare=lambda run: None)])
    assert worker.pending() == [], "a stopped worker takes no further job"


def test_the_ordered_stop_runs_the_stops_in_order_then_waits_for_the_sessions(own_background):
    order: list[str] = []
    release = threading.Event()

    def session() -> None:
        stopping.session_thread()
        release.wait(5)
        time.sleep(0.3)  # the rest of the page's run after Streamlit asked it to stop
        order.append("session")

    thread = threading.Thread(target=session)
    thread.start()
    def first(left: float) -> bool:
        order.append("ahead")
        return True

    def second(left: float) -> bool:
        order.append("warm-up")
        release.set()  # Streamlit has told the session to stop by now; its run ends a little later
        return True

    stopping.on_stop(first)
    stopping.on_stop(second)
    stopping.on_stop(first)  # named once only
    assert stopping.stop(timeout=5) is True
    assert order == ["ahead", "warm-up", "session"] and not thread.is_alive()


def test_the_ordered_stop_is_bounded(own_background):
    release = threading.Event()
    def session() -> None:
        stopping.session_thread()
        release.wait(5)

    thread = threading.Thread(target=session)
    thread.start()
    start = time.perf_counter()
    assert stopping.stop(timeout=0.2) is False
    assert time.perf_counter() - start < 1.0
    release.set()
    thread.join(5)
    assert stopping.stop(timeout=0.2) is True


def test_only_the_servers_process_ends_itself_after_the_stop():
    """The hard end after the ordered stop is for the server, whose argv Streamlit makes the script's own
    (``[…/app.py, args…]``), never for a process that runs the app under AppTest."""
    assert stopping.serving(["/srv/safebandit/app.py"]) and stopping.serving(["app.py", "--flag"])
    assert not stopping.serving(["/venv/bin/pytest", "-n", "2"])
    assert not stopping.serving(["-c"]) and not stopping.serving([])
    assert not stopping.serving(["/venv/bin/streamlit", "run", "app.py"])


def test_an_uncaught_exception_in_the_main_thread_makes_the_status_1(monkeypatch):
    """The status the hard end gives is what Python would: 1 once an exception reached the main thread uncaught."""
    monkeypatch.setattr(stopping, "_FAILED", [])
    monkeypatch.setattr(stopping, "_EXCEPTHOOK", lambda *a: None)
    assert stopping.exit_status() == 0
    try:
        raise ValueError("boom")
    except ValueError as e:
        stopping._note_failure(ValueError, e, e.__traceback__)
    assert stopping.exit_status() == 1


def stop_busy(log: Path, delay_s: float, plain: bool = True) -> tuple[int | None, str]:
    """Serve the app with the warm-up and computing ahead on, open :data:`PAGES` at once, send SIGTERM ``delay_s``
    after the server first answers (before, as or after its first pages start: Streamlit runs a page its first
    visitor opens without ``app.py``, so each page names its thread first); the exit status and the log.
    ``plain``: ``streamlit run app.py``; otherwise the server ``make run`` starts (:mod:`safebandit_ui.serve`)."""
    started: list = []
    with serve(log, {warmup.OFF_ENV: "1", ahead.OFF_ENV: "1"}, started, script="app.py" if plain else None) as url:
        visits = threading.Thread(target=lambda: _visit(url), daemon=True)
        visits.start()
        time.sleep(delay_s)
        proc = started[0]
        assert proc.poll() is None, log.read_text()[-3000:]
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(90)
    return code, log.read_text()


def _visit(url: str) -> None:
    try:
        wsclient.sessions(url, PAGES, timeout_s=90)
    except Exception:  # the server closes these sockets as it stops: that is what is tested
        pass


@pytest.mark.slow
def test_a_busy_server_stopped_ten_times_exits_0_every_time(tmp_path):
    """Ten servers, two at a time, each sent SIGTERM while its warm-up and eight pages start or compute: five plain
    ``streamlit run app.py`` and five as ``make run`` starts them; every one exits 0 with no crash in its log."""
    delays = [0.5 + 0.75 * (i // 2) for i in range(STOPS)]  # the pages importing, then running, beside the warm-up
    plains = [i % 2 == 0 for i in range(STOPS)]
    logs = [tmp_path / f"server{i}.log" for i in range(STOPS)]
    with ThreadPoolExecutor(AT_ONCE) as pool:
        results = list(pool.map(stop_busy, logs, delays, plains))
    bad = [(code, text[-1500:]) for code, text in results if code != 0 or any(c in text for c in CRASHED)]
    assert bad == [], f"{len(bad)} of {STOPS} stops failed; first: {bad[:1]}"


def test_every_page_names_its_thread_before_it_imports_anything_else():
    """Streamlit runs the page a fresh server's first visitor opens on its own, without ``app.py``: a page that
    imported the core first would load JAX in a thread exit does not wait for (a stop then ended by a signal in
    up to 5 of 16 stops here). So each page's first statements are the stop's import and its call."""
    import ast

    from safebandit_ui import registry

    for path in sorted((registry.ROOT / "pages").glob("*.py")):
        body = [n for n in ast.parse(path.read_text()).body
                if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
                and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")]
        first, second = ast.unparse(body[0]), ast.unparse(body[1])
        assert (first, second) == ("from safebandit_ui import stopping", "stopping.session_thread()"), path.name
