"""The shared result store is bounded in bytes: entries measured, least recently used out first, a run larger than
the budget handed back but not kept, and the budget read from SAFEBANDIT_STORE_MB or the machine's memory."""

from __future__ import annotations

import dataclasses
import functools
import random
import threading
import time

import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest

from safebandit_core import memo as memo_module
from safebandit_core.memo import Memo, nbytes
from safebandit_ui import store

MB = 2**20


def blob(n: int) -> np.ndarray:
    """A value holding exactly ``n`` bytes."""
    return np.zeros(n, dtype=np.uint8)


def put(s: store.Store, key: str, n: int) -> store.Entry:
    entry, _ = s.get_or_compute(key, lambda: blob(n))
    return entry


@dataclasses.dataclass
class Grows:
    """Like a model run: arrays at first, more derived on first read (a cached property)."""

    raw: dict[str, np.ndarray]

    @functools.cached_property
    def outputs(self) -> dict[str, np.ndarray]:
        return {**self.raw, "derived": blob(600)}


def test_sizes_count_arrays_tables_texts_and_derived_outputs_once():
    a = blob(1000)
    assert nbytes({"x": a, "y": a, "z": (a, [a])}) == 1000 + 3  # one array referenced four times, plus the keys
    assert nbytes(jnp.zeros(250, dtype=jnp.float32)) == 1000
    strings = pd.DataFrame({"label": [f"a long policy label {i}" for i in range(100)]})
    assert nbytes(strings) == strings.memory_usage(deep=True).sum() > 100 * 20  # the texts themselves count
    g = Grows({"r": blob(400)})
    before = nbytes(g)
    g.outputs  # noqa: B018  (derive)
    assert nbytes(g) == before + 600 + len("derived")  # the raw arrays and keys it shares count once
    assert nbytes(len) == nbytes(store) == 0  # functions and modules are not held data


def test_the_least_recently_used_go_first_until_under_the_byte_budget():
    s = store.Store(max_bytes=1000)
    put(s, "a", 400), put(s, "b", 400)
    assert s.peek("a") is not None  # a is now more recent than b
    put(s, "c", 400)
    assert (s.peek("b"), s.nbytes) == (None, 800)
    assert s.peek("a") is not None and s.peek("c") is not None
    put(s, "d", 900)
    assert [k for k in "acd" if s.peek(k)] == ["d"] and s.nbytes == 900


def test_a_run_larger_than_the_budget_is_returned_but_not_kept():
    s = store.Store(max_bytes=1000)
    put(s, "small", 300)
    entry, found = s.get_or_compute("huge", lambda: blob(5000))
    assert entry.value.nbytes == 5000 and not found and entry.nbytes == 5000
    assert s.peek("huge") is None and s.peek("small") is not None and s.nbytes == 300


def test_visitors_waiting_for_a_run_too_large_to_keep_get_it_without_computing_it_again():
    s = store.Store(max_bytes=1000)
    started, release, calls = threading.Event(), threading.Event(), []

    def compute() -> np.ndarray:
        calls.append(1)
        started.set()
        release.wait(10)
        return blob(5000)

    got: list[tuple[store.Entry, bool]] = []
    first = threading.Thread(target=lambda: got.append(s.get_or_compute("huge", compute)))
    first.start()
    assert started.wait(10)
    told = [threading.Event() for _ in range(2)]  # each waiter is told it waits (after half a second) before the end
    waiting = [threading.Thread(target=lambda e=e: got.append(s.get_or_compute("huge", compute,
                                                                               on_wait=lambda _: e.set())))
               for e in told]
    for t in waiting:
        t.start()
    assert all(e.wait(10) for e in told)
    release.set()
    for t in (first, *waiting):
        t.join(10)
    assert len(calls) == 1 and len(got) == 3
    assert len({id(entry.value) for entry, _ in got}) == 1 and sorted(found for _, found in got) == [False, True, True]
    assert s.peek("huge") is None and s.nbytes == 0
    again, found = s.get_or_compute("huge", lambda: blob(5000))  # not kept: a later visitor computes it anew
    assert not found and len(calls) == 1 and again.value.nbytes == 5000


