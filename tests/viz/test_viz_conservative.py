"""The conservative and mean-variance figure builders and sentences on small hand-made frames (no JAX, no runs).

The frames have the columns of ``families.tidy`` for a conservative or mean-variance run (``policy``
ids, ``label`` names) with values chosen so every expected trace, band, line and sentence can be
checked by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from safebandit_core import captions
from safebandit_core.viz import conservative as vc
from safebandit_core.viz import meanvar as vm

LABELS = {"gencb": "GenCB", "conucb": "ConUCB", "ucb": "UCB", "mvcucb": "MV-CUCB", "mvucb": "MV-UCB"}
T = 40
ALPHA, MU0, BEST = 0.1, 0.7, 0.8


def frame(baseline_col: str = "baseline_line", policies: tuple[str, ...] = ("gencb", "conucb", "ucb")
          ) -> pd.DataFrame:
    """Two seeds per policy; UCB's slack goes below zero from round 10 in seed 1 only."""
    rows = []
    t = np.arange(1, T + 1)
    for k, policy in enumerate(policies):
        for seed in (0, 1):
            regret = np.full(T, 0.05 * (k + 1) + 0.01 * seed)
            slack = np.full(T, 0.5 + seed)
            if policy in ("ucb", "mvucb") and seed == 1:
                slack[9:] = -2.0 - 0.1 * np.arange(T - 9)
            rows.append(pd.DataFrame({
                "policy": policy, "label": LABELS[policy], "seed": seed, "t": t, "slack": slack,
                "cum_regret": np.cumsum(regret), "cum_reward": np.cumsum(np.full(T, 0.6 + 0.05 * seed)),
                "default_pulls": np.minimum(t, 5 * (k + 1)) if policy not in ("ucb", "mvucb") else 0,
                baseline_col: (1 - ALPHA) * MU0 * t,
            }))
    out = pd.concat(rows, ignore_index=True)
    out["label"] = pd.Categorical(out["label"], categories=[LABELS[p] for p in policies])
    return out


def by_name(fig) -> dict[str, object]:
    return {tr.name: tr for tr in fig.data}


def test_regret_figure_has_mean_band_and_baseline_line():
    fig = vc.regret_figure(frame(), BEST)
    traces = by_name(fig)
    for lab in ("GenCB", "ConUCB", "UCB"):
        assert {lab, f"{lab} upper", f"{lab} lower"} <= set(traces)
        assert traces[f"{lab} lower"].fill == "tonexty"
    # GenCB's band is the min (seed 0) and max (seed 1) of its two runs.
    np.testing.assert_allclose(traces["GenCB upper"].y, 0.06 * np.arange(1, T + 1))
    np.testing.assert_allclose(traces["GenCB lower"].y, 0.05 * np.arange(1, T + 1))
    np.testing.assert_allclose(traces["GenCB"].y, 0.055 * np.arange(1, T + 1))
    line = next(tr for tr in fig.data if tr.name.startswith("baseline"))
    np.testing.assert_allclose(line.y, (BEST - (1 - ALPHA) * MU0) * np.arange(1, T + 1))
    assert line.line.dash == "dash"
    assert "min–max" in fig.layout.title.text


def test_zoom_keeps_only_the_early_rounds():
    fig = vc.zoom_figure(frame(), BEST, 12)
    assert max(max(tr.x) for tr in fig.data) == 12
    assert "first 12 rounds" in fig.layout.title.text
    assert vc.early_window(10_000) == 1_000 and vc.early_window(50) == 10 and vc.early_window(5) == 5


def test_reward_figure_draws_the_line_to_stay_above():
    fig = vc.reward_figure(frame())
    line = by_name(fig)["(1 − α)·μ₀·t"]
    np.testing.assert_allclose(line.y, (1 - ALPHA) * MU0 * np.arange(1, T + 1))
    np.testing.assert_allclose(by_name(fig)["UCB upper"].y, 0.65 * np.arange(1, T + 1))


def test_default_pulls_figure_shows_each_policy():
    fig = vc.default_pulls_figure(frame())
    traces = by_name(fig)
    assert traces["GenCB"].y[-1] == 5 and traces["ConUCB"].y[-1] == 10 and traces["UCB"].y[-1] == 0


