"""Non-linear HPC-UCB (seed 000, Algorithm 2; ALGORITHMS.md §1.4) over finite function classes.

- :mod:`.classes`: the built-in classes (``linear-grid``, ``logistic``, ``mlp``) as data;
- :mod:`.policy`: HPC-UCB, On-Expectation and ε-Greedy as one :class:`~safebandit_core.model.Policy`;
- :mod:`.env`: the realizable environment (the dose model's stream, member values per round);
- :mod:`.settings`: :class:`NonlinearSettings`, validated once;
- :mod:`.family`: the :class:`~safebandit_core.model.Family` (kind ``nonlinear``),
  :func:`run_on_table` (one policy on explicit tables), :func:`draw_table` and :func:`class_curves`.
"""

from .classes import KINDS as CLASS_KINDS
from .family import FAMILY, class_curves, confidence_set_of, draw_classes, draw_table, run_on_table
from .policy import LABELS, NAMES
from .settings import OUTPUT_KEYS, NonlinearSettings, warnings_for

__all__ = ["CLASS_KINDS", "FAMILY", "LABELS", "NAMES", "OUTPUT_KEYS", "NonlinearSettings", "class_curves",
           "confidence_set_of", "draw_classes", "draw_table", "run_on_table", "warnings_for"]
