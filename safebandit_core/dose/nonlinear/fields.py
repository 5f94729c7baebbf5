"""The non-linear dose model's controls (:class:`~safebandit_core.fields.Field`), declared once for its page and its
checks. Each range lies inside what :meth:`NonlinearSettings.validate` accepts; the widget keys are the page's URL
parameters."""

from __future__ import annotations

from ...fields import Field
from .settings import MAX_D, MAX_HIDDEN, MAX_SEEDS, MAX_SIZE, MAX_T

CLASS, RULE, NOISE, POLICIES = "The function class", "The safety rule", "Noise", "Policies"

FIELDS: tuple[Field, ...] = (
    Field("size", "nl_size", "Class size |F|", 1, MAX_SIZE, 1,
          "Members of each class. A larger class takes longer to narrow down.", "integer", CLASS),
    Field("hidden", "nl_hidden", "Hidden units", 1, MAX_HIDDEN, 1, "Width of the network's hidden layer.", "integer",
          CLASS),
    Field("d", "nl_d", "Context dimension d", 1, MAX_D, 1, "Length of the context vector X_t.", "integer", CLASS),
    Field("T", "nl_T", "Rounds T", 100, MAX_T, 500, "Rounds per run.", "integer", CLASS, beside=True),
    Field("seeds", "nl_seeds", "Seeds", 1, MAX_SEEDS, 1,
          "Independent runs on their own random streams (the classes are shared).", "integer", CLASS),
    Field("tau", "nl_tau", "Cost limit τ", 0.05, 2.0, 0.05, "The cost of a round must stay below τ.", section=RULE),
    Field("delta", "nl_delta", "Allowed violation probability δ", 0.005, 0.5, 0.005,
          "A round may exceed τ with probability at most δ.", section=RULE),
    Field("delta_prime", "nl_delta_prime", "Estimation confidence δ′", 0.005, 0.5, 0.005,
          "The confidence sets hold the truth with probability 1 − δ′.", section=RULE),
    Field("kappa_r", "nl_kappa_r", "Reward noise κ_r", 0.0, 1.0, 0.01,
          "Reward noise; the reward set's radius grows with κ_r².", section=NOISE),
    Field("kappa_c", "nl_kappa_c", "Cost noise κ_c", 0.0, 1.0, 0.01,
          "Cost noise; it sets both the cost set's radius and the margin b_δ.", section=NOISE),
    Field("eps", "nl_eps", "ε (share of rounds at the safe dose)", 0.0, 1.0, 0.05,
          "ε-Greedy plays the round-1 safe dose with probability ε.", section=POLICIES),
)
CLASS_FIELDS = {"mlp": ("hidden",)}
"""The fields only some function classes have (the others keep their defaults)."""
