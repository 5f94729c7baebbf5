"""Shutdown: a busy server stopped by SIGTERM exits 0, its background work stopped in order first.

A server with the warm-up running and several sessions computing their pages has threads inside JAX when it is
told to stop; at exit, before JAX's own exit hook, :func:`safebandit_ui.stopping.stop` runs
:func:`safebandit_ui.warmup.stop` (computing ahead, then the warm-up, then every run in flight in the store) and
waits for the sessions' threads, so the interpreter never finalises under one (which ended in a signal:
"terminate called ... FATAL: exception not rethrown", or a segmentation fault). Ten busy plain
``streamlit run app.py`` servers, two at a time, each stopped while its warm-up and its sessions are computing.
"""

from __future__ import annotations

import threading
import time
import weakref

import pytest

from safebandit_ui import ahead, stopping, store, warmup

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
