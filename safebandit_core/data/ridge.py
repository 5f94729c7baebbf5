"""The one fit of a logged dose model: ridge fits of R/g(α) and C/g(α) on contexts, then the fitted environment.

Safety by Design (§7) makes the model R = g(α)(⟨X, θ*⟩ + ξ^r), C = g(α)(⟨X, μ*⟩ + ξ^c) hold by construction: it
fits θ*, μ* by least squares on logged data and treats the fit as the truth. Divided by g(α), both
targets are linear in X with homoscedastic noise, so θ*, μ* are ridge fits of R/g(α) and C/g(α)
over the rows with g(α) ≥ ``min_g`` (a near-zero g(α) would divide the noise by almost zero), and
κ_r, κ_c are the residual RMS of those fits (the sub-Gaussian constants of Assumption 2.1).

:func:`fit_arrays` is that fit for any table already turned into arrays; a :class:`FitPlan` says which
rows fit, which check and which are replayed:

- ``split="first_half"`` (the battery experiment): fit on the first ``fit_fraction`` of the rows, score
  and replay the rest;
- ``split="alternate"`` (a user's log): fit on every row, replay every row, score on a held-out half.

``lam`` None chooses each ridge from :data:`LAMS` by the R² on a held-out half (alternate rows of the
fit rows, or alternate groups when groups are given), then refits on all fit rows.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np
import scipy.linalg

from ..dose import curves
from ..settings import SettingsError
from .replay import FittedEnv

LAMS: tuple[float, ...] = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)
SPLITS: tuple[str, ...] = ("alternate", "first_half")


class FitResult(NamedTuple):
    """A ridge least-squares fit: coefficients, in-sample R², residual RMS."""

    coef: np.ndarray  # (d,) float64
    r2: float
    resid_sigma: float


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


def r2_of(X: np.ndarray, y: np.ndarray, coef: np.ndarray) -> float:
    """Out-of-sample R² of ``X @ coef`` for ``y`` (nan when there is nothing to score)."""
    if y.size < 2:
        return float("nan")
    resid = y - X @ coef
    centred = y - y.mean()
    ss_tot = float(centred @ centred)
    return 1.0 - float(resid @ resid) / ss_tot if ss_tot > 0 else float("nan")


@dataclasses.dataclass(frozen=True)
class FitPlan:
    """Which rows fit, check and replay (``split``), the ridge (``lam``; None: chosen from ``lams``), the
    smallest g(α) a fit row may have (``min_g``) and the dose curve g the targets are divided by."""

    split: str = "alternate"
    fit_fraction: float = 0.5
    lam: float | None = None
    lams: tuple[float, ...] = LAMS
    min_g: float = 0.05
    g: str = "linear"
    g_power: float = 2.0
    g_ec50: float = 0.5
    g_hill: float = 2.0

    def g_of(self, dose: np.ndarray) -> np.ndarray:
        """g(dose) in numpy (the identity returns ``dose`` itself)."""
        p1, p2 = curves.params_of(self.g, self.g_power, self.g_ec50, self.g_hill)
        return curves.get(self.g).g(dose, p1, p2)


@dataclasses.dataclass(frozen=True, eq=False)
class Fitted:
    """The fitted environment and how it was fitted.

    ``reward``/``cost``: the final fits on the fit rows (in-sample R², residual RMS = κ);
    ``check_r2_*``: the held-out R² (the rest of the rows for ``first_half``, the held-out half for
    ``alternate``); ``lam_scores``: (λ, held-out R² reward, held-out R² cost) per grid value (empty
    for a fixed λ); the row masks and the replayed positions index the arrays given to :func:`fit_arrays`.
    """

    env: FittedEnv
    reward: FitResult
    cost: FitResult
    lam_r: float
    lam_c: float
    check_r2_reward: float
    check_r2_cost: float
    lam_scores: tuple[tuple[float, float, float], ...]
    fit_rows: np.ndarray  # (n,) bool
    check_rows: np.ndarray  # (n,) bool
    replay_rows: np.ndarray  # (n_replay,) int64 positions of env.X in the input
    g_dose: np.ndarray  # (n,) g(dose)

    @property
    def n_fit(self) -> int:
        return int(self.fit_rows.sum())


def halves(n: int, groups: np.ndarray | None = None) -> np.ndarray:
    """Alternate rows (or alternate groups, in order of first appearance) as the two halves: True = half A."""
    if groups is None:
        return np.arange(n) % 2 == 0
    _, first = np.unique(groups, return_index=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    _, codes = np.unique(groups, return_inverse=True)
    return rank[codes] % 2 == 0


def choose_lam(X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray,
               lams: tuple[float, ...]) -> tuple[float, list[float]]:
    """The λ of ``lams`` with the best R² on ``test`` after fitting on ``train`` (ties: the smaller λ)."""
    scores = [r2_of(X[test], y[test], fit_linear(X[train], y[train], lam).coef) for lam in lams]
    finite = [s if np.isfinite(s) else -np.inf for s in scores]
    return float(lams[int(np.argmax(finite))]), scores


def fit_arrays(X: np.ndarray, dose: np.ndarray, reward: np.ndarray, cost: np.ndarray, plan: FitPlan,
               groups: np.ndarray | None = None) -> Fitted:
    """Fit θ*, μ* on R/g(α), C/g(α) as ``plan`` says and return the fitted environment (rows in order).

    Raises :class:`SettingsError` naming ``min_g`` when too few rows have g(dose) ≥ ``min_g`` to fit
    (or to hold one out). ``X`` (n, d) are the contexts as the replay sees them.
    """
    if plan.split not in SPLITS:
        raise SettingsError("split", "one of " + ", ".join(SPLITS), plan.split)
    n = X.shape[0]
    gz = plan.g_of(dose)
    usable = gz >= plan.min_g
    safe_g = np.where(usable, gz, 1.0)
    if plan.split == "first_half":
        is_fit = np.arange(n) < int(round(plan.fit_fraction * n))
        fit_rows, check_rows = is_fit & usable, ~is_fit & usable
        replay = np.flatnonzero(~is_fit)
        side = halves(n, groups)
        train, test = fit_rows & side, fit_rows & ~side
    else:
        fit_rows = usable
        replay = np.arange(n)
        side = halves(n, groups)
        train, test = usable & side, usable & ~side
        check_rows = test
    if fit_rows.sum() < 2:
        raise SettingsError("min_g", f"low enough that at least two fit rows have g(dose) >= it (only "
                                     f"{int(fit_rows.sum())} do)", plan.min_g)
    y_r, y_c = reward / safe_g, cost / safe_g
    if plan.lam is None:
        if train.sum() < 2 or test.sum() < 2:
            raise SettingsError("min_g", "low enough that both halves of the fit rows keep two rows to choose "
                                         "the ridge on", plan.min_g)
        lam_r, scores_r = choose_lam(X, y_r, train, test, plan.lams)
        lam_c, scores_c = choose_lam(X, y_c, train, test, plan.lams)
        lam_scores = tuple(zip(plan.lams, scores_r, scores_c, strict=True))
    else:
        lam_r = lam_c = float(plan.lam)
        lam_scores = ()
    reward_fit = fit_linear(X[fit_rows], y_r[fit_rows], lam_r)
    cost_fit = fit_linear(X[fit_rows], y_c[fit_rows], lam_c)
    if plan.split == "first_half":
        check_r = r2_of(X[check_rows], y_r[check_rows], reward_fit.coef)
        check_c = r2_of(X[check_rows], y_c[check_rows], cost_fit.coef)
    else:
        check_r = _held_out(X, y_r, train, test, lam_r, lam_scores, 1)
        check_c = _held_out(X, y_c, train, test, lam_c, lam_scores, 2)
    env = FittedEnv.of(_frozen(X[replay]), _frozen(reward_fit.coef), _frozen(cost_fit.coef), reward_fit.resid_sigma,
                       cost_fit.resid_sigma, g=plan.g, g_power=plan.g_power, g_ec50=plan.g_ec50, g_hill=plan.g_hill)
    return Fitted(env=env, reward=reward_fit, cost=cost_fit, lam_r=lam_r, lam_c=lam_c, check_r2_reward=check_r,
                  check_r2_cost=check_c, lam_scores=lam_scores, fit_rows=_frozen(fit_rows),
                  check_rows=_frozen(check_rows), replay_rows=_frozen(replay), g_dose=_frozen(np.asarray(gz)))


def _held_out(X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray, lam: float,
              scores: tuple[tuple[float, float, float], ...], column: int) -> float:
    """The held-out R² at ``lam`` (read from the grid's scores when it was chosen there)."""
    for row in scores:
        if row[0] == lam:
            return float(row[column])
    if train.sum() < 2 or test.sum() < 2:
        return float("nan")
    return r2_of(X[test], y[test], fit_linear(X[train], y[train], lam).coef)


def _frozen(values: np.ndarray) -> np.ndarray:
    out = np.ascontiguousarray(values)
    out.setflags(write=False)
    return out
