"""The conservative bandits' lecture scenes (:mod:`safebandit_core.lessons`): α against default-arm pulls, and
GenCB against ConUCB as the horizon grows; both run the same K = 24 model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .. import captions, families, sweep
from .. import lessons as L
from ..captions import ROUND_OFF, number, percent
from ..lessons import Base, Claim, Job, Move, Runs, Scene
from ..model import Run
from ..scenarios import ONE_SIZE
from ..viz import conservative as vc
from ..viz.common import by_label, mean_band_figure
from .instances import make_instance
from .settings import ConservativeSettings

CMAB_NAME = "Conservative bandits (K independent arms)"

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
    return tuple(Job(L.with_base(dataclasses.replace(CMAB, alpha=a), base), chunk=L.CHUNK)
                 for a in (MOVE_ALPHA.before, MOVE_ALPHA.after))


def _pulls(summary: pd.DataFrame, policy: str) -> float:
    return float(L.row(summary, policy)["default_pulls_mean"])


def _alpha_notice(runs: Runs, step: int) -> list[Claim]:
    run = runs[step]
    s, summ = run.settings, families.summary(run)
    g, c = _pulls(summ, "gencb"), _pulls(summ, "conucb")
    slack = L.row(summ, "gencb")["min_slack"]
    out = [
        L.check(f"gencb_less_{step}", g < c, "GenCB holds back less than ConUCB",
               f"At α = {s.alpha:g}, GenCB pulled the default arm {number(g)} times per run "
               f"({percent(g / s.T)} of the {s.T:,} rounds); ConUCB {number(c)} times."),
        L.check(f"gencb_safe_{step}", slack >= -ROUND_OFF, "GenCB keeps its constraint",
               captions.slack_sentence(summ, "gencb")),
    ]
    if not step:
        return out
    g0 = _pulls(families.summary(runs[0]), "gencb")
    return out + [
        L.check("alpha_frees", g < g0, "a larger α lets GenCB pull the default less",
               f"Raising α from {MOVE_ALPHA.value(0)} to {MOVE_ALPHA.value(1)} took GenCB's default pulls from "
               f"{number(g0)} to {number(g)} per run."),
        L.fact("regret_1", captions.regret_order(summ, s.T)),
    ]


def _alpha_figures(runs: Runs, step: int) -> dict[str, go.Figure]:
    parts = []
    for r in runs[: step + 1]:
        part = by_label(families.tidy(r, ["default_pulls"]))
        part["policy"] = part["policy"].astype(str) + f", α = {r.settings.alpha:g}"
        parts.append(part)
    return {"pulls": vc.default_pulls_figure(L.named(pd.concat(parts, ignore_index=True)))}


def _horizon_jobs(base: Base) -> tuple[Job, ...]:
    return tuple(Job(L.with_base(dataclasses.replace(CMAB, T=T), base), chunk=L.CHUNK) for T in HORIZONS)


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
    out = [L.check(f"pulls_{step}", more, "ConUCB falls back on the default more than GenCB at every horizon", pulls)]
    if not step:
        return [L.check("conucb_ahead_short", not ahead.any(),
                       "at these short horizons ConUCB has less regret than GenCB", text)] + out
    return [L.check("gencb_overtakes", (not ahead.iloc[0]) and bool(ahead.iloc[-1]),
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


SCENES: tuple[Scene, ...] = (
    Scene("alpha", "α against default-arm pulls", "conservative", CMAB_NAME, ONE_SIZE,
          f"K = {CMAB.K} arms with means from 0.8 down to 0.2 and a safe default arm paying μ₀ = "
          f"{make_instance(CMAB).mu0:g}. Both learners must never fall more than a share α behind what always "
          "playing the default would have earned.",
          _alpha_jobs, L.static(MOVE_ALPHA), _alpha_notice, _alpha_figures,
          {"pulls": "How many times each learner has fallen back on the default arm by round t (mean, min–max over "
                    "seeds). A curve that flattens has stopped needing it."},
          lambda runs, step: runs[step].settings),
    Scene("horizon", "GenCB against ConUCB as the horizon grows", "conservative", CMAB_NAME, ONE_SIZE,
          f"The same K = {CMAB.K} arms with α = {CMAB.alpha:g}, run to several horizons T. ConUCB plans with "
          "δ = 1/T, GenCB with the rounds so far, so which one loses less can depend on how long the run is.",
          _horizon_jobs, L.static(MOVE_T), _horizon_notice, _horizon_figures,
          {"regret": "Reward lost against always playing the best arm, at the end of runs of each horizon (log T "
                     "axis).",
           "pulls": "Default-arm pulls at the end of each run: a learner whose count stops growing with T has "
                    "finished exploring."},
          lambda runs, step: _shown_horizons(runs, step)[-1].settings),
)
"""This family's scenes (the lecture's order is :data:`safebandit_core.lessons.LECTURE`)."""
