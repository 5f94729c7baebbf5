"""``make bench-gpu`` (``python -m benchmarks --gpu``): the GPU rows, each beside the same run on the CPU.

All in float32, the GPU's precision:

- the dose core at d = 2048: milliseconds per round, one run;
- the battery replay at d = 2048, T = 10⁵, 3 policies (Safety by Design reports about 30 minutes on
  an L40 for one setting; the floor is one read and one write of the d×d inverse per informative round);
- the paper-size One-size-fits-all grids (CMAB, K ∈ {24, 72, 144} × α ∈ {0.05, 0.1, 0.15}, 50 runs,
  T = 10⁵, three policies).

Each GPU row has a CPU row at a reduced T (the same shapes, so the per-round cost compares) and the
ratio of the two per-round costs. Without a GPU it prints one row saying so, and nothing else runs.
"""

from __future__ import annotations

import time

from safebandit_core import device, families
from safebandit_core.battery import BatteryReplaySettings, prepare, run_replay
from safebandit_core.conservative import ConservativeSettings
from safebandit_core.dose import DoseSettings

PAPER_T = 100_000


def _timed(fn) -> float:
    fn()  # compile (and the first transfer)
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _pair(name: str, setting: str, run, T_gpu: int, T_cpu: int) -> list[dict]:
    """A GPU row at ``T_gpu`` and a CPU row at ``T_cpu``, with the per-round ratio."""
    gpu = _timed(lambda: run("gpu", T_gpu))
    cpu = _timed(lambda: run("cpu", T_cpu))
    per_gpu, per_cpu = gpu / T_gpu, cpu / T_cpu
    return [{"benchmark": f"gpu: {name}", "setting": f"{setting}, T = {T_gpu:,}, gpu float32", "seconds": gpu,
             "per_round_ms": 1000 * per_gpu, "ratio": per_cpu / per_gpu,
             "note": f"CPU at T = {T_cpu:,}: {1000 * per_cpu:.3f} ms per round"}]


def _dose(dev: str, T: int) -> None:
    s = DoseSettings(policies=("hpucb",), d=2048, T=T, seeds=1, precision="float32")
    families.run(s, dev)


def _battery(dev: str, T: int) -> None:
    s = BatteryReplaySettings(dim=2048, T=T, seeds=1, base_seed=0, precision="float32")
    run_replay(prepare(s), dev)


def _grid(dev: str, T: int) -> None:
    for K in (24, 72, 144):
        s = ConservativeSettings(problem="cmab", K=K, mu0=0.7, T=T, seeds=50, precision="float32")
        families.run(s, dev, cells=[{"alpha": a} for a in (0.05, 0.1, 0.15)])


def bench(quick: bool) -> list[dict]:
    """The GPU rows (or one row saying there is no GPU)."""
    if not device.has_gpu():
        return [{"benchmark": "gpu", "note": "no GPU visible to JAX on this machine: nothing to time "
                 "(python -m safebandit_core devices says why)"}]
    scale = 10 if quick else 1
    rows = _pair("dose core, d = 2048", "1 run, HPC-UCB", _dose, 20_000 // scale, 2_000 // scale)
    rows += _pair("battery replay, d = 2048", "3 policies, 1 seed", _battery, PAPER_T // scale, 2_000 // scale)
    rows += _pair("CMAB grid at paper size", "K ∈ {24, 72, 144} × 3 α × 50 runs × 3 policies", _grid,
                  PAPER_T // scale, 5_000 // scale)
    return rows
