"""Concurrent first imports: what the pages import, imported by 8 threads at once in fresh processes, never fails.

Streamlit runs each session's script in its own thread, so the first visitors of a fresh server import the pages'
modules at the same moment. One interpreter loads the third-party libraries (their own imports are not what is
tested) and forks 20 processes, a few at a time, in none of which any module of the library is imported yet
(half of them then import the core's registry of families, as a command-line run would); each starts 8 threads
together, each importing every module the pages import, each in its own order. A deadlock between two module
imports, or a module seen half-imported, is an error (the static rule that makes this hold is in
tests/core/test_boundaries.py).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from safebandit_ui import registry
from tests.conftest import ROOT

LOCAL = ("safebandit_core", "safebandit_ui")
THREADS = 8
RUNS = 20
AT_ONCE = 4

SCRIPT = r"""
import importlib, json, os, random, sys, threading
import jax, numpy, pandas, plotly.graph_objects, streamlit  # the third-party libraries, loaded first
assert not [m for m in sys.modules if m.split(".")[0] in ("safebandit_core", "safebandit_ui")]
pages, threads, runs, at_once, loads = (json.loads(arg) for arg in sys.argv[1:])


def race(loaded):
    for name in loaded:
        importlib.import_module(name)
    start, errors = threading.Barrier(threads), []

    def visit(order):
        start.wait()
        for name in order:
            try:
                importlib.import_module(name)
            except Exception as err:
                errors.append(f"{name}: {type(err).__name__}: {err}")

    modules = sorted({name for page in pages for name in page})
    orders = [random.Random(seed).sample(modules, len(modules)) for seed in range(threads)]
    workers = [threading.Thread(target=visit, args=(order,)) for order in orders]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return errors


def forked(loaded):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # a fresh process: none of the library's modules imported yet
        os.close(read)
        try:
            out = race(loaded)
        except BaseException as err:
            out = [f"{type(err).__name__}: {err}"]
        os.write(write, json.dumps(out).encode())
        os._exit(0)
    os.close(write)
    return pid, read


results = []
for first in range(0, runs, at_once):
    children = [forked(loads[i % len(loads)]) for i in range(first, min(first + at_once, runs))]
    for pid, read in children:
        with os.fdopen(read) as pipe:
            text = pipe.read()
        _, status = os.waitpid(pid, 0)
        results.append({"status": status, "errors": json.loads(text) if text else ["no answer"]})
print(json.dumps(results))
"""


def page_modules(page: Path) -> list[str]:
    """The library's modules a page script imports at its top level, in order (``from P import a`` gives ``P``,
    then ``P.a`` where that is a module)."""
    out: list[str] = []
    for node in ast.parse(page.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
            out += [f"{node.module}.{alias.name}" for alias in node.names
                    if (ROOT / Path(*node.module.split("."), f"{alias.name}.py")).is_file()]
    return [m for m in dict.fromkeys(out) if m.split(".")[0] in LOCAL]


def every_page() -> list[list[str]]:
    """What each page imports, then each model page's spec (which :func:`safebandit_ui.model_page.render` imports
    when the page runs)."""
    specs = sorted({e.spec.partition(":")[0] for e in registry.ENTRIES.values() if e.spec})
    return [page_modules(p) for p in sorted((ROOT / "pages").glob("*.py"))] + [[s] for s in specs]


def test_the_pages_modules_list_what_each_page_imports():
    pages = every_page()
    assert ["safebandit_ui", "safebandit_ui.stopping", "safebandit_ui.model_page"] in pages  # the model pages
    assert "safebandit_ui.specs.nonlinear" in {m for p in pages for m in p}
    battery = page_modules(ROOT / "pages" / "battery.py")
    assert battery.index("safebandit_core.viz") < battery.index("safebandit_core.viz.battery")


LOADED = ([], ["safebandit_core.families"])
"""What the library has loaded when the threads start: nothing, or the registry of families (the whole core but
no page helper nor figure module, as after a command-line run)."""


def test_eight_threads_import_every_page_at_once_in_twenty_fresh_processes():
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu", "SAFEBANDIT_WARMUP": "0"}
    args = [json.dumps(v) for v in (every_page(), THREADS, RUNS, AT_ONCE, LOADED)]
    out = subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    results = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(results) == RUNS
    failed = [r for r in results if r["status"] != 0 or r["errors"]]
    assert failed == [], f"{len(failed)} of {RUNS} processes failed: {failed[:3]}"
