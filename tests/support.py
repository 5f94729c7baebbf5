"""Helpers shared by tests: running a script in a fresh process with several forced host devices."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tests.conftest import ROOT


def run_with_host_devices(script: str, devices: int, timeout: float = 300) -> Any:
    """Run ``script`` in a new Python with ``devices`` CPU devices (XLA must see the flag before JAX
    is imported, hence the subprocess); return the JSON object it prints on its last line."""
    env = {**os.environ, "XLA_FLAGS": f"--xla_force_host_platform_device_count={devices}", "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=timeout)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])
