"""The dose model's lecture scenes (:mod:`safebandit_core.lessons`): δ against violations, one round's realized
against expected cost, and how the noise sets the safety margin; every sentence computed from the scene's runs.

Every scene is a 2-cell grid of the same model (one compiled shape).
"""

from __future__ import annotations

import dataclasses
import math
from statistics import NormalDist
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from .. import captions, families
from .. import lessons as L
from ..captions import percent
from ..lessons import Claim, Move, Runs, Scene
from ..model import Run
from ..scenarios import SAFETY_BY_DESIGN
from ..viz import dose as vd
from ..viz.common import by_label
from . import curves
from .settings import DoseSettings

DOSE = DoseSettings(policies=("hpucb", "on_expectation"), T=2000, seeds=5, tau=0.3, delta=0.01, kappa_c=0.5)
"""The dose scenes' shape: HPC-UCB against On-Expectation, d = 5, T = 2,000, 5 seeds (one compiled grid)."""
MOVE_DELTA = Move("Allowed violation probability δ", "δ", 0.01, 0.2,
                  "The rule lets a round's realized cost pass τ with probability at most δ. HPC-UCB keeps a noise "
                  "margin b_δ = κ_c·√(2 log 1/δ) that shrinks as δ grows; On-Expectation keeps only the mean cost "
                  "below τ and never looks at δ.")
MOVE_POLICY = Move("Policy (in *Inside one round*)", "the policy", "On-Expectation", "HPC-UCB",
                   "The dose page's round inspector shows one policy's riskiest round; HPC-UCB doses with the noise "
                   "margin b_δ, On-Expectation without it.")
MOVE_NOISE = Move("Side-effect noise", "κ_c", 0.2, 0.6,
                  "The spread of the side effect's noise, before it is scaled by the dose. HPC-UCB's margin "
                  "b_δ = κ_c·√(2 log 1/δ) grows with it.")
NOISE = dataclasses.replace(DOSE, delta=0.05)


def dose_frame(run: Run) -> pd.DataFrame:
    """The per-round frame by label with g(α_t), as the dose figures read it."""
    s = run.settings
    frame = by_label(families.tidy(run))
    frame["g_alpha"] = curves.evaluate(s.g, frame["alpha"].to_numpy(), s.g_power, s.g_ec50, s.g_hill)
    return frame


def _violation_claims(summary: pd.DataFrame, s: DoseSettings, step: int) -> list[Claim]:
    text = dict(zip(summary["policy"], captions.violations(summary, s.delta, s.seeds), strict=True))
    hp, oe = L.row(summary, "hpucb"), L.row(summary, "on_expectation")
    hp_claim = L.check(f"hpucb_within_delta_{step}", hp["violation_rate"] <= s.delta,
                      "HPC-UCB keeps its violations within δ", text["hpucb"])
    if step:  # a looser rule may well cover On-Expectation's rate: the point is then that it did not move
        return [hp_claim, L.fact("on_expectation_1", text["on_expectation"])]
    return [hp_claim, L.check("on_expectation_above_delta_0", oe["violation_rate"] > s.delta,
                             "On-Expectation breaks the rule more often than δ allows", text["on_expectation"])]


def _delta_notice(runs: Runs, step: int) -> list[Claim]:
    cell = L.cell(runs[0], step)
    s, summ = cell.settings, families.summary(cell)
    out = _violation_claims(summ, s, step)
    out.append(L.fact(f"counts_{step}", captions.violation_counts(summ, s.seeds, s.T, s.delta)))
    if not step:
        return out + [L.fact("regret_0", captions.regret_order(summ, s.T))]
    before = families.summary(L.cell(runs[0], 0))
    hp0, hp1 = int(L.row(before, "hpucb")["violations"]), int(L.row(summ, "hpucb")["violations"])
    oe0, oe1 = int(L.row(before, "on_expectation")["violations"]), int(L.row(summ, "on_expectation")["violations"])
    out.append(L.check("hpucb_uses_room", hp1 >= hp0, "HPC-UCB uses the extra room a larger δ gives",
                      f"HPC-UCB's rounds over the limit went from {hp0:,} to {hp1:,} as δ rose from "
                      f"{MOVE_DELTA.value(0)} to {MOVE_DELTA.value(1)}."))
    out.append(L.check("on_expectation_ignores_delta", oe1 == oe0, "On-Expectation does not react to δ",
                      f"On-Expectation's went from {oe0:,} to {oe1:,}"
                      + (": it never looks at δ." if oe1 == oe0 else ".")))
    return out


