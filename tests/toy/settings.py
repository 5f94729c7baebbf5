"""The toy family's settings: the two arms' success probabilities, the horizon, the seeds."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from safebandit_core import device
from safebandit_core.settings import SettingsError, check_choice, check_int_range

NAMES = ("greedy", "first")
"""``greedy``: the arm with the best empirical mean (each arm once first); ``first``: always arm 0."""


@dataclasses.dataclass(frozen=True)
class ToySettings:
    """Two Bernoulli arms with means ``p0`` (the default arm) and ``p1``."""

    KIND: ClassVar[str] = "toy"

    policies: tuple[str, ...] = NAMES
    p0: float = 0.4
    p1: float = 0.6
    T: int = 200
    seeds: int = 3
    base_seed: int = 0
    precision: str | None = None

    def validate(self) -> ToySettings:
        """Raise :class:`SettingsError` naming the first field out of its range; return self."""
        if not (isinstance(self.policies, tuple) and self.policies and len(set(self.policies)) == len(self.policies)):
            raise SettingsError("policies", "a non-empty tuple of distinct names from " + ", ".join(NAMES),
                                self.policies)
        for p in self.policies:
            check_choice("policies", p, NAMES)
        for field in ("p0", "p1"):
            value = getattr(self, field)
            if not 0.0 <= value <= 1.0:
                raise SettingsError(field, "in [0, 1]", value)
        check_int_range("T", self.T, 1, 100_000)
        check_int_range("seeds", self.seeds, 1, 1000)
        check_int_range("base_seed", self.base_seed, 0, 2**31 - 1 - self.seeds)
        if self.precision is not None:
            check_choice("precision", self.precision, device.PRECISIONS)
        return self