def test_a_visitor_waiting_for_a_run_that_failed_computes_it_itself():
    s = store.Store(max_bytes=1000)
    started, release = threading.Event(), threading.Event()

    def fail() -> None:
        started.set()
        release.wait(10)
        raise RuntimeError("out of memory")

    errors: list[BaseException] = []

    def first() -> None:
        try:
            s.get_or_compute("run", fail)
        except RuntimeError as err:
            errors.append(err)

    t = threading.Thread(target=first)
    t.start()
    assert started.wait(10)
    got: list[tuple[store.Entry, bool]] = []
    told = threading.Event()
    waiter = threading.Thread(target=lambda: got.append(s.get_or_compute("run", lambda: blob(10),
                                                                         on_wait=lambda _: told.set())))
    waiter.start()
    assert told.wait(10)
    release.set()
    t.join(10), waiter.join(10)
    assert [str(e) for e in errors] == ["out of memory"]
    (entry, found), = got
    assert not found and entry.value.nbytes == 10 and s.peek("run") is entry


def test_an_entry_that_grows_when_read_is_measured_again_and_the_budget_kept():
    s = store.Store(max_bytes=1500)
    put(s, "old", 800)
    entry, _ = s.get_or_compute("run", lambda: Grows({"r": blob(400)}))
    assert s.nbytes <= 1500 and s.peek("old") is not None
    entry.value.outputs  # noqa: B018  (a page reads the derived outputs)
    assert s.peek("run") is entry and entry.nbytes > 1000
    assert s.peek("old") is None and s.nbytes == entry.nbytes <= 1500


def test_a_hundred_varied_runs_never_pass_the_budget():
    rng = random.Random(20)
    s = store.Store(max_bytes=10 * MB, max_entries=48)
    sizes: dict[str, int] = {}
    for i in range(100):
        key = f"run{rng.randrange(60)}"
        n = rng.choice([rng.randrange(1, 64 * 1024), rng.randrange(MB, 4 * MB), 12 * MB])  # small, large, too large
        if s.peek(key) is None:
            sizes[key] = n
            entry = put(s, key, n)
            assert entry.value.nbytes == n
        held = {k: v for k, v in sizes.items() if s._entries.get(k) is not None}
        assert s.nbytes == sum(held.values()) <= 10 * MB, i
        assert len(held) <= 48
    assert s.computed > len(held) > 2  # it evicted, and it still keeps several runs


