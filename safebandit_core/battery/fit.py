"""Realizability for the battery experiment: fit theta*, mu* on half the data, replay the rest.

Safety by Design (§7) makes the linear model R = g(alpha) (<X, theta*> + xi) hold by construction: it
fits theta* and mu* by least squares on part of the NASA data, treats the fit as the truth,
and runs the bandit on the contexts of the remaining part. The battery is one instance of the
logged-data pipeline (:mod:`safebandit_core.logged`): :func:`battery_rounds` is its mapping (a NASA
per-step table -> contexts, doses, rewards and costs, one row per round), and
:func:`build_battery_problem` fits those rows with the pipeline's one fit
(:func:`safebandit_core.data.ridge.fit_arrays`, split ``first_half``, g the identity on the dose).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..data.embed import Embedder, embed_windows, make_embedder
from ..data.replay import FittedEnv, max_norm
from ..data.ridge import FitPlan, FitResult, fit_arrays, fit_linear
from .loader import random_walk_discharges

__all__ = ["COST_KINDS", "BatteryProblem", "BatteryRounds", "FitResult", "battery_rounds", "build_battery_problem",
           "battery_plan", "fit_linear"]


COST_KINDS = ("rise", "level")


@dataclasses.dataclass(frozen=True, eq=False)
class BatteryProblem:
    """A realizable battery bandit: fitted theta*, mu* and the contexts to replay them on.

    Rounds are random-walk discharges; dose = (I - current_min) / (current_max - current_min)
    with I the step's mean current; reward = (V_before - V_end) / reward_scale, V_before the
    last voltage of the step before (the cell at rest) and V_end the last voltage of the
    round; cost (``cost_kind="rise"``) = (T_max - T_before) / cost_scale, T_max the round's
    peak temperature and T_before the mean temperature of the step before, or
    (``"level"``) = (T_mean - temperature_min) / cost_scale. Scales are the largest value
    over all rounds (the range for ``"level"``), so rewards and costs lie in about [0, 1].
    Why these: measured from the rest before, the drop includes the instant resistive drop
    and is nearly proportional to I - current_min, i.e. to the dose, as the model wants; the
    drop within the round misses it and turns negative at low currents (the cell relaxes
    after the previous high current). Likewise the temperature level barely depends on the
    round's current (thermal mass), so level / dose is mostly noise, while the rise is the
    heating the round itself causes.
    ``theta``/``mu`` are the fits as they are (not rescaled, so tau keeps its meaning);
    ``norm_bound`` = max(|theta|, |mu|) is the S of Assumption 2.2, and ``kappa_r``/``kappa_c``
    are the residual RMS of the two fits (the sub-Gaussian constants of Assumption 2.1).
    """

    X_replay: np.ndarray  # (n_replay, dim) float64, unit-norm rows
    theta: np.ndarray  # (dim,) float64
    mu: np.ndarray  # (dim,) float64
    kappa_r: float
    kappa_c: float
    fit_r2_reward: float
    fit_r2_cost: float
    replay_r2_reward: float
    replay_r2_cost: float
    norm_bound: float
    n_fit: int
    n_replay: int
    dim: int
    embedder: str
    steps_replay: np.ndarray  # (n_replay,) int64, step numbers of the replayed rounds
    dose_replay: np.ndarray  # (n_replay,) float64, doses the data applied
    reward_replay: np.ndarray  # (n_replay,) float64, rewards the data observed
    cost_replay: np.ndarray  # (n_replay,) float64, costs the data observed
    current_min: float
    current_max: float
    reward_scale: float
    cost_kind: str
    cost_scale: float
    temperature_min: float
    k: int
    lam: float
    min_dose: float

    @functools.cached_property
    def env(self) -> FittedEnv:
        """The fitted environment the replay runs (:class:`safebandit_core.data.replay.FittedEnv`)."""
        return FittedEnv(X=self.X_replay, theta=self.theta, mu=self.mu, kappa_r=self.kappa_r, kappa_c=self.kappa_c,
                         S=self.norm_bound, L=max_norm(self.X_replay))

    def facts(self) -> dict[str, float | int | str]:
        """Every field but the arrays (sizes, scales, fit quality, noise, the embedder): the plain numbers the
        battery's figures and words take (:mod:`safebandit_core.viz.battery`)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {name: value for name, value in values.items() if not isinstance(value, np.ndarray)}


