"""Wall time of seed 001's CMAB, CLB and CCCB grids: GenCB, its baseline and the unconstrained policy.

Full grid (the paper's §5; the paper gives no horizon, so T = 10⁴): CMAB K ∈ {24, 72, 144} ×
α ∈ {0.05, 0.1, 0.15} with μ₀ = 0.7 (GenCB, ConUCB, UCB); CLB and CCCB d ∈ {5, 7, 9} ×
α ∈ {0.01, 0.02, 0.03} with K = 2d, instances drawn from seed 0 and μ₀ derived from them
(GenCB, CLUCB, LinUCB; GenCB, C3UCB, C2UCB with super arms of size 2); 50 runs each. For each
(problem, K, d) and policy one compiled runner sweeps the three α with ``grid=True``.
``quick`` runs one tiny setting per problem. Seconds include compilation.
"""

from __future__ import annotations

import time

from safebandit_core import device as _device
from safebandit_core import families
from safebandit_core.conservative import FAMILY, ConservativeSettings

FULL = dict(
    cmab=dict(sizes=(24, 72, 144), alphas=(0.05, 0.1, 0.15)),
    clb=dict(sizes=(5, 7, 9), alphas=(0.01, 0.02, 0.03)),
    cccb=dict(sizes=(5, 7, 9), alphas=(0.01, 0.02, 0.03)),
    seeds=50, T=10_000,
)
QUICK = dict(
    cmab=dict(sizes=(24,), alphas=(0.05, 0.1)),
    clb=dict(sizes=(3,), alphas=(0.02,)),
    cccb=dict(sizes=(3,), alphas=(0.02,)),
    seeds=3, T=300,
)


def _settings(problem: str, size: int, seeds: int, T: int) -> ConservativeSettings:
    if problem == "cmab":
        return ConservativeSettings(problem="cmab", K=size, mu0=0.7, T=T, seeds=seeds).validate()
    return ConservativeSettings(problem=problem, K=2 * size, d=size, m=2, T=T, seeds=seeds).validate()


def bench(quick: bool) -> list[dict]:
    """One row per (problem, K or d): wall time of the α sweep for the three policies, with a short note."""
    cfg = QUICK if quick else FULL
    rows = []
    for problem in ("cmab", "clb", "cccb"):
        for size in cfg[problem]["sizes"]:
            settings = _settings(problem, size, cfg["seeds"], cfg["T"])
            alphas = cfg[problem]["alphas"]
            start = time.perf_counter()
            frame = families.summary(families.run(settings, cells=[{"alpha": a} for a in alphas]))
            seconds = time.perf_counter() - start
            policies = settings.policy_list()
            rounds = len(alphas) * settings.seeds * settings.T * len(policies)
            first = frame[frame["alpha"] == alphas[0]].set_index("policy")
            held = bool((frame[frame["policy"] == "gencb"]["min_slack"] >= 0).all())
            shape = f"K={size}" if problem == "cmab" else f"d={size}, K={2 * size}"
            shape += ", m=2" if problem == "cccb" else ""
            mu0 = FAMILY.resolved(settings).mu0
            rows.append({
                "benchmark": f"conservative_{problem}",
                "setting": (f"{shape}, α∈{list(alphas)}, μ0={mu0:g}, {settings.seeds} runs, T={settings.T}, "
                            f"{'+'.join(policies)}"),
                "seconds": round(seconds, 3),
                "note": (f"{rounds / seconds:,.0f} policy-rounds/s on {_device.describe(None)} "
                         f"({FAMILY.precision_of(settings)}); GenCB slack ≥ 0 everywhere: {held}; "
                         f"at α={alphas[0]:g} "
                         + ", ".join(f"{p} regret {first.loc[p, 'cum_regret_mean']:.0f} / N0 "
                                     f"{first.loc[p, 'default_pulls_mean']:.0f}" for p in policies)),
            })
    return rows