def _delta_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    cell = L.cell(runs[0], step)
    return {"violations": vd.violation_figure(families.summary(cell), cell.settings.delta),
            "cost": vd.cost_figure(dose_frame(cell), cell.settings.tau)}


def chance_over(cost_mean: float, g_alpha: float, kappa_c: float, tau: float) -> float:
    """``P(C_t > τ)`` for ``C_t ~ N(cost_mean, (g(α)κ_c)²)`` (a certain cost when the spread is 0)."""
    sd = g_alpha * kappa_c
    if sd <= 0:
        return float(cost_mean > tau)
    return 1.0 - NormalDist(cost_mean, sd).cdf(tau)


def inspected_round(frame: pd.DataFrame, label: str, s: DoseSettings) -> dict[str, Any]:
    """The policy's riskiest round (first seed) among those whose mean cost is below τ (any round if none is)."""
    mine = frame[frame["policy"] == label]
    under = mine[mine["cost_mean"] <= s.tau]
    rows = under if len(under) else mine
    seed = int(rows["seed"].min())
    t = vd.riskiest_round(rows, label, s.tau, s.kappa_c, seed)
    row = vd.round_detail(frame, label, t, seed)
    row["chance"] = chance_over(row["cost_mean"], row["g_alpha"], s.kappa_c, s.tau)
    return row


def _round_notice(runs: Runs, step: int) -> list[Claim]:
    cell = L.cell(runs[0], 0)
    s, frame, summ = cell.settings, dose_frame(cell), families.summary(cell)
    policy = ("on_expectation", "hpucb")[step]
    label = cell.family.label(policy)
    r = inspected_round(frame, label, s)
    where = f"At round {r['t']:,} (seed {r['seed']}), {label} chose the dose α = {r['alpha']:.3f}"
    below = r["cost_mean"] <= s.tau
    mean = (f"{where}: the mean cost g(α)⟨X, μ*⟩ = {r['cost_mean']:.3f} is {'below' if below else 'above'} "
            f"τ = {s.tau:g}.")
    chance = (f"The cost it realizes is noisy (spread g(α)·κ_c = {r['g_alpha'] * s.kappa_c:.3f}): the chance that "
              f"it passes τ is {percent(r['chance'])}, against the δ = {percent(s.delta)} the rule allows.")
    row = L.row(summ, policy)
    if not step:
        mine = frame[frame["policy"] == label]
        share = float((mine["cost_mean"] <= s.tau).mean())
        return [
            L.check("mean_below_tau", below, "the mean cost of the round is below τ", mean),
            L.check("chance_large", r["chance"] > s.delta, "yet its chance of passing τ is larger than δ", chance),
            L.check("run_breaks_rule", row["violation_rate"] > s.delta,
                   "over the run, On-Expectation passes τ more often than δ allows",
                   f"Over the whole run its mean cost was below τ in {percent(share)} of its rounds, yet "
                   f"{percent(float(row['violation_rate']))} of its rounds passed τ."),
        ]
    return [
        L.fact("mean_1", mean),
        L.check("chance_within_delta", r["chance"] <= s.delta, "even HPC-UCB's riskiest round stays within δ",
               chance),
        L.fact("run_1", captions.violations(summ[summ["policy"] == policy], s.delta, s.seeds)[0]),
    ]


def _round_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    cell = L.cell(runs[0], 0)
    s, frame = cell.settings, dose_frame(cell)
    label = cell.family.label(("on_expectation", "hpucb")[step])
    r = inspected_round(frame, label, s)
    title = f"{label}, round {r['t']:,} (seed {r['seed']}): dose α = {r['alpha']:.3f}"
    return {"round": vd.cost_distribution_figure(r["cost_mean"], r["g_alpha"], s.kappa_c, s.tau, s.delta,
                                                 realized=r["cost"], title=title)}


def margin(s: DoseSettings) -> float:
    """HPC-UCB's noise margin ``b_δ = κ_c √(2 log 1/δ)`` (ALGORITHMS.md §1; On-Expectation uses 0)."""
    return s.kappa_c * math.sqrt(2.0 * math.log(1.0 / s.delta))


def _mean_dose(run: Run, policy: str) -> float:
    return float(run.policy_outputs(policy)["alpha"].mean())


