"""Sweeps and preset replays across local processes on JAX's multi-controller runtime (CPU, gloo).

One test starts every run at once (a one-process reference, a two-process and a three-process
run of the same commands, a process pointed at a coordinator that is not there, and a pair of which
one is killed) and then checks them, so the file stays short on a small machine. Each process of a
run executes two commands in one interpreter (``replay --preset s000-table1`` at a tiny size, then
a five-cell conservative CMAB sweep), so it joins the others once. Every process is ended in a
``finally``.
"""

from __future__ import annotations

import io
import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import jax
import numpy as np
import pandas as pd
import pytest
from jax.sharding import Mesh

from safebandit_core import cli, clikit, distributed
from tests.conftest import ROOT, with_test_flags

DRIVER = r"""
import sys
from safebandit_core import cli
argv, cmds = sys.argv[1:], [[]]
for a in argv:
    cmds.append([]) if a == "::" else cmds[-1].append(a)
for cmd in cmds:
    rc = cli.main(cmd)
    if rc:
        sys.exit(rc)
"""
REPLAY = ["replay", "--preset", "s000-table1", "--seeds", "2", "--T", "200", "--json"]
CMAB = {"kind": "sweep", "model": "conservative", "x": "alpha", "xs": [0.05, 0.07, 0.1, 0.12, 0.15], "y": "mu0",
        "ys": [0.7], "base": {"kind": "conservative", "problem": "cmab", "K": 6, "alpha": 0.05, "mu0": 0.7, "T": 300,
                              "seeds": 2}}
RTOL = 1e-12
"""Above the reordering bound of the longest sums here (300 rounds over 8 arms: 2400·eps ≈ 5e-13): another split
of the grid is another compiled batch shape, which XLA may group differently."""
CONNECT_S = 2
HEARTBEAT_S = 3
DONE_S = 240


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env() -> dict[str, str]:
    out = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu", "PYTHONUNBUFFERED": "1"}
    out["XLA_FLAGS"] = with_test_flags()
    return out


def flags(n: int, i: int, port: int, heartbeat: int = 60) -> list[str]:
    return ["--coordinator", f"127.0.0.1:{port}", "--num-processes", str(n), "--process-id", str(i),
            "--connect-timeout", "120", "--heartbeat-timeout", str(heartbeat)]


class Job:
    """Processes started together; stdout and stderr kept per process."""

    def __init__(self, argvs: list[list[str]]):
        self.start = time.monotonic()
        self.procs = [subprocess.Popen([sys.executable, *argv], cwd=ROOT, env=env(), stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True) for argv in argvs]
        self.out: list[list[str]] = [[] for _ in self.procs]
        self.err: list[list[str]] = [[] for _ in self.procs]
        self.readers = [threading.Thread(target=self._read, args=(s, buf), daemon=True)
                        for p, o, e in zip(self.procs, self.out, self.err, strict=True)
                        for s, buf in ((p.stdout, o), (p.stderr, e))]
        for r in self.readers:
            r.start()

    @staticmethod
    def _read(stream, buf: list[str]) -> None:
        for line in stream:
            buf.append(line)

    def wait(self, timeout: float) -> list[int]:
        codes = [p.wait(timeout=max(1.0, timeout - (time.monotonic() - self.start))) for p in self.procs]
        for r in self.readers:
            r.join(timeout=5)
        return codes

    def stdout(self, i: int) -> str:
        return "".join(self.out[i])

    def stderr(self, i: int) -> str:
        return "".join(self.err[i])

    def kill(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)


def commands(tmp: Path, tag: str, extra: list[str]) -> list[str]:
    """Both commands for one process, each writing into its own folder ``tmp/<tag>_<command>``."""
    return ["-c", DRIVER, *REPLAY, "--out", str(tmp / f"{tag}_replay"), *extra, "::", "sweep", "--settings",
            str(tmp.parent / "cmab.json"), "--json", "--out", str(tmp / f"{tag}_sweep"), *extra]


def run_group(tmp: Path, n: int) -> Job:
    port = free_port()
    (tmp / f"n{n}").mkdir()
    return Job([commands(tmp / f"n{n}", f"p{i}", flags(n, i, port)) for i in range(n)])


def frames(bundle: Path) -> dict[str, pd.DataFrame]:
    with zipfile.ZipFile(bundle) as zf:
        return {n: pd.read_parquet(io.BytesIO(zf.read(n))) for n in zf.namelist() if n.startswith("rounds/")}


