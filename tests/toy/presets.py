"""The toy family's one preset, found by :func:`safebandit_core.presets.every` because it lies beside the family's
settings: a sweep over the better arm's mean, and a claim whose check reads the run."""

from __future__ import annotations

from collections.abc import Callable

from safebandit_core import sweep
from safebandit_core.presets import CONSISTENT, INCONSISTENT, Claim, Preset, PresetResult, Verdict, by_policy

from .settings import ToySettings

GREEDY_WINS = Claim("T1", "The greedy learner has less regret than the one that stays on arm 0.",
                    "(the toy family's own claim)", "toy_greedy_wins")


def _greedy_wins(result: PresetResult) -> Verdict:
    per_cell = result.cell_summary()
    greedy, first = by_policy(per_cell, "greedy"), by_policy(per_cell, "first")
    ok = bool((greedy["cum_regret_mean"] < first["cum_regret_mean"]).all())
    return Verdict(f"greedy {greedy['cum_regret_mean'].mean():.3g} vs first {first['cum_regret_mean'].mean():.3g}",
                   CONSISTENT if ok else INCONSISTENT)


PRESETS: tuple[Preset, ...] = (
    Preset("toy-gap", "A toy paper (tests)", "Figure 1", "Greedy vs staying on arm 0 over p1", "toy",
           "regret_minmax", (sweep.SweepSpec("toy", ToySettings(T=400, seeds=4), (0.4,), (0.7, 0.9)),),
           ("p0", "p1"), ("cum_regret",), 2, 200, (), (GREEDY_WINS,), ("Two Bernoulli arms, no more.",)),
)
CHECKS: dict[str, Callable[[PresetResult], Verdict]] = {"toy_greedy_wins": _greedy_wins}
