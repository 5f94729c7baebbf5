"""Per-round arrays → tidy pandas frames (one row per policy, seed and round) and summaries.

The one summary pipeline: :func:`seed_finals` turns a run's per-round outputs into per-seed finals
(``cum_regret``, ``violation_rate``, ``default_pulls``, ``min_slack``), :func:`aggregate` turns
per-seed values into ``<name>_mean``, ``<name>_std`` (ddof = 1), ``<name>_lo`` and ``<name>_hi`` (a
95 % interval of the mean). Model summaries, sweep cells, presets, the command line and the pages
all read these names; the final regret is ``cum_regret_mean`` everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd


def tidy(outputs: Mapping[str, np.ndarray], labels: Sequence[str], label_col: str = "policy",
         base_seed: int = 0) -> pd.DataFrame:
    """Flatten ``outputs[k]`` of shape (G, S, t) into rows (label, seed, t, k...); t is 1-based."""
    first = next(iter(outputs.values()))
    g, s, t = first.shape
    if len(labels) != g:
        raise ValueError(f"{len(labels)} labels for {g} rows of results")
    frame = pd.DataFrame(
        {
            label_col: categorical(labels, s * t),
            "seed": np.tile(np.repeat(np.arange(base_seed, base_seed + s), t), g),
            "t": np.tile(np.arange(1, t + 1), g * s),
        }
    )
    for k, v in outputs.items():
        frame[k] = np.asarray(v).reshape(-1)
    return frame


def categorical(labels: Sequence[str], each: int) -> pd.Categorical:
    """``labels``, each repeated ``each`` times, as a categorical whose categories are the labels in first-seen
    order; built from codes, so a run's frame of 10⁵ rows does not compare 10⁵ strings to find them."""
    categories = list(dict.fromkeys(labels))
    codes = np.repeat(np.array([categories.index(x) for x in labels], dtype=np.int64), each)
    return pd.Categorical.from_codes(codes, categories=categories)


def mean_band(frame: pd.DataFrame, value: str, label_col: str = "policy") -> pd.DataFrame:
    """Mean, std, min and max of ``value`` across seeds for every (label, t)."""
    grouped = frame.groupby([label_col, "t"], observed=True)[value]
    out = grouped.agg(["mean", "std", "min", "max"]).reset_index()
    out["std"] = out["std"].fillna(0.0)
    return out


def mean_of(values: np.ndarray) -> float:
    """The mean of ``values`` as float64, inside [min, max] always (a rounded sum divided by n can land an ulp
    outside; the mean of one value is that value exactly)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return float("nan")
    return float(np.clip(values.mean(), values.min(), values.max()))


def interval95(values: np.ndarray, lo: float = -np.inf, hi: float = np.inf) -> tuple[float, float, float]:
    """Mean (:func:`mean_of`) and a normal-approximation 95 % interval of the mean across runs, clipped to
    [lo, hi]."""
    values = np.asarray(values, dtype=float)
    m = mean_of(values)
    if values.size < 2:
        return m, m, m
    half = 1.96 * float(values.std(ddof=1)) / np.sqrt(values.size)
    return m, max(lo, m - half), min(hi, m + half)


def seed_finals(outputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per-seed finals of outputs shaped (..., seed, t): the cumulative regret at the last round
    (``cum_regret``, summed in float64), the smallest slack (``min_slack``) and, where the outputs
    have them, the share of rounds over the limit (``violation_rate``) and the default pulls
    (``default_pulls``)."""
    out = {"cum_regret": np.sum(outputs["regret"], axis=-1, dtype=np.float64)}
    if "violation" in outputs:
        out["violation_rate"] = np.asarray(outputs["violation"]).mean(axis=-1)
    if "default" in outputs:
        out["default_pulls"] = np.sum(outputs["default"], axis=-1).astype(np.int64)
    if "slack" in outputs:
        out["min_slack"] = np.min(outputs["slack"], axis=-1).astype(np.float64)
    return out


def aggregate(values: np.ndarray, name: str, lo: float = -np.inf, hi: float = np.inf) -> dict[str, float]:
    """``<name>_mean``, ``<name>_std`` (sample std, ddof = 1; 0 for one run) and the 95 % interval of the mean
    ``<name>_lo``, ``<name>_hi`` (:func:`interval95`, clipped to [lo, hi]) of per-seed ``values``."""
    values = np.asarray(values, dtype=float)
    m, low, high = interval95(values, lo, hi)
    std = float(values.std(ddof=1)) if values.size > 1 else 0.0
    return {f"{name}_mean": m, f"{name}_std": std, f"{name}_lo": low, f"{name}_hi": high}


def decimate(frame: pd.DataFrame, max_points: int, t_col: str = "t") -> pd.DataFrame:
    """Keep at most about ``max_points`` distinct rounds (evenly spaced, last one kept) for plotting."""
    ts = np.sort(frame[t_col].unique())
    if ts.size <= max_points:
        return frame
    keep = np.unique(np.concatenate([ts[:: int(np.ceil(ts.size / max_points))], ts[-1:]]))
    return frame[frame[t_col].isin(keep)]
