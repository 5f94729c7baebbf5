"""The mean-variance bandit's controls (:class:`~safebandit_core.fields.Field`), declared once for its page and its
checks. Each range lies inside what :meth:`MVSettings.validate` accepts; each widget key is its field's
name, which is also the page's URL parameter."""

from __future__ import annotations

from ..fields import Field

ARMS, CONSTRAINT, RUNS = "Arms and risk", "The constraint", "Runs"

FIELDS: tuple[Field, ...] = (
    Field("K", "K", "K (arms)", 1, 200, 1, "Number of arms; their means go in equal steps from 0.8 down to 0.2 "
          "(Bernoulli, so variance μ(1 − μ)).", "integer", ARMS),
    Field("rho", "rho", "ρ (weight of the mean in MV = ρμ − σ²)", 0.5, 300.0, 0.5,
          "How much the mean counts against the variance: large ρ cares mostly about the mean, small ρ prefers "
          "steady arms.", section=ARMS, fmt="%.1f"),
    Field("alpha", "alpha", "α (tolerated loss)", 0.01, 0.5, 0.01,
          "The share of the default arm's mean-variance the learner may give up while it explores.",
          section=CONSTRAINT),
    Field("mu0", "mu0", "μ₀ (default arm's reward)", 0.05, 1.0, 0.01,
          "What the safe default arm pays every time (variance 0), so MV₀ = ρ·μ₀.", section=CONSTRAINT),
    Field("T", "T", "Rounds T", 100, 100_000, 500, "Rounds per run.", "integer", RUNS, beside=True),
    Field("seeds", "seeds", "Runs", 1, 100, 1,
          "Independent runs (seeds), each on its own reward stream; the charts show their mean and min–max band.",
          "integer", RUNS),
)
