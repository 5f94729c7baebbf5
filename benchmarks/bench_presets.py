"""Presets at full size: *Safety by Design*'s Table 1 and Figure 2, *One-size-fits-all*'s Figure 1 (a)–(d).

Each row is one preset run from cold (compilation included, as a first visitor of the *Paper
presets* page would wait), on the CPU and, when JAX sees one, on the GPU: every sweep of the
preset is one grid run (cell, policy, seed, t) of its family. ``quick=True`` runs a tiny size
instead: one preset per family (dose, conservative, mean-variance), a smoke run of the same code.
"""

from __future__ import annotations

import time

from safebandit_core import device, presets

FULL = ("s000-table1", "s000-fig2", "s001-fig1a-cmab", "s001-fig1b-clb", "s001-fig1c-cccb", "s001-fig1d-mv")
QUICK = ("s000-fig2", "s001-fig1a-cmab", "s001-fig1d-mv")


def _row(name: str, quick: bool, dev: str) -> dict:
    run = presets.PresetRun(name, seeds=2, T=200) if quick else presets.PresetRun.full(name)
    start = time.perf_counter()
    result = presets.run_preset(run, device=dev)
    seconds = time.perf_counter() - start
    p = result.preset
    work = sum(r.outputs["regret"].size for r in result.sweeps)  # cells × policies × seeds × rounds
    return {"benchmark": f"preset {name}",
            "setting": f"{p.n_cells} cells x {run.seeds} seeds x T={run.T:,}, {result.device}, {result.precision}",
            "seconds": seconds,
            "note": f"cold, compile included; {work / seconds / 1e6:.2f} M policy-rounds/s"}


def bench(quick: bool) -> list[dict]:
    """Rows for ``make bench``: every preset of FULL at the paper's size (QUICK, tiny, with ``quick``) on each
    device kind present."""
    devices = ["cpu"] + (["gpu"] if device.has_gpu() else [])
    return [_row(name, quick, dev) for dev in devices for name in (QUICK if quick else FULL)]
