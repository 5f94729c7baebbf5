"""The server's warm-up stores every page's opening run under the very key the page asks for, so the first
visitor after it is served from the store (nothing computed, nothing compiled, no chart built): each model page
with untouched controls, its charts and its scrub chart, the *Your data* page's built-in example, every Present
scenario and every lesson scene; and it stops cleanly with its process."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import weakref
from collections.abc import Iterator

import pytest

from safebandit_core import device, lessons, runner, scenarios
from safebandit_ui import live, pagekit, store, warmup
from tests.ui.browserkit import serve
from tests.ui.helpers import APP, ROOT, charts, cleared_caches, open_page
from tests.xlaflags import LARGE_RUN_ROUNDS

PAGES = ("pages/dose.py", "pages/nonlinear.py", "pages/conservative.py", "pages/meanvar.py",
         "pages/logged.py")


@pytest.fixture(scope="module")
def warmed() -> Iterator[dict]:
    """One warm-up for the module (the store is kept between its tests); its status.

    Its large runs (the four scrub grids, the mean-variance lesson's) compile at XLA's full level, as the app
    compiles them, rather than at the suite's level 0 (``LARGE_RUN_ROUNDS``, tests/xlaflags.py, says why). What the
    warm-up stores, and under which keys, is the same either way."""
    caches = cleared_caches()
    next(caches)
    status = {"done": [], "failed": {}, "now": None}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(runner, "FULL_OPT_ROUNDS", LARGE_RUN_ROUNDS)
        warmup._warm(device.default_device_id(), status)
    status["frozen"] = gc.get_freeze_count()
    yield status
    gc.unfreeze()
    next(caches, None)


class Node:
    """An object that can refer to itself."""

    self: Node


def stored() -> set[str]:
    return set(store.store()._entries)


def test_every_opening_run_is_in_the_jobs():
    dev = device.default_device_id()
    names = [job.name for job in warmup.jobs(dev)]
    assert names[:4] == ["dose", "nonlinear", "conservative", "meanvar"], "the model pages come first"
    assert {f"present:{sc.key}" for sc in scenarios.every()} <= set(names)
    assert {f"lesson:{scene.slug}" for scene in lessons.scenes()} <= set(names)
    assert "logged" in names and "battery" not in names
    assert {"scrub:dose", "scrub:nonlinear", "scrub:conservative", "scrub:meanvar"} <= set(names)


def test_the_warm_up_finishes_without_failures(warmed):
    assert warmed["failed"] == {} and warmed["seconds"] > 0
    assert warmed["now"] is None


def test_the_warm_up_leaves_what_it_loaded_out_of_each_rerun_s_collection(warmed):
    assert warmed["frozen"] > 10_000, "the modules and stored runs are in the collector's permanent generation"


def test_settling_the_heap_leaves_the_collector_a_fraction_to_walk():
    gc.unfreeze()
    try:
        walked = len(gc.get_objects())
        warmup.settle_heap()
        assert gc.get_freeze_count() >= walked // 2
        assert len(gc.get_objects()) < walked // 10
        cycle = Node()
        cycle.self = cycle  # garbage made after the freeze is still collected
        ref = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert ref() is None
    finally:
        gc.unfreeze()


def made() -> tuple[int, int]:
    """How many views and charts the pages have built, and how many charts they have encoded, in this process."""
    return pagekit._per_run().made, pagekit._serialised().made


@pytest.mark.parametrize("page", PAGES)
def test_a_page_with_untouched_controls_finds_the_warm_up_run(warmed, page):
    """Its run and scrub chart from the store; a model page's views and charts too, made and encoded by the warm-up
    (so the view state the warm-up assumed, ``Spec.opening``, is the one the page's untouched controls give)."""
    before, built = stored(), made()
    at = open_page(page)
    ran = [c.value for c in at.caption if c.value.startswith("Ran on")]
    assert ran and "already computed on this server" in ran[0], (page, ran)
    if page != "pages/logged.py":
        assert "scrub" in charts(at), page
        assert made() == built, f"{page} built or encoded its opening charts again"
    assert stored() == before, f"{page} computed its opening run or its scrub chart again"


@pytest.mark.parametrize("scenario", [(sc.kind, sc.key) for sc in scenarios.every()], ids=lambda s: s[1])
def test_every_present_scenario_finds_the_warm_up_run(warmed, scenario):
    kind, key = scenario
    before = stored()
    at = open_page("pages/present.py", {"present_model": kind, f"present_scenario_{kind}": key})
    assert any("already computed on this server" in c.value for c in at.caption), key
    assert stored() == before, f"the Present page computed scenario {key} again"


@pytest.mark.parametrize("slug", [scene.slug for scene in lessons.scenes()])
def test_every_lesson_scene_finds_the_warm_up_runs(warmed, slug):
    before = stored()
    at = open_page("pages/lessons.py", {"scene": slug})
    status = [c.value for c in at.caption if "to compute" in c.value]
    assert status, slug
    runs = len(lessons.by_slug()[slug].jobs(lessons.Base(0, device.default_precision(device.default_device_id()))))
    assert f"({runs} already computed on this server" in status[0], (slug, status[0])
    assert stored() == before, f"the Lessons page computed scene {slug} again"


def test_the_stop_flag_ends_the_warm_up_between_jobs(monkeypatch):
    halt, ran = threading.Event(), []
    todo = [warmup.Job(f"job{i}", i) for i in range(3)]
    monkeypatch.setattr(warmup, "jobs", lambda device_id: todo)

    def warm(settings, device_id, extra=None, simulate=None):  # the job in flight asks to stop: no other starts
        ran.append(settings)
        halt.set()

    monkeypatch.setattr(live, "warm", warm)
    status = {"done": [], "failed": {}, "now": None}
    warmup._warm("cpu", status, halt)
    assert ran == [0] and status["done"] == ["job0"] and status["stopped"] and status["now"] is None
    halt.clear()
    status = {"done": [], "failed": {}, "now": None}
    monkeypatch.setattr(live, "warm", lambda settings, *args: ran.append(settings))
    warmup._warm("cpu", status, halt)  # not stopped: every job runs
    assert status["done"] == ["job0", "job1", "job2"] and ran == [0, 0, 1, 2]
    assert "stopped" not in status


EXIT_SCRIPT = textwrap.dedent("""
    import atexit, json, sys
    status = {}
    # Registered first, so it runs last: after the warm-up's own exit hook has waited for its job.
    atexit.register(lambda: print(json.dumps({k: status.get(k) for k in ("now", "stopped", "done")}), flush=True))
    from streamlit.testing.v1 import AppTest
    from safebandit_ui import warmup
    AppTest.from_file(sys.argv[1], default_timeout=120).run()
    status = warmup.start()
    print(json.dumps({"in_flight": status["now"]}), flush=True)
""")


def test_a_process_that_ran_the_app_exits_0_with_the_warm_up_in_flight():
    """AppTest of app.py with the warm-up on, then exit at once: the exit waits for the job in flight instead of
    finalising under it (which aborted with "terminate called ..." and exit 134)."""
    env = {**os.environ, warmup.OFF_ENV: "1", "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, "-c", EXIT_SCRIPT, APP], capture_output=True, text=True, cwd=ROOT,
                         env=env, timeout=600)
    assert out.returncode == 0 and "terminate called" not in out.stderr, out.stderr[-3000:]
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    at_exit = lines[-1]
    assert at_exit["now"] is None, "the warm-up was still inside a job when the interpreter finalised"
    if lines[0]["in_flight"] is not None:  # the usual case: the script ended before the warm-up did
        assert at_exit["stopped"] and lines[0]["in_flight"] in at_exit["done"], at_exit


def test_the_server_stopped_by_sigterm_exits_0(tmp_path):
    """``python -m safebandit_ui.serve`` with the warm-up on, sent SIGTERM as soon as it answers (the warm-up is
    then still running): Streamlit stops the server, the warm-up's job in flight ends, the process exits 0."""
    log, started = tmp_path / "server.log", []
    with serve(log, {warmup.OFF_ENV: "1"}, started):
        proc = started[0]
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(90) == 0, log.read_text()[-3000:]
    assert "terminate called" not in log.read_text()
