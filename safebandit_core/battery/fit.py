"""Realizability for the battery experiment: fit theta*, mu* on half the data, replay the rest.

Seed 000 (§7) makes the linear model R = g(alpha) (<X, theta*> + xi) hold by construction: it
fits theta* and mu* by least squares on part of the NASA data, treats the fit as the truth,
and runs the bandit on the contexts of the remaining part. :func:`build_battery_problem`
does the same for a per-step table, with g the identity on the dose.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.linalg

from .embed import Embedder, embed_windows, make_embedder
from .loader import random_walk_discharges


class FitResult(NamedTuple):
    """A ridge least-squares fit: coefficients, in-sample R², residual RMS."""

    coef: np.ndarray  # (d,) float64
    r2: float
    resid_sigma: float


RISE = ("rise",)
"""Cost kinds measured as the temperature rise over the step (the others: the level above the coolest step)."""

def fit_linear(X: np.ndarray, y: np.ndarray, lam: float = 1e-6) -> FitResult:
    """Ridge least squares ``argmin_w |X w - y|^2 + lam |w|^2`` (no intercept).

    ``r2 = 1 - SS_res / SS_tot`` about the mean of ``y`` (1.0 for a constant ``y`` fitted
    exactly, 0.0 if not); ``resid_sigma = sqrt(SS_res / n)``, the residual root mean square.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"need X (n, d) and y (n,), got {X.shape} and {y.shape}")
    if X.shape[0] == 0:
        raise ValueError("need at least one sample to fit")
    if lam < 0:
        raise ValueError(f"lam must be >= 0 (got {lam})")
    n, d = X.shape
    if n >= d:
        gram = X.T @ X
        gram[np.diag_indices(d)] += lam
        try:
            coef = scipy.linalg.solve(gram, X.T @ y, assume_a="pos")
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            coef = np.linalg.lstsq(X, y, rcond=None)[0]
    else:
        kernel = X @ X.T
        kernel[np.diag_indices(n)] += lam
        try:
            coef = X.T @ scipy.linalg.solve(kernel, y, assume_a="pos")
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            coef = np.linalg.lstsq(X, y, rcond=None)[0]
    resid = y - X @ coef
    ss_res = float(resid @ resid)
    centred = y - y.mean()
    ss_tot = float(centred @ centred)
    if ss_tot > 0:
        r2 = 1.0 - ss_res / ss_tot
    else:
        r2 = 1.0 if ss_res <= 1e-24 * max(1.0, float(y @ y)) else 0.0
    return FitResult(coef=coef, r2=r2, resid_sigma=float(np.sqrt(ss_res / n)))


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

    Rounds are the random-walk discharges with at least two samples (a one-sample step was
    cut off at the voltage limit and shows no change) and a step before them. The context of
    a round is the embedding of ``window_json`` of its ``k`` previous steps (``seed`` seeds
    the hash embedder; ``dim`` applies to it only). Because R = g(alpha)(<X, theta*> + xi)
    with g the identity, theta* is the ridge fit (``lam``) of reward / dose on X and mu* that
    of cost / dose, over the fit rounds with dose >= ``min_dose``: a near-zero dose would
    divide the measurement noise by almost zero. The contexts span few directions with little
    spread, so an almost unregularised fit needs large coefficients; the default ``lam``
    trades a little R² for a norm bound an order of magnitude smaller. ``replay_r2_*`` score the same targets on
    the replay rounds with dose >= ``min_dose``. See :class:`BatteryProblem` for the scalings.
    """
    if not 0.0 < fit_fraction < 1.0:
        raise ValueError(f"fit_fraction must be in (0, 1) (got {fit_fraction})")
    if cost_kind not in COST_KINDS:
        raise ValueError(f"cost_kind must be one of {COST_KINDS} (got {cost_kind!r})")
    if not 0.0 < min_dose < 1.0:
        raise ValueError(f"min_dose must be in (0, 1) (got {min_dose})")
    table = steps.reset_index(drop=True)
    rounds = random_walk_discharges(table)
    rounds = rounds.loc[(rounds["n_samples"] >= 2) & (rounds.index >= 1)]
    positions = rounds.index.to_numpy(dtype=np.int64)
    n_fit_rounds = int(round(fit_fraction * positions.size))
    if n_fit_rounds < 2 or positions.size - n_fit_rounds < 1:
        raise ValueError(
            f"{positions.size} random-walk discharge rounds cannot be split {fit_fraction:.2f}"
            " into a fit part (>= 2) and a replay part (>= 1)"
        )
    before = table.iloc[positions - 1]
    current = rounds["current_mean"].to_numpy(dtype=np.float64)
    current_min, current_max = float(current.min()), float(current.max())
    if current_max <= current_min:
        raise ValueError("all rounds have the same current, so the dose cannot be scaled")
    dose = (current - current_min) / (current_max - current_min)

    drop = before["voltage_end"].to_numpy(np.float64) - rounds["voltage_end"].to_numpy(np.float64)
    reward_scale = _positive_scale(float(np.abs(drop).max()), "voltage drop")
    reward = drop / reward_scale
    temperature_min = float(rounds["temperature_mean"].min())
    if cost_kind in RISE:
        heat = rounds["temperature_max"].to_numpy(np.float64)
        heat = heat - before["temperature_mean"].to_numpy(np.float64)
        cost_scale = _positive_scale(float(np.abs(heat).max()), "temperature rise")
    else:
        heat = rounds["temperature_mean"].to_numpy(np.float64) - temperature_min
        cost_scale = _positive_scale(float(heat.max()), "temperature range")
    cost = heat / cost_scale

    model = make_embedder(embedder, dim=dim, seed=seed)
    X = embed_windows(table, positions, model, k=k)
    is_fit = np.arange(positions.size) < n_fit_rounds
    usable = dose >= min_dose
    fit_rows, check_rows = is_fit & usable, ~is_fit & usable
    if fit_rows.sum() < 2:
        raise ValueError(f"fewer than two fit rounds have dose >= {min_dose}")
    safe_dose = np.where(usable, dose, 1.0)
    reward_fit = fit_linear(X[fit_rows], reward[fit_rows] / dose[fit_rows], lam)
    cost_fit = fit_linear(X[fit_rows], cost[fit_rows] / dose[fit_rows], lam)
    replay = ~is_fit

    def frozen(values: np.ndarray) -> np.ndarray:
        out = np.ascontiguousarray(values)
        out.setflags(write=False)
        return out

    return BatteryProblem(
        X_replay=frozen(X[replay]),
        theta=frozen(reward_fit.coef),
        mu=frozen(cost_fit.coef),
        kappa_r=reward_fit.resid_sigma,
        kappa_c=cost_fit.resid_sigma,
        fit_r2_reward=reward_fit.r2,
        fit_r2_cost=cost_fit.r2,
        replay_r2_reward=_r2(X[check_rows], (reward / safe_dose)[check_rows], reward_fit.coef),
        replay_r2_cost=_r2(X[check_rows], (cost / safe_dose)[check_rows], cost_fit.coef),
        norm_bound=float(max(np.linalg.norm(reward_fit.coef), np.linalg.norm(cost_fit.coef))),
        n_fit=int(fit_rows.sum()),
        n_replay=int(replay.sum()),
        dim=int(X.shape[1]),
        embedder=model.name,
        steps_replay=frozen(rounds["step"].to_numpy(np.int64)[replay]),
        dose_replay=frozen(dose[replay]),
        reward_replay=frozen(reward[replay]),
        cost_replay=frozen(cost[replay]),
        current_min=current_min,
        current_max=current_max,
        reward_scale=reward_scale,
        cost_kind=cost_kind,
        cost_scale=cost_scale,
        temperature_min=temperature_min,
        k=int(k),
        lam=float(lam),
        min_dose=float(min_dose),
    )


def _positive_scale(value: float, what: str) -> float:
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"the {what} over the rounds is {value}, so it cannot be scaled")
    return value


def _r2(X: np.ndarray, y: np.ndarray, coef: np.ndarray) -> float:
    """Out-of-sample R² of ``X @ coef`` for ``y`` (nan when there is nothing to score)."""
    if y.size < 2:
        return float("nan")
    resid = y - X @ coef
    centred = y - y.mean()
    ss_tot = float(centred @ centred)
    return 1.0 - float(resid @ resid) / ss_tot if ss_tot > 0 else float("nan")
