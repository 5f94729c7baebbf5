"""The conservative and mean-variance figure builders on small hand-made tidy frames (no JAX, no runs).

The frames have the columns of ``conservative.sim.tidy_frame`` and ``conservative.mv_sim.tidy_frame``
with values chosen so every expected trace, band and line can be checked by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from safebandit_core.viz import conservative as vc
from safebandit_core.viz import mv as vm

LABELS = {"gencb": "GenCB", "conucb": "ConUCB", "ucb": "UCB"}
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
                "policy": policy, "seed": seed, "t": t, "slack": slack,
                "cum_regret": np.cumsum(regret), "cum_reward": np.cumsum(np.full(T, 0.6 + 0.05 * seed)),
                "default_pulls": np.minimum(t, 5 * (k + 1)) if policy not in ("ucb", "mvucb") else 0,
                baseline_col: (1 - ALPHA) * MU0 * t,
            }))
    return pd.concat(rows, ignore_index=True)


def by_name(fig) -> dict[str, object]:
    return {tr.name: tr for tr in fig.data}


def test_regret_figure_has_mean_band_and_baseline_line():
    fig = vc.regret_figure(frame(), BEST, labels=LABELS)
    traces = by_name(fig)
    for lab in LABELS.values():
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
    fig = vc.zoom_figure(frame(), BEST, 12, labels=LABELS)
    assert max(max(tr.x) for tr in fig.data) == 12
    assert "first 12 rounds" in fig.layout.title.text
    assert vc.early_window(10_000) == 1_000 and vc.early_window(50) == 10 and vc.early_window(5) == 5


def test_reward_figure_draws_the_line_to_stay_above():
    fig = vc.reward_figure(frame(), labels=LABELS)
    line = by_name(fig)["(1 − α)·μ₀·t"]
    np.testing.assert_allclose(line.y, (1 - ALPHA) * MU0 * np.arange(1, T + 1))
    np.testing.assert_allclose(by_name(fig)["UCB upper"].y, 0.65 * np.arange(1, T + 1))


def test_default_pulls_figure_shows_each_policy():
    fig = vc.default_pulls_figure(frame(), labels=LABELS)
    traces = by_name(fig)
    assert traces["GenCB"].y[-1] == 5 and traces["ConUCB"].y[-1] == 10 and traces["UCB"].y[-1] == 0


def test_slack_figure_draws_zero_lines_and_marks_the_first_negative_round():
    fig = vc.slack_figure(frame(), labels=LABELS)
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
    table = vc.negative_slack(f, labels=LABELS).set_index("policy")
    assert table.loc["GenCB", "runs_broken"] == 0 and table.loc["GenCB", "first_negative_t"] == 0
    assert table.loc["UCB", "runs_broken"] == 1 and table.loc["UCB", "first_negative_t"] == 10
    assert table.loc["UCB", "min_slack"] == pytest.approx(-2.0 - 0.1 * (T - 10))


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