class BatteryRounds(NamedTuple):
    """The battery's rounds as a logged table (one row per random-walk discharge, in time order): the
    contexts, doses, rewards and costs, the rows' positions in the per-step table, and the scales used."""

    X: np.ndarray  # (n, dim) float64, unit-norm rows
    dose: np.ndarray  # (n,) in [0, 1]
    reward: np.ndarray  # (n,)
    cost: np.ndarray  # (n,)
    steps: np.ndarray  # (n,) int64 step numbers
    positions: np.ndarray  # (n,) int64 positions in the per-step table
    embedder: str
    current_min: float
    current_max: float
    reward_scale: float
    cost_scale: float
    temperature_min: float


RISE = ("rise",)
"""Cost kinds measured as the temperature rise over the step (the others: the level above the coolest step)."""


def battery_rounds(
    steps: pd.DataFrame,
    *,
    dim: int = 2048,
    embedder: str | Embedder = "hash",
    k: int = 5,
    seed: int = 0,
    cost_kind: str = "rise",
) -> BatteryRounds:
    """The battery's mapping from a per-step table to a logged table: one row per round (see :class:`BatteryProblem`).

    Rounds are the random-walk discharges with at least two samples (a one-sample step was
    cut off at the voltage limit and shows no change) and a step before them. The context of
    a round is the embedding of ``window_json`` of its ``k`` previous steps (``seed`` seeds
    the hash embedder; ``dim`` applies to it only).
    """
    if cost_kind not in COST_KINDS:
        raise ValueError(f"cost_kind must be one of {COST_KINDS} (got {cost_kind!r})")
    table = steps.reset_index(drop=True)
    rounds = random_walk_discharges(table)
    rounds = rounds.loc[(rounds["n_samples"] >= 2) & (rounds.index >= 1)]
    positions = rounds.index.to_numpy(dtype=np.int64)
    before = table.iloc[positions - 1]
    current = rounds["current_mean"].to_numpy(dtype=np.float64)
    if current.size == 0:
        raise ValueError("the table has no random-walk discharge rounds")
    current_min, current_max = float(current.min()), float(current.max())
    if current_max <= current_min:
        raise ValueError("all rounds have the same current, so the dose cannot be scaled")
    dose = (current - current_min) / (current_max - current_min)

    drop = before["voltage_end"].to_numpy(np.float64) - rounds["voltage_end"].to_numpy(np.float64)
    reward_scale = _positive_scale(float(np.abs(drop).max()), "voltage drop")
    temperature_min = float(rounds["temperature_mean"].min())
    if cost_kind in RISE:
        heat = rounds["temperature_max"].to_numpy(np.float64)
        heat = heat - before["temperature_mean"].to_numpy(np.float64)
        cost_scale = _positive_scale(float(np.abs(heat).max()), "temperature rise")
    else:
        heat = rounds["temperature_mean"].to_numpy(np.float64) - temperature_min
        cost_scale = _positive_scale(float(heat.max()), "temperature range")
    model = make_embedder(embedder, dim=dim, seed=seed)
    return BatteryRounds(X=embed_windows(table, positions, model, k=k), dose=dose, reward=drop / reward_scale,
                         cost=heat / cost_scale, steps=rounds["step"].to_numpy(np.int64), positions=positions,
                         embedder=model.name, current_min=current_min, current_max=current_max,
                         reward_scale=reward_scale, cost_scale=cost_scale, temperature_min=temperature_min)


def battery_plan(fit_fraction: float = 0.5, lam: float = 1e-3, min_dose: float = 0.05) -> FitPlan:
    """The battery's fit plan: the first ``fit_fraction`` of the rounds fit (ridge ``lam``), the rest replay."""
    return FitPlan(split="first_half", fit_fraction=fit_fraction, lam=lam, min_g=min_dose, g="linear")


