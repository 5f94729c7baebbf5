"""Fit and diagnose a user's log: contexts for the replay, the ridge fits of R/g(α) and C/g(α), and the checks.

:func:`fit_table` turns a :class:`~.loader.MappedTable` into the replay's contexts (standardised columns
plus an intercept; wide tables hashed into ``hash_dim`` dimensions with the battery's feature hashing,
:class:`safebandit_core.data.embed.HashEmbedder`; or the columns as they are) and fits them with the
pipeline's one fit (:func:`.ridge.fit_arrays`: λ chosen on a held-out half from a small grid). The
:class:`LoggedFit` reports R², κ_r, κ_c, S and L, the coefficients in the data's own units, and a
realizability check: the residuals against the dose (their spread should not change with the dose
when g is right), and the share of logged rounds whose cost exceeds τ in the log against the share
the fitted model gives at the same doses and contexts. :meth:`LoggedFit.notes` says in plain words
when the fit is too poor for the replay to mean much.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy.special import ndtr

from ..data.embed import CachedEmbedder, HashEmbedder
from ..data.replay import FittedEnv
from ..data.ridge import FitPlan, Fitted, fit_arrays
from ..settings import SettingsError
from .loader import MappedTable, check_varies

STANDARDISE, HASH, RAW = "standardise", "hash", "raw"
CONTEXTS: tuple[str, ...] = ("auto", STANDARDISE, HASH, RAW)
MAX_STANDARD = 64
"""``auto`` standardises up to this many context columns and hashes wider tables."""
DEFAULT_HASH_DIM = 64
MIN_ROWS = 20
ROWS_PER_DIM = 4
R2_POOR = 0.1
"""Below this held-out R², a model explains too little of the data for the replay to say much about it."""
INTERCEPT = "(intercept)"
NOISE_NOTE = ("The replay draws Gaussian noise at the fitted levels κ_r and κ_c; it does not resample the fit's "
              "residuals (a bootstrap is not offered).")


class Shares(NamedTuple):
    """The share of rounds with a cost above τ: in the log, under the fitted model, and whether they agree (within
    2 percentage points or a quarter of the logged share)."""

    logged: float
    model: float
    close: bool


def context_kind(p: int, contexts: str) -> str:
    """The transform ``contexts`` means for ``p`` context columns (``auto``: standardise, or hash when wide)."""
    if contexts not in CONTEXTS:
        raise SettingsError("contexts", "one of " + ", ".join(CONTEXTS), contexts)
    if contexts == "auto":
        return STANDARDISE if p <= MAX_STANDARD else HASH
    return contexts


def context_dim(p: int, contexts: str, hash_dim: int, intercept: bool) -> int:
    """The dimension d of the replay's contexts for ``p`` context columns."""
    return (hash_dim if context_kind(p, contexts) == HASH else p) + int(intercept)


@dataclasses.dataclass(frozen=True, eq=False)
class ContextMap:
    """How the log's context columns become the replay's contexts (``names`` are the output columns)."""

    kind: str
    features: tuple[str, ...]
    names: tuple[str, ...]
    mean: np.ndarray  # (p,) column means (0 for ``raw``)
    scale: np.ndarray  # (p,) column standard deviations (1 for ``raw``)
    intercept: bool
    hash_dim: int

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The replay's contexts of raw context rows ``X`` (n, p)."""
        Z = (X - self.mean) / self.scale
        if self.kind == HASH:
            Z = _hashed(Z, self.features, self.hash_dim)
        if self.intercept:
            Z = np.hstack([Z, np.ones((Z.shape[0], 1))])
        return np.ascontiguousarray(Z)


def _hashed(Z: np.ndarray, features: tuple[str, ...], dim: int) -> np.ndarray:
    """Feature hashing of each row as the JSON object {column: value}, with the battery's embedder (unit-norm rows)."""
    texts = [json.dumps(dict(zip(features, np.round(row, 4).tolist(), strict=True))) for row in Z]
    return np.array(CachedEmbedder(HashEmbedder(dim=dim)).embed(texts))


def context_map(table: MappedTable, contexts: str = "auto", hash_dim: int = DEFAULT_HASH_DIM,
                intercept: bool = True) -> ContextMap:
    """The context transform of ``table``: column means and standard deviations over the used rows (a constant
    column is refused unless the columns are used as they are, ``raw``)."""
    kind = context_kind(table.X.shape[1], contexts)
    p = table.X.shape[1]
    if kind == RAW:
        mean, scale = np.zeros(p), np.ones(p)
    else:
        for j, name in enumerate(table.features):
            check_varies(table.X[:, j], "context", name, " (leave it out of the contexts)")
        mean, scale = table.X.mean(axis=0), table.X.std(axis=0)
    names = tuple(f"hash_{i}" for i in range(hash_dim)) if kind == HASH else table.features
    return ContextMap(kind=kind, features=table.features, names=names + ((INTERCEPT,) if intercept else ()),
                      mean=mean, scale=scale, intercept=intercept, hash_dim=hash_dim)


