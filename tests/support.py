"""Helpers shared by tests: running a script in a fresh process with several forced host devices, and comparing
floats that come out of reductions whose order a machine or a compiled shape may change."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from tests.conftest import ROOT, with_test_flags


def run_with_host_devices(script: str, devices: int, timeout: float = 300) -> Any:
    """Run ``script`` in a new Python with ``devices`` CPU devices (XLA must see the flag before JAX
    is imported, hence the subprocess); return the JSON object it prints on its last line."""
    env = {**os.environ, "XLA_FLAGS": with_test_flags(f"--xla_force_host_platform_device_count={devices}"),
           "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=timeout)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def reduction_rtol(n_terms: int, dtype: Any = np.float64) -> float:
    """The relative tolerance of a value reached through ``n_terms`` rounded additions (a sum of that many terms; for
    a run, the rounds times the terms of each round's largest reduction, since every round reads sums over the
    earlier ones). Higham's bound for a recursive sum is (n − 1)·u·Σ|x| with u = eps/2; two evaluations in different
    orders (another CPU's SIMD width, XLA's grouping for a batched, padded or sharded shape, FMA or not) can each be
    off by it, so they differ by at most n·eps·Σ|x|. A real change to a computation moves it by far more."""
    return max(int(n_terms), 1) * float(np.finfo(dtype).eps)


def assert_close_sum(actual: Any, expected: Any, n_terms: int, dtype: Any = np.float64, scale: float | None = None,
                     err_msg: str = "") -> None:
    """``actual`` equals ``expected`` up to the reordering of a reduction of ``n_terms`` terms in ``dtype``, measured
    against ``scale`` (Σ|x| of the terms; by default the largest |expected|, right when the terms share a sign).
    Norm-wise, not element-wise: an entry near 0 after cancellation is held to the size of the sums, not its own."""
    want = np.asarray(expected, dtype=np.float64)
    got = np.asarray(actual, dtype=np.float64)
    size = float(np.max(np.abs(want))) if scale is None and want.size else float(scale or 0.0)
    np.testing.assert_allclose(got, want, rtol=0, atol=reduction_rtol(n_terms, dtype) * size, err_msg=err_msg)


def only_command(name: str) -> Callable[[], dict[str, str]]:
    """A stand-in for ``safebandit_core.cli.commands`` that routes ``name`` alone (so a test of one command builds
    one parser, not every command's)."""
    from safebandit_core import cli

    table = {name: cli.commands()[name]}
    return lambda: table


def inflating_mat(n_bytes: int) -> bytes:
    """A MATLAB v5 file of one compressed element that inflates to ``n_bytes`` zero bytes (a few hundred kB for
    hundreds of MB): what a crafted upload looks like to a reader that inflates it whole."""
    import struct
    import zlib

    head = b"MATLAB 5.0 MAT-file, crafted to inflate".ljust(116) + bytes(8) + struct.pack("<H", 0x0100) + b"IM"
    pack, block = zlib.compressobj(9), bytes(1 << 20)
    body = b"".join(pack.compress(block) for _ in range(n_bytes >> 20))
    body += pack.compress(bytes(n_bytes % (1 << 20))) + pack.flush()
    return head + struct.pack("<II", 15, len(body)) + body
