"""Putting runs into words: one module (:mod:`safebandit_core.captions`), the same sentences as before."""

from __future__ import annotations

import pandas as pd

from safebandit_core import captions

SUMMARY = pd.DataFrame({"policy": ["gencb", "conucb"], "label": ["GenCB", "ConUCB"], "rounds": [4000, 4000],
                        "cum_regret_mean": [52.44, 43.01], "default_pulls_mean": [12.5, 40.25],
                        "min_slack": [0.0, -0.25]})
AHEAD = SUMMARY.assign(cum_regret_mean=[34.3, 42.2], default_pulls_mean=[40.25, 12.5])
TIED = SUMMARY.assign(cum_regret_mean=[10.0, 10.0], default_pulls_mean=[3.0, 3.0], min_slack=[-1e-12, 0.5])


def horizons(a: list[float], b: list[float]) -> pd.DataFrame:
    Ts = [1000, 2000, 4000, 8000]
    return pd.DataFrame({"T": Ts * 2, "policy": ["gencb"] * 4 + ["conucb"] * 4, "label": ["GenCB"] * 4 + ["ConUCB"] * 4,
                         "cum_regret_mean": a + b, "default_pulls_mean": [5.0, 6.0, 6.5, 6.6, 10.0, 30.0, 70.0, 150.0]})


CROSSING = horizons([30.0, 60.0, 80.0, 90.0], [10.0, 40.0, 100.0, 200.0])
NEVER = horizons([300.0, 600.0, 800.0, 900.0], [10.0, 40.0, 100.0, 200.0])
ALWAYS = horizons([3.0, 6.0, 8.0, 9.0], [10.0, 40.0, 100.0, 200.0])
FALLING_BEHIND = horizons([3.0, 60.0, 80.0, 90.0], [10.0, 40.0, 100.0, 20.0])


def rounds(a: list[float], b: list[float]) -> pd.DataFrame:
    n = len(a)
    return pd.DataFrame({"policy": ["a"] * n + ["b"] * n, "label": ["A"] * n + ["B"] * n,
                         "t": list(range(1, n + 1)) * 2, "cum_regret": a + b})


