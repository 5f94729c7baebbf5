"""Wall time of seed 001's MV-CBP grid: MV-CUCB and MV-UCB on the same Bernoulli streams.

Full grid (the paper's §5): K ∈ {24, 72, 144}, α ∈ {0.05, 0.1, 0.15}, μ₀ = 0.7,
ρ ∈ {10, 30, 60}, 50 runs, T = 10⁴. For each K, one compiled runner sweeps the (α, ρ) pairs
with ``grid=True``, one α at a time (three ρ per call keeps the outputs near 170 MB).
``quick`` runs a tiny grid. Seconds include compilation (once per K).
"""

from __future__ import annotations

import time

import numpy as np

from safebandit_core import device as _device
from safebandit_core import families
from safebandit_core.meanvar import FAMILY, MVSettings, assumption_ok

FULL = dict(Ks=(24, 72, 144), alphas=(0.05, 0.1, 0.15), rhos=(10.0, 30.0, 60.0), seeds=50, T=10_000)
QUICK = dict(Ks=(24,), alphas=(0.1,), rhos=(10.0, 30.0), seeds=5, T=500)


def bench(quick: bool) -> list[dict]:
    """One row per K: wall time of every (α, ρ) pair for both policies, with a short note."""
    cfg = QUICK if quick else FULL
    rows = []
    for K in cfg["Ks"]:
        base = MVSettings(K=K, mu0=0.7, T=cfg["T"], seeds=cfg["seeds"]).validate()
        guaranteed, held, final = 0, 0, []
        start = time.perf_counter()
        for alpha in cfg["alphas"]:
            pairs = [(alpha, rho) for rho in cfg["rhos"]]
            out = families.run(base, cells=[{"alpha": a, "rho": r} for a, r in pairs]).outputs
            cucb, ucb = base.policies.index("mvcucb"), base.policies.index("mvucb")
            for g, (a, r) in enumerate(pairs):
                if assumption_ok(a, base.mu0, r):
                    guaranteed += 1
                    held += int(out["slack"][g, cucb].min() >= 0.0)
            final.append(out["cum_regret"][:, cucb, :, -1] - out["cum_regret"][:, ucb, :, -1])
        seconds = time.perf_counter() - start
        n_pairs = len(cfg["alphas"]) * len(cfg["rhos"])
        rounds = n_pairs * base.seeds * base.T * 2
        extra = float(np.mean(np.concatenate([f.reshape(-1) for f in final])))
        rows.append({
            "benchmark": "mv_grid",
            "setting": (f"K={K}, α∈{list(cfg['alphas'])}, ρ∈{list(cfg['rhos'])}, μ0=0.7, "
                        f"{base.seeds} runs, T={base.T}, 2 policies"),
            "seconds": round(seconds, 3),
            "note": (f"{rounds / seconds:,.0f} policy-rounds/s on {_device.describe(None)} "
                     f"({FAMILY.precision_of(base)}); slack ≥ 0 in {held}/{guaranteed} settings with ρ > 2/(αμ0); "
                     f"mean T·R̃ of MV-CUCB minus MV-UCB = {extra:.1f}"),
        })
    return rows
