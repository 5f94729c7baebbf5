"""Presentation scenarios: every one validates, and every headline is computed from the run and flips with it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from safebandit_core import captions, families, scenarios
from safebandit_core.conservative import audience as conservative_audience
from safebandit_core.dose import DoseSettings
from safebandit_core.dose import audience as dose_audience
from safebandit_core.meanvar import MVSettings, assumption_ok
from safebandit_core.meanvar import audience as mv_audience
from safebandit_core.scenarios import Names

SCENARIOS = scenarios.every()

PAGE_CHUNK = 1000  # the pages' chunk (safebandit_ui.live.PAGE_CHUNK): the same compiled shapes


@pytest.fixture(scope="module")
def summaries() -> dict[str, tuple[object, pd.DataFrame, pd.DataFrame]]:
    """Every scenario run once as the page runs it: settings, summary and tidy frame by scenario key."""
    out = {}
    for sc in SCENARIOS:
        s = sc.settings()
        run = families.run(s, chunk=PAGE_CHUNK, pad_tail=True)
        out[sc.key] = (s, families.summary(run), families.tidy(run, ["cum_regret"]))
    return out


def test_every_scenario_validates_and_is_described():
    assert len({sc.key for sc in SCENARIOS}) == len(SCENARIOS)
    for kind, model in scenarios.models().items():
        assert len(scenarios.of_kind(kind)) >= 2, kind
        assert model.paper in (scenarios.SAFETY_BY_DESIGN, scenarios.ONE_SIZE)
    assert [sc.kind for sc in SCENARIOS] == [k for k, m in scenarios.models().items() for _ in m.scenarios]
    assert scenarios.of_kind("battery") == ()
    for sc in SCENARIOS:
        s = sc.settings(base_seed=3)
        assert type(s).KIND == sc.kind and s.base_seed == 3
        text = sc.describe(Names(round="visit"))
        assert "{" not in text and "visit" in text
    assert scenarios.find("dose", "nope") is scenarios.of_kind("dose")[0]


def test_mean_variance_scenarios_sit_on_both_sides_of_the_condition():
    sides = {assumption_ok(s.alpha, s.mu0, s.rho) for s in (sc.settings() for sc in scenarios.of_kind("meanvar"))}
    assert sides == {True, False}
    for sc in scenarios.of_kind("meanvar"):
        s = sc.settings()
        assert ("above" in sc.title) == assumption_ok(s.alpha, s.mu0, s.rho)


def test_headlines_are_computed_from_each_run(summaries):
    names = Names(round="visit", effect="nausea score", limit="ceiling")
    for sc in SCENARIOS:
        s, summary, _ = summaries[sc.key]
        text = scenarios.models()[sc.kind].headline(s, summary, names)
        assert text.count(".") >= 1 and text.endswith(".")
        for _, r in summary.iterrows():
            assert str(r["label"]) in text
        if sc.kind == "dose":
            assert text.startswith(f"Nausea score above the ceiling ({s.tau:g}) in {s.seeds} runs × {s.T:,} visits: ")
            assert f"of the {s.T * s.seeds:,}" in text
            for _, r in summary.iterrows():
                assert f"{r['label']} {int(r['violations']):,} time" in text
        if sc.kind == "conservative":
            assert f"After {s.T:,} visits" in text
    strict = summaries["strict-board"]
    assert "On-Expectation did not" in scenarios.models()["dose"].headline(strict[0], strict[1], Names())
    on, off = (scenarios.models()["meanvar"].headline(*summaries[k][:2], Names())
               for k in ("guarantee-on", "guarantee-off"))
    assert "the condition of MV-CUCB's guarantee" in on and "does not apply" in off


def test_the_cautious_hospital_shows_gencb_overtaking_at_its_horizon(summaries):
    s, summary, frame = summaries["cautious-hospital"]
    notes = scenarios.models()["conservative"].notes(s, summary, frame, Names())
    overtakes = [n for n in notes if n.startswith("From round")]
    assert overtakes and "GenCB has lost less than ConUCB" in overtakes[0]
    row = summary.set_index("policy")
    assert row.loc["gencb", "cum_regret_mean"] < row.loc["conucb", "cum_regret_mean"]


def dose_summary(hpucb_rate: float, hpucb_hi: float, rounds: int = 100, seeds: int = 2) -> pd.DataFrame:
    """A synthetic dose summary: HPC-UCB at the given rate and interval end, On-Expectation at 30 %."""
    return pd.DataFrame({"policy": ["hpucb", "on_expectation"], "label": ["HPC-UCB", "On-Expectation"],
                         "rounds": [rounds] * 2, "violation_rate": [hpucb_rate, 0.3],
                         "violation_rate_hi": [hpucb_hi, 0.35],
                         "violations": [round(hpucb_rate * rounds * seeds), round(0.3 * rounds * seeds)]})


@pytest.mark.parametrize(("rate", "hi", "verdict"), [
    (0.0, 0.0, "HPC-UCB kept to it, On-Expectation did not"),
    (0.04, 0.09, "HPC-UCB kept to it on average only, On-Expectation did not"),
    (0.2, 0.25, "HPC-UCB and On-Expectation did not"),
])
def test_the_dose_headline_flips_with_hpc_ucb_against_delta(rate, hi, verdict):
    s = DoseSettings(T=100, seeds=2, delta=0.05)
    text = dose_audience.headline(s, dose_summary(rate, hi), Names())
    assert text.endswith(f"(δ = 5.00 %): {verdict}.")
    n = round(rate * 200)
    assert text.startswith(f"Toxicity grade above the safety limit ({s.tau:g}) in 2 runs × 100 patient-rounds: "
                           f"HPC-UCB {n} time{'s' if n != 1 else ''}, On-Expectation 60 times;")
    assert "allows about 10 of the 200" in text


def test_a_tiny_horizon_leaves_hpc_ucb_unproven():
    """T = 1 on one seed: a single round over the limit puts HPC-UCB above δ, and the headline says so."""
    s = DoseSettings(T=1, seeds=1, delta=0.05)
    text = dose_audience.headline(s, dose_summary(1.0, 1.0, rounds=1, seeds=1), Names())
    assert "in 1 run × 1 patient-rounds: HPC-UCB 1 time, On-Expectation 0 times;" in text
    assert "HPC-UCB and On-Expectation did not" in text


def test_conservative_and_mv_headlines_flip_with_the_slack():
    base = pd.DataFrame({"policy": ["gencb", "ucb"], "label": ["GenCB", "UCB"], "cum_regret_mean": [10.0, 5.0],
                         "default_pulls_mean": [3.0, 0.0], "min_slack": [0.0, -2.0]})
    s = scenarios.find("conservative", None).settings()
    assert "GenCB kept to the rule in every run, UCB broke it (smallest slack -2)" in \
        conservative_audience.headline(s, base, Names())
    broken = base.assign(min_slack=[-1.0, -2.0])
    assert "none kept to the rule in every run, GenCB and UCB broke it" in \
        conservative_audience.headline(s, broken, Names())
    mv = base.assign(policy=["mvcucb", "mvucb"], label=["MV-CUCB", "MV-UCB"])
    low = MVSettings(alpha=0.1, mu0=0.7, rho=10.0)
    assert "is not above 2/(α·μ₀) = 28.6" in mv_audience.headline(low, mv, Names())
    high = dataclasses.replace(low, rho=40.0)
    text = mv_audience.headline(high, mv.assign(min_slack=[-0.5, 1.0]), Names())
    assert "MV-CUCB's slack went below 0 (smallest -0.5), MV-UCB's slack never went below 0" in text


def test_overtake_reads_the_curves():
    t = np.arange(1, 11)
    frame = pd.DataFrame({"policy": ["a"] * 10 + ["b"] * 10, "label": ["A"] * 10 + ["B"] * 10,
                          "t": np.concatenate([t, t]), "cum_regret": np.concatenate([t * 1.0, 3.0 + 0.5 * t])})
    assert captions.overtake(frame, "b", "a", 10).startswith("From round 7 on, B has less regret than A")
    assert "still has at least as much regret" in captions.overtake(frame, "a", "b", 10)
    ahead = frame.assign(cum_regret=np.concatenate([t * 2.0, t * 1.0]))
    assert captions.overtake(ahead, "b", "a", 10).startswith("B has less regret than A in every round")
    assert captions.overtake(frame, "a", "missing", 10) == ""


def test_names_fall_back_on_the_defaults():
    n = Names(round="  ", effect="", full_dose=-3.0, dose_unit="ml").cleaned()
    assert (n.round, n.effect, n.full_dose, n.dose_unit) == ("patient-round", "toxicity grade", 100.0, "ml")


def test_the_audience_names_the_policies_and_a_two_way_scenario_hides_the_third():
    tidy = pd.DataFrame({"policy": pd.Categorical(["hpucb", "on_expectation", "eps_greedy"] * 2),
                         "label": pd.Categorical(["HPC-UCB", "On-Expectation", "ε-Greedy"] * 2),
                         "t": [1] * 3 + [2] * 3})
    summary = pd.DataFrame({"policy": ["hpucb", "on_expectation", "eps_greedy"],
                            "label": ["HPC-UCB", "On-Expectation", "ε-Greedy"]})
    two_way = dataclasses.replace(scenarios.of_kind("dose")[0], hide=("eps_greedy",))
    t, s = scenarios.audience(tidy, summary, scenarios.models()["dose"], two_way, Names(usual_rule="old habit"))
    assert s["label"].tolist() == ["new rule (HPC-UCB)", "old habit (On-Expectation)"]
    assert sorted(map(str, t["label"].unique())) == ["new rule (HPC-UCB)", "old habit (On-Expectation)"]
    assert len(t) == 4 and "eps_greedy" not in set(t["policy"].astype(str))
    shown = dataclasses.replace(two_way, hide=())
    _, s3 = scenarios.audience(tidy, summary, scenarios.models()["dose"], shown,
                               Names(other_rule="HPC-UCB's rival ε-Greedy"))
    assert s3["label"].tolist()[-1] == "HPC-UCB's rival ε-Greedy", "a name that holds the paper's is not doubled"


def test_the_first_dose_scenario_is_two_way_and_every_role_names_a_names_field():
    assert scenarios.of_kind("dose")[0].hide == ("eps_greedy",)
    fields = {f.name for f in dataclasses.fields(Names)}
    for model in scenarios.models().values():
        assert set(model.roles.values()) <= fields and model.roles, model.kind
