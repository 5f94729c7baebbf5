"""Guided lecture scenes: small runs across the models, one control to move, and what to notice, computed.

A :class:`Scene` is data: a title, the model kind and paper, the runs it needs (:class:`Job` s,
each a settings and optionally the cells of a grid), the ONE control to move (:class:`Move`) and
two steps: the scene as set (step 0) and with that control moved (step 1). Its *what to notice*
(:class:`Claim` s) and figures are pure functions of its runs and the step, so every sentence is
computed from the run on screen: a claim whose point does not hold on the run says so
(``holds`` False) instead of being shown as true. Pages get the runs from their shared store
(:func:`compute` with their own ``run_job``); tests and scripts run them here.

The runs are small (seconds on a 2-core CPU once compiled) and share compiled shapes: every dose scene is a
2-cell grid of the same model, the conservative scenes run the same K = 24 model, and the
mean-variance scene reads the grid runs of :mod:`safebandit_core.meanvar.search`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from statistics import NormalDist
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from . import captions, families, model, sweep
from .captions import ROUND_OFF, number, percent
from .conservative import ConservativeSettings, make_instance
from .dose import DoseSettings, curves
from .dose.nonlinear import NonlinearSettings
from .meanvar import assumption_text, search
from .model import Run
from .viz import conservative as vc
from .viz import dose as vd
from .viz import meanvar as vmv
from .viz.common import by_label, mean_band_figure

S000 = "Safety by Design (2026)"
S001 = "One-size-fits-all conservative bandits (AAAI 2021)"
CMAB_NAME = "Conservative bandits (K independent arms)"
CHUNK = 1000
"""Rounds per compiled chunk of runs that vary T (the horizons): every horizon is a multiple of it."""


class Job(NamedTuple):
    """One run a scene needs: its settings, the cells when it is a grid (one compiled scan), and its chunk.

    ``chunk`` None runs the whole horizon in one chunk (one compilation per shape); the results do not
    depend on it, so a page and a test that use the same chunk share the compiled function.
    """

    settings: Any
    cells: tuple[dict[str, Any], ...] | None = None
    chunk: int | None = None

    @property
    def rounds(self) -> int:
        """Rounds per chunk."""
        return self.chunk or int(self.settings.T)


class Base(NamedTuple):
    """What the sidebar sets for every run: the base seed, and the precision (None: each settings' default)."""

    base_seed: int = 0
    precision: str | None = None


@dataclasses.dataclass(frozen=True)
class Move:
    """The one control a scene moves: its name on the model page, its symbol, and its value before and after."""

    label: str
    symbol: str
    before: Any
    after: Any
    why: str

    def value(self, step: int) -> str:
        """The control's value at ``step`` (0: as set, 1: moved), for a sentence."""
        v = self.after if step else self.before
        return number(v) if isinstance(v, (int, float)) else str(v)

    def option(self, step: int) -> str:
        """The step as a picker shows it, e.g. ``Moved: δ = 0.2``."""
        return f"{'Moved' if step else 'As set'}: {self.symbol} = {self.value(step)}"

    def say(self) -> str:
        """The instruction, e.g. *Now raise δ to 0.2 and run again.*"""
        if not all(isinstance(v, (int, float)) for v in (self.before, self.after)):
            return f"Now switch {self.symbol} to {self.value(1)}."
        verb = "raise" if self.after > self.before else "lower"
        return f"Now {verb} {self.symbol} to {self.value(1)} and run again."


@dataclasses.dataclass(frozen=True)
class Claim:
    """One *what to notice* line: ``text`` is computed from the run; ``point`` is what the scene expects to see.

    ``holds`` is False when the run does not show the point (the page flags it); a claim with no
    point is a plain fact about the run. ``key`` names the claim for tests.
    """

    key: str
    text: str
    holds: bool = True
    point: str = ""


Runs = tuple[Run, ...]


@dataclasses.dataclass(frozen=True)
class Scene:
    """A lecture scene as data.

    ``jobs(base)``: the runs it needs; ``move(runs)``: its one control; ``notice(runs, step)`` and
    ``figures(runs, step)``: what to notice and the charts at step 0 (as set) or 1 (moved), ``notes``
    the plain words beside each chart; ``settings(runs, step)``: the settings a model page can open.
    """

    slug: str
    title: str
    kind: str
    model: str
    paper: str
    story: str
    jobs: Callable[[Base], tuple[Job, ...]]
    move: Callable[[Runs], Move]
    notice: Callable[[Runs, int], list[Claim]]
    figures: Callable[[Runs, int], dict[str, go.Figure]]
    notes: dict[str, str]
    settings: Callable[[Runs, int], Any]


def run_here(job: Job, device: str | None = None) -> Run:
    """A job run directly (tests, scripts), in its chunks, as a page runs it."""
    return families.run(job.settings, device, cells=job.cells, chunk=job.rounds, pad_tail=True)


def compute(scene: Scene, base: Base = Base(), run_job: Callable[[Job], Run] = run_here) -> Runs:
    """Every run the scene needs, in order (``run_job`` lets a page use its shared store)."""
    return tuple(run_job(j) for j in scene.jobs(base))


def with_base(s: Any, base: Base) -> Any:
    """Settings with the sidebar's base seed and precision."""
    change: dict[str, Any] = {"base_seed": base.base_seed}
    if base.precision is not None:
        change["precision"] = base.precision
    return dataclasses.replace(s, **change)


def _row(summary: pd.DataFrame, policy: str) -> pd.Series:
    return summary[summary["policy"] == policy].iloc[0]


def _cell(run: Run, i: int) -> Run:
    return model.cell(run, i)


def _fact(key: str, text: str) -> Claim:
    return Claim(key, text)


def _check(key: str, holds: bool, point: str, text: str) -> Claim:
    return Claim(key, text, bool(holds), point)


# ------------------------------------------------------------------------------------------------ dose
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


def _grid(s: Any, field: str, move: Move) -> Callable[[Base], tuple[Job, ...]]:
    """One 2-cell grid job: ``field`` at the move's value before, then after."""
    return lambda base: (Job(with_base(s, base), ({field: move.before}, {field: move.after})),)


def dose_frame(run: Run) -> pd.DataFrame:
    """The per-round frame by label with g(α_t), as the dose figures read it."""
    s = run.settings
    frame = by_label(families.tidy(run))
    frame["g_alpha"] = curves.evaluate(s.g, frame["alpha"].to_numpy(), s.g_power, s.g_ec50, s.g_hill)
    return frame


def _violation_claims(summary: pd.DataFrame, s: DoseSettings, step: int) -> list[Claim]:
    text = dict(zip(summary["policy"], captions.violations(summary, s.delta, s.seeds), strict=True))
    hp, oe = _row(summary, "hpucb"), _row(summary, "on_expectation")
    hp_claim = _check(f"hpucb_within_delta_{step}", hp["violation_rate"] <= s.delta,
                      "HPC-UCB keeps its violations within δ", text["hpucb"])
    if step:  # a looser rule may well cover On-Expectation's rate: the point is then that it did not move
        return [hp_claim, _fact("on_expectation_1", text["on_expectation"])]
    return [hp_claim, _check("on_expectation_above_delta_0", oe["violation_rate"] > s.delta,
                             "On-Expectation breaks the rule more often than δ allows", text["on_expectation"])]


def _delta_notice(runs: Runs, step: int) -> list[Claim]:
    cell = _cell(runs[0], step)
    s, summ = cell.settings, families.summary(cell)
    out = _violation_claims(summ, s, step)
    out.append(_fact(f"counts_{step}", captions.violation_counts(summ, s.seeds, s.T, s.delta)))
    if not step:
        return out + [_fact("regret_0", captions.regret_order(summ, s.T))]
    before = families.summary(_cell(runs[0], 0))
    hp0, hp1 = int(_row(before, "hpucb")["violations"]), int(_row(summ, "hpucb")["violations"])
    oe0, oe1 = int(_row(before, "on_expectation")["violations"]), int(_row(summ, "on_expectation")["violations"])
    out.append(_check("hpucb_uses_room", hp1 >= hp0, "HPC-UCB uses the extra room a larger δ gives",
                      f"HPC-UCB's rounds over the limit went from {hp0:,} to {hp1:,} as δ rose from "
                      f"{MOVE_DELTA.value(0)} to {MOVE_DELTA.value(1)}."))
    out.append(_check("on_expectation_ignores_delta", oe1 == oe0, "On-Expectation does not react to δ",
                      f"On-Expectation's went from {oe0:,} to {oe1:,}"
                      + (": it never looks at δ." if oe1 == oe0 else ".")))
    return out


def _delta_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    cell = _cell(runs[0], step)
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
    cell = _cell(runs[0], 0)
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
    row = _row(summ, policy)
    if not step:
        mine = frame[frame["policy"] == label]
        share = float((mine["cost_mean"] <= s.tau).mean())
        return [
            _check("mean_below_tau", below, "the mean cost of the round is below τ", mean),
            _check("chance_large", r["chance"] > s.delta, "yet its chance of passing τ is larger than δ", chance),
            _check("run_breaks_rule", row["violation_rate"] > s.delta,
                   "over the run, On-Expectation passes τ more often than δ allows",
                   f"Over the whole run its mean cost was below τ in {percent(share)} of its rounds, yet "
                   f"{percent(float(row['violation_rate']))} of its rounds passed τ."),
        ]
    return [
        _fact("mean_1", mean),
        _check("chance_within_delta", r["chance"] <= s.delta, "even HPC-UCB's riskiest round stays within δ",
               chance),
        _fact("run_1", captions.violations(summ[summ["policy"] == policy], s.delta, s.seeds)[0]),
    ]


def _round_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    cell = _cell(runs[0], 0)
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
    cell = _cell(runs[0], step)
    s, summ = cell.settings, families.summary(cell)
    hp, oe = _mean_dose(cell, "hpucb"), _mean_dose(cell, "on_expectation")
    text = dict(zip(summ["policy"], captions.violations(summ, s.delta, s.seeds), strict=True))
    out = [
        _fact(f"margin_{step}", f"At κ_c = {s.kappa_c:g} and δ = {s.delta:g}, the margin b_δ = κ_c·√(2 log 1/δ) = "
                                f"{margin(s):.3f}: HPC-UCB adds g(α)·b_δ to its cost estimate, On-Expectation adds "
                                "nothing."),
        _check(f"hpucb_within_delta_{step}", _row(summ, "hpucb")["violation_rate"] <= s.delta,
               "HPC-UCB keeps its violations within δ", text["hpucb"]),
    ]
    if not step:
        return out + [_check("cautious", hp < oe, "HPC-UCB doses more cautiously than On-Expectation",
                             f"HPC-UCB's average dose was {hp:.3f}, On-Expectation's {oe:.3f}."),
                      _fact("on_expectation_0", text["on_expectation"])]
    before = _cell(runs[0], 0)
    hp0 = _mean_dose(before, "hpucb")
    oe0 = float(_row(families.summary(before), "on_expectation")["violation_rate"])
    oe1 = float(_row(summ, "on_expectation")["violation_rate"])
    return out + [
        _check("smaller_doses", hp < hp0, "more noise, smaller doses for HPC-UCB",
               f"HPC-UCB's average dose went from {hp0:.3f} to {hp:.3f}."),
        _check("on_expectation_worse", oe1 > oe0, "On-Expectation ignores the noise and passes τ more often",
               f"On-Expectation's share of rounds over the limit went from {percent(oe0)} to {percent(oe1)}."),
    ]


def _noise_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    cell = _cell(runs[0], step)
    return {"safe": vd.safe_interval_figure(dose_frame(cell)),
            "violations": vd.violation_figure(families.summary(cell), cell.settings.delta)}


# --------------------------------------------------------------------------------------- conservative
CMAB = ConservativeSettings(problem="cmab", policies=("gencb", "conucb"), K=24, alpha=0.1, T=2000, seeds=5)
"""The conservative scenes' shape: GenCB against ConUCB on K = 24 arms (μ₀ derived from the arms), 5 seeds."""
MOVE_ALPHA = Move("α (tolerated loss)", "α", 0.02, 0.1,
                  "The learner must keep its total reward above (1 − α)·μ₀·t, μ₀ being what the safe default arm "
                  "pays. A larger α leaves more room to explore before it has to fall back on the default.")
HORIZONS = sweep.horizon_grid(20_000)
MOVE_T = Move("Rounds T", "T", 5000, HORIZONS[-1],
              "The horizon: how many rounds a run lasts. ConUCB's confidence uses the final T (δ = 1/T), so every "
              "horizon is its own run.")


def _alpha_jobs(base: Base) -> tuple[Job, ...]:
    return tuple(Job(with_base(dataclasses.replace(CMAB, alpha=a), base), chunk=CHUNK)
                 for a in (MOVE_ALPHA.before, MOVE_ALPHA.after))


def _pulls(summary: pd.DataFrame, policy: str) -> float:
    return float(_row(summary, policy)["default_pulls_mean"])


def _alpha_notice(runs: Runs, step: int) -> list[Claim]:
    run = runs[step]
    s, summ = run.settings, families.summary(run)
    g, c = _pulls(summ, "gencb"), _pulls(summ, "conucb")
    slack = _row(summ, "gencb")["min_slack"]
    out = [
        _check(f"gencb_less_{step}", g < c, "GenCB holds back less than ConUCB",
               f"At α = {s.alpha:g}, GenCB pulled the default arm {number(g)} times per run "
               f"({percent(g / s.T)} of the {s.T:,} rounds); ConUCB {number(c)} times."),
        _check(f"gencb_safe_{step}", slack >= -ROUND_OFF, "GenCB keeps its constraint",
               captions.slack_sentence(summ, "gencb")),
    ]
    if not step:
        return out
    g0 = _pulls(families.summary(runs[0]), "gencb")
    return out + [
        _check("alpha_frees", g < g0, "a larger α lets GenCB pull the default less",
               f"Raising α from {MOVE_ALPHA.value(0)} to {MOVE_ALPHA.value(1)} took GenCB's default pulls from "
               f"{number(g0)} to {number(g)} per run."),
        _fact("regret_1", captions.regret_order(summ, s.T)),
    ]


def _named(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its ``policy`` names as a categorical in order of first appearance (the figures' order)."""
    frame["policy"] = pd.Categorical(frame["policy"], categories=list(dict.fromkeys(frame["policy"])))
    return frame


def _alpha_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    parts = []
    for r in runs[: step + 1]:
        part = by_label(families.tidy(r, ["default_pulls"]))
        part["policy"] = part["policy"].astype(str) + f", α = {r.settings.alpha:g}"
        parts.append(part)
    return {"pulls": vc.default_pulls_figure(_named(pd.concat(parts, ignore_index=True)))}


def _horizon_jobs(base: Base) -> tuple[Job, ...]:
    return tuple(Job(with_base(dataclasses.replace(CMAB, T=T), base), chunk=CHUNK) for T in HORIZONS)


def horizon_frame(runs: Sequence[Run]) -> pd.DataFrame:
    """One row per (horizon, policy), as :func:`safebandit_core.sweep.over_horizons` gives it, from runs of each T."""
    return pd.concat([families.summary(r).assign(T=r.T) for r in runs], ignore_index=True)


def _shown_horizons(runs: Runs, step: int) -> Runs:
    top = MOVE_T.after if step else MOVE_T.before
    return tuple(r for r in runs if r.T <= top)


def _horizon_notice(runs: Runs, step: int) -> list[Claim]:
    h = horizon_frame(_shown_horizons(runs, step))
    g = h[h["policy"] == "gencb"].set_index("T")
    c = h[h["policy"] == "conucb"].set_index("T")
    ahead = g["cum_regret_mean"] < c["cum_regret_mean"]
    text = captions.crossover(h, "gencb", "conucb")
    Ts = list(g.index)
    pulls = (f"Default pulls N₀: GenCB {number(g['default_pulls_mean'].iloc[0])} at T = {Ts[0]:,} and "
             f"{number(g['default_pulls_mean'].iloc[-1])} at T = {Ts[-1]:,}; ConUCB "
             f"{number(c['default_pulls_mean'].iloc[0])} and {number(c['default_pulls_mean'].iloc[-1])}.")
    more = bool((c["default_pulls_mean"] > g["default_pulls_mean"]).all())
    out = [_check(f"pulls_{step}", more, "ConUCB falls back on the default more than GenCB at every horizon", pulls)]
    if not step:
        return [_check("conucb_ahead_short", not ahead.any(),
                       "at these short horizons ConUCB has less regret than GenCB", text)] + out
    return [_check("gencb_overtakes", (not ahead.iloc[0]) and bool(ahead.iloc[-1]),
                   "GenCB overtakes ConUCB once the horizon is long enough", text)] + out


def _horizon_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    rows = []
    for r in _shown_horizons(runs, step):
        for p, lab in zip(r.policies, r.labels, strict=True):
            out = r.policy_outputs(p)
            rows.append(pd.DataFrame({"policy": lab, "seed": np.arange(r.settings.seeds), "t": r.T,
                                      "cum_regret": out["regret"].sum(axis=-1, dtype=np.float64),
                                      "default_pulls": out["default"].sum(axis=-1).astype(np.float64)}))
    frame = pd.concat(rows, ignore_index=True)
    figs = {"regret": mean_band_figure(frame, "cum_regret", title="Cumulative regret at the end of each run (mean, "
                                       "min–max over seeds)", y_title="cumulative regret", x_title="horizon T",
                                       band="minmax", colors=vc.colors_for(["GenCB", "ConUCB"])),
            "pulls": mean_band_figure(frame, "default_pulls", title="Default-arm pulls N₀(T) (mean, min–max)",
                                      y_title="default pulls N₀(T)", x_title="horizon T", band="minmax",
                                      colors=vc.colors_for(["GenCB", "ConUCB"]))}
    for f in figs.values():
        f.update_xaxes(type="log")
    return figs


# -------------------------------------------------------------------------------------- mean-variance
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
    return _cell(runs[SPACE.Ks.index(f.K)], f.above if step else f.cell)


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
    cucb, ucb = _row(summ, "mvcucb")["min_slack"], _row(summ, "mvucb")["min_slack"]
    out = [_fact(f"assumption_{step}", assumption_text(s.alpha, s.mu0, s.rho))]
    if not step:
        out.insert(0, _fact("search", search.statement(f)))
        out.append(_check("cucb_on_instance", (cucb < -ROUND_OFF) == f.broke,
                          "MV-CUCB's slack on the instance shown agrees with the search",
                          captions.slack_sentence(summ, "mvcucb")))
    else:
        out.append(_check("cucb_guaranteed", cucb >= -ROUND_OFF, "with the guarantee, MV-CUCB's slack stays ≥ 0",
                          captions.slack_sentence(summ, "mvcucb")))
    out.append(_check(f"ucb_breaks_{step}", ucb < -ROUND_OFF,
                      "MV-UCB, which has no check, breaks the constraint on the same instance",
                      captions.slack_sentence(summ, "mvucb")))
    return out


def _mv_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    return {"slack": vmv.slack_figure(families.tidy(_mv_cell(runs, step), ["slack", "baseline"]))}


# ----------------------------------------------------------------------------------------- non-linear
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
    cell = _cell(runs[0], step)
    s, summ = cell.settings, families.summary(cell)
    set_c, set_r = _nl_sets(cell)
    end_c, end_r = float(set_c[:, -1].mean()), float(set_r[:, -1].mean())
    half = half_round(set_c, s.size)
    kept = float(_row(summ, "hpucb")["true_excluded_rate"])
    halves = (f"half of the cost candidates were ruled out by round {half:,}" if half
              else "fewer than half of the cost candidates were ruled out")
    out = [
        _check(f"shrinks_{step}", end_c < s.size and end_r < s.size, "the sets shrink as data arrive",
               f"At κ_c = {s.kappa_c:g}, both sets start with all {s.size} candidates; by round {s.T:,} the cost "
               f"set holds {number(end_c)} on average and the reward set {number(end_r)}; {halves}."),
        _check(f"truth_kept_{step}", kept == 0.0, "the true functions are never ruled out (Lemma 10: except with "
               "probability 2δ′)",
               "The true cost and reward functions stayed in their sets in every round of every run." if kept == 0
               else f"The true functions left their sets in {percent(kept)} of the runs."),
    ]
    if not step:
        return out
    half0 = half_round(_nl_sets(_cell(runs[0], 0))[0], s.size)
    slower = half == 0 or (half0 > 0 and half > half0)
    return out + [_check("slower", slower, "more noise, slower shrinking",
                         f"Half of the cost candidates were out by round {half0:,} at κ_c = {MOVE_NL.value(0)}, "
                         + (f"by round {half:,} at κ_c = {MOVE_NL.value(1)}." if half
                            else f"and not within {s.T:,} rounds at κ_c = {MOVE_NL.value(1)}."))]


def _nl_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    rows = []
    cells = (0, 1) if step else (0,)
    for i in cells:
        cell = _cell(runs[0], i)
        set_c, set_r = _nl_sets(cell)
        tag = f", κ_c = {cell.settings.kappa_c:g}"
        named = [("cost functions" + tag, set_c)] + ([] if step else [("reward functions" + tag, set_r)])
        for name, sizes in named:
            seeds, T = sizes.shape
            rows.append(pd.DataFrame({"policy": name, "seed": np.repeat(np.arange(seeds), T),
                                      "t": np.tile(np.arange(1, T + 1), seeds), "size": sizes.reshape(-1)}))
    frame = _named(pd.concat(rows, ignore_index=True))
    fig = mean_band_figure(frame, "size", title="Candidates still in the confidence sets (log scale)",
                           y_title="set size |F_t|", band="minmax")
    fig.update_yaxes(type="log")
    return {"sets": fig}


# ---------------------------------------------------------------------------------------------- scenes
def _static(move: Move) -> Callable[[Runs], Move]:
    return lambda runs: move


SCENES: tuple[Scene, ...] = (
    Scene("delta", "δ against violations", "dose", "Dose model", S000,
          f"A strict rule: each patient's side effect may pass the limit τ = {DOSE.tau:g} with probability at most "
          f"δ = {percent(MOVE_DELTA.before)}, and the noise is large (κ_c = {DOSE.kappa_c:g}). HPC-UCB keeps a margin "
          "for the noise; On-Expectation keeps only the average side effect below τ.",
          _grid(DOSE, "delta", MOVE_DELTA), _static(MOVE_DELTA), _delta_notice, _delta_figures,
          {"violations": "The share of rounds whose realized cost passed τ, over all seeds, with a 95 % interval; "
                         "the dashed line is the δ the rule allows.",
           "cost": "Every round's realized cost for the first seed; red crosses passed τ."},
          lambda runs, step: _cell(runs[0], step).settings),
    Scene("one-round", "Realized against expected cost in one round", "dose", "Dose model", S000,
          f"The same run as the first scene (δ = {percent(MOVE_DELTA.before)}), seen from inside one round. A "
          "round's cost is Gaussian: its "
          "mean is g(α)⟨X, μ*⟩ and its spread g(α)·κ_c, so a bigger dose moves the cost up and widens it.",
          _grid(DOSE, "delta", MOVE_DELTA), _static(MOVE_POLICY), _round_notice, _round_figures,
          {"round": "The law of that round's cost at the dose chosen. Red: the chance it passes τ. Amber: the upper "
                    "δ-tail the rule tolerates. Dotted: g(α)(⟨X, μ*⟩ + b_δ), the mean cost plus the scaled "
                    "margin HPC-UCB keeps below τ."},
          lambda runs, step: _cell(runs[0], 0).settings),
    Scene("alpha", "α against default-arm pulls", "conservative", CMAB_NAME, S001,
          f"K = {CMAB.K} arms with means from 0.8 down to 0.2 and a safe default arm paying μ₀ = "
          f"{make_instance(CMAB).mu0:g}. Both learners must never fall more than a share α behind what always "
          "playing the default would have earned.",
          _alpha_jobs, _static(MOVE_ALPHA), _alpha_notice, _alpha_figures,
          {"pulls": "How many times each learner has fallen back on the default arm by round t (mean, min–max over "
                    "seeds). A curve that flattens has stopped needing it."},
          lambda runs, step: runs[step].settings),
    Scene("horizon", "GenCB against ConUCB as the horizon grows", "conservative", CMAB_NAME, S001,
          f"The same K = {CMAB.K} arms with α = {CMAB.alpha:g}, run to several horizons T. ConUCB plans with "
          "δ = 1/T, GenCB with the rounds so far, so which one loses less can depend on how long the run is.",
          _horizon_jobs, _static(MOVE_T), _horizon_notice, _horizon_figures,
          {"regret": "Reward lost against always playing the best arm, at the end of runs of each horizon (log T "
                     "axis).",
           "pulls": "Default-arm pulls at the end of each run: a learner whose count stops growing with T has "
                    "finished exploring."},
          lambda runs, step: _shown_horizons(runs, step)[-1].settings),
    Scene("mv-rho", "ρ below 2/(α·μ₀)", "meanvar", "Mean-variance bandits", S001,
          "MV-CUCB keeps its run's mean-variance ρ·mean − variance above (1 − α) of a riskless default's, and the "
          "paper proves it does so on every run when ρ > 2/(α·μ₀). A search below that threshold asks whether it "
          "can still break.",
          _search_jobs, _mv_move, _mv_notice, _mv_figures,
          {"slack": "The slack t·MV̂_t − (1 − α)·MV₀·t per policy (mean, min–max over seeds): the constraint holds "
                    "while it stays at or above 0. A red cross marks the first round below 0."},
          lambda runs, step: _mv_cell(runs, step).settings),
    Scene("nonlinear-set", "The non-linear confidence set shrinking", "nonlinear",
          "Non-linear dose model (a finite class of functions)", S000,
          f"HPC-UCB with a finite class of {NONLINEAR.size} candidate functions for the reward and for the cost: it "
          "keeps only "
          "those still consistent with the data, and picks a dose meant to be safe for every one of them.",
          _grid(NONLINEAR, "kappa_c", MOVE_NL), _static(MOVE_NL), _nl_notice, _nl_figures,
          {"sets": "How many candidates are still possible after each round (mean, min–max over seeds; log "
                   "scale): every step down is a candidate the data ruled out."},
          lambda runs, step: _cell(runs[0], step).settings),
    Scene("noise-margin", "How the noise sets the safety margin", "dose", "Dose model", S000,
          f"The same dose model with δ = {percent(NOISE.delta)}, at a low and a high cost noise κ_c: HPC-UCB's margin "
          "b_δ = κ_c·√(2 log 1/δ) grows with the noise, On-Expectation has none.",
          _grid(NOISE, "kappa_c", MOVE_NOISE), _static(MOVE_NOISE), _noise_notice, _noise_figures,
          {"safe": "The dose each policy may give (its estimated upper end α̂max, trailing mean) against the truly "
                   "safe one (grey), and the doses it chose, for the first seed.",
           "violations": "The share of rounds over the limit against δ (dashed)."},
          lambda runs, step: _cell(runs[0], step).settings),
)
"""The scenes, in lecture order."""
BY_SLUG: dict[str, Scene] = {s.slug: s for s in SCENES}