def test_slack_figure_draws_zero_lines_and_marks_the_first_negative_round():
    fig = vc.slack_figure(frame())
    zero = [s for s in fig.layout.shapes if s.y0 == 0 and s.y1 == 0]
    assert len(zero) == 3 and {s.yref for s in zero} == {"y", "y2", "y3"}
    marks = [tr for tr in fig.data if tr.name == "first round below 0"]
    assert len(marks) == 1 and list(marks[0].x) == [10] and list(marks[0].y) == [-2.0] and marks[0].yaxis == "y3"
    titles = [a.text for a in fig.layout.annotations]
    assert any("GenCB: never below 0" in t for t in titles)
    assert any("UCB: below 0 in 1 of 2 runs, first at t = 10" in t for t in titles)
    band = by_name(fig)["UCB min"]
    assert band.fill == "tonexty" and min(band.y) < 0


def test_negative_slack_ignores_rounding_but_not_real_breaks():
    f = frame()
    f.loc[f["policy"] == "gencb", "slack"] = -1e-12
    table = vc.negative_slack(f).set_index("policy")
    assert table.loc["GenCB", "runs_broken"] == 0 and table.loc["GenCB", "first_negative_t"] == 0
    assert table.loc["UCB", "runs_broken"] == 1 and table.loc["UCB", "first_negative_t"] == 10
    assert table.loc["UCB", "min_slack"] == pytest.approx(-2.0 - 0.1 * (T - 10))


def test_negative_slack_by_hand_skips_missing_values_as_pandas_does():
    """A round without a slack (NaN) and a row without a seed count for nothing; a policy with no slack at all
    has NaN as its least and was never below 0."""
    f = pd.DataFrame({"policy": pd.Categorical(["a", "a", "a", "b", "b"], categories=["b", "a", "c"]),
                      "seed": [0.0, 1.0, np.nan, 0.0, 1.0], "t": [1, 1, 2, 1, 2],
                      "slack": [np.nan, -3.0, -5.0, np.nan, np.nan], "baseline_line": [1.0] * 5})
    table = vc.negative_slack(f)
    assert table["policy"].tolist() == ["b", "a"]
    a, b = table.iloc[1], table.iloc[0]
    assert a["min_slack"] == -5.0 and a["first_negative_t"] == 1 and a["first_negative_slack"] == -3.0
    assert a["runs_broken"] == 1 and a["runs"] == 2  # the broken rows' seeds: 1 and a missing one
    assert np.isnan(b["min_slack"]) and b["first_negative_t"] == 0 and b["first_negative_slack"] == 0.0
    assert b["runs_broken"] == 0 and b["runs"] == 2


def test_role_colours_are_distinct_within_every_problem():
    for names in (["GenCB", "ConUCB", "CLUCB", "UCB"], ["GenCB", "CLUCB", "CLUCB2", "LinUCB"],
                  ["GenCB", "C3UCB", "C2UCB"], ["MV-CUCB", "MV-UCB"], ["GenCB", "mystery"]):
        colors = vc.colors_for(names)
        assert len(set(colors.values())) == len(names)


def test_empty_frame_gives_empty_figures():
    empty = frame().iloc[:0]
    assert len(vc.regret_figure(empty, BEST).data) == 0
    assert len(vc.slack_figure(empty).data) == 0


def arm_table(K: int = 5, rho: float = 10.0, pulls: dict[str, list[float]] | None = None) -> pd.DataFrame:
    """The columns of ``mv_sim.arm_table`` for Bernoulli arms with means 0.8 … 0.2 and a default at μ₀."""
    mu = np.linspace(0.8, 0.2, K)
    var = mu * (1 - mu)
    mv = rho * mu - var
    table = pd.DataFrame({
        "arm": np.arange(-1, K), "kind": ["default"] + ["regular"] * K,
        "mean": np.concatenate([[MU0], mu]), "variance": np.concatenate([[0.0], var]),
        "mv": np.concatenate([[rho * MU0], mv]),
        "best": np.concatenate([[False], np.arange(K) == np.argmax(mv)]),
    })
    pulls = pulls or {"mvcucb": [30, 5, 3, 1, 1, 0], "mvucb": [0, 12, 10, 8, 6, 4]}
    for policy, p in pulls.items():
        table[f"pulls_{policy}"] = p
    return table


def test_mv_regret_baseline_uses_the_best_arms_mean_variance():
    f = frame("baseline", ("mvcucb", "mvucb"))
    rho = 10.0
    mv_star = vm.best_mv(arm_table(rho=rho))
    assert mv_star == pytest.approx(rho * 0.8 - 0.16)
    fig = vm.regret_figure(f, mv_star)
    traces = by_name(fig)
    assert {"MV-CUCB", "MV-UCB", "MV-CUCB upper", "MV-UCB lower", vm.BASELINE_NAME} <= set(traces)
    np.testing.assert_allclose(traces[vm.BASELINE_NAME].y, (mv_star - (1 - ALPHA) * MU0) * np.arange(1, T + 1))
    assert max(max(tr.x) for tr in vm.zoom_figure(f, mv_star, 8).data) == 8


