"""Battery-replay benchmarks (seed 000 §7): the data pipeline, and the replay at d = 2048 per round.

Seed 000 reports about 30 minutes for HPC-UCB on an NVIDIA L40 at d = 2048 with T ≈ 10⁵. Rows:
the pipeline (read the embedded RW26 table, embed its 7,208 JSON windows, fit θ*, μ*), cold and
with the embedding memoised; the replay's time per round on the CPU (3 policies × 1 seed, after
compilation, so a block refresh is included in the full run) extrapolated to 10⁵ rounds; the
page's CPU default; and, when JAX sees a GPU, 10⁵ rounds (RW26's replay contexts gone through
about 28 times) in float32.
"""

from __future__ import annotations

import dataclasses
import time

from safebandit_core.data import experiment as ex

from safebandit_core import device

PAPER_ROUNDS = 100_000


def _pipeline(dim: int) -> list[dict]:
    ex.CachedEmbedder.clear()
    ex._embedded_steps.cache_clear()
    rows = []
    for label in ("cold", "embedding memoised"):
        start = time.perf_counter()
        steps, _ = ex.load_source(None)
        problem = ex.fit_problem(steps, dim=dim)
        seconds = time.perf_counter() - start
        rows.append({"benchmark": f"battery pipeline ({label})", "setting": f"RW26 embedded, hash d={dim}",
                     "seconds": seconds, "per_round_ms": None,
                     "note": f"load + {'embed' if label == 'cold' else 'reuse'} {problem.n_fit + problem.n_replay:,} "
                             "windows + ridge fit; "
                             f"R² {problem.fit_r2_reward:.2f}/{problem.fit_r2_cost:.2f}, S = {problem.norm_bound:.1f}"})
    return rows


def _replay(run: ex.BatteryRun, dev: str) -> float:
    """Seconds of one replay after a compiling run of the same shape."""
    ex.run_replay(dataclasses.replace(run, settings=dataclasses.replace(run.settings, base_seed=1)), dev)
    return ex.run_replay(run, dev)[1]


def _per_round(problem, dev: str, precision: str, T: int, seeds: int = 1) -> dict:
    settings = ex.settings_for(problem, tau=0.1, T=T, seeds=seeds, precision=precision)
    run = ex.BatteryRun(problem=problem, settings=settings, source=ex.EMBEDDED_LABEL, fit_lam=ex.DEFAULT_FIT_LAM)
    seconds = _replay(run, dev)
    per_round = seconds / T
    return {"benchmark": "battery replay per round", "setting": f"d={problem.dim}, T={T}, 3 policies x {seeds} seed, "
                                                                f"{dev} {precision}",
            "seconds": seconds, "per_round_ms": 1000 * per_round,
            "note": f"about {per_round * PAPER_ROUNDS / 60:.1f} min for 10^5 rounds (the paper: ~30 min on an L40)"}


def _page_default(quick: bool) -> dict:
    steps, _ = ex.load_source(None)
    problem = ex.fit_problem(steps, dim=256)
    T = 1000 if quick else problem.n_replay
    settings = ex.settings_for(problem, tau=0.1, T=T, seeds=3, precision="float64")
    run = ex.BatteryRun(problem=problem, settings=settings, source=ex.EMBEDDED_LABEL, fit_lam=ex.DEFAULT_FIT_LAM)
    start = time.perf_counter()
    outputs, _ = ex.run_replay(run, "cpu")
    seconds = time.perf_counter() - start
    head = ex.policy_rows(run, outputs)[0]
    return {"benchmark": "battery page default on a CPU (cold, incl. compile)",
            "setting": f"d=256, T={T}, 3 policies x 3 seeds, cpu float64, one tau",
            "seconds": seconds, "per_round_ms": 1000 * seconds / T,
            "note": f"HPC-UCB: violations {head['violation_rate']:.2%}, final dose {head['final_dose_mean']:.3f} "
                    f"of {head['final_safe_dose_mean']:.3f}"}


def bench(quick: bool) -> list[dict]:
    """Rows for ``make bench``."""
    rows = _pipeline(2048)
    steps, _ = ex.load_source(None)
    problem = ex.fit_problem(steps, dim=2048)
    T = 100 if quick else 500
    rows.append(_per_round(problem, "cpu", "float32", T))
    rows.append(_per_round(problem, "cpu", "float64", T))
    rows.append(_page_default(quick))
    if device.has_gpu():
        rows.append(_per_round(problem, "gpu", "float32", 10_000 if quick else PAPER_ROUNDS))
        rows.append(_per_round(problem, "gpu", "float32", 10_000 if quick else PAPER_ROUNDS, seeds=5))
    return rows
