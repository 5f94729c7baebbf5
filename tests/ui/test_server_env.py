"""The environment the servers start with, and their start: a test server compiles at the test servers' level with
the warm-up as the test asks, ``make bench``'s servers run as ``make run``'s does, whatever the importing process
inherited, and a server whose port another process took first starts again on another."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

from safebandit_core import runner
from tests.conftest import ROOT
from tests.ui import browserkit
from tests.ui.browserkit import server_env
from tests.xlaflags import FULL_OPT_ENV, LARGE_RUN_ROUNDS, SERVER_XLA_FLAGS, TEST_XLA_FLAGS


def test_a_test_server_compiles_at_the_servers_level_and_keeps_the_suites_warm_up_setting():
    env = server_env()
    assert SERVER_XLA_FLAGS in env["XLA_FLAGS"] and TEST_XLA_FLAGS not in env["XLA_FLAGS"]
    assert env["SAFEBANDIT_WARMUP"] == "0"  # tests/conftest.py: tests time only what they run
    assert env["SAFEBANDIT_AHEAD"] == "0"  # ... and count only the runs they ask for
    assert FULL_OPT_ENV == runner.FULL_OPT_ENV and env[FULL_OPT_ENV] == str(LARGE_RUN_ROUNDS)
    assert server_env({"SAFEBANDIT_WARMUP": "1"})["SAFEBANDIT_WARMUP"] == "1"


def test_a_bench_server_runs_as_make_run_does():
    env = server_env(as_app=True)
    assert TEST_XLA_FLAGS not in env["XLA_FLAGS"] and SERVER_XLA_FLAGS not in env["XLA_FLAGS"]
    assert env["SAFEBANDIT_WARMUP"] == "1"  # the bench's warm server waits for the warm-up's line
    assert env["SAFEBANDIT_AHEAD"] == "1"  # and computes ahead, as make run's does
    assert FULL_OPT_ENV not in env
    assert env["PYTHONPATH"] == str(ROOT)


def test_importing_the_browser_kit_leaves_the_environment_alone():
    """``make bench`` imports the kit outside pytest: it must not pick up the suite's settings (the warm-up off,
    level 0) for its own process or its servers."""
    code = ("import json, os; before = dict(os.environ); import tests.ui.browserkit; "
            "print(json.dumps({k: (before.get(k), os.environ.get(k)) for k in set(before) | set(os.environ) "
            "if before.get(k) != os.environ.get(k)}))")
    suite = ("XLA_FLAGS", "SAFEBANDIT_WARMUP", "SAFEBANDIT_AHEAD")
    env = {k: v for k, v in server_env(as_app=True).items() if k not in suite}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == {}


def test_a_server_whose_port_was_taken_before_it_bound_starts_again_on_another(tmp_path, monkeypatch):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        ports = iter([held.getsockname()[1]])
        monkeypatch.setattr(browserkit, "free_port", lambda: next(ports, None) or _unused())
        with browserkit.serve(tmp_path / "server.log", script="app.py") as url:
            assert url != f"http://127.0.0.1:{held.getsockname()[1]}"
            assert "is not available" not in (tmp_path / "server.log").read_text()  # the log is the second start's


def _unused() -> int:
    """A port free now (the kit's own look-up, which the test replaces)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
