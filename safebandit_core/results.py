"""Per-round arrays → tidy pandas frames (one row per policy, seed and round) and summaries."""

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
            label_col: np.repeat(np.asarray(labels, dtype=object), s * t),
            "seed": np.tile(np.repeat(np.arange(base_seed, base_seed + s), t), g),
            "t": np.tile(np.arange(1, t + 1), g * s),
        }
    )
    for k, v in outputs.items():
        frame[k] = np.asarray(v).reshape(-1)
    frame[label_col] = pd.Categorical(frame[label_col], categories=list(dict.fromkeys(labels)))
    return frame


def mean_band(frame: pd.DataFrame, value: str, label_col: str = "policy") -> pd.DataFrame:
    """Mean, std, min and max of ``value`` across seeds for every (label, t)."""
    grouped = frame.groupby([label_col, "t"], observed=True)[value]
    out = grouped.agg(["mean", "std", "min", "max"]).reset_index()
    out["std"] = out["std"].fillna(0.0)
    return out


def interval95(values: np.ndarray, lo: float = -np.inf, hi: float = np.inf) -> tuple[float, float, float]:
    """Mean and a normal-approximation 95 % interval of the mean across runs, clipped to [lo, hi]."""
    values = np.asarray(values, dtype=float)
    m = float(values.mean())
    if values.size < 2:
        return m, m, m
    half = 1.96 * float(values.std(ddof=1)) / np.sqrt(values.size)
    return m, max(lo, m - half), min(hi, m + half)


def decimate(frame: pd.DataFrame, max_points: int, t_col: str = "t") -> pd.DataFrame:
    """Keep at most about ``max_points`` distinct rounds (evenly spaced, last one kept) for plotting."""
    ts = np.sort(frame[t_col].unique())
    if ts.size <= max_points:
        return frame
    keep = np.unique(np.concatenate([ts[:: int(np.ceil(ts.size / max_points))], ts[-1:]]))
    return frame[frame[t_col].isin(keep)]
