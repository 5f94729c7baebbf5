"""A toy model family defined in the tests: two Bernoulli arms, a greedy learner and a learner that stays on arm 0.

It uses the one protocol (:class:`safebandit_core.model.Family`) and nothing else: registered with
:func:`safebandit_core.families.register`, it gets the command line, sweeps, export and the warm-up with no
other edit (see ``tests/core/test_toy_family.py``).
"""

from collections.abc import Iterator
from contextlib import contextmanager

from safebandit_core import families, model

from .family import FAMILY
from .settings import ToySettings


@contextmanager
def registered() -> Iterator[model.Family]:
    """The toy family in the registry for the body of a ``with``, and out of it again after."""
    families.register(FAMILY)
    try:
        yield FAMILY
    finally:
        families.unregister(FAMILY.kind)


__all__ = ["FAMILY", "ToySettings", "registered"]
