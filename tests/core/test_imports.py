"""The core imports cleanly: every module first on its own, so no import cycle can leave one half-initialised
(the import boundary itself is tests/core/test_boundaries.py)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

SCRIPT = r"""
import importlib, json, pkgutil, sys, traceback
import jax  # loaded once: what is tested is the order inside the core
import safebandit_core
names = sorted(m.name for m in pkgutil.walk_packages(safebandit_core.__path__, "safebandit_core.")
               if not m.name.endswith("__main__"))
failed = {}
for name in names:
    for mod in [m for m in sys.modules if m == "safebandit_core" or m.startswith("safebandit_core.")]:
        del sys.modules[mod]
    try:
        importlib.import_module(name)
    except Exception:
        failed[name] = traceback.format_exc(limit=3)[-600:]
print(json.dumps({"modules": names, "failed": failed, "streamlit": "streamlit" in sys.modules}))
"""


def test_every_core_module_imports_first_on_its_own():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=ROOT, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(report["modules"]) > 20
    assert report["failed"] == {}, report["failed"]
    assert not report["streamlit"], "the core imported streamlit"
