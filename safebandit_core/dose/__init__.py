"""The heteroscedastic dose model of seed 000: HPC-UCB, On-Expectation and ε-Greedy.

- :mod:`.settings`: :class:`DoseSettings`, validated once;
- :mod:`.env`: the environment (contexts, noises, the feedback rule, the clairvoyant);
- :mod:`.policies`: the three policies as one :class:`~safebandit_core.model.Policy`;
- :mod:`.curves`: dose curves g and their inverses;
- :mod:`.family`: the :class:`~safebandit_core.model.Family` and ``run_on_stream`` (one policy on an
  explicit stream).
"""

from .curves import KINDS as CURVE_KINDS
from .family import FAMILY, draw_stream, run_on_stream
from .policies import LABELS, NAMES
from .settings import DoseSettings, warnings_for

__all__ = ["CURVE_KINDS", "FAMILY", "LABELS", "NAMES", "DoseSettings", "draw_stream", "run_on_stream",
           "warnings_for"]