def test_the_budget_comes_from_the_environment_or_the_machine(capsys):
    assert store.budget_bytes({store.BUDGET_ENV: "300"}) == 300 * MB
    default = store.budget_bytes({})
    assert store.BUDGET_FLOOR_MB * MB <= default <= store.BUDGET_CAP_MB * MB
    machine = store.physical_bytes()
    if machine is not None:
        assert default == min(store.BUDGET_CAP_MB * MB, max(store.BUDGET_FLOOR_MB * MB, machine // 8 // MB * MB))
    for bad in ("lots", "-5", "0", "1e3", "9" * 40):
        assert store.budget_bytes({store.BUDGET_ENV: bad}) == default
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{store.BUDGET_ENV}={bad[:24]}" in err and "whole number of MB from 1" in err
    assert store.Store().max_bytes == store.budget_bytes()


def test_the_data_memo_keeps_no_value_larger_than_itself():
    memo = Memo(max_bytes=1000)
    memo.get("a", lambda: blob(600))
    assert memo.get("big", lambda: blob(2000)).nbytes == 2000
    assert memo.keys() == ["a"] and memo.held_bytes() == 600
    memo.get("b", lambda: blob(600))
    assert memo.keys() == ["b"] and memo.held_bytes() == 600


def test_a_value_being_made_is_waited_for_not_made_twice_and_a_failed_make_is_made_again():
    memo = Memo(float("inf"))
    started, release, calls = threading.Event(), threading.Event(), []

    def slow():
        calls.append("slow")
        started.set()
        release.wait(10)
        return "made once"

    first = threading.Thread(target=lambda: memo.get("k", slow))
    first.start()
    assert started.wait(10)
    got: list = []
    waiter = threading.Thread(target=lambda: got.append(memo.get("k", lambda: calls.append("again") or "twice")))
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive(), "the second caller did not wait for the value being made"
    release.set()
    first.join(10), waiter.join(10)
    assert got == ["made once"] and calls == ["slow"] and memo.made == 1

    def fails():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        memo.get("bad", fails)
    assert memo.get("bad", lambda: "made here") == "made here"  # nothing left marked as being made
    assert memo.get("nested", lambda: memo.get("nested", lambda: "inner")) == "inner"  # its own key: no deadlock


def test_a_value_whose_maker_is_stuck_is_made_by_the_waiter_after_a_bound(monkeypatch):
    monkeypatch.setattr(memo_module, "WAIT_S", 0.2)
    memo, release = Memo(float("inf")), threading.Event()
    stuck = threading.Thread(target=lambda: memo.get("k", lambda: release.wait(10) and "late"))
    stuck.start()
    time.sleep(0.05)
    assert memo.get("k", lambda: "made here") == "made here"
    release.set()
    stuck.join(10)


def test_a_learned_speed_is_an_average_or_the_fastest_seen():
    s = store.Store(max_bytes=MB)
    assert s.estimate("dose", 100) is None
    s.learn("dose", 100, 1.0)
    s.learn("dose", 100, 3.0)
    assert s.estimate("dose", 10) == 0.2  # seconds per unit: (0.01 + 0.03) / 2
    s.learn("scrub:dose", 100, 3.0, fastest=True)  # a first grid that compiled
    s.learn("scrub:dose", 100, 1.0, fastest=True)
    s.learn("scrub:dose", 100, 2.0, fastest=True)
    assert s.estimate("scrub:dose", 10) == 0.1


def test_a_run_teaches_the_store_its_speed_once_compiled_not_its_first_chunk(monkeypatch):
    """Chunks done at 5, 6 and 7 s: the first alone may have compiled (or run beside the warm-up's compilations),
    so the run's speed is 3 s, not 7 (a compile-inflated speed streamed the next short runs of the kind with a
    progress bar); a single chunk cannot tell compiling from running, so its time is only a bound."""
    from types import SimpleNamespace

    from safebandit_core.meanvar.settings import MVSettings
    from safebandit_ui import live

    shared = store.Store(max_bytes=MB)
    monkeypatch.setattr(live.store, "store", lambda: shared)
    s = MVSettings(T=50, seeds=2).validate()
    units = store.work(s)

    def chunks(*stamps: float):
        return lambda settings, device, chunk: iter([SimpleNamespace(seconds=t) for t in stamps])

    assert live.warm(s, "cpu", extra="one chunk", simulate=chunks(4.0))
    assert shared.estimate(s.KIND, units) == 4.0, "a bound, so that the next run of the kind is not called compiling"
    assert live.warm(s, "cpu", extra="three chunks", simulate=chunks(5.0, 6.0, 7.0))
    assert shared.estimate(s.KIND, units) == 3.0, "the measured speed replaces the bound, not averaged with it"
    assert live.warm(s, "cpu", extra="another single chunk", simulate=chunks(1.0))
    assert shared.estimate(s.KIND, units) == 3.0, "a bound does not move a measured speed"
    assert live.warm(s, "cpu", extra="slower", simulate=chunks(0.0, 5.0))
    assert shared.estimate(s.KIND, units) == 6.5, "measured speeds are averaged: (3 + 10) / 2"
