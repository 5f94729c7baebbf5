"""How presentation mode shows mean-variance bandits: its audience scenarios and the sentences its screen shows.

Every comparison is computed from the run's summary (through :mod:`safebandit_core.captions`), so it flips when
the numbers flip; a scenario states settings, never results. The family's registry entry names :data:`MODEL`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .. import captions
from ..scenarios import ONE_SIZE, Model, Names, Scenario
from .policies import RISK_BOUND
from .settings import assumption_ok, assumption_text

BASE = {"K": 24, "alpha": 0.1, "mu0": 0.7, "T": 5000, "seeds": 20}
"""The instance, horizon and seeds every mean-variance scenario shares."""


def headline(s: Any, summary: pd.DataFrame, names: Names) -> str:
    """Which side of 2/(α·μ₀) ρ is on, and whether each slack stayed ≥ 0 in this run (AAAI 2021, Theorem 5)."""
    need = captions.number(RISK_BOUND / (s.alpha * s.mu0))
    side = ("is above 2/(α·μ₀) = {}, the condition of MV-CUCB's guarantee" if assumption_ok(s.alpha, s.mu0, s.rho)
            else "is not above 2/(α·μ₀) = {}, so MV-CUCB's guarantee does not apply").format(need)
    parts = []
    for _, r in summary.iterrows():
        m = float(r["min_slack"])
        state = "never went below 0" if m >= -captions.ROUND_OFF else "went below 0"
        parts.append(f"{r['label']}'s slack {state} (smallest {captions.number(m)})")
    return (f"ρ = {captions.number(s.rho)} {side}; in this run ({s.T:,} {names.round}s × {s.seeds} runs) "
            f"{', '.join(parts)}.")


def notes(s: Any, summary: pd.DataFrame, frame: pd.DataFrame, names: Names) -> list[str]:
    """The guarantee's condition, the regret order at this horizon and each policy's slack."""
    return [assumption_text(s.alpha, s.mu0, s.rho),
            captions.regret_order(summary, s.T, plain=True, unit=names.round, lost="mean-variance"),
            *(captions.slack_sentence(summary, p) for p in summary["policy"])]


MODEL = Model(
    "meanvar", "Mean-variance bandits", "Reward and risk together (ρ·mean − variance), never far behind a riskless "
    "default.", ONE_SIZE, headline, notes, {"mvcucb": "new_rule", "mvucb": "usual_rule"},
    scenarios=(
        Scenario("guarantee-on", "meanvar", "ρ above 2/(α·μ₀)",
                 "Score ρ·mean − variance with ρ = {rho:g}; may fall α = {alpha:g} behind a riskless {default} paying "
                 "μ₀ = {mu0:g}; {T:,} {round}s.", {**BASE, "rho": 40.0}),
        Scenario("guarantee-off", "meanvar", "ρ below 2/(α·μ₀)",
                 "Score ρ·mean − variance with ρ = {rho:g}; may fall α = {alpha:g} behind a riskless {default} paying "
                 "μ₀ = {mu0:g}; {T:,} {round}s.", {**BASE, "rho": 15.0}),
    ),
)
