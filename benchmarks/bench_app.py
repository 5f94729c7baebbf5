"""App latency through Streamlit's AppTest (no browser; the script run is what is timed).

- a slider change (τ) to the redrawn dose page, warm: the model is compiled and the page has run
  once; every τ is new, so each change runs the simulation (T = 2000, d = 5, 5 seeds, 3 policies);
  target ≤ 1 s on 2 cores;
- a view-only change (the regret band), which redraws from the stored result;
- the first cold load of the dose page in a fresh process: Python start, imports, JAX start-up and
  compilation included.
"""

from __future__ import annotations

import json
import logging
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
T = 2000
SETTING = f"T={T}, d=5, 5 seeds, 3 policies"
TARGET_S = 1.0


def _dose_page(timeout: float):
    """A warm AppTest on the dose page (first run done, so JAX has compiled)."""
    from streamlit.testing.v1 import AppTest

    logging.getLogger("streamlit").setLevel(logging.ERROR)  # bare-mode notices would clutter the table

    at = AppTest.from_file(APP, default_timeout=timeout)
    at.session_state["T"] = T
    at.run()
    at.switch_page("pages/dose.py").run()
    if at.exception:
        raise RuntimeError(f"the dose page failed: {at.exception[0].message}")
    return at


def _timed_runs(at, changes: list) -> list[float]:
    times = []
    for change in changes:
        start = time.perf_counter()
        change(at).run()
        times.append(time.perf_counter() - start)
        if at.exception:
            raise RuntimeError(f"the dose page failed: {at.exception[0].message}")
    return times


def _row(benchmark: str, setting: str, times: list[float], note: str) -> dict:
    return {"benchmark": benchmark, "setting": setting, "seconds": round(statistics.median(times), 3),
            "note": f"{note}; median of {len(times)}, max {max(times):.3f} s"}


def warm_rows(quick: bool) -> list[dict]:
    """Slider → redrawn page (new simulation each time) and a view-only redraw, both warm."""
    import streamlit as st

    st.cache_data.clear()
    n = 3 if quick else 10
    at = _dose_page(timeout=600)
    at.slider(key="tau").set_value(0.45).run()
    taus = [round(0.55 + 0.05 * i, 2) for i in range(n)]
    slider = _timed_runs(at, [lambda a, v=v: a.slider(key="tau").set_value(v) for v in taus])
    bands = ["minmax", "std"] * ((n + 1) // 2)
    view = _timed_runs(at, [lambda a, b=b: a.radio(key="band").set_value(b) for b in bands[:n]])
    ok = "meets" if statistics.median(slider) <= TARGET_S else "misses"
    return [
        _row("app: τ slider → redrawn dose page (warm)", SETTING, slider,
             f"new simulation + all 7 figures; {ok} the ≤ {TARGET_S:g} s target"),
        _row("app: view change → redraw from stored result", SETTING, view, "regret band switch; no simulation"),
    ]


def cold_row() -> dict:
    """First load of the dose page in a fresh interpreter (JAX compile included)."""
    script = textwrap.dedent(f"""
        import json, time
        start = time.perf_counter()
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file({APP!r}, default_timeout=600)
        at.session_state["T"] = {T}
        at.switch_page("pages/dose.py").run()
        print(json.dumps({{"seconds": time.perf_counter() - start, "errors": [e.message for e in at.exception]}}))
    """)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=900)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if got["errors"]:
        raise RuntimeError(f"the dose page failed: {got['errors'][0]}")
    return {"benchmark": "app: first cold load of the dose page", "setting": SETTING, "seconds": round(wall, 2),
            "note": f"fresh process incl. Python start, imports, JAX compile; in-script {got['seconds']:.2f} s"}


def bench(quick: bool) -> list[dict]:
    """Rows for ``python -m benchmarks``."""
    return [*warm_rows(quick), cold_row()]
