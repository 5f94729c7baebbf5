"""The battery replay's number controls (:class:`~safebandit_core.fields.Field`), declared once for its page and
its checks, and the settings its page and a sweep start from.

Each range lies inside what :meth:`BatteryReplaySettings.validate` accepts; the widget keys are the page's URL
parameters. The data, τ values, T and policies are not plain numbers: the page draws them itself.
"""

from __future__ import annotations

from ..dose.settings import MAX_D
from ..fields import Field
from .settings import MAX_REPLAY_SEEDS, BatteryReplaySettings

CPU_DIM = 256
"""The embedding size a CPU starts from: a round costs O(d²), and the paper's 2048 is the GPU's default."""

DATA, REPLAY, RULE = "Data", "Replay", "Safety rule and learner"

FIELDS: tuple[Field, ...] = (
    Field("dim", "bat_dim", "Embedding size d", 1, MAX_D, 1,
          "The paper's: 2048 (the GPU default); CPU: 256 (O(d²) a round).", "integer", DATA),
    Field("fit_lam", "bat_fit_lam", "Ridge of the fit λ_fit", 1e-6, 1e3, 0.01,
          "Larger: a smaller norm bound S, a lower R².", "number", DATA, fmt="%g"),
    Field("seeds", "bat_seeds", "Seeds", 1, MAX_REPLAY_SEEDS, 1, "Independent noise draws on the same contexts.",
          "integer", REPLAY),
    Field("delta", "bat_delta", "Allowed violation probability δ", 0.005, 0.5, 0.005,
          "A round may pass τ with probability at most δ.", section=RULE),
    Field("delta_prime", "bat_delta_prime", "Estimation confidence δ′", 0.005, 0.5, 0.005,
          "The estimates hold with probability 1 − δ′.", section=RULE),
    Field("eps", "bat_eps", "ε (share of ε-Greedy's rounds at the safe dose)", 0.0, 1.0, 0.05,
          "ε-Greedy plays the round-1 safe dose with probability ε.", section=RULE),
    Field("lam", "bat_lam", "The learner's ridge λ", 0.001, 1000.0, 0.1,
          "Ridge regularisation of HPC-UCB's estimates.", "number", RULE),
)


def start() -> BatteryReplaySettings:
    """The settings the page (on a CPU) and a sweep start from: the embedded RW26 table at :data:`CPU_DIM`, base
    seed 0 (the settings class leaves ``dim`` and ``base_seed`` without a default on purpose)."""
    return BatteryReplaySettings(dim=CPU_DIM, base_seed=0)