def assert_close(a, b, path: str = "") -> None:
    """Equal to RTOL relative, recursively through JSON values (strings and ints exactly)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            assert_close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_close(x, y, f"{path}[{k}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=RTOL, abs_tol=1e-300), (path, a, b)
    else:
        assert a == b, (path, a, b)


def check_group(job: Job, n: int, tmp: Path, ref: dict[str, object]) -> None:
    """Process 0 printed and wrote what the reference did; the others printed one line each and wrote nothing."""
    root = tmp / f"n{n}"
    docs = [json.loads(line) for line in job.stdout(0).splitlines() if line.startswith("{")]
    assert len(docs) == 2, job.stdout(0)[-2000:]
    replay, sweep = docs
    assert sweep["processes"] == n and f"over {n} processes" in sweep["device"]
    for key in ("rows", "paper", "claims"):
        assert_close(ref["replay"][key], replay[key], key)
    assert_close(ref["sweep"]["rows"], sweep["rows"], "sweep rows")
    for i in range(1, n):
        assert job.stdout(i) == "", job.stdout(i)
        assert "process 0 prints the results" in job.stderr(i)
        assert not list(root.glob(f"p{i}_*"))
    for kind, pattern in (("replay", "*.zip"), ("sweep", "sweep_*.zip")):
        mine = frames(next((root / f"p0_{kind}").glob(pattern)))
        theirs = frames(next((tmp / "n1" / f"p0_{kind}").glob(pattern)))
        assert mine.keys() == theirs.keys()
        for k in mine:
            for col in mine[k]:
                a, b = theirs[k][col].to_numpy(), mine[k][col].to_numpy()
                if a.dtype.kind == "f":
                    scale = float(np.max(np.abs(a))) or 1.0
                    np.testing.assert_allclose(b, a, rtol=RTOL, atol=RTOL * scale, err_msg=f"{kind} {k} {col}")
                else:
                    assert (a == b).all(), (kind, k, col)
    assert sorted(p.name for p in (root / "p0_sweep").iterdir()) == [
        "sweep_conservative_T300_seeds2.json", "sweep_conservative_T300_seeds2.parquet",
        "sweep_conservative_T300_seeds2.zip"]


def test_multiprocess_runs_match_one_process_and_faults_end_promptly(tmp_path):
    (tmp_path / "cmab.json").write_text(json.dumps(CMAB))
    (tmp_path / "long.json").write_text(json.dumps({**CMAB, "base": {**CMAB["base"], "T": 20_000}}))
    (tmp_path / "n1").mkdir()
    jobs: list[Job] = []
    try:
        ref = Job([commands(tmp_path / "n1", "p0", [])])
        two, three = run_group(tmp_path, 2), run_group(tmp_path, 3)
        lost = Job([["-m", "safebandit_core", "sweep", "--settings", str(tmp_path / "cmab.json"), "--coordinator",
                     f"127.0.0.1:{free_port()}", "--num-processes", "2", "--process-id", "1", "--connect-timeout",
                     str(CONNECT_S)]])
        port = free_port()
        (tmp_path / "killed").mkdir()
        pair = Job([["-m", "safebandit_core", "sweep", "--settings", str(tmp_path / "long.json"), "--out",
                     str(tmp_path / "killed" / f"p{i}"), *flags(2, i, port, HEARTBEAT_S)] for i in range(2)])
        jobs += [ref, two, three, lost, pair]

        # a process with no coordinator: exit 2 and one line naming the address, instead of waiting forever (the
        # bound is the suite's usual one: a loaded machine may take a minute just to import JAX)
        assert lost.wait(DONE_S) == [2]
        line = lost.stderr(0).strip()
        assert line.count("\n") == 0 and "127.0.0.1:" in line and "no coordinator answered" in line, line

        # kill process 1 once both joined: process 0 stops non-zero within the heartbeat timeout, writing nothing
        deadline = time.monotonic() + 120
        while not all("joined" in pair.stderr(i) for i in range(2)) and time.monotonic() < deadline:
            assert pair.procs[0].poll() is None and pair.procs[1].poll() is None, pair.stderr(0)[-1000:]
            time.sleep(0.02)
        pair.procs[1].send_signal(signal.SIGKILL)
        killed_at = time.monotonic()
        code = pair.procs[0].wait(timeout=HEARTBEAT_S + 30)  # the margin is for a loaded machine
        assert code != 0 and time.monotonic() - killed_at < HEARTBEAT_S + 30
        assert not any((tmp_path / "killed").iterdir())

        assert ref.wait(DONE_S) == [0], ref.stderr(0)[-2000:]
        docs = [json.loads(line) for line in ref.stdout(0).splitlines() if line.startswith("{")]
        reference = {"replay": docs[0], "sweep": docs[1]}
        for n, job in ((2, two), (3, three)):
            assert job.wait(DONE_S) == [0] * n, [job.stderr(i)[-1500:] for i in range(n)]
            check_group(job, n, tmp_path, reference)
    finally:
        for job in jobs:
            job.kill()


def test_flags_and_plan_without_processes(capsys):
    """Bad combinations exit 2 with one line naming the flag; a mesh inside one process needs no plan."""
    for argv, flag in ((["--coordinator", "h:1"], "--num-processes"), (["--coordinator", "h", "--num-processes", "2",
                       "--process-id", "0"], "--coordinator"), (["--coordinator", "h:1", "--num-processes", "2",
                       "--process-id", "2"], "--process-id"), (["--connect-timeout", "3"], "--connect-timeout"),
                       (["--distributed", "auto", "--no-shard"], "--no-shard")):
        assert cli.main(["sweep", "--settings", "missing.json", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and err.startswith(f"error: {flag}"), err
    assert distributed.plan(None, 5, 2) is None
    assert distributed.plan(Mesh(np.asarray(jax.devices()), ("grid",)), 5, 2) is None
    assert distributed.role() == distributed.LOCAL and distributed.is_writer()
    assert distributed.split_address("[::1]:80") == ("::1", 80)
    with pytest.raises(ValueError):
        distributed.split_address("host:0")


class Ended(Exception):
    """Raised instead of ``os._exit`` so a test can see how a process of a multi-process run would end."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