def _noise_notice(runs: Runs, step: int) -> list[Claim]:
    cell = L.cell(runs[0], step)
    s, summ = cell.settings, families.summary(cell)
    hp, oe = _mean_dose(cell, "hpucb"), _mean_dose(cell, "on_expectation")
    text = dict(zip(summ["policy"], captions.violations(summ, s.delta, s.seeds), strict=True))
    out = [
        L.fact(f"margin_{step}", f"At κ_c = {s.kappa_c:g} and δ = {s.delta:g}, the margin b_δ = κ_c·√(2 log 1/δ) = "
                                f"{margin(s):.3f}: HPC-UCB adds g(α)·b_δ to its cost estimate, On-Expectation adds "
                                "nothing."),
        L.check(f"hpucb_within_delta_{step}", L.row(summ, "hpucb")["violation_rate"] <= s.delta,
               "HPC-UCB keeps its violations within δ", text["hpucb"]),
    ]
    if not step:
        return out + [L.check("cautious", hp < oe, "HPC-UCB doses more cautiously than On-Expectation",
                             f"HPC-UCB's average dose was {hp:.3f}, On-Expectation's {oe:.3f}."),
                      L.fact("on_expectation_0", text["on_expectation"])]
    before = L.cell(runs[0], 0)
    hp0 = _mean_dose(before, "hpucb")
    oe0 = float(L.row(families.summary(before), "on_expectation")["violation_rate"])
    oe1 = float(L.row(summ, "on_expectation")["violation_rate"])
    return out + [
        L.check("smaller_doses", hp < hp0, "more noise, smaller doses for HPC-UCB",
               f"HPC-UCB's average dose went from {hp0:.3f} to {hp:.3f}."),
        L.check("on_expectation_worse", oe1 > oe0, "On-Expectation ignores the noise and passes τ more often",
               f"On-Expectation's share of rounds over the limit went from {percent(oe0)} to {percent(oe1)}."),
    ]


def _noise_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    cell = L.cell(runs[0], step)
    return {"safe": vd.safe_interval_figure(dose_frame(cell)),
            "violations": vd.violation_figure(families.summary(cell), cell.settings.delta)}


SCENES: tuple[Scene, ...] = (
    Scene("delta", "δ against violations", "dose", "Dose model", SAFETY_BY_DESIGN,
          f"A strict rule: each patient's side effect may pass the limit τ = {DOSE.tau:g} with probability at most "
          f"δ = {percent(MOVE_DELTA.before)}, and the noise is large (κ_c = {DOSE.kappa_c:g}). HPC-UCB keeps a margin "
          "for the noise; On-Expectation keeps only the average side effect below τ.",
          L.grid(DOSE, "delta", MOVE_DELTA), L.static(MOVE_DELTA), _delta_notice, _delta_figures,
          {"violations": "The share of rounds whose realized cost passed τ, over all seeds, with a 95 % interval; "
                         "the dashed line is the δ the rule allows.",
           "cost": "Every round's realized cost for the first seed; red crosses passed τ."},
          lambda runs, step: L.cell(runs[0], step).settings),
    Scene("one-round", "Realized against expected cost in one round", "dose", "Dose model", SAFETY_BY_DESIGN,
          f"The same run as the first scene (δ = {percent(MOVE_DELTA.before)}), seen from inside one round. A "
          "round's cost is Gaussian: its "
          "mean is g(α)⟨X, μ*⟩ and its spread g(α)·κ_c, so a bigger dose moves the cost up and widens it.",
          L.grid(DOSE, "delta", MOVE_DELTA), L.static(MOVE_POLICY), _round_notice, _round_figures,
          {"round": "The law of that round's cost at the dose chosen. Red: the chance it passes τ. Amber: the upper "
                    "δ-tail the rule tolerates. Dotted: g(α)(⟨X, μ*⟩ + b_δ), the mean cost plus the scaled "
                    "margin HPC-UCB keeps below τ."},
          lambda runs, step: L.cell(runs[0], 0).settings),
    Scene("noise-margin", "How the noise sets the safety margin", "dose", "Dose model", SAFETY_BY_DESIGN,
          f"The same dose model with δ = {percent(NOISE.delta)}, at a low and a high cost noise κ_c: HPC-UCB's margin "
          "b_δ = κ_c·√(2 log 1/δ) grows with the noise, On-Expectation has none.",
          L.grid(NOISE, "kappa_c", MOVE_NOISE), L.static(MOVE_NOISE), _noise_notice, _noise_figures,
          {"safe": "The dose each policy may give (its estimated upper end α̂max, trailing mean) against the truly "
                   "safe one (grey), and the doses it chose, for the first seed.",
           "violations": "The share of rounds over the limit against δ (dashed)."},
          lambda runs, step: L.cell(runs[0], step).settings),
)
"""This family's scenes (the lecture's order is :data:`safebandit_core.lessons.LECTURE`)."""
