"""The non-linear dose model's controls (:class:`~safebandit_core.fields.Field`), declared once for its page and its
checks. The numbers it shares with the dose model keep the dose model's ranges (both are checked by the same
rule), under the same widget keys (each field's name, also its URL parameter on this page) and their own words;
each range lies inside what :meth:`NonlinearSettings.validate` accepts."""

from __future__ import annotations

import dataclasses

from ...fields import Field
from ..fields import FIELDS as DOSE_FIELDS
from .settings import MAX_HIDDEN, MAX_SIZE

CLASS, RULE, NOISE, POLICIES = "The function class", "The safety rule", "Noise", "Rules compared"


def _dose(name: str, section: str, help: str) -> Field:
    """The dose model's control of ``name`` (its key, the field's name), in ``section``, with ``help``."""
    field = next(f for f in DOSE_FIELDS if f.name == name)
    return dataclasses.replace(field, section=section, help=help, expert=False)


FIELDS: tuple[Field, ...] = (
    Field("size", "size", "Class size |F|", 1, MAX_SIZE, 1,
          "Members of each class. A larger class takes longer to narrow down.", "integer", CLASS),
    Field("hidden", "hidden", "Hidden units", 1, MAX_HIDDEN, 1, "Width of the network's hidden layer.", "integer",
          CLASS),
    _dose("d", CLASS, "Length of the context vector X_t."),
    _dose("T", CLASS, "Rounds per run."),
    _dose("seeds", CLASS, "Independent runs (seeds) on their own random streams (the classes are shared)."),
    _dose("tau", RULE, "The cost of a round must stay below τ."),
    _dose("delta", RULE, "A round may exceed τ with probability at most δ."),
    _dose("delta_prime", RULE, "The confidence sets hold the truth with probability 1 − δ′."),
    _dose("kappa_r", NOISE, "κ_r: the reward noise; the reward set's radius grows with κ_r²."),
    _dose("kappa_c", NOISE, "κ_c: the cost noise; it sets both the cost set's radius and the margin b_δ."),
    _dose("eps", POLICIES, "ε-Greedy plays the round-1 safe dose with probability ε."),
)
CLASS_FIELDS = {"mlp": ("hidden",)}
"""The fields only some function classes have (the others keep their defaults)."""
