"""How presentation mode tells the toy family's runs: its one audience scenario and the sentences of its screen,
each computed from the run's summary (the family's ``audience`` names :data:`MODEL`)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from safebandit_core.scenarios import Model, Names, Scenario


def headline(s: Any, summary: pd.DataFrame, names: Names) -> str:
    """Which rule lost less in this run."""
    best = summary.sort_values("cum_regret_mean").iloc[0]
    return (f"In this run ({s.T:,} {names.round}s × {s.seeds} runs) {best['label']} lost the least: "
            f"{best['cum_regret_mean']:.1f}.")


def notes(s: Any, summary: pd.DataFrame, frame: pd.DataFrame, names: Names) -> list[str]:
    """Each rule's loss and its smallest slack."""
    return [f"{r.label} lost {r.cum_regret_mean:.1f}; its slack went as low as {r.min_slack:.1f}."
            for r in summary.itertuples()]


MODEL = Model(
    "toy", "Toy bandit (tests)", "Greedy or staying on the default arm?", "A toy paper (tests)", headline, notes,
    {"greedy": "new_rule", "first": "usual_rule"},
    scenarios=(Scenario("toy-gap", "toy", "A wide gap", "Arms paying {p0:g} and {p1:g}; {T:,} {round}s.",
                        {"p0": 0.4, "p1": 0.9, "T": 150, "seeds": 3}),),
)
