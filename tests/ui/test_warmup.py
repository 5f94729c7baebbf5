"""The server's warm-up stores each model page's default run under the very key the page asks for, so the
first visitor after it is served from the store (nothing computed, nothing compiled); and it stops cleanly
with its process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from safebandit_core import device, families
from safebandit_ui import store, warmup
from tests.ui.browserkit import serve
from tests.ui.helpers import APP, ROOT, cleared_caches, open_page

PAGES = ("pages/dose.py", "pages/nonlinear.py", "pages/conservative.py", "pages/mean_variance.py")


@pytest.fixture(autouse=True)
def _fresh_caches():
    yield from cleared_caches()


def test_a_page_with_untouched_controls_finds_the_warm_up_run():
    status = {"done": [], "failed": {}, "now": None}
    warmup._warm(device.default_device_id(), status)
    assert status["failed"] == {} and status["seconds"] > 0
    assert {"dose", "nonlinear", "conservative", "mv"} <= set(status["done"])
    assert {name for name, _ in warmup.presentation(device.default_device_id())} <= set(status["done"])
    assert {"scrub:dose", "scrub:nonlinear", "scrub:conservative", "scrub:mv"} <= set(status["done"])
    stored = set(store.store()._entries)
    for page in PAGES:
        at = open_page(page)
        ran = [c.value for c in at.caption if c.value.startswith("Ran on")]
        assert ran and "already computed on this server" in ran[0], (page, ran)
        assert "scrub" in {el.key for el in at.get("plotly_chart")}, page
    assert set(store.store()._entries) == stored, "a model page computed its run or its scrub chart again"
    for kind in ("dose", "conservative", "mv"):  # the Present page's first screen of each model
        open_page("pages/present.py", {"present_model": kind})
        assert set(store.store()._entries) == stored, f"the Present page computed its {kind} opening again"


class _Store:
    """A store that always computes (the real one would answer a second test from memory)."""

    def get_or_compute(self, key: str, compute):
        return compute(), True


def test_the_stop_flag_ends_the_warm_up_between_jobs(monkeypatch):
    halt, ran = threading.Event(), []

    def run(settings, device_id):  # the job in flight asks to stop: it finishes, no other job starts
        ran.append(type(settings).KIND)
        halt.set()

    monkeypatch.setattr(families, "run", run)
    monkeypatch.setattr(store, "store", _Store)
    status = {"done": [], "failed": {}, "now": None}
    warmup._warm("cpu", status, halt)
    first = type(warmup.defaults("cpu")[0]).KIND
    assert ran == [first] and status["done"] == [first] and status["stopped"] and status["now"] is None
    halt.clear()
    status = {"done": [], "failed": {}, "now": None}
    monkeypatch.setattr(families, "run", lambda settings, device_id: ran.append(type(settings).KIND))
    warmup._warm("cpu", status, halt)  # not stopped: every job runs
    assert len(status["done"]) == len(warmup.defaults("cpu")) + len(warmup.presentation("cpu"))
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
