"""The dose model's controls (:class:`~safebandit_core.fields.Field`), declared once for its page and its checks.

Each range lies inside what :meth:`DoseSettings.validate` accepts; the widget keys are the page's URL parameters.
"""

from __future__ import annotations

from ..fields import Field
from . import curves
from .settings import MAX_D, MAX_SEEDS, MAX_T

RULE, SIZE, CURVE, POLICIES, ESTIMATION = ("The safety rule", "Noise and size", "Dose curve g", "Rules compared",
                                           "Estimation")

FIELDS: tuple[Field, ...] = (
    Field("tau", "tau", "Cost limit τ", 0.05, 2.0, 0.05, "The cost of a round (e.g. a side effect) must stay below τ.",
          section=RULE),
    Field("delta", "delta", "Allowed violation probability δ", 0.005, 0.5, 0.005,
          "A round may exceed τ with probability at most δ.", section=RULE),
    Field("kappa_r", "kappa_r", "Benefit noise", 0.0, 1.0, 0.01,
          "κ_r: standard deviation of the reward noise, before scaling by g(α).", section=SIZE),
    Field("kappa_c", "kappa_c", "Side-effect noise", 0.0, 1.0, 0.01,
          "κ_c: standard deviation of the cost noise, before scaling by g(α). Larger noise needs a larger safety "
          "margin.", section=SIZE),
    Field("d", "d", "Context dimension d", 1, MAX_D, 1, "Length of the context vector X_t.", "integer", SIZE),
    Field("T", "T", "Rounds T", 100, MAX_T, 500, "Rounds per run.", "integer", SIZE, beside=True),
    Field("seeds", "seeds", "Runs", 1, MAX_SEEDS, 1,
          "Independent runs (seeds), each on its own random stream; the charts show their mean and spread.", "integer",
          SIZE),
    Field("g_power", "g_power", "Power p", curves.POWER_RANGE[0], curves.POWER_RANGE[1], 0.1,
          "p > 1: slow start; p < 1: quick saturation.", section=CURVE),
    Field("g_ec50", "g_ec50", "EC50", 0.05, curves.EC50_RANGE[1], 0.05,
          "The dose giving half of the maximum effect (before rescaling).", section=CURVE),
    Field("g_hill", "g_hill", "Hill coefficient n", curves.HILL_RANGE[0], curves.HILL_RANGE[1], 0.1,
          "Steepness of the curve around EC50.", section=CURVE),
    Field("eps", "eps", "ε (share of rounds at the safe dose)", 0.0, 1.0, 0.05,
          "ε-Greedy plays the round-1 safe dose with probability ε.", section=POLICIES),
    Field("delta_prime", "delta_prime", "Estimation confidence δ′", 0.005, 0.5, 0.005,
          "The learner's estimates hold with probability 1 − δ′; smaller is more cautious.", section=ESTIMATION,
          expert=True),
    Field("S", "S", "Bound S on ‖θ*‖, ‖μ*‖", 0.01, 100.0, 0.1,
          "The algorithms' assumed bound on the parameter norms (the truth has norm 1).", "number", ESTIMATION, True),
    Field("L", "L", "Bound L on ‖X_t‖", 0.01, 100.0, 0.1,
          "The algorithms' assumed bound on the context norm (contexts have norm 1).", "number", ESTIMATION, True),
    Field("lam", "lam", "Ridge λ", 0.001, 1000.0, 0.1, "Ridge regularisation of the estimates.", "number",
          ESTIMATION, True),
    Field("refresh_every", "refresh_every", "Exact inverse refresh every … rounds", 1, MAX_T, 100,
          "The running inverse is recomputed exactly this often.", "integer", ESTIMATION, True),
)
