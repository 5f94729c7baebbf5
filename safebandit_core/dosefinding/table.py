"""The operating characteristics of a dose-finding comparison as a table: one row per design (and HPC-UCB with the
dose model's patients), as the page shows it (each figure with its 95 % interval in one cell) and as its CSV (each
interval as two columns)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..viz.dosefinding import HPUCB
from . import api, bandit
from .designs import LABELS

NAMES = {**LABELS, HPUCB: "HPC-UCB"}
"""What the page calls each design and HPC-UCB."""


def _ci(value: float, ci: list[float], fmt: str) -> str:
    return f"{fmt.format(value)} ({fmt.format(ci[0])} to {fmt.format(ci[1])})"


def oc_table(res: api.DoseFindingResult, both: bandit.BanditComparison | None) -> pd.DataFrame:
    """The operating characteristics per design (and HPC-UCB with the dose model), with 95 % intervals."""
    rows = []
    for name in res.designs:
        c = res.characteristics[name]
        row = {"design": NAMES[name], "right dose chosen %": c["pcs"], "right dose chosen % (95 %)": c["pcs_ci95"],
               "no dose chosen %": c["none_pct"], "patients": c["total_patients"], "DLTs": c["total_dlts"],
               "DLT rate": c["dlt_rate"], "DLT rate (95 %)": c["dlt_rate_ci95"],
               "treated above the MTD %": c["pct_patients_above_mtd"],
               "treated above the MTD % (95 %)": c["pct_patients_above_mtd_ci95"]}
        rows.append(row)
    frame = pd.DataFrame(rows)
    if both is not None:
        extra = {name: both.figures[name] for name in (*res.designs, HPUCB)}
        frame = pd.concat([frame, pd.DataFrame([{"design": NAMES[HPUCB]}])], ignore_index=True)
        frame["over the limit %"] = [100 * f["violation_rate"] for f in extra.values()]
        frame["over the limit % (95 %)"] = [[100 * b for b in f["violation_rate_ci95"]] for f in extra.values()]
        frame["benefit lost per trial"] = [f["cum_regret_mean"] for f in extra.values()]
        frame["benefit lost (95 %)"] = [f["cum_regret_ci95"] for f in extra.values()]
        frame.loc[len(res.designs), "patients"] = float(both.alpha.shape[1])
    return frame


def shown_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as the page shows it: each figure with its interval in one cell."""
    out = pd.DataFrame({"design": frame["design"]})
    pairs = [("right dose chosen %", "{:.1f}"), ("DLT rate", "{:.3f}"), ("treated above the MTD %", "{:.1f}"),
             ("over the limit %", "{:.2f}"), ("benefit lost per trial", "{:.2f}")]
    singles = [("no dose chosen %", "{:.1f}"), ("patients", "{:.1f}"), ("DLTs", "{:.2f}")]
    for col, fmt in singles:
        out[col] = [fmt.format(v) if pd.notna(v) else "" for v in frame[col]]
    for col, fmt in pairs:
        if col not in frame:
            continue
        ci_col = next(c for c in frame.columns if c.startswith(col.split(" per trial")[0]) and c.endswith("(95 %)"))
        out[col] = [_ci(v, ci, fmt) if pd.notna(v) else "" for v, ci in zip(frame[col], frame[ci_col], strict=True)]
    return out


def csv_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The table for the CSV: each interval as its two ends in columns of their own."""
    out = pd.DataFrame({"design": frame["design"]})
    for col in frame.columns[1:]:
        if col.endswith("(95 %)"):
            base = col.removesuffix(" (95 %)")
            out[f"{base} low"] = [ci[0] if isinstance(ci, list) else np.nan for ci in frame[col]]
            out[f"{base} high"] = [ci[1] if isinstance(ci, list) else np.nan for ci in frame[col]]
        else:
            out[col] = frame[col]
    return out