def test_mv_slack_marks_where_the_constraint_broke():
    fig = vm.slack_figure(frame("baseline", ("mvcucb", "mvucb")))
    assert [s.y0 for s in fig.layout.shapes] == [0.0, 0.0]
    marks = [tr for tr in fig.data if tr.name == "first round below 0"]
    assert len(marks) == 1 and marks[0].yaxis == "y2"
    table = vm.negative_slack(frame("baseline", ("mvcucb", "mvucb"))).set_index("policy")
    assert table.loc["MV-CUCB", "runs_broken"] == 0 and table.loc["MV-UCB", "runs_broken"] == 1


def test_arms_figure_places_default_best_arm_and_indifference_line():
    rho = 10.0
    arms = arm_table(rho=rho)
    mv_star = vm.best_mv(arms)
    fig = vm.arms_figure(arms, rho)
    default = [tr for tr in fig.data if tr.name == "default arm x₀ (μ₀, 0)"]
    assert len(default) == 2 and all(list(tr.x) == [MU0] and list(tr.y) == [0.0] for tr in default)
    line = next(tr for tr in fig.data if tr.name == "equal MV as the best arm")
    np.testing.assert_allclose(rho * np.asarray(line.x) - np.asarray(line.y), mv_star)
    star = next(tr for tr in fig.data if tr.name == "best arm (highest MV)")
    assert rho * star.x[0] - star.y[0] == pytest.approx(mv_star)
    dots = {tr.name: tr for tr in fig.data if tr.name.endswith(": pulls")}
    assert set(dots) == {"MV-CUCB: pulls", "MV-UCB: pulls"}
    cucb = dots["MV-CUCB: pulls"]
    assert cucb.x[0] == MU0 and cucb.y[0] == 0.0  # the default arm, pulled most
    assert list(cucb.marker.size) == sorted(cucb.marker.size, reverse=True)
    assert len(dots["MV-UCB: pulls"].x) == 5  # never the default arm
    assert cucb.xaxis == "x" and dots["MV-UCB: pulls"].xaxis == "x2"
    assert "75% of rounds on x₀" in fig.layout.annotations[0].text


def test_indifference_segment_stays_inside_the_box():
    x, y = vm.indifference_segment(30.0, 23.84, (0.15, 0.85), (-0.02, 0.3))
    assert np.all((x >= 0.15) & (x <= 0.85)) and np.allclose(30.0 * x - y, 23.84)


def test_a_frame_already_by_label_draws_the_same():
    from safebandit_core.viz.common import by_label

    assert vc.regret_figure(by_label(frame()), BEST).to_dict() == vc.regret_figure(frame(), BEST).to_dict()


def long_frame(n: int = 10_000) -> pd.DataFrame:
    """One policy, two seeds, ``n`` rounds; seed 1's slack dips to −5 at round 4,321 only."""
    t = np.arange(1, n + 1)
    rows = []
    for seed in (0, 1):
        slack = np.sin(t / 50.0) + 1.5
        if seed == 1:
            slack[4320] = -5.0
        rows.append(pd.DataFrame({"policy": "gencb", "label": "GenCB", "seed": seed, "t": t, "slack": slack,
                                  "cum_regret": 0.01 * t, "default_pulls": t // 3, "cum_reward": 0.6 * t,
                                  "baseline_line": (1 - ALPHA) * MU0 * t}))
    return pd.concat(rows, ignore_index=True)


def test_thin_keeps_at_most_the_limit_and_every_extreme():
    f = long_frame()
    thinned = vc.thin(f, "slack", 500)
    assert thinned["t"].nunique() <= 500 and {1, 10_000, 4321} <= set(thinned["t"])
    assert thinned["slack"].min() == -5.0 and thinned["slack"].max() == f["slack"].max()
    assert len(vc.thin(f.iloc[:100], "slack", 500)) == 100
    fig = vc.slack_figure(f)
    band = by_name(fig)["GenCB min"]
    assert len(band.x) <= vc.MAX_TRACE_POINTS and min(band.y) == -5.0
    assert all(len(tr.x) <= vc.MAX_TRACE_POINTS for tr in vc.regret_figure(f, BEST).data)