@dataclasses.dataclass(frozen=True, eq=False)
class LoggedFit:
    """A fitted log: the mapped table, the context transform, the replay's contexts ``Z`` of every row (log
    order), the fit (:class:`.ridge.Fitted`) and the plan it followed."""

    table: MappedTable
    contexts: ContextMap
    Z: np.ndarray  # (n, d) float64
    fitted: Fitted
    plan: FitPlan

    @property
    def env(self) -> FittedEnv:
        return self.fitted.env

    @property
    def d(self) -> int:
        return int(self.Z.shape[1])

    def coefficients(self) -> pd.DataFrame | None:
        """θ*, μ* per unit of each context column (the data's own units) and the intercept; None when hashed.

        With z = (x − m)/s, ⟨z, β⟩ + c = (c − Σ β_j m_j / s_j) + Σ (β_j / s_j) x_j.
        """
        if self.contexts.kind == HASH:
            return None
        p = len(self.contexts.features)
        rows: dict[str, list[float]] = {}
        for name, coef in (("reward", self.env.theta), ("cost", self.env.mu)):
            slope = coef[:p] / self.contexts.scale
            base = float(coef[p]) if self.contexts.intercept else 0.0
            rows[name] = [base - float(slope @ self.contexts.mean), *slope.tolist()]
        return pd.DataFrame({"feature": [INTERCEPT, *self.contexts.features], **rows})

    def residual_frame(self) -> pd.DataFrame:
        """Every fit row: dose, g(dose), the observed and predicted R/g(α) and C/g(α), and their residuals."""
        f = self.fitted
        rows = np.flatnonzero(f.fit_rows)
        gz = f.g_dose[rows]
        out = {"row": self.table.rows[rows] + 1, "dose": self.table.dose[rows], "g_dose": gz}
        for name, values, coef in (("reward", self.table.reward, self.env.theta), ("cost", self.table.cost,
                                                                                    self.env.mu)):
            observed = values[rows] / gz
            predicted = self.Z[rows] @ coef
            out[f"{name}_observed"], out[f"{name}_predicted"] = observed, predicted
            out[f"{name}_residual"] = observed - predicted
        return pd.DataFrame(out)

    def spread_by_dose(self, bins: int = 5) -> pd.DataFrame:
        """The residuals' mean and standard deviation in ``bins`` dose bins of equal count (0 and flat when g fits)."""
        frame = self.residual_frame()
        k = max(1, min(bins, len(frame) // 10))
        frame["bin"] = pd.qcut(frame["dose"].rank(method="first"), k, labels=False)
        table = frame.groupby("bin").agg(dose_lo=("dose", "min"), dose_hi=("dose", "max"),
                                         reward_mean=("reward_residual", "mean"),
                                         reward_spread=("reward_residual", "std"),
                                         cost_mean=("cost_residual", "mean"),
                                         cost_spread=("cost_residual", "std"), rows=("dose", "size"))
        return table.reset_index(drop=True)

    def exceed_shares(self, tau: float) -> Shares:
        """The share of logged rounds whose logged cost exceeds τ, the share the fitted model gives at the same
        doses and contexts (the mean of P(g(α)(⟨z, μ*⟩ + ξ^c) > τ) with ξ^c ~ N(0, κ_c²)), and whether they agree."""
        observed = float((self.table.cost > tau).mean())
        gz = self.env.g_of(self.table.dose)
        mean = self.Z @ self.env.mu
        positive = gz > 0
        safe_g = np.where(positive, gz, 1.0)
        if self.env.kappa_c > 0:
            above = 1.0 - ndtr((tau / safe_g - mean) / self.env.kappa_c)
        else:
            above = (mean > tau / safe_g).astype(float)
        model = float(np.where(positive, above, float(tau < 0)).mean())
        return Shares(observed, model, abs(observed - model) <= max(0.02, 0.25 * observed))

    def notes(self, tau: float | None = None, names: tuple[str, str] = ("benefit", "side effect")) -> list[str]:
        """Plain sentences on what limits the replay: a poor fit, a dose curve that does not fit the spread,
        a model that misses the log's share of costs above τ, rows dropped or left out of the fit."""
        f, out = self.fitted, []
        for name, r2 in ((names[1], f.check_r2_cost), (names[0], f.check_r2_reward)):
            if not (math.isfinite(r2) and r2 >= R2_POOR):
                shown = f"{r2:.2f}" if math.isfinite(r2) else "undefined"
                out.append(f"The {name} model explains little of the data (held-out R² = {shown}, below {R2_POOR:g}): "
                           f"the replay describes the fitted model more than your data, so read its {name} numbers "
                           "as a what-if, not a forecast.")
        spread = self.spread_by_dose()
        for col, name in (("reward", names[0]), ("cost", names[1])):
            line = _curve_note(spread, col)
            if line:
                out.append(f"The {name} residuals {line}: the dose curve g = {self.env.g} may not fit; try another "
                           "curve.")
        shares = None if tau is None else self.exceed_shares(tau)
        if shares is not None and not shares.close:
            out.append(f"In the log {shares.logged:.1%} of rounds had a {names[1]} above τ = {tau:g}; the fitted model "
                       f"gives {shares.model:.1%} at the same doses: it does not reproduce the log's tail.")
        t = self.table
        if t.rows_dropped:
            by = ", ".join(f"{c}: {k:,}" for c, k in t.dropped_by.items())
            out.append(f"{t.rows_dropped:,} of {t.n_file_rows:,} rows were dropped for missing or infinite values "
                       f"({by}).")
        left = self.rows_left_out()
        if left:
            out.append(f"{left:,} rows with g(dose) below {self.plan.min_g:g} were left out of the fit (dividing by a "
                       "near-zero g(α) would blow up their noise); their contexts are still replayed.")
        return out

    def rows_left_out(self) -> int:
        """Rows of the part of the log that fits (all of it, or its first part) whose g(dose) is below
        ``min_g``: read and replayed, but left out of the fit."""
        g = self.fitted.g_dose
        part = int(round(self.plan.fit_fraction * g.size)) if self.plan.split == "first_half" else g.size
        return int((g[:part] < self.plan.min_g).sum())

    def rows_sentence(self) -> str:
        """Where every row of the file went, in one sentence whose numbers add up (the page's metrics and
        the notes use the same counts)."""
        t, left = self.table, self.rows_left_out()
        return (f"{t.n_file_rows:,} rows in the file: {t.rows_dropped:,} dropped for missing or infinite values, "
                f"{left:,} left out of the fit (g(dose) below {self.plan.min_g:g}), {self.fitted.n_fit:,} fitted; "
                f"{self.env.n:,} replayed.")

    def report(self, tau: float | None = None) -> dict[str, Any]:
        """The fit report as one JSON-ready object (the command line prints it; the page shows it)."""
        f, t, e = self.fitted, self.table, self.env
        out: dict[str, Any] = {
            "rows_in_file": t.n_file_rows, "rows_used": t.rows_used, "rows_dropped": t.rows_dropped,
            "rows_fit": f.n_fit, "rows_replayed": e.n, "d": self.d, "contexts": self.contexts.kind,
            "features": list(self.contexts.features), "dose_scale": list(t.dose_scale) if t.dose_scale else None,
            "split": self.plan.split, "lam_reward": f.lam_r, "lam_cost": f.lam_c,
            "r2_reward": f.reward.r2, "r2_cost": f.cost.r2, "heldout_r2_reward": f.check_r2_reward,
            "heldout_r2_cost": f.check_r2_cost, "kappa_r": e.kappa_r, "kappa_c": e.kappa_c, "S": e.S, "L": e.L,
            "g": e.g,
        }
        if tau is not None:
            shares = self.exceed_shares(tau)
            out["share_cost_above_tau_logged"], out["share_cost_above_tau_model"] = shares.logged, shares.model
        out["notes"] = [*self.notes(tau), NOISE_NOTE]
        return out


def _curve_note(spread: pd.DataFrame, col: str) -> str:
    """How the residuals of ``col`` move with the dose, if they do: a drift of their mean (more than 4 standard
    errors and a tenth of their spread) or a spread that changes more than twofold ("" when neither)."""
    if len(spread) < 2:
        return ""
    mean, sd = spread[f"{col}_mean"].to_numpy(), spread[f"{col}_spread"].to_numpy()
    error = sd / np.sqrt(spread["rows"].to_numpy())
    worst = int(np.argmax(np.abs(mean) / error))
    if abs(mean[worst]) > max(4 * error[worst], 0.1 * sd[worst]):
        return (f"drift with the dose (their mean is {mean[0]:+.3g} at the lowest doses and {mean[-1]:+.3g} at the "
                "highest)")
    ratio = sd[-1] / sd[0] if sd[0] > 0 else math.inf
    return f"spread changes {ratio:.1f}-fold from the lowest to the highest doses" if not 0.5 <= ratio <= 2 else ""


def fit_table(table: MappedTable, *, contexts: str = "auto", hash_dim: int = DEFAULT_HASH_DIM, intercept: bool = True,
              plan: FitPlan = FitPlan()) -> LoggedFit:
    """Build the contexts, check there are enough rows for their dimension, fit (:func:`.ridge.fit_arrays`)."""
    cmap = context_map(table, contexts, hash_dim, intercept)
    d = len(cmap.names)
    need = max(MIN_ROWS, ROWS_PER_DIM * d)
    if table.rows_used < need:
        dropped = f" after dropping {table.rows_dropped:,}" if table.rows_dropped else ""
        raise SettingsError("data", f"a table with at least {need:,} usable rows for d = {d} contexts ({ROWS_PER_DIM} "
                                    f"per dimension, at least {MIN_ROWS}): use fewer context columns or more rows",
                            f"{table.rows_used:,} rows{dropped}")
    Z = cmap.apply(table.X)
    Z.setflags(write=False)
    fitted = fit_arrays(Z, table.dose, table.reward, table.cost, plan, table.groups)
    return LoggedFit(table=table, contexts=cmap, Z=Z, fitted=fitted, plan=plan)
