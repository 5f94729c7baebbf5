"""The non-linear dose model's lecture scene (:mod:`safebandit_core.lessons`): the confidence sets of a finite
class of functions shrinking as data arrive.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ... import families
from ... import lessons as L
from ...captions import number, percent
from ...lessons import Claim, Move, Runs, Scene
from ...model import Run
from ...scenarios import SAFETY_BY_DESIGN
from ...viz.common import mean_band_figure
from .settings import NonlinearSettings

NONLINEAR = NonlinearSettings(policies=("hpucb",), function_class="linear-grid", size=64, T=2000, seeds=3)
"""The non-linear scene: HPC-UCB over a finite class of |F| = 64 linear functions."""
MOVE_NL = Move("Side-effect noise", "κ_c", 0.3, 1.0,
               "The spread of the side effect's noise. The confidence set keeps every candidate function within a "
               "radius of the best fit that grows with κ_c, so noisier data rule candidates out more slowly.")


def half_round(sizes: np.ndarray, start: int) -> int:
    """The first round (1-based) where the mean set size over seeds is at most half of ``start`` (0: never)."""
    mean = sizes.mean(axis=0)
    hit = np.flatnonzero(mean <= start / 2)
    return int(hit[0]) + 1 if hit.size else 0


def _nl_sets(cell: Run) -> tuple[np.ndarray, np.ndarray]:
    out = cell.policy_outputs("hpucb")
    return out["set_c"], out["set_r"]


def _nl_notice(runs: Runs, step: int) -> list[Claim]:
    cell = L.cell(runs[0], step)
    s, summ = cell.settings, families.summary(cell)
    set_c, set_r = _nl_sets(cell)
    end_c, end_r = float(set_c[:, -1].mean()), float(set_r[:, -1].mean())
    half = half_round(set_c, s.size)
    kept = float(L.row(summ, "hpucb")["true_excluded_rate"])
    halves = (f"half of the cost candidates were ruled out by round {half:,}" if half
              else "fewer than half of the cost candidates were ruled out")
    out = [
        L.check(f"shrinks_{step}", end_c < s.size and end_r < s.size, "the sets shrink as data arrive",
               f"At κ_c = {s.kappa_c:g}, both sets start with all {s.size} candidates; by round {s.T:,} the cost "
               f"set holds {number(end_c)} on average and the reward set {number(end_r)}; {halves}."),
        L.check(f"truth_kept_{step}", kept == 0.0, "the true functions are never ruled out (Lemma 10: except with "
               "probability 2δ′)",
               "The true cost and reward functions stayed in their sets in every round of every run." if kept == 0
               else f"The true functions left their sets in {percent(kept)} of the runs."),
    ]
    if not step:
        return out
    half0 = half_round(_nl_sets(L.cell(runs[0], 0))[0], s.size)
    slower = half == 0 or (half0 > 0 and half > half0)
    return out + [L.check("slower", slower, "more noise, slower shrinking",
                         f"Half of the cost candidates were out by round {half0:,} at κ_c = {MOVE_NL.value(0)}, "
                         + (f"by round {half:,} at κ_c = {MOVE_NL.value(1)}." if half
                            else f"and not within {s.T:,} rounds at κ_c = {MOVE_NL.value(1)}."))]


def _nl_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    rows = []
    cells = (0, 1) if step else (0,)
    for i in cells:
        cell = L.cell(runs[0], i)
        set_c, set_r = _nl_sets(cell)
        tag = f", κ_c = {cell.settings.kappa_c:g}"
        named = [("cost functions" + tag, set_c)] + ([] if step else [("reward functions" + tag, set_r)])
        for name, sizes in named:
            seeds, T = sizes.shape
            rows.append(pd.DataFrame({"policy": name, "seed": np.repeat(np.arange(seeds), T),
                                      "t": np.tile(np.arange(1, T + 1), seeds), "size": sizes.reshape(-1)}))
    frame = L.named(pd.concat(rows, ignore_index=True))
    fig = mean_band_figure(frame, "size", title="Candidates still in the confidence sets (log scale)",
                           y_title="set size |F_t|", band="minmax")
    fig.update_yaxes(type="log")
    return {"sets": fig}


SCENES: tuple[Scene, ...] = (
    Scene("nonlinear-set", "The non-linear confidence set shrinking", "nonlinear",
          "Non-linear dose model (a finite class of functions)", SAFETY_BY_DESIGN,
          f"HPC-UCB with a finite class of {NONLINEAR.size} candidate functions for the reward and for the cost: it "
          "keeps only "
          "those still consistent with the data, and picks a dose meant to be safe for every one of them.",
          L.grid(NONLINEAR, "kappa_c", MOVE_NL), L.static(MOVE_NL), _nl_notice, _nl_figures,
          {"sets": "How many candidates are still possible after each round (mean, min–max over seeds; log "
                   "scale): every step down is a candidate the data ruled out."},
          lambda runs, step: L.cell(runs[0], step).settings),
)
"""This family's scenes (the lecture's order is :data:`safebandit_core.lessons.LECTURE`)."""
