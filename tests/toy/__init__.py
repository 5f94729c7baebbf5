"""A toy model family defined in the tests: two Bernoulli arms, a greedy learner and a learner that stays on arm 0.

It uses the one protocol (:class:`safebandit_core.model.Family`) and nothing else: registered with
:func:`safebandit_core.families.register`, it gets the command line, sweeps, export and the warm-up with no
other edit (see ``tests/core/test_toy_family.py``).
"""

from .family import FAMILY
from .settings import ToySettings

__all__ = ["FAMILY", "ToySettings"]
