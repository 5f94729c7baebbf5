"""Non-linear HPC-UCB (Safety by Design, Algorithm 2; ALGORITHMS.md §1.4) over finite function classes.

- :mod:`.classes`: the built-in classes (``linear-grid``, ``logistic``, ``mlp``) as data;
- :mod:`.policy`: HPC-UCB, On-Expectation and ε-Greedy as one :class:`~safebandit_core.model.Policy`;
- :mod:`.env`: the realizable environment (the dose model's stream, member values per round);
- :mod:`.settings`: :class:`NonlinearSettings`, validated once;
- :mod:`.family`: the :class:`~safebandit_core.model.Family` (kind ``nonlinear``),
  :func:`run_on_table` (one policy on explicit tables), :func:`draw_table` and :func:`class_curves`.
"""

from ... import exports

_EXPORTS = {
    "CLASS_KINDS": ".classes:KINDS", "FAMILY": ".family", "class_curves": ".family",
    "confidence_set_of": ".family", "draw_classes": ".family", "draw_table": ".family", "run_on_table": ".family",
    "LABELS": ".policy", "NAMES": ".policy", "NonlinearSettings": ".settings", "OUTPUT_KEYS": ".settings",
    "warnings_for": ".settings"
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = exports(__name__, _EXPORTS)
