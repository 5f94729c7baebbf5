"""The mean-variance lecture scene (:mod:`safebandit_core.lessons`): ρ below 2/(α·μ₀), read from the grid runs of
:mod:`.search`.
"""

from __future__ import annotations

import dataclasses

import plotly.graph_objects as go

from .. import captions, families
from .. import lessons as L
from ..captions import ROUND_OFF, number
from ..lessons import Base, Claim, Job, Move, Runs, Scene
from ..model import Run
from ..scenarios import ONE_SIZE
from ..viz import meanvar as vmv
from . import search
from .settings import assumption_text

SPACE = search.Space()


def _search_jobs(base: Base) -> tuple[Job, ...]:
    space = dataclasses.replace(SPACE, base_seed=base.base_seed, precision=base.precision)
    return tuple(Job(s, cells) for s, cells in space.jobs())


def mv_found(runs: Runs) -> search.Found:
    """The search's result from the scene's runs (the sidebar's base seed and precision are in the runs)."""
    s = runs[0].settings
    return search.found(dataclasses.replace(SPACE, base_seed=s.base_seed, precision=s.precision), runs)


def _mv_cell(runs: Runs, step: int) -> Run:
    f = mv_found(runs)
    return L.cell(runs[SPACE.Ks.index(f.K)], f.above if step else f.cell)


def _mv_move(runs: Runs) -> Move:
    f = mv_found(runs)
    v = f.values
    below = (f"the search found a break below it (smallest slack {number(f.min_slack)})" if f.broke else
             f"no break found below it in {f.instances:,} instances of this space")
    return Move("ρ (weight of the mean in MV = ρμ − σ²)", "ρ", v["rho"], f.space.cells()[f.above]["rho"],
                f"The guarantee needs ρ > 2/(α·μ₀) = {number(search.threshold(v['alpha'], v['mu0']))} on this "
                f"instance: sufficient by Theorem 5; {below}.")


def _mv_notice(runs: Runs, step: int) -> list[Claim]:
    f = mv_found(runs)
    cell = _mv_cell(runs, step)
    s, summ = cell.settings, families.summary(cell)
    cucb, ucb = L.row(summ, "mvcucb")["min_slack"], L.row(summ, "mvucb")["min_slack"]
    out = [L.fact(f"assumption_{step}", assumption_text(s.alpha, s.mu0, s.rho))]
    if not step:
        out.insert(0, L.fact("search", search.statement(f)))
        out.append(L.check("cucb_on_instance", (cucb < -ROUND_OFF) == f.broke,
                          "MV-CUCB's slack on the instance shown agrees with the search",
                          captions.slack_sentence(summ, "mvcucb")))
    else:
        out.append(L.check("cucb_guaranteed", cucb >= -ROUND_OFF, "with the guarantee, MV-CUCB's slack stays ≥ 0",
                          captions.slack_sentence(summ, "mvcucb")))
    out.append(L.check(f"ucb_breaks_{step}", ucb < -ROUND_OFF,
                      "MV-UCB, which has no check, breaks the constraint on the same instance",
                      captions.slack_sentence(summ, "mvucb")))
    return out


def _mv_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    return {"slack": vmv.slack_figure(families.tidy(_mv_cell(runs, step), ["slack", "baseline"]))}


SCENES: tuple[Scene, ...] = (
    Scene("mv-rho", "ρ below 2/(α·μ₀)", "meanvar", "Mean-variance bandits", ONE_SIZE,
          "MV-CUCB keeps its run's mean-variance ρ·mean − variance above (1 − α) of a riskless default's, and the "
          "paper proves it does so on every run when ρ > 2/(α·μ₀). A search below that threshold asks whether it "
          "can still break.",
          _search_jobs, _mv_move, _mv_notice, _mv_figures,
          {"slack": "The slack t·MV̂_t − (1 − α)·MV₀·t per policy (mean, min–max over seeds): the constraint holds "
                    "while it stays at or above 0. A red cross marks the first round below 0."},
          lambda runs, step: _mv_cell(runs, step).settings),
)
"""This family's scenes (the lecture's order is :data:`safebandit_core.lessons.LECTURE`)."""