def end_of_run(monkeypatch, process: int, processes: int, barrier_error: BaseException | None, body_error=None
               ) -> tuple[int, bool]:
    """Run ``clikit.joined`` as ``process`` of ``processes`` whose body writes a file (or raises ``body_error``) and
    whose final barrier raises ``barrier_error``; return (exit code, whether the file was written)."""
    def barrier(name: str) -> None:
        if barrier_error is not None:
            raise barrier_error

    def exit_now(code: int) -> None:
        raise Ended(code)

    monkeypatch.setattr(distributed, "start", lambda options: distributed.Role(process, processes))
    monkeypatch.setattr(distributed, "device_count", lambda: processes)
    monkeypatch.setattr(distributed, "barrier", barrier)
    monkeypatch.setattr(clikit.os, "_exit", exit_now)
    written = []
    try:
        with clikit.joined(distributed.Options()):
            if body_error is not None:
                raise body_error
            written.append(True)
    except Ended as ended:
        return ended.code, bool(written)
    return 0, bool(written)


def test_a_peer_leaving_after_process_0_wrote_everything_costs_nothing(monkeypatch, capsys):
    gloo = RuntimeError("Gloo barrier failed: connection closed by peer; /job:jax_worker/replica:0/task:2 is gone")
    assert end_of_run(monkeypatch, 0, 3, gloo) == (0, True)
    assert capsys.readouterr().err.splitlines()[-1] == "results complete; process 2 left during shutdown"
    assert end_of_run(monkeypatch, 0, 2, RuntimeError("Gloo: connection reset")) == (0, True)
    assert capsys.readouterr().err.splitlines()[-1] == "results complete; process 1 left during shutdown"
    # a process that writes nothing, or a body that failed, still ends with its error
    assert end_of_run(monkeypatch, 1, 2, RuntimeError("Gloo: connection reset")) == (1, True)
    assert "error: process 1 of 2: RuntimeError: Gloo" in capsys.readouterr().err
    assert end_of_run(monkeypatch, 0, 2, None, body_error=OSError("disk full")) == (1, False)
    assert capsys.readouterr().err.splitlines()[-1] == "error: process 0 of 2: OSError: disk full"
    assert end_of_run(monkeypatch, 0, 2, KeyboardInterrupt()) == (130, True)
    assert end_of_run(monkeypatch, 0, 2, None) == (0, True)  # the ordinary end: no early exit at all