def thin_by_hand(frame: pd.DataFrame, value: str, max_points: int) -> pd.DataFrame:
    """:func:`vc.thin` as its docstring reads, one policy and one stretch at a time in plain Python."""
    if frame["t"].nunique() <= max_points:
        return frame
    buckets = max(1, (max_points - 2) // 2)
    keep: set[tuple[object, int]] = set()
    for policy in frame["policy"].unique():
        part = frame[frame["policy"] == policy]
        rounds = sorted(set(part["t"].tolist()))
        lo = {t: part.loc[part["t"] == t, value].min() for t in rounds}
        hi = {t: part.loc[part["t"] == t, value].max() for t in rounds}
        n = len(rounds)
        chosen = {rounds[0], rounds[-1]}
        for b in range(buckets):
            stretch = [t for i, t in enumerate(rounds) if i * buckets // n == b]
            if stretch:  # the first round of the stretch with its lowest low and the first with its highest high
                chosen |= {min(stretch, key=lambda t: (lo[t], t)), min(stretch, key=lambda t: (-hi[t], t))}
        keep |= {(policy, t) for t in chosen}
    return frame[[(p, t) in keep for p, t in zip(frame["policy"], frame["t"], strict=True)]]


@pytest.mark.parametrize("max_points", [6, 11, 40])
def test_thin_keeps_exactly_the_rows_its_rule_names(max_points):
    rng = np.random.default_rng(7)
    parts = []
    for policy, T in (("gencb", 97), ("conucb", 60), ("ucb", 5)):
        t = np.arange(1, T + 1)
        for seed in range(3):  # ties on purpose: values on a coarse grid
            parts.append(pd.DataFrame({"policy": policy, "seed": seed, "t": t,
                                       "slack": np.round(rng.normal(size=T), 1)}))
    f = pd.concat(parts, ignore_index=True).sample(frac=1.0, random_state=3)
    f["pulls"] = rng.integers(0, 4, len(f))  # an integer column, ties everywhere
    f.loc[(f["seed"] == 1) & (f["t"] % 7 == 0), "slack"] = np.nan  # one seed missing: the others' extremes count
    f = f[~((f["policy"] == "conucb") & (f["t"] % 5 == 0))]  # a policy without some rounds
    for frame in (f, f.assign(policy=pd.Categorical(f["policy"], categories=["ucb", "gencb", "conucb", "none"])),
                  f.assign(t=f["t"] * 0.5)):  # rounds that are not counts from 0 or 1: found by sorting
        for value in ("slack", "pulls"):
            got, want = vc.thin(frame, value, max_points), thin_by_hand(frame, value, max_points)
            pd.testing.assert_frame_equal(got, want)


def summary(regret: dict[str, float], pulls: dict[str, float]) -> pd.DataFrame:
    """The columns of ``families.summary`` the sentences read."""
    return pd.DataFrame({"policy": list(regret), "label": [LABELS[p] for p in regret], "rounds": 400,
                         "cum_regret_mean": list(regret.values()), "default_pulls_mean": [pulls[p] for p in regret]})


def test_regret_sentences_follow_the_numbers():
    behind = summary({"gencb": 52.4, "conucb": 43.0}, {"gencb": 306.0, "conucb": 381.0})
    ahead = summary({"gencb": 34.3, "conucb": 42.2}, {"gencb": 89.0, "conucb": 381.0})
    rank = captions.ranking
    assert "**ConUCB has the lower regret**: 43.0 against GenCB's 52.4" in rank(behind, "gencb", "conucb", 2)
    assert "**GenCB has the lower regret**: 34.3 against ConUCB's 42.2" in rank(ahead, "gencb", "conucb", 2)
    late = captions.regret_verdict(behind, "gencb", "conucb", 2, 12)
    assert "This holds at T = 400" in late and "12 arms" in late and "overtakes" in late
    assert "This holds" not in captions.regret_verdict(ahead, "gencb", "conucb", 2, 12)
    assert "mean of 2 runs" in late and "mean of" not in captions.ranking(behind, "gencb", "conucb", 1)
    text = captions.default_pulls_sentence(behind, "gencb", "conucb")
    assert "GenCB played the default arm 306.0 times per run, ConUCB 381.0 times: GenCB held back less." == text
    flipped = summary({"gencb": 1.0, "conucb": 2.0}, {"gencb": 400.0, "conucb": 100.0})
    assert captions.default_pulls_sentence(flipped, "gencb", "conucb").endswith("ConUCB held back less.")


def test_slack_and_zoom_sentences_read_the_frame():
    text = captions.slack_runs(vc.negative_slack(frame()))
    assert "GenCB's slack stayed ≥ 0 in all 2 runs" in text
    assert "UCB's slack went below 0 in 1 of 2 runs (first at t = 10" in text
    zoom = vc.zoom_sentence(frame(), BEST, 20)
    # Baseline at t = 20: (0.8 − 0.63)·20 = 3.4; mean regrets 20·(0.055, 0.105, 0.155) = 1.1, 2.1, 3.1 … all below.
    assert "At round 20 the dashed baseline is at 3.4." in zoom and "At or below it: GenCB (1.1)" in zoom
    assert "above it" not in zoom
    above = vc.zoom_sentence(frame(), 0.64, 20)  # baseline 0.2: every policy is above it
    assert "Mean regret above it: GenCB (1.1), ConUCB (2.1), UCB (3.1)." in above


def horizons(regret_g: list[float], regret_b: list[float], pulls_g: list[float], pulls_b: list[float]
             ) -> pd.DataFrame:
    """A frame of ``sweep.over_horizons``'s columns at T = 1000, 2000, 4000, 8000."""
    rows = []
    for policy, reg, pulls in (("gencb", regret_g, pulls_g), ("conucb", regret_b, pulls_b)):
        for T, r, n in zip((1000, 2000, 4000, 8000), reg, pulls, strict=True):
            rows.append({"T": T, "policy": policy, "label": LABELS[policy], "cum_regret_mean": r,
                         "cum_regret_lo": r - 1, "cum_regret_hi": r + 1, "default_pulls_mean": n,
                         "default_pulls_lo": n - 1, "default_pulls_hi": n + 1})
    return pd.DataFrame(rows)


def test_crossover_is_found_and_explained():
    f = horizons([100, 200, 300, 350], [80, 160, 320, 640], [500, 700, 700, 700], [900, 1900, 3900, 7900])
    assert captions.crossing(f, "gencb", "conucb") == (2000, 4000, pytest.approx(2000 + 2000 * 40 / 60))
    text = captions.crossover_caption(f, "gencb", "conucb", 0.1)
    assert "GenCB overtakes ConUCB between T = 2,000 and T = 4,000 (about T ≈ 3,333" in text
    assert "ConUCB added 4,000 default pulls per run and GenCB 0" in text and "Why:" in text
    never = horizons([100, 200, 300, 400], [50, 100, 150, 200], [500, 700, 900, 1100], [500, 600, 700, 800])
    assert captions.crossing(never, "gencb", "conucb") is None
    text = captions.crossover_caption(never, "gencb", "conucb", 0.1)
    assert text.startswith("Up to T = 8,000 ConUCB keeps the lower regret") and "Why:" not in text
    always = horizons([10, 20, 30, 40], [50, 100, 150, 200], [5, 5, 5, 5], [900, 1900, 3900, 7900])
    text = captions.crossover_caption(always, "gencb", "conucb", 0.1)
    assert text.startswith("GenCB has the lower regret at T = 8,000")


def test_horizons_figure_draws_regret_and_default_pulls_on_log_axes():
    fig = vc.horizons_figure(horizons([1, 2, 3, 4], [2, 3, 4, 5], [9, 8, 7, 6], [1, 2, 3, 4]))
    assert [tr.name for tr in fig.data] == ["GenCB", "ConUCB", "GenCB", "ConUCB"]
    assert [tr.yaxis for tr in fig.data] == ["y", "y", "y2", "y2"]
    assert list(fig.data[2].y) == [9, 8, 7, 6] and list(fig.data[0].error_y.array) == [1, 1, 1, 1]
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis2.type == "log"


def test_mv_condition_sentence_says_sufficient_and_what_the_run_did():
    held = vm.negative_slack(frame("baseline", ("mvcucb", "mvucb")))
    ok = vm.condition_sentence(True, 28.57, 30.0, held)
    assert ok.startswith("ρ = 30 > 2/(α·μ₀) = 28.57, so the guarantee applies") and "all 2 runs" in ok
    fails = vm.condition_sentence(False, 28.57, 20.0, held)
    assert "does not apply" in fails and "sufficient (Theorem 5); below it nothing is promised" in fails
    assert "In this run it stayed ≥ 0 in all 2 runs (smallest slack 0.5)" in fails
    f = frame("baseline", ("mvcucb", "mvucb"))
    f.loc[(f["policy"] == "mvcucb") & (f["seed"] == 0) & (f["t"] == 5), "slack"] = -3.0
    broken = vm.condition_sentence(False, 28.57, 20.0, vm.negative_slack(f))
    assert "went below 0 in 1 of 2 runs (first at t = 5; smallest slack -3)" in broken
    assert "not in this run" in vm.condition_sentence(True, 1.0, 2.0, held[held["policy"] == "MV-UCB"])
