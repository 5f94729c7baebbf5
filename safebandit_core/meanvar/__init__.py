"""Conservative mean-variance bandits of One-size-fits-all (MV-CBP): MV-CUCB (Algorithm 2) and MV-UCB.

- :mod:`.settings`: :class:`MVSettings`, One-size-fits-all's arms, the guarantee ``ρ > 2/(α μ₀)``;
- :mod:`.policies`: MV-CUCB and MV-UCB, each a :class:`~safebandit_core.model.Policy`;
- :mod:`.env`: Bernoulli outcomes (or a given table) and the eq. (4) regret;
- :mod:`.family`: the :class:`~safebandit_core.model.Family` (both policies in one scan),
  :func:`arm_table` and :func:`run_on_stream` (one policy on a given table).
"""

from .. import exports

_EXPORTS = {
    "FAMILY": ".family", "OUTPUT_FIELDS": ".family", "arm_table": ".family", "run_on_stream": ".family",
    "LABELS": ".policies", "NAMES": ".policies", "RISK_BOUND": ".policies", "MVSettings": ".settings",
    "arm_means": ".settings", "arm_variances": ".settings", "assumption_ok": ".settings",
    "assumption_text": ".settings", "baseline_regret": ".settings", "best_mv": ".settings",
    "warnings_for": ".settings"
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = exports(__name__, _EXPORTS)
