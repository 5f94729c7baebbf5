"""The heteroscedastic dose model of Safety by Design: HPC-UCB, On-Expectation and ε-Greedy.

- :mod:`.settings`: :class:`DoseSettings`, validated once;
- :mod:`.env`: the environment (contexts, noises, the feedback rule, the clairvoyant);
- :mod:`.policies`: the three policies as one :class:`~safebandit_core.model.Policy`;
- :mod:`.curves`: dose curves g and their inverses;
- :mod:`.family`: the :class:`~safebandit_core.model.Family` and ``run_on_stream`` (one policy on an
  explicit stream).
"""

from .. import exports

_EXPORTS = {
    "CURVE_KINDS": ".curves:KINDS", "FAMILY": ".family", "draw_stream": ".family", "run_on_stream": ".family",
    "LABELS": ".policies", "NAMES": ".policies", "DoseSettings": ".settings", "warnings_for": ".settings"
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = exports(__name__, _EXPORTS)
