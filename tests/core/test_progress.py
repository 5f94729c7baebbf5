"""The progress line of long command-line runs: on a terminal (a pseudo-terminal here) it shows the fraction done
and the time left on stderr; through a pipe nothing extra is written and ``--json`` stays one JSON document."""

from __future__ import annotations

import fcntl
import io
import json
import os
import select
import struct
import sys
import termios
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from safebandit_core import cli, progress, sweep
from safebandit_core.dose.settings import DoseSettings


@pytest.fixture(autouse=True)
def at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Show the line from the first update (runs in tests are shorter than the delay)."""
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    monkeypatch.setattr(progress, "MIN_INTERVAL_S", 0.0)


def on_pty(monkeypatch: pytest.MonkeyPatch, work: Callable[[], object]) -> tuple[object, str]:
    """Run ``work`` with stderr on a pseudo-terminal; its result and what the terminal received."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 160, 0, 0))  # a terminal has a width
    chunks: list[bytes] = []
    done = threading.Event()

    def drain() -> None:  # keep the terminal's buffer from filling while the run writes
        while True:
            finished = done.is_set()  # read before select: whatever was written before it is then seen as ready
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                chunks.append(os.read(master, 65536))
            elif finished:
                return

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    tty = os.fdopen(slave, "w", buffering=1)
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stderr", tty)
        result = work()
        tty.flush()
    done.set()
    reader.join(timeout=120)  # a loaded machine may not schedule the reader for a while
    tty.close()
    os.close(master)
    return result, b"".join(chunks).decode(errors="replace")


def test_line_shows_fraction_and_time_left_on_a_terminal_and_nothing_elsewhere(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def half() -> None:
        with progress.line("replay x") as tick:
            assert tick is not None
            tick(0.5, "Round 50 of 100")

    _, shown = on_pty(monkeypatch, half)
    assert "replay x" in shown and "50%" in shown and "left" in shown and "Round 50 of 100" in shown
    pipe = io.StringIO()
    with progress.line("replay x", pipe) as tick:
        assert tick is None
    assert pipe.getvalue() == ""


def test_preset_progress_on_a_terminal_and_clean_json_through_a_pipe(monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["preset", "--preset", "s001-fig1b-clb", "--seeds", "2", "--T", "100", "--json"]
    code, shown = on_pty(monkeypatch, lambda: cli.main(argv))
    assert code == 0
    assert "preset s001-fig1b-clb" in shown and "%" in shown and "left" in shown
    on_tty = json.loads(capsys.readouterr().out)
    assert cli.main(argv) == 0
    piped = capsys.readouterr()
    assert piped.err == ""
    assert json.loads(piped.out)["rows"] == on_tty["rows"]


def test_a_long_model_run_moves_the_line_and_gives_the_same_numbers(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(progress, "MIN_UNITS", 0)  # every run counts as long: run in chunks on a terminal
    argv = ["dose", "--T", "2500", "--seeds", "2", "--json"]
    code, shown = on_pty(monkeypatch, lambda: cli.main(argv))
    assert code == 0 and "round 2,000 of 2,500" in shown and "left" in shown
    chunked = json.loads(capsys.readouterr().out)
    assert cli.main(argv) == 0
    piped = capsys.readouterr()
    assert piped.err == ""
    whole = json.loads(piped.out)
    (chunked,), (whole,) = chunked["rows"], whole["rows"]
    assert chunked["cum_regret_mean"] == pytest.approx(whole["cum_regret_mean"], rel=1e-9)
    assert chunked["violation_rate"] == pytest.approx(whole["violation_rate"], rel=1e-9)


def test_sweep_progress_on_a_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    spec = sweep.SweepSpec("dose", DoseSettings(T=100, seeds=2), (0.1, 0.5))
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(spec.to_dict()))
    code, shown = on_pty(monkeypatch, lambda: cli.main(["sweep", "--settings", str(path), "--json"]))
    assert code == 0 and "sweep" in shown and "Round 100 of 100" in shown
    json.loads(capsys.readouterr().out)
