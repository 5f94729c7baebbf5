"""Conservative mean-variance bandits of seed 001 (MV-CBP): MV-CUCB (Algorithm 2) and MV-UCB.

- :mod:`.settings`: :class:`MVSettings`, seed 001's arms, the guarantee ``ρ > 2/(α μ₀)``;
- :mod:`.policies`: MV-CUCB and MV-UCB, each a :class:`~safebandit_core.model.Policy`;
- :mod:`.env`: Bernoulli outcomes (or a given table) and the eq. (4) regret;
- :mod:`.family`: the :class:`~safebandit_core.model.Family` (both policies in one scan),
  :func:`arm_table` and :func:`run_on_stream` (one policy on a given table).
"""

from .family import FAMILY, OUTPUT_FIELDS, arm_table, run_on_stream
from .policies import LABELS, NAMES, RISK_BOUND
from .settings import (
    MVSettings,
    arm_means,
    arm_variances,
    assumption_ok,
    assumption_text,
    baseline_regret,
    best_mv,
    warnings_for,
)

__all__ = ["FAMILY", "LABELS", "NAMES", "OUTPUT_FIELDS", "RISK_BOUND", "MVSettings", "arm_means", "arm_table",
           "arm_variances", "assumption_ok", "assumption_text", "baseline_regret", "best_mv", "run_on_stream",
           "warnings_for"]
