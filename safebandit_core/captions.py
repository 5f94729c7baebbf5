"""Sentences computed from a run: every comparison a page prints comes from the numbers it shows.

Pure functions of a summary frame (:func:`safebandit_core.model.summary`) and the settings, so
a caption flips when the numbers flip, and tests can check both sides. Nothing here is
hard-coded about which policy wins: HPC-UCB is "below δ" only when its rate is.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

ROUND_OFF = 1e-9


def number(v: float, digits: int = 3) -> str:
    """A number for a sentence: round-off shown as 0, large ones with thousands separators."""
    if abs(v) < ROUND_OFF:
        return "0"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def percent(v: float) -> str:
    """A share as a percentage with enough digits to tell 0.02 % from 0."""
    if v == 0:
        return "0 %"
    return f"{100 * v:.2f} %" if v >= 0.001 else f"{100 * v:.3f} %"


def violations(summary: pd.DataFrame, delta: float, seeds: int, unit: str = "round") -> list[str]:
    """One sentence per policy: how many rounds crossed the limit, the rate, and above or below δ."""
    out = []
    for _, r in summary.iterrows():
        rate, hi = float(r["violation_rate"]), float(r["violation_rate_hi"])
        total = int(r["rounds"]) * seeds
        n = int(r["violations"])
        rounds = f"{n:,} {unit}{'s' if n != 1 else ''}"
        of = f" of {total:,}"
        if hi <= delta:
            verdict = f"below the allowed δ = {percent(delta)} (even the upper end of its 95 % interval)"
        elif rate <= delta:
            verdict = f"below δ = {percent(delta)} on average, but its 95 % interval reaches {percent(hi)}"
        else:
            verdict = f"**above** the allowed δ = {percent(delta)}"
        out.append(f"**{r['label']}**: {rounds}{of} over the limit ({percent(rate)}), {verdict}.")
    return out


def violation_counts(summary: pd.DataFrame, seeds: int, T: int, delta: float, unit: str = "patient-round") -> str:
    """The headline: each policy's rounds over the limit against what the rule allowed, e.g. for a board."""
    total = seeds * T
    allowed = delta * total
    parts = [f"{r['label']}: {int(r['violations']):,} of {total:,} {unit}s over the limit" for _, r in
             summary.iterrows()]
    return "; ".join(parts) + f"; the rule allowed about {allowed:,.0f}."


def regret_order(summary: pd.DataFrame, T: int) -> str:
    """Which policy lost the least reward at this horizon, and what a negative regret means when there is one."""
    ranked = summary.sort_values("cum_regret_mean")
    best = ranked.iloc[0]
    rest = ", ".join(f"{r['label']} {number(r['cum_regret_mean'])}" for _, r in ranked.iloc[1:].iterrows())
    text = (f"At T = {T:,}, **{best['label']}** has the lowest regret ({number(best['cum_regret_mean'])})"
            + (f", then {rest}." if rest else "."))
    negative = ranked[ranked["cum_regret_mean"] < 0]
    if len(negative):
        who = " and ".join(str(x) for x in negative["label"])
        text += (f" {who}'s regret is negative: it earned more than the clairvoyant by dosing beyond the truly "
                 "safe dose, i.e. by breaking the rule more often. That is not a better policy.")
    return text


def crossover(horizons: pd.DataFrame, first: str, other: str) -> str:
    """Where, over runs of growing horizon, the order of two policies' regret changes (or that it does not)."""
    a = horizons[horizons["policy"] == first].set_index("T")["cum_regret_mean"]
    b = horizons[horizons["policy"] == other].set_index("T")["cum_regret_mean"]
    la = horizons.loc[horizons["policy"] == first, "label"].iloc[0]
    lb = horizons.loc[horizons["policy"] == other, "label"].iloc[0]
    ahead = (a < b).to_dict()
    Ts = sorted(ahead)
    if all(ahead.values()):
        return f"{la} has less regret than {lb} at every horizon tried (T = {Ts[0]:,} to {Ts[-1]:,})."
    if not any(ahead.values()):
        return (f"{lb} has less regret than {la} at every horizon tried (up to T = {Ts[-1]:,}); "
                "raise the horizon to see whether the order changes.")
    for lo, hi in zip(Ts, Ts[1:], strict=False):
        if ahead[lo] != ahead[hi]:
            lead, lag = (la, lb) if ahead[hi] else (lb, la)
            return (f"{lead} overtakes {lag} between T = {lo:,} and T = {hi:,}: before that {lag} has less regret, "
                    f"after it {lead} does.")
    return ""


def slack_sentence(summary: pd.DataFrame, policy: str) -> str:
    """Whether a policy's slack stayed non-negative in every round of every run (round-off shown as 0)."""
    row = summary[summary["policy"] == policy]
    if not len(row):
        return ""
    r = row.iloc[0]
    m = float(r["min_slack"])
    if m >= -ROUND_OFF:
        return f"{r['label']}'s slack never went below 0 (smallest {number(max(m, 0.0))}): the constraint held."
    return f"{r['label']}'s slack went below 0 (smallest {number(m)}): the constraint was broken."


def is_round_off(v: Any) -> bool:
    """Whether a float is round-off (shown as 0)."""
    return isinstance(v, float) and math.isfinite(v) and abs(v) < ROUND_OFF
