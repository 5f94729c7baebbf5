"""The number controls of a replay of your own data (:class:`~safebandit_core.fields.Field`), declared once for its
page and its checks.

Each range lies inside what :meth:`LoggedSettings.validate` accepts; the widget keys are the page's URL parameters.
The data, its columns and the fit's choices are not plain numbers: the page draws them itself.
"""

from __future__ import annotations

from ..dose import curves
from ..fields import Field
from .settings import MAX_REPLAY_T

SIZE, CURVE, FIT, RULE = "Replay", "Dose curve g", "Fit options", "The safety rule"
CURVE_HELP = "A parameter of the dose curve g (the dose page draws it)."

FIELDS: tuple[Field, ...] = (
    Field("T", "yd_T", "Rounds T", 100, MAX_REPLAY_T, 500,
          "Replay rounds; past the log's end the replay starts again from the top.", "integer", SIZE),
    Field("seeds", "yd_seeds", "Seeds", 1, 20, 1, "Independent noise streams over the same contexts.", "integer",
          SIZE),
    Field("g_power", "yd_g_power", "Power p", curves.POWER_RANGE[0], curves.POWER_RANGE[1], 0.1, CURVE_HELP,
          section=CURVE),
    Field("g_ec50", "yd_g_ec50", "EC50", 0.05, curves.EC50_RANGE[1], 0.05, CURVE_HELP, section=CURVE),
    Field("g_hill", "yd_g_hill", "Hill coefficient n", curves.HILL_RANGE[0], curves.HILL_RANGE[1], 0.1, CURVE_HELP,
          section=CURVE),
    Field("min_g", "yd_min_g", "Smallest g(dose) a fit row may have", 0.01, 0.5, 0.01,
          "Rows dosed below this (on the g scale) stay out of the fit.", section=FIT),
    Field("tau", "yd_tau", "Side-effect limit τ", 0.01, 5.0, 0.01, "The side effect of a round must stay below τ.",
          section=RULE),
    Field("delta", "yd_delta", "Allowed violation probability δ", 0.005, 0.5, 0.005,
          "A round may pass τ with probability at most δ.", section=RULE),
    Field("delta_prime", "yd_delta_prime", "Estimation confidence δ′", 0.005, 0.5, 0.005,
          "The estimates hold with probability 1 − δ′.", section=RULE),
    Field("eps", "yd_eps", "ε of ε-Greedy", 0.0, 1.0, 0.05, "ε-Greedy plays the round-1 safe dose this often.",
          section=RULE),
)
