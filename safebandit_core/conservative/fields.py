"""The conservative bandits' controls (:class:`~safebandit_core.fields.Field`), declared once for their page and
their checks. Each range lies inside what :meth:`ConservativeSettings.validate` accepts under its ``given``
settings; each widget key is its field's name (or, for a second control of one field, a name of its own) and the
page's URL parameter."""

from __future__ import annotations

from ..fields import Field
from .settings import MAX_CCCB_ARMS

PROBLEM, CONSTRAINT, RUNS, ADVANCED = "The problem", "The constraint", "Runs", "Advanced"

FIELDS: tuple[Field, ...] = (
    Field("K", "K", "K (arms)", 2, 500, 1, "Number of arms; their means go in equal steps from 0.8 down to 0.2.",
          "integer", PROBLEM),
    Field("K_lin", "K_lin", "K (arms)", 2, MAX_CCCB_ARMS, 1,
          "Number of feature vectors (the One-size-fits-all paper uses K = 2d).", "integer", PROBLEM, beside=True,
          setting="K", start=10, given={"problem": "cccb", "m": 1}),
    Field("d", "d", "d (feature dimension)", 1, 32, 1, "Length of each feature vector.", "integer", PROBLEM,
          given={"problem": "clb"}),
    Field("m", "m", "m (base arms per super arm)", 1, 10, 1, "How many base arms one super arm holds.", "integer",
          PROBLEM, given={"problem": "cccb", "K": 10}),
    Field("alpha", "alpha", "α (tolerated loss)", 0.005, 0.5, 0.005,
          "The share of the default reward the learner may give up: Σ r_s ≥ (1 − α)·μ₀·t.", section=CONSTRAINT),
    Field("mu0", "mu0", "μ₀ (default arm's reward)", 0.01, 0.99, 0.01,
          "What the safe default arm pays every time (no noise); the learner must keep Σ r_s ≥ (1 − α)·μ₀·t.",
          section=CONSTRAINT, start=0.7),
    Field("mu0_super", "mu0_super", "μ₀ (default super arm's reward)", 0.01, 9.99, 0.01,
          "What the safe default arm pays every time (no noise); the learner must keep Σ r_s ≥ (1 − α)·μ₀·t.",
          section=CONSTRAINT, setting="mu0", start=1.5, given={"problem": "cccb", "K": 20, "m": 10}),
    Field("T", "T", "Rounds T", 100, 100_000, 500, "Rounds per run.", "integer", RUNS, beside=True),
    Field("seeds", "seeds", "Runs", 1, 100, 1,
          "Independent runs (seeds), each on its own reward stream; the charts show their mean and min–max band.",
          "integer", RUNS),
    Field("lam", "lam", "Ridge λ", 1.0, 1000.0, 0.5,
          "Ridge regularisation of the linear estimates (CLB, CCCB); at least max(1, L²).", "number", ADVANCED),
    Field("L", "L", "Bound L on ‖x‖", 0.1, 10.0, 0.1,
          "Bound on the feature vectors' norm that the instance respects and the policies use.", "number", ADVANCED,
          given={"lam": 100.0}),
    Field("S", "S", "Bound S on ‖θ*‖ (0: automatic)", 0.0, 100.0, 0.1,
          "Bound on ‖θ*‖ the policies assume; 0: the default (√K for CMAB, else 1).", "number", ADVANCED, unset=0.0),
)
