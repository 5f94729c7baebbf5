"""Sentences computed from a run: every comparison a page prints comes from the numbers it shows.

The one module that puts runs into words. Pure functions of a summary frame
(:func:`safebandit_core.model.summary`), a frame over horizons (:func:`safebandit_core.sweep.over_horizons`)
or a tidy per-round frame, and the settings, so a caption flips when the numbers flip, and tests can check
both sides. Nothing here is hard-coded about which policy wins: HPC-UCB is "below δ" only when its rate is.
Who overtakes whom over horizons is read by one rule (:func:`first_flip`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

ROUND_OFF = 1e-9
SEEDS_NOTE = "mean over runs"


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


def regret_order(summary: pd.DataFrame, T: int, plain: bool = False, unit: str = "round",
                 lost: str = "benefit") -> str:
    """Which policy lost the least reward at this horizon, and what a negative regret means when there is one.

    ``plain``: in the words of a visitor who has not read the papers (what every page and presentation mode show):
    ``lost`` names what was lost (benefit, reward) and ``unit`` a round; the numbers are the same."""
    ranked = summary.sort_values("cum_regret_mean")
    best = ranked.iloc[0]
    rest = ", ".join(f"{r['label']} {number(r['cum_regret_mean'])}" for _, r in ranked.iloc[1:].iterrows())
    then = f", then {rest}." if rest else "."
    negative = ranked[ranked["cum_regret_mean"] < 0]
    who = " and ".join(str(x) for x in negative["label"])
    if plain:
        text = f"After {T:,} {unit}s, **{best['label']}** lost the least {lost} ({number(best['cum_regret_mean'])})"
        if len(negative):
            return text + then + (f" {who} lost less than nothing: it gained more than an all-knowing rival who keeps "
                                  "the rule, by taking more risk than the rule allows, i.e. by breaking it more often. "
                                  "That is not a better rule.")
        return text + then
    text = (f"At T = {T:,}, **{best['label']}** has the lowest regret ({number(best['cum_regret_mean'])})" + then)
    if len(negative):
        text += (f" {who}'s regret is negative: it earned more than the clairvoyant by dosing beyond the truly "
                 "safe dose, i.e. by breaking the rule more often. That is not a better policy.")
    return text


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


def slack_runs(neg: pd.DataFrame) -> str:
    """Per policy of :func:`safebandit_core.viz.conservative.negative_slack`'s table (``policy, runs_broken, runs,
    first_negative_t, min_slack``): whether its slack stayed ≥ 0 in every run of this one."""
    parts = []
    for row in neg.itertuples(index=False):
        if row.runs_broken:
            parts.append(f"{row.policy}'s slack went below 0 in {row.runs_broken} of {row.runs} runs (first at "
                         f"t = {row.first_negative_t:,}, smallest {row.min_slack:.3g})")
        else:
            parts.append(f"{row.policy}'s slack stayed ≥ 0 in all {row.runs} runs (smallest {row.min_slack:.3g})")
    return "; ".join(parts) + "." if parts else ""


def _row(summary: pd.DataFrame, policy: str) -> pd.Series:
    return summary[summary["policy"] == policy].iloc[0]


def ranking(summary: pd.DataFrame, first: str, other: str, seeds: int, plain: bool = False) -> str:
    """Which of two policies has the lower mean final regret over the ``seeds`` runs of this run, with both numbers
    (``plain``: in a visitor's words, the same numbers)."""
    a, b = _row(summary, first), _row(summary, other)
    T = int(a["rounds"])
    runs = f" (mean of {seeds} runs)" if seeds > 1 else ""
    if plain:
        if a["cum_regret_mean"] == b["cum_regret_mean"]:
            return f"After {T:,} rounds{runs} {a['label']} and {b['label']} lost the same, {a['cum_regret_mean']:,.1f}."
        low, high = (a, b) if a["cum_regret_mean"] < b["cum_regret_mean"] else (b, a)
        return (f"After {T:,} rounds{runs} **{low['label']} lost less**: {low['cum_regret_mean']:,.1f} "
                f"against {high['label']}'s {high['cum_regret_mean']:,.1f}.")
    if a["cum_regret_mean"] == b["cum_regret_mean"]:
        return f"At T = {T:,}{runs} {a['label']} and {b['label']} have the same regret, {a['cum_regret_mean']:,.1f}."
    low, high = (a, b) if a["cum_regret_mean"] < b["cum_regret_mean"] else (b, a)
    return (f"At T = {T:,}{runs} **{low['label']} has the lower regret**: {low['cum_regret_mean']:,.1f} "
            f"against {high['label']}'s {high['cum_regret_mean']:,.1f}.")


def lower_regret(summary: pd.DataFrame, first: str, other: str) -> bool:
    """Whether ``first`` has a lower mean final regret than ``other`` in this run."""
    return bool(_row(summary, first)["cum_regret_mean"] < _row(summary, other)["cum_regret_mean"])


def regret_verdict(summary: pd.DataFrame, first: str, other: str, seeds: int, arms: int, plain: bool = False,
                   horizons: str = "Regret over horizons") -> str:
    """:func:`ranking` of GenCB (``first``) against a baseline; when the baseline wins, the horizon it holds at.

    GenCB's learner still explores its ``arms`` arms early on, while the baseline's default pulls
    grow with T (δ = 1/T), so a ranking in the baseline's favour may turn at a longer horizon. ``plain``: in a
    visitor's words, naming the page's box of longer horizons ``horizons``.
    """
    text = ranking(summary, first, other, seeds, plain)
    if lower_regret(summary, first, other):
        return text
    a, b = _row(summary, first), _row(summary, other)
    if plain:
        return text + (f" This holds after {int(a['rounds']):,} rounds: {a['label']} is still paying for trying its "
                       f"{arms} options, while {b['label']} falls back on the default more and more as the rounds "
                       f"grow. Raise the rounds, or open *{horizons}* below, to see whether {a['label']} overtakes "
                       "it.")
    return text + (f" This holds at T = {int(a['rounds']):,}: {a['label']} is still paying for exploring its "
                   f"{arms} arms, while {b['label']}'s default pulls keep growing with T. Raise T, or open *Regret "
                   f"over horizons* below, to see whether {a['label']} overtakes it.")


def default_pulls_sentence(summary: pd.DataFrame, first: str, other: str) -> str:
    """How often each of two policies fell back on the default arm per run, and which did so less."""
    a, b = _row(summary, first), _row(summary, other)
    na, nb = float(a["default_pulls_mean"]), float(b["default_pulls_mean"])
    verdict = ("as often" if na == nb else
               f"{a['label'] if na < nb else b['label']} held back less")
    return (f"{a['label']} played the default arm {na:,.1f} times per run, {b['label']} {nb:,.1f} times: "
            f"{verdict}.")


def first_flip(flags: np.ndarray, to: bool | None = None) -> int | None:
    """The first index i ≥ 1 where ``flags[i]`` differs from ``flags[i - 1]`` (and, given ``to``, equals it);
    None when there is none. The one rule for "who overtakes whom"."""
    flags = np.asarray(flags, dtype=bool)
    for i in range(1, flags.size):
        if flags[i] != flags[i - 1] and (to is None or flags[i] == to):
            return i
    return None


def _pair(frame: pd.DataFrame, first: str, other: str, x: str, value: str) -> tuple[pd.Series, pd.Series, str, str]:
    """``value`` of ``first`` and ``other`` indexed by ``x`` (sorted), and their labels."""
    a, b = (frame[frame["policy"] == p].set_index(x)[value].sort_index() for p in (first, other))
    la, lb = (str(frame.loc[frame["policy"] == p, "label"].iloc[0]) for p in (first, other))
    return a, b, la, lb


def crossover(horizons: pd.DataFrame, first: str, other: str) -> str:
    """Where, over runs of growing horizon, the order of two policies' regret changes (or that it does not)."""
    a, b, la, lb = _pair(horizons, first, other, "T", "cum_regret_mean")
    ahead = (a < b).to_numpy()
    Ts = a.index.to_numpy()
    if ahead.all():
        return f"{la} has less regret than {lb} at every horizon tried (T = {Ts[0]:,} to {Ts[-1]:,})."
    if not ahead.any():
        return (f"{lb} has less regret than {la} at every horizon tried (up to T = {Ts[-1]:,}); "
                "raise the horizon to see whether the order changes.")
    i = first_flip(ahead)
    lead, lag = (la, lb) if ahead[i] else (lb, la)
    return (f"{lead} overtakes {lag} between T = {Ts[i - 1]:,} and T = {Ts[i]:,}: before that {lag} has less regret, "
            f"after it {lead} does.")


def crossing(horizons: pd.DataFrame, first: str, other: str) -> tuple[int, int, float] | None:
    """Where ``first``'s regret over horizons drops below ``other``'s: (horizon before, horizon after, estimate).

    The estimate interpolates the difference of the means linearly in T between the two horizons;
    None when ``first`` is not behind at one horizon and ahead (or level) at the next.
    """
    a, b, _, _ = _pair(horizons, first, other, "T", "cum_regret_mean")
    T, d = a.index.to_numpy(), (a - b).to_numpy()
    i = first_flip(d <= 0, to=True)
    if i is None:
        return None
    est = T[i - 1] + (T[i] - T[i - 1]) * d[i - 1] / (d[i - 1] - d[i])
    return int(T[i - 1]), int(T[i]), float(est)


def crossover_caption(horizons: pd.DataFrame, first: str, other: str, gap: float) -> str:
    """The crossover chart in words: who has the lower regret where, and why (from the default pulls shown).

    ``gap`` is the regret of one default pull, μ_best − μ₀.
    """
    a, b, la, lb = _pair(horizons, first, other, "T", "cum_regret_mean")
    na, nb = (p.to_numpy() for p in _pair(horizons, first, other, "T", "default_pulls_mean")[:2])
    T, ra, rb = a.index.to_numpy(), a.to_numpy(), b.to_numpy()
    cross = crossing(horizons, first, other)
    if cross is not None:
        lo, hi, est = cross
        text = (f"{la} overtakes {lb} between T = {lo:,} and T = {hi:,} (about T ≈ {est:,.0f}, interpolating "
                f"linearly); at T = {T[-1]:,} its regret is {ra[-1]:,.1f} against {rb[-1]:,.1f}.")
    elif ra[-1] < rb[-1]:
        text = f"{la} has the lower regret at T = {T[-1]:,}: {ra[-1]:,.1f} against {rb[-1]:,.1f}."
    else:
        text = (f"Up to T = {T[-1]:,} {lb} keeps the lower regret ({rb[-1]:,.1f} against {la}'s {ra[-1]:,.1f}); "
                "a longer horizon may be needed to see a crossover.")
    if len(T) >= 2:
        text += (f" Between T = {T[-2]:,} and T = {T[-1]:,}, {lb} added {nb[-1] - nb[-2]:,.0f} default pulls per run "
                 f"and {la} {na[-1] - na[-2]:,.0f}; each costs μ_best − μ₀ = {gap:.3g} in regret.")
    if len(T) >= 2 and nb[-1] - nb[-2] > na[-1] - na[-2]:
        text += (f" Why: {lb} explores only when its lower confidence bounds (δ = 1/T) allow it, so it keeps "
                 f"falling back on the default arm as T grows; {la} falls back only while a worthless pull could "
                 "break the rule, so once it has earned enough slack its default pulls level off and what is left "
                 "is the exploration cost of its learner, which grows more slowly than T.")
    return text


def overtake(frame: pd.DataFrame, first: str, other: str, T: int, plain: bool = False) -> str:
    """From which round on ``first``'s mean cumulative regret stays below ``other``'s in this run (or that it never
    does, or always does); ``frame`` is a tidy frame with ``policy`` ids, ``label``, ``t`` and ``cum_regret``.
    ``plain``: in a visitor's words (lost less), the same rounds."""
    if not {first, other} <= set(frame["policy"].astype(str)):
        return ""
    curve = frame.groupby([frame["policy"].astype(str), "t"])["cum_regret"].mean()
    a, b = curve.loc[first].to_numpy(), curve.loc[other].to_numpy()
    la, lb = (str(frame.loc[frame["policy"] == p, "label"].iloc[0]) for p in (first, other))
    less, as_much = ("has lost less than", "has still lost at least as much as") if plain else (
        "has less regret than", "still has at least as much regret as")
    end = f"{T:,} rounds" if plain else f"T = {T:,}"
    behind = np.flatnonzero(a >= b)
    if not behind.size:
        return f"{la} {less} {lb} in every round of this run ({end}, {SEEDS_NOTE})."
    last = int(curve.loc[first].index[behind[-1]])
    if last >= T:
        return (f"At the end of this run ({end}) {la} {as_much} {lb} ({SEEDS_NOTE}); "
                "a longer horizon may change the order.")
    return f"From round {last + 1:,} on, {la} {less} {lb} ({SEEDS_NOTE}; the run ends at {end})."


def is_round_off(v: Any) -> bool:
    """Whether a float is round-off (shown as 0)."""
    return isinstance(v, float) and math.isfinite(v) and abs(v) < ROUND_OFF


def safety_held(cells: pd.DataFrame, T: int) -> str:
    """In how many of a sweep's settings each policy kept its safety rule (``cells``: :func:`safebandit_core.sweep
    .cell_summary`, one row per cell and policy with a boolean ``safe``)."""
    held = cells.groupby("label", sort=False)["safe"].agg(["sum", "size"])
    return ("Safety held in " + "; ".join(f"**{int(r['sum'])} of {int(r['size'])}** settings for {label}"
                                          for label, r in held.iterrows()) + f" (at T = {T:,}).")


def growth(horizons: pd.DataFrame, column: str) -> str:
    """How ``column`` changed from the shortest to the longest horizon, per policy (``horizons``:
    :func:`safebandit_core.sweep.over_horizons`)."""
    parts = []
    for label, part in horizons.groupby("label", sort=False):
        part = part.sort_values("T")
        first, last = part.iloc[0], part.iloc[-1]
        parts.append(f"{label} {first[column]:,.1f} at T = {int(first['T']):,} → {last[column]:,.1f} at "
                     f"T = {int(last['T']):,}")
    return "; ".join(parts)
