"""Computing ahead: the runs a knob step or two away are made while the visitor reads the charts, the way the knob
moves first, each only while the server computes nothing else, and a knob step then finds its run and its charts
made."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time

import pytest

from safebandit_core import families
from safebandit_core.conservative import ConservativeSettings
from safebandit_core.dose import DoseSettings
from safebandit_ui import ahead, pagekit, store
from tests.ui.helpers import charts, open_page

pytestmark = pytest.mark.usefixtures("fresh_caches")


def field(kind: str, name: str):
    return next(f for f in families.get(kind).fields if f.name == name)


def test_a_step_lands_where_the_browsers_slider_sends_it_and_stops_at_the_ends():
    alpha, rho, tau = field("conservative", "alpha"), field("meanvar", "rho"), field("dose", "tau")
    assert (ahead.stepped(alpha, 0.05, 1), ahead.stepped(alpha, 0.05, -1)) == (0.055, 0.045)
    assert ahead.stepped(tau, 0.35, 1) == 0.4 != 0.35 + 0.05  # the value the browser sends, not the float sum
    assert ahead.stepped(tau, 0.1, -1) == 0.05
    assert ahead.stepped(rho, 2.0, 1) == 2.5
    assert ahead.stepped(alpha, alpha.hi, 1) is None and ahead.stepped(alpha, alpha.lo, -1) is None
    assert ahead.stepped(alpha, 0.0537, 1) is None  # off the slider's steps (a restored run): no guess


def values(found: list, name: str) -> list[float]:
    return [getattr(s, name) for s in found]


def test_the_next_step_the_way_the_knob_moved_comes_first_then_the_step_back():
    cb = families.get("conservative")
    s = ConservativeSettings(alpha=0.05).validate()
    assert values(ahead.neighbours(cb, s, {"alpha": 0.045}), "alpha") == [0.055, 0.045, 0.06]
    assert values(ahead.neighbours(cb, s, {"alpha": 0.055}), "alpha") == [0.045, 0.055, 0.04]
    assert values(ahead.neighbours(cb, s, None), "alpha") == [0.055, 0.045]  # a first visit: either side
    assert values(ahead.neighbours(cb, ConservativeSettings(alpha=0.5).validate(), None), "alpha") == [0.495]
    assert values(ahead.neighbours(cb, ConservativeSettings(alpha=0.495).validate(), {"alpha": 0.49}), "alpha") \
        == [0.5, 0.49]  # the slider's end: no step past it
    dose = families.get("dose")
    d = DoseSettings().validate()
    moved_delta = ahead.neighbours(dose, d, {"tau": d.tau, "delta": d.delta + 0.005})
    assert values(moved_delta, "delta") == [round(d.delta - k, 3) for k in (0.005, -0.005, 0.01)]
    assert values(moved_delta, "tau") == [d.tau] * 3  # only the knob that moved
    assert ahead.knob_values(dose, d) == {"tau": d.tau, "delta": d.delta}


@dataclasses.dataclass
class Stub:
    """A stand-in for a run: the alpha it was computed for."""

    alpha: float


@pytest.fixture
def quiet_store(monkeypatch) -> store.Store:
    """A store of its own whose model speeds are known, and a stand-in for the run itself (:class:`Stub`)."""
    shared = store.Store()
    monkeypatch.setattr(store, "store", lambda: shared)
    monkeypatch.setattr(shared, "estimate", lambda kind, units: 0.01)

    def warm(s, device):
        return not shared.get_or_compute(store.key_of(s, device), lambda: Stub(s.alpha))[1]

    monkeypatch.setattr(ahead.live, "warm", warm)
    return shared


def job(alpha: float, prepared: list, fail: bool = False, source: str | None = None) -> ahead.Job:
    def prepare(run):
        if fail:
            raise RuntimeError("boom")
        prepared.append(run)

    return ahead.Job(ConservativeSettings(alpha=alpha), "cpu", prepare, source)


def wait_idle(worker: ahead.Worker, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while worker.pending() or worker.running:
        assert time.monotonic() < deadline, "the worker did not finish its jobs"
        time.sleep(0.02)


def test_the_worker_waits_while_the_server_computes_takes_the_newest_request_first_and_survives_a_failure(
        quiet_store, caplog):
    computing = threading.Event()
    computing.set()
    worker = ahead.Worker(queue=3, busy=computing.is_set)
    prepared: list = []
    try:
        worker.submit([job(0.1, prepared), job(0.2, prepared)])
        worker.submit([job(0.3, prepared), job(0.1, prepared)])  # 0.1 asked again: it moves up
        worker.submit([job(0.4, prepared, fail=True)])  # a queue of three: the oldest request, 0.2, is dropped
        time.sleep(0.3)
        assert prepared == [] and quiet_store.computed == 0, "a job ran while the server was computing"
        order = [json.loads(k)["settings"]["alpha"] for k in worker.pending()]
        assert order == [0.4, 0.3, 0.1]
        with caplog.at_level(logging.WARNING, logger=ahead.__name__):
            computing.clear()
            wait_idle(worker)
        assert prepared == [Stub(0.3), Stub(0.1)]
        assert len(worker.failed) == 1 and "computing ahead failed" in caplog.text
        assert quiet_store.computed == 3  # the failed job's run was stored before its preparation raised
    finally:
        assert worker.stop()


def test_a_page_being_drawn_anywhere_on_the_server_goes_first(quiet_store):
    worker = ahead.Worker()
    prepared: list = []
    try:
        with ahead.drawing():
            worker.submit([job(0.1, prepared)])
            time.sleep(0.3)
            assert prepared == [] and worker.pending(), "a job ran while a page was being drawn"
        wait_idle(worker)
        assert prepared == [Stub(0.1)]
    finally:
        assert worker.stop()


def test_no_job_starts_while_a_new_page_settles_in_the_browser(quiet_store):
    worker = ahead.Worker(busy=lambda: False)
    prepared: list = []
    try:
        start = time.monotonic()
        worker.submit([job(0.1, prepared)], settle_s=0.6)
        time.sleep(0.3)
        assert prepared == [] and worker.pending(), "a job started while the page's new charts were being drawn"
        wait_idle(worker)
        assert prepared == [Stub(0.1)] and time.monotonic() - start >= 0.6
        worker.submit([job(0.2, prepared)])  # after a knob step: no wait of its own
        wait_idle(worker)
        assert prepared == [Stub(0.1), Stub(0.2)]
    finally:
        assert worker.stop()


def test_a_visitors_new_requests_replace_their_waiting_ones_and_leave_other_visitors_alone(quiet_store):
    computing = threading.Event()
    computing.set()
    worker = ahead.Worker(busy=computing.is_set)
    prepared: list = []
    try:
        worker.submit([job(0.1, prepared, source="a"), job(0.2, prepared, source="a")], replace="a")
        worker.submit([job(0.3, prepared, source="b")], replace="b")
        worker.submit([job(0.4, prepared, source="a")], replace="a")  # a changed T: their old neighbours are gone
        assert [alpha_of(k) for k in worker.pending()] == [0.4, 0.3]
        worker.submit([job(0.5, prepared, source="c")], replace="c")
        worker.submit([], replace="c")  # c's new settings have no knob to step: their waiting job goes too
        assert [alpha_of(k) for k in worker.pending()] == [0.4, 0.3]
        computing.clear()
        wait_idle(worker)
        assert prepared == [Stub(0.4), Stub(0.3)]
    finally:
        assert worker.stop()


def test_only_a_knob_step_lets_its_neighbours_start_at_once(monkeypatch):
    asked: list[tuple[list, float, str | None]] = []

    class Recorder:
        def submit(self, jobs, settle_s=0.0, replace=None):
            asked.append((jobs, settle_s, replace))

    monkeypatch.setenv(ahead.OFF_ENV, "1")
    monkeypatch.setattr(ahead, "worker", Recorder)
    s = ConservativeSettings(alpha=0.05).validate()
    ahead.after(s, "cpu", {"alpha": 0.045}, lambda n, run: None, source="a")  # α stepped
    ahead.after(dataclasses.replace(s, T=2000).validate(), "cpu", {"alpha": 0.05}, lambda n, run: None,
                source="a")  # T changed, α where it was
    ahead.after(s, "cpu", None, lambda n, run: None, source="b")  # a first visit
    assert [(settle, source) for _, settle, source in asked] == [(0.0, "a"), (ahead.SETTLE_S, "a"),
                                                                   (ahead.SETTLE_S, "b")]
    assert [[j.settings.alpha for j in jobs] for jobs, _, _ in asked] == [[0.055, 0.045, 0.06], [0.055, 0.045],
                                                                          [0.055, 0.045]]
    assert all(j.source == source for jobs, _, source in asked for j in jobs)


def test_a_run_of_unknown_or_long_duration_is_left_to_its_page(quiet_store, monkeypatch):
    worker = ahead.Worker(busy=lambda: False)
    prepared: list = []
    try:
        monkeypatch.setattr(quiet_store, "estimate", lambda kind, units: None)
        worker.submit([job(0.1, prepared)])
        wait_idle(worker)
        monkeypatch.setattr(quiet_store, "estimate", lambda kind, units: ahead.live.LIVE_AFTER_S + 1)
        worker.submit([job(0.2, prepared)])
        wait_idle(worker)
        assert prepared == [] and quiet_store.computed == 0
    finally:
        assert worker.stop()


def test_computing_ahead_is_off_with_its_switch():
    assert ahead.enabled({}) and ahead.enabled({ahead.OFF_ENV: "1"}) and not ahead.enabled({ahead.OFF_ENV: "0"})


def alpha_of(key: str) -> float:
    return json.loads(key)["settings"]["alpha"]


def test_a_knob_step_finds_its_run_and_its_charts_made_ahead(monkeypatch):
    monkeypatch.setenv(ahead.OFF_ENV, "1")
    worker = ahead.worker()
    small = {"T": 400, "seeds": 2, "K": 12}
    # Another α first, so that the run below is timed without its compile (a first run's time may include it, and
    # a run expected to take over a second is left to its page): true of a server after its warm-up.
    open_page("pages/conservative.py", {**small, "alpha": 0.2})
    wait_idle(worker, 120)
    worker.done.clear()
    at = open_page("pages/conservative.py", small)
    wait_idle(worker, 120)
    made = [k for k in worker.done if alpha_of(k) in (0.055, 0.045)]
    assert [alpha_of(k) for k in made] == [0.055, 0.045], "a first visit computes either side of α = 0.05"
    held = pagekit._per_run().keys()
    for key in made:
        run = store.store().peek(key).value
        assert (id(run), "views") in held and any(k[0] == id(run) and k[1][0] == "figures" for k in held
                                                  if isinstance(k[1], tuple))
    before = charts(at)
    at.slider(key="alpha").set_value(0.055).run()
    assert not at.exception
    ran = next(c.value for c in at.caption if c.value.startswith("Ran on"))
    assert "computed ahead on this server while the last step was on screen" in ran, \
        "the step computed a run that was made ahead"
    assert charts(at)["slack"] != before["slack"]
    wait_idle(worker, 120)
    assert [alpha_of(k) for k in list(worker.done)[-3:]] == [0.06, 0.05, 0.065], \
        "after a step up: the next step up first, then the step back, then the step after next"
    at.slider(key="alpha").set_value(0.05).run()  # back to the run the page computed itself
    ran = next(c.value for c in at.caption if c.value.startswith("Ran on"))
    assert "already computed on this server: shared" in ran and "ahead" not in ran