OVERTAKES = rounds([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [3, 4, 5, 6, 7, 7, 6, 6, 6, 6])
STAYS_AHEAD = rounds([0, 0, 1, 1, 1], [1, 1, 2, 2, 2])
NEG = pd.DataFrame({"policy": ["GenCB", "ConUCB"], "runs_broken": [0, 2], "runs": [3, 3],
                    "first_negative_t": [0, 17], "min_slack": [0.25, -1.5]})


def sentences() -> dict[str, str]:
    """Every sentence of :mod:`safebandit_core.captions` about a comparison of two policies, for the inputs above."""
    out = {
        "ranking_behind": captions.ranking(SUMMARY, "gencb", "conucb", 2),
        "ranking_ahead": captions.ranking(AHEAD, "gencb", "conucb", 1),
        "ranking_tied": captions.ranking(TIED, "gencb", "conucb", 3),
        "verdict_behind": captions.regret_verdict(SUMMARY, "gencb", "conucb", 2, 12),
        "verdict_ahead": captions.regret_verdict(AHEAD, "gencb", "conucb", 2, 12),
        "pulls": captions.default_pulls_sentence(SUMMARY, "gencb", "conucb"),
        "pulls_tied": captions.default_pulls_sentence(TIED, "gencb", "conucb"),
        "slack_runs": captions.slack_runs(NEG),
        "slack_gencb": captions.slack_sentence(SUMMARY, "gencb"),
        "slack_conucb": captions.slack_sentence(SUMMARY, "conucb"),
        "slack_tied": captions.slack_sentence(TIED, "gencb"),
        "slack_missing": captions.slack_sentence(SUMMARY, "ucb"),
    }
    for name, f in (("CROSSING", CROSSING), ("NEVER", NEVER), ("ALWAYS", ALWAYS), ("FALLING_BEHIND", FALLING_BEHIND)):
        out[f"crossover_{name}"] = captions.crossover(f, "gencb", "conucb")
        out[f"crossover_back_{name}"] = captions.crossover(f, "conucb", "gencb")
        out[f"caption_{name}"] = captions.crossover_caption(f, "gencb", "conucb", 0.1)
        out[f"crossing_{name}"] = repr(captions.crossing(f, "gencb", "conucb"))
    for name, f in (("OVERTAKES", OVERTAKES), ("STAYS_AHEAD", STAYS_AHEAD)):
        for p, q in (("a", "b"), ("b", "a")):
            out[f"overtake_{name}_{p}"] = captions.overtake(f, p, q, int(f["t"].max()))
    out["overtake_missing"] = captions.overtake(OVERTAKES, "a", "c", 10)
    return out


def test_the_sentences_are_those_of_the_previous_release():
    """The sentences moved here from viz.conservative and scenarios read exactly as they did there."""
    assert sentences() == EXPECTED


def test_first_flip_finds_the_first_change_of_order():
    assert captions.first_flip([True, True, False, True]) == 2
    assert captions.first_flip([True, True, False, True], to=True) == 3
    assert captions.first_flip([False, False]) is None


EXPECTED = {
    'ranking_behind': "At T = 4,000 (mean of 2 runs) **ConUCB has the lower regret**: 43.0 against GenCB's 52.4.",
    'ranking_ahead': "At T = 4,000 **GenCB has the lower regret**: 34.3 against ConUCB's 42.2.",
    'ranking_tied': 'At T = 4,000 (mean of 3 runs) GenCB and ConUCB have the same regret, 10.0.',
    'verdict_behind': (
        "At T = 4,000 (mean of 2 runs) **ConUCB has the lower regret**: 43.0 against GenCB's 52.4. This holds"
        " at T = 4,000: GenCB is still paying for exploring its 12 arms, while ConUCB's default pulls keep "
        'growing with T. Raise T, or open *Regret over horizons* below, to see whether GenCB overtakes it.'
    ),
    'verdict_ahead': "At T = 4,000 (mean of 2 runs) **GenCB has the lower regret**: 34.3 against ConUCB's 42.2.",
    'pulls': 'GenCB played the default arm 12.5 times per run, ConUCB 40.2 times: GenCB held back less.',
    'pulls_tied': 'GenCB played the default arm 3.0 times per run, ConUCB 3.0 times: as often.',
    'slack_runs': (
        "GenCB's slack stayed ≥ 0 in all 3 runs (smallest 0.25); ConUCB's slack went below 0 in 2 of 3 runs "
        '(first at t = 17, smallest -1.5).'
    ),
    'slack_gencb': "GenCB's slack never went below 0 (smallest 0): the constraint held.",
    'slack_conucb': "ConUCB's slack went below 0 (smallest -0.25): the constraint was broken.",
    'slack_tied': "GenCB's slack never went below 0 (smallest 0): the constraint held.",
    'slack_missing': '',
    'crossover_CROSSING': (
        'GenCB overtakes ConUCB between T = 2,000 and T = 4,000: before that ConUCB has less regret, after it'
        ' GenCB does.'
    ),
    'crossover_back_CROSSING': (
        'GenCB overtakes ConUCB between T = 2,000 and T = 4,000: before that ConUCB has less regret, after it'
        ' GenCB does.'
    ),
    'caption_CROSSING': (
        'GenCB overtakes ConUCB between T = 2,000 and T = 4,000 (about T ≈ 3,000, interpolating linearly); at'
        ' T = 8,000 its regret is 90.0 against 200.0. Between T = 4,000 and T = 8,000, ConUCB added 80 '
        'default pulls per run and GenCB 0; each costs μ_best − μ₀ = 0.1 in regret. Why: ConUCB explores only'
        ' when its lower confidence bounds (δ = 1/T) allow it, so it keeps falling back on the default arm as'
        ' T grows; GenCB falls back only while a worthless pull could break the rule, so once it has earned '
        'enough slack its default pulls level off and what is left is the exploration cost of its learner, '
        'which grows more slowly than T.'
    ),
    'crossing_CROSSING': '(2000, 4000, 3000.0)',
    'crossover_NEVER': (
        'ConUCB has less regret than GenCB at every horizon tried (up to T = 8,000); raise the horizon to see'
        ' whether the order changes.'
    ),
    'crossover_back_NEVER': 'ConUCB has less regret than GenCB at every horizon tried (T = 1,000 to 8,000).',
    'caption_NEVER': (
        "Up to T = 8,000 ConUCB keeps the lower regret (200.0 against GenCB's 900.0); a longer horizon may be"
        ' needed to see a crossover. Between T = 4,000 and T = 8,000, ConUCB added 80 default pulls per run '
        'and GenCB 0; each costs μ_best − μ₀ = 0.1 in regret. Why: ConUCB explores only when its lower '
        'confidence bounds (δ = 1/T) allow it, so it keeps falling back on the default arm as T grows; GenCB '
        'falls back only while a worthless pull could break the rule, so once it has earned enough slack its '
        'default pulls level off and what is left is the exploration cost of its learner, which grows more '
        'slowly than T.'
    ),
    'crossing_NEVER': 'None',
    'crossover_ALWAYS': 'GenCB has less regret than ConUCB at every horizon tried (T = 1,000 to 8,000).',
    'crossover_back_ALWAYS': (
        'GenCB has less regret than ConUCB at every horizon tried (up to T = 8,000); raise the horizon to see'
        ' whether the order changes.'
    ),
    'caption_ALWAYS': (
        'GenCB has the lower regret at T = 8,000: 9.0 against 200.0. Between T = 4,000 and T = 8,000, ConUCB '
        'added 80 default pulls per run and GenCB 0; each costs μ_best − μ₀ = 0.1 in regret. Why: ConUCB '
        'explores only when its lower confidence bounds (δ = 1/T) allow it, so it keeps falling back on the '
        'default arm as T grows; GenCB falls back only while a worthless pull could break the rule, so once '
        'it has earned enough slack its default pulls level off and what is left is the exploration cost of '
        'its learner, which grows more slowly than T.'
    ),
    'crossing_ALWAYS': 'None',
    'crossover_FALLING_BEHIND': (
        'ConUCB overtakes GenCB between T = 1,000 and T = 2,000: before that GenCB has less regret, after it '
        'ConUCB does.'
    ),
    'crossover_back_FALLING_BEHIND': (
        'ConUCB overtakes GenCB between T = 1,000 and T = 2,000: before that GenCB has less regret, after it '
        'ConUCB does.'
    ),
    'caption_FALLING_BEHIND': (
        'GenCB overtakes ConUCB between T = 2,000 and T = 4,000 (about T ≈ 3,000, interpolating linearly); at'
        ' T = 8,000 its regret is 90.0 against 20.0. Between T = 4,000 and T = 8,000, ConUCB added 80 default'
        ' pulls per run and GenCB 0; each costs μ_best − μ₀ = 0.1 in regret. Why: ConUCB explores only when '
        'its lower confidence bounds (δ = 1/T) allow it, so it keeps falling back on the default arm as T '
        'grows; GenCB falls back only while a worthless pull could break the rule, so once it has earned '
        'enough slack its default pulls level off and what is left is the exploration cost of its learner, '
        'which grows more slowly than T.'
    ),
    'crossing_FALLING_BEHIND': '(2000, 4000, 3000.0)',
    'overtake_OVERTAKES_a': (
        'At the end of this run (T = 10) A still has at least as much regret as B (mean over runs); a longer '
        'horizon may change the order.'
    ),
    'overtake_OVERTAKES_b': 'From round 7 on, B has less regret than A (mean over runs; the run ends at T = 10).',
    'overtake_STAYS_AHEAD_a': 'A has less regret than B in every round of this run (T = 5, mean over runs).',
    'overtake_STAYS_AHEAD_b': (
        'At the end of this run (T = 5) B still has at least as much regret as A (mean over runs); a longer '
        'horizon may change the order.'
    ),
    'overtake_missing': '',
}


def test_safety_held_counts_each_policys_safe_settings():
    cells = pd.DataFrame({"label": ["HPC-UCB", "On-Expectation", "HPC-UCB", "On-Expectation"],
                          "safe": [True, False, True, True]})
    assert captions.safety_held(cells, 2000) == ("Safety held in **2 of 2** settings for HPC-UCB; **1 of 2** settings "
                                                 "for On-Expectation (at T = 2,000).")


def test_growth_reads_the_shortest_and_the_longest_horizon_per_policy():
    horizons = pd.DataFrame({"label": ["GenCB", "GenCB", "ConUCB", "ConUCB"], "T": [4000, 1000, 1000, 4000],
                             "cum_regret_mean": [30.0, 12.5, 20.0, 80.25]})
    assert captions.growth(horizons, "cum_regret_mean") == ("GenCB 12.5 at T = 1,000 → 30.0 at T = 4,000; "
                                                            "ConUCB 20.0 at T = 1,000 → 80.2 at T = 4,000")
