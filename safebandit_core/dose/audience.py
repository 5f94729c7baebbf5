"""How presentation mode shows the dose model: its audience scenarios and the sentences its screen shows.

Every comparison is computed from the run's summary (through :mod:`safebandit_core.captions`), so it flips when
the numbers flip; a scenario states settings, never results. The family's registry entry names :data:`MODEL`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .. import captions
from ..scenarios import SAFETY_BY_DESIGN, Model, Names, Scenario, join_labels

BASE = {"T": 4000, "seeds": 5}
"""The horizon and seeds every dose scenario shares."""


def headline(s: Any, summary: pd.DataFrame, names: Names) -> str:
    """Rounds over the limit per policy (runs × rounds, as the charts count them) against what δ allowed, and who kept
    to the rule (Safety by Design)."""
    total = s.seeds * s.T
    counts = ", ".join(f"{r['label']} {int(r['violations']):,} time{'s' if int(r['violations']) != 1 else ''}"
                       for _, r in summary.iterrows())
    groups: dict[str, list[str]] = {"kept to it": [], "kept to it on average only": [], "did not": []}
    for _, r in summary.iterrows():
        rate, hi = float(r["violation_rate"]), float(r["violation_rate_hi"])
        verdict = "kept to it" if hi <= s.delta else "kept to it on average only" if rate <= s.delta else "did not"
        groups[verdict].append(str(r["label"]))
    verdicts = ", ".join(f"{join_labels(who)} {what}" for what, who in groups.items() if who)
    runs = f"{s.seeds} run{'s' if s.seeds != 1 else ''} × {s.T:,} {names.round}s"
    return (f"{names.effect[:1].upper()}{names.effect[1:]} above the {names.limit} ({captions.number(s.tau)}) in "
            f"{runs}: {counts}; the rule allows about {s.delta * total:,.0f} of the "
            f"{total:,} (δ = {captions.percent(s.delta)}): {verdicts}.")


def notes(s: Any, summary: pd.DataFrame, frame: pd.DataFrame, names: Names) -> list[str]:
    """Each policy's rounds over the limit against δ, then the regret order at this horizon."""
    return [*captions.violations(summary, s.delta, s.seeds, unit=names.round),
            captions.regret_order(summary, s.T, plain=True, unit=names.round)]


MODEL = Model(
    "dose", "Dose model", "Choose each patient's dose; the side effect must stay under its limit in every round, "
    "noise included.", SAFETY_BY_DESIGN, headline, notes,
    {"hpucb": "new_rule", "on_expectation": "usual_rule", "eps_greedy": "other_rule"},
    scenarios=(
        Scenario("strict-board", "dose", "Strict safety board",
                 "At most {delta:.0%} of {round}s may have a {effect} above the {limit} τ = {tau:g}; the {effect} is "
                 "noisy (κ_c = {kappa_c:g}): the {new_rule} against the {usual_rule}.",
                 {**BASE, "delta": 0.01, "kappa_c": 0.5, "tau": 0.3}, hide=("eps_greedy",)),
        Scenario("noisy-effect", "dose", "Noisy side effect",
                 "A very noisy {effect} (κ_c = {kappa_c:g}); {limit} τ = {tau:g}, at most {delta:.0%} of {round}s "
                 "above it.", {**BASE, "delta": 0.05, "kappa_c": 0.8, "tau": 0.5}),
        Scenario("generous-limit", "dose", "Generous limit",
                 "A generous {limit} τ = {tau:g} on a calm {effect} (κ_c = {kappa_c:g}); at most {delta:.0%} of "
                 "{round}s above it.", {**BASE, "delta": 0.05, "kappa_c": 0.3, "tau": 1.5}),
    ),
)
