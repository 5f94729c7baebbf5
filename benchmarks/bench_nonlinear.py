"""Non-linear HPC-UCB benchmarks: the cost of one round at |F| = 64 and 1024.

Each round updates two |F|×|F| pairwise-distance matrices per run (O(|F|²)), so the time per
round grows about 256-fold from |F| = 64 to 1024 once the matrices dominate the per-round overhead.
"""

from __future__ import annotations

import time

from safebandit_core import device
from safebandit_core import model as M
from safebandit_core.dose.nonlinear import FAMILY, NonlinearSettings


def _per_round(size: int, T: int, dev: str, precision: str) -> dict:
    s = NonlinearSettings(function_class="linear-grid", size=size, d=5, T=T, seeds=5, precision=precision)
    M.run(FAMILY, s, dev)  # compile
    start = time.perf_counter()
    M.run(FAMILY, s, dev)
    seconds = time.perf_counter() - start
    return {"benchmark": "non-linear HPC-UCB, time per round",
            "setting": f"|F|={size}, linear-grid d=5, 3 policies x 5 seeds, {precision}, {dev}",
            "seconds": seconds, "per_round_ms": 1000 * seconds / T, "note": f"{T} rounds, O(|F|^2) a round per run"}


def bench(quick: bool) -> list[dict]:
    """Rows for ``make bench``."""
    rows = []
    for dev, precision in [("cpu", "float64")] + ([("gpu", "float32")] if device.has_gpu() else []):
        for size, T in ((64, 200 if quick else 2000), (1024, 20 if quick else 200)):
            rows.append(_per_round(size, T, dev, precision))
    return rows
