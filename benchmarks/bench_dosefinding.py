"""Wall time of the phase-I designs: 3+3, BOIN and CRM on the same 10⁴ simulated trials.

The scenario of the ``dosefinding`` command's default: six doses (0.05, 0.1, 0.2, 0.3, 0.45, 0.6), target 0.3,
ten cohorts of three. One warm-up call compiles; the row is the best of three warm calls (all three designs in
one jitted call, the tolerances drawn inside it). ``quick`` runs 10³ trials.
"""

from __future__ import annotations

import time

from safebandit_core import device as _device
from safebandit_core.dosefinding import simulate

TRUTH = (0.05, 0.1, 0.2, 0.3, 0.45, 0.6)


def bench(quick: bool) -> list[dict]:
    """One row: the best warm wall time of all three designs on 10⁴ trials (10³ with ``quick``)."""
    trials = 1_000 if quick else 10_000
    simulate(TRUTH, 0.3, trials=trials)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        res = simulate(TRUTH, 0.3, trials=trials)
        times.append(time.perf_counter() - start)
    pcs = ", ".join(f"{name} {res.characteristics[name]['pcs']:.1f} %" for name in res.designs)
    return [{"benchmark": "dosefinding", "setting": f"3+3, BOIN, CRM; 6 doses, 10 cohorts of 3, {trials} trials",
             "seconds": round(min(times), 3),
             "note": f"warm, on {_device.describe(None)} (float64); correct selection {pcs}"}]
