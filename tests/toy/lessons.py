"""The toy family's one lecture scene, found by :func:`safebandit_core.lessons.scenes` because it lies beside the
family's settings: the greedy learner against the one that stays on arm 0, as the better arm improves."""

from __future__ import annotations

import dataclasses

from safebandit_core import families
from safebandit_core import lessons as L
from safebandit_core.lessons import Claim, Job, Move, Runs, Scene

from .settings import ToySettings

MOVE_P1 = Move("The better arm's mean", "p1", 0.6, 0.9, "A larger gap makes staying on arm 0 costlier.")


def _notice(runs: Runs, step: int) -> list[Claim]:
    summary = families.summary(runs[step])
    greedy, first = (float(L.row(summary, p)["cum_regret_mean"]) for p in ("greedy", "first"))
    return [L.check(f"greedy_wins_{step}", greedy < first, "the greedy learner has less regret",
                    f"Greedy lost {greedy:.3g}, staying on arm 0 lost {first:.3g}.")]


SCENES: tuple[Scene, ...] = (
    Scene("toy-gap", "Greedy against staying on arm 0", "toy", "Toy bandit (tests)", "A toy paper (tests)",
          "Two Bernoulli arms.",
          lambda base: tuple(Job(L.with_base(ToySettings(p1=p, T=120, seeds=2), base))
                             for p in (MOVE_P1.before, MOVE_P1.after)),
          L.static(MOVE_P1), _notice, lambda runs, step: {}, {},
          lambda runs, step: dataclasses.replace(runs[step].settings)),
)
