"""Battery-replay benchmarks (Safety by Design (2026), §7): the data pipeline, and the replay at d = 2048 per round.

The paper reports about 30 minutes for HPC-UCB on an NVIDIA L40 at d = 2048 with T ≈ 10⁵. Rows:
the pipeline (read the embedded RW26 table, embed its 7,208 JSON windows, fit θ*, μ*), cold and
with the embedding memoised (a refit with another ridge, as when the page's λ_fit moves); the
replay's time per round on the CPU (3 policies × 1 seed, after compilation, so a block refresh is
included in the full run) extrapolated to 10⁵ rounds; the page's CPU default (both τ in one grid
run); and, when JAX sees a GPU, 10⁵ rounds (RW26's replay contexts gone through about 28 times) in
float32.
"""

from __future__ import annotations

import dataclasses
import time

from safebandit_core import battery, device

PAPER_ROUNDS = 100_000


def _settings(dim: int, **kw: object) -> battery.BatteryReplaySettings:
    return battery.BatteryReplaySettings(dim=dim, base_seed=0, tau=0.1, **kw)


def _pipeline(dim: int) -> list[dict]:
    battery.clear_cache()
    rows = []
    for label, fit_lam in (("cold", battery.DEFAULT_FIT_LAM), ("embedding memoised", 1.0)):
        start = time.perf_counter()
        problem = battery.prepare(_settings(dim, fit_lam=fit_lam)).problem
        seconds = time.perf_counter() - start
        rows.append({"benchmark": f"battery pipeline ({label})", "setting": f"RW26 embedded, hash d={dim}",
                     "seconds": seconds, "per_round_ms": None,
                     "note": f"load + {'embed' if label == 'cold' else 'reuse'} {problem.n_fit + problem.n_replay:,} "
                             f"windows + ridge fit (λ_fit = {fit_lam:g}); "
                             f"R² {problem.fit_r2_reward:.2f}/{problem.fit_r2_cost:.2f}, S = {problem.norm_bound:.1f}"})
    return rows


def _replay(run: battery.BatteryRun, dev: str) -> float:
    """Seconds of one replay after a compiling run of the same shape."""
    battery.run_replay(dataclasses.replace(run, settings=dataclasses.replace(run.settings, base_seed=1)), dev)
    return battery.run_replay(run, dev).seconds


def _per_round(dim: int, dev: str, precision: str, T: int, seeds: int = 1) -> dict:
    run = battery.prepare(_settings(dim, T=T, seeds=seeds, precision=precision))
    seconds = _replay(run, dev)
    per_round = seconds / T
    return {"benchmark": "battery replay per round", "setting": f"d={dim}, T={T}, 3 policies x {seeds} seed, "
                                                                f"{dev} {precision}",
            "seconds": seconds, "per_round_ms": 1000 * per_round,
            "note": f"about {per_round * PAPER_ROUNDS / 60:.1f} min for 10^5 rounds (the paper: ~30 min on an L40)"}


def _page_default(quick: bool) -> dict:
    problem = battery.prepare(_settings(256)).problem
    T = 1000 if quick else problem.n_replay
    run = battery.prepare(_settings(256, T=T, seeds=3, precision="float64"))
    start = time.perf_counter()
    result = battery.run_replay(run, "cpu", cells=battery.tau_grid(run.settings))
    seconds = time.perf_counter() - start
    head = battery.policy_rows(result, cell=0)[0]
    return {"benchmark": "battery page default on a CPU (cold, incl. compile)",
            "setting": f"d=256, T={T}, 3 policies x 3 seeds, cpu float64, both taus in one grid",
            "seconds": seconds, "per_round_ms": 1000 * seconds / T,
            "note": f"HPC-UCB at tau 0.1: violations {head['violation_rate']:.2%}, final dose "
                    f"{head['final_dose_mean']:.3f} of {head['final_safe_dose_mean']:.3f}"}


def bench(quick: bool) -> list[dict]:
    """Rows for ``make bench``."""
    rows = _pipeline(2048)
    T = 100 if quick else 500
    rows.append(_per_round(2048, "cpu", "float32", T))
    rows.append(_per_round(2048, "cpu", "float64", T))
    rows.append(_page_default(quick))
    if device.has_gpu():
        rows.append(_per_round(2048, "gpu", "float32", 10_000 if quick else PAPER_ROUNDS))
        rows.append(_per_round(2048, "gpu", "float32", 10_000 if quick else PAPER_ROUNDS, seeds=5))
    return rows
