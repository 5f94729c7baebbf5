"""A toy model family defined in the tests: two Bernoulli arms, a greedy learner and a learner that stays on arm 0.

It uses the one protocol and nothing else: its core entry (:class:`safebandit_core.model.Family`) registered with
:func:`safebandit_core.families.register` gets the command line, sweeps and export, and its app entry
(:data:`ENTRY`, registered with :func:`safebandit_ui.registry.register`) a model page, a title in pickers and the
warm-up, with no other edit (see ``tests/core/test_toy_family.py`` and ``tests/ui/test_toy_pages.py``).
"""

from collections.abc import Iterator
from contextlib import contextmanager

from safebandit_core import families, model
from safebandit_ui import registry

from .family import FAMILY
from .settings import ToySettings

ENTRY = registry.Entry(FAMILY.kind, title="Toy bandit (tests)", spec="tests.toy.spec:SPEC",
                       panels="tests.toy.spec:present_panels")
"""What the app shows of the toy family: its title and the page spec its page draws."""


@contextmanager
def registered() -> Iterator[model.Family]:
    """The toy family in both registries for the body of a ``with``, and out of them again after."""
    families.register(FAMILY)
    registry.register(ENTRY)
    try:
        yield FAMILY
    finally:
        registry.unregister(FAMILY.kind)
        families.unregister(FAMILY.kind)


__all__ = ["ENTRY", "FAMILY", "ToySettings", "registered"]
