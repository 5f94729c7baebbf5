"""How presentation mode shows conservative bandits: its audience scenarios and the sentences its screen shows.

Every comparison is computed from the run's summary (through :mod:`safebandit_core.captions`), so it flips when
the numbers flip; a scenario states settings, never results. The family's registry entry names :data:`MODEL`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .. import captions
from ..scenarios import ONE_SIZE, Model, Names, Scenario, join_labels
from .settings import BASELINE, UNCONSTRAINED

BASE = {"problem": "cmab", "K": 10, "T": 20_000, "seeds": 5}
"""The instance, horizon and seeds every conservative scenario shares."""


def _held(summary: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Labels whose slack stayed ≥ 0 in every round of every run, and the others."""
    ok = summary["min_slack"] >= -captions.ROUND_OFF
    return [str(x) for x in summary.loc[ok, "label"]], [str(x) for x in summary.loc[~ok, "label"]]


def headline(s: Any, summary: pd.DataFrame, names: Names) -> str:
    """Regret, default pulls and who kept to the sample-path rule at this horizon (One-size-fits-all, AAAI 2021)."""
    regret = ", ".join(f"{r['label']} {captions.number(r['cum_regret_mean'])}" for _, r in summary.iterrows())
    pulls = ", ".join(f"{r['label']} {captions.number(r['default_pulls_mean'])}" for _, r in summary.iterrows())
    held, broke = _held(summary)
    rule = f"{join_labels(held)} kept to the rule in every run" if held else "none kept to the rule in every run"
    if broke:
        worst = captions.number(float(summary["min_slack"].min()))
        rule += f", {join_labels(broke)} broke it (smallest slack {worst})"
    return (f"After {s.T:,} {names.round}s ({captions.SEEDS_NOTE}): reward lost {regret}; {names.default} chosen "
            f"{pulls} times per run; {rule}.")


def notes(s: Any, summary: pd.DataFrame, frame: pd.DataFrame, names: Names) -> list[str]:
    """The regret order, where GenCB overtakes its baseline in this run, and each policy's slack."""
    out = [captions.regret_order(summary, s.T, plain=True, unit=names.round, lost="reward"),
           captions.overtake(frame, "gencb", BASELINE[s.problem], s.T, plain=True)]
    return [x for x in out if x] + [captions.slack_sentence(summary, p) for p in summary["policy"]]


MODEL = Model(
    "conservative", "Conservative bandits", "Try new treatments, but never fall more than a share α behind what the "
    "standard treatment would have earned.", ONE_SIZE, headline, notes,
    {"gencb": "new_rule", **dict.fromkeys(BASELINE.values(), "usual_rule"),
     **dict.fromkeys(UNCONSTRAINED.values(), "other_rule")},
    scenarios=(
        Scenario("cautious-hospital", "conservative", "Cautious hospital",
                 "May fall at most α = {alpha:.0%} behind what the {default} would have earned so far; {K} treatments, "
                 "{T:,} {round}s.", {**BASE, "alpha": 0.01}),
        Scenario("tolerant-hospital", "conservative", "Tolerant hospital",
                 "May fall up to α = {alpha:.0%} behind what the {default} would have earned so far; {K} treatments, "
                 "{T:,} {round}s.", {**BASE, "alpha": 0.1}),
    ),
)