def build_battery_problem(
    steps: pd.DataFrame,
    *,
    dim: int = 2048,
    embedder: str | Embedder = "hash",
    fit_fraction: float = 0.5,
    k: int = 5,
    seed: int = 0,
    lam: float = 1e-3,
    min_dose: float = 0.05,
    cost_kind: str = "rise",
) -> BatteryProblem:
    """Fit theta*, mu* on the first ``fit_fraction`` of the rounds and keep the rest to replay.

    The rounds are :func:`battery_rounds`. Because R = g(alpha)(<X, theta*> + xi) with g the identity,
    theta* is the ridge fit (``lam``) of reward / dose on X and mu* that of cost / dose, over the fit
    rounds with dose >= ``min_dose``: a near-zero dose would divide the measurement noise by almost
    zero (:func:`safebandit_core.data.ridge.fit_arrays`). The contexts span few directions with little
    spread, so an almost unregularised fit needs large coefficients; the default ``lam`` trades a little
    R² for a norm bound an order of magnitude smaller. ``replay_r2_*`` score the same targets on the
    replay rounds with dose >= ``min_dose``. See :class:`BatteryProblem` for the scalings.
    """
    if not 0.0 < fit_fraction < 1.0:
        raise ValueError(f"fit_fraction must be in (0, 1) (got {fit_fraction})")
    if cost_kind not in COST_KINDS:
        raise ValueError(f"cost_kind must be one of {COST_KINDS} (got {cost_kind!r})")
    if not 0.0 < min_dose < 1.0:
        raise ValueError(f"min_dose must be in (0, 1) (got {min_dose})")
    rounds = battery_rounds(steps, dim=dim, embedder=embedder, k=k, seed=seed, cost_kind=cost_kind)
    n = rounds.dose.size
    n_fit_rounds = int(round(fit_fraction * n))
    if n_fit_rounds < 2 or n - n_fit_rounds < 1:
        raise ValueError(
            f"{n} random-walk discharge rounds cannot be split {fit_fraction:.2f}"
            " into a fit part (>= 2) and a replay part (>= 1)"
        )
    if ((np.arange(n) < n_fit_rounds) & (rounds.dose >= min_dose)).sum() < 2:
        raise ValueError(f"fewer than two fit rounds have dose >= {min_dose}")
    fit = fit_arrays(rounds.X, rounds.dose, rounds.reward, rounds.cost, battery_plan(fit_fraction, lam, min_dose))
    replay = fit.replay_rows

    def frozen(values: np.ndarray) -> np.ndarray:
        out = np.ascontiguousarray(values)
        out.setflags(write=False)
        return out

    return BatteryProblem(
        X_replay=fit.env.X,
        theta=fit.env.theta,
        mu=fit.env.mu,
        kappa_r=fit.env.kappa_r,
        kappa_c=fit.env.kappa_c,
        fit_r2_reward=fit.reward.r2,
        fit_r2_cost=fit.cost.r2,
        replay_r2_reward=fit.check_r2_reward,
        replay_r2_cost=fit.check_r2_cost,
        norm_bound=fit.env.S,
        n_fit=fit.n_fit,
        n_replay=int(replay.size),
        dim=int(rounds.X.shape[1]),
        embedder=rounds.embedder,
        steps_replay=frozen(rounds.steps[replay]),
        dose_replay=frozen(rounds.dose[replay]),
        reward_replay=frozen(rounds.reward[replay]),
        cost_replay=frozen(rounds.cost[replay]),
        current_min=rounds.current_min,
        current_max=rounds.current_max,
        reward_scale=rounds.reward_scale,
        cost_kind=cost_kind,
        cost_scale=rounds.cost_scale,
        temperature_min=rounds.temperature_min,
        k=int(k),
        lam=float(lam),
        min_dose=float(min_dose),
    )


def _positive_scale(value: float, what: str) -> float:
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"the {what} over the rounds is {value}, so it cannot be scaled")
    return value
