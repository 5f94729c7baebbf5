"""The toy family's controls, declared once (:class:`~safebandit_core.fields.Field`)."""

from __future__ import annotations

from safebandit_core.fields import Field

ARMS, RUNS = "Arms", "Runs"
FIELDS: tuple[Field, ...] = (
    Field("p0", "p0", "Default arm's mean p₀", 0.0, 1.0, 0.05, "Success probability of arm 0.", section=ARMS),
    Field("p1", "p1", "Other arm's mean p₁", 0.0, 1.0, 0.05, "Success probability of arm 1.", section=ARMS),
    Field("T", "T", "Rounds T", 10, 100_000, 10, "Rounds per run.", "integer", RUNS, beside=True),
    Field("seeds", "seeds", "Seeds", 1, 1000, 1, "Independent runs.", "integer", RUNS),
)
