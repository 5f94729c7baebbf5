"""Scenarios: the truth derived from the dose model (CLINICAL.md §4), the true MTD (§5), the operating
characteristics on hand-made trials, and :func:`simulate`'s results and paths."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from safebandit_core import dosefinding
from safebandit_core.dosefinding import oc, scenarios
from safebandit_core.settings import SettingsError


def test_the_dose_model_example():
    p = scenarios.truth_from_dose_model(5, 0.25, 0.3, 5)
    np.testing.assert_array_equal(np.round(p, 4), [0.0064, 0.1313, 0.2332, 0.2942, 0.3332])


def monte_carlo(K: int, tau: float, kappa_c: float, d: int, g, draws: int, seed: int) -> np.ndarray:
    """DLT rates of K doses j/K by simulation: X uniform on the sphere, a random unit μ*, Gaussian cost noise."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((draws, d))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    mu = rng.standard_normal(d)
    w = x @ (mu / np.linalg.norm(mu)) + kappa_c * rng.standard_normal(draws)
    return np.array([np.mean(g(j / K) * w > tau) for j in range(1, K + 1)])


@pytest.mark.parametrize(("K", "tau", "kappa_c", "d", "kind", "g"), [
    (5, 0.25, 0.3, 5, "linear", lambda a: a),
    (4, 0.3, 0.2, 2, "power", lambda a: a**2),  # the Beta(½, ½) ends
    (6, 0.2, 0.0, 3, "linear", lambda a: a),  # no noise: P(T > τ/g)
    (3, 0.4, 0.5, 1, "linear", lambda a: a),  # T = ±1
])
def test_the_dose_model_truth_matches_a_simulation(K, tau, kappa_c, d, kind, g):
    draws = 200_000
    p = scenarios.truth_from_dose_model(K, tau, kappa_c, d, kind)
    sim = monte_carlo(K, tau, kappa_c, d, g, draws, seed=K)
    np.testing.assert_array_less(np.abs(sim - p), 4.5 * np.sqrt(p * (1 - p) / draws) + 1e-12)


def test_no_noise_is_the_beta_tail():
    p = scenarios.truth_from_dose_model(4, 0.3, 0.0, 5)
    z = 0.3 / (np.arange(1, 5) / 4)
    np.testing.assert_allclose(p, stats.beta.sf((z + 1) / 2, 2, 2), rtol=1e-14)
    assert p[0] == 0.0  # τ/g(¼) = 1.2 > 1: no patient exceeds it


@pytest.mark.parametrize(("p", "target", "mtd"), [((0.05, 0.1, 0.2, 0.3, 0.45), 0.3, 4), ((0.1, 0.2, 0.4), 0.3, 2),
                                                  ((0.42, 0.5), 0.3, 1), ((0.43, 0.5), 0.3, 0),
                                                  ((0.125, 0.375), 0.25, 1)])
def test_true_mtd(p, target, mtd):
    """Closest to φ, lowest on ties (0.125 and 0.375 are both 0.125 from 0.25 exactly); none above 1.4φ."""
    assert scenarios.true_mtd(np.array(p), target) == mtd


def test_characteristics_by_hand():
    mtd = np.array([1, 2, 2, 0])
    n = np.array([[3, 3, 0], [3, 6, 3], [6, 3, 0], [3, 0, 0]])
    y = np.array([[0, 1, 0], [0, 1, 2], [1, 1, 0], [2, 0, 0]])
    p = np.array([0.1, 0.25, 0.5])
    c = oc.characteristics(mtd, n, y, p, 0.3, true=2)
    assert c["select_pct"] == [25.0, 50.0, 0.0] and c["none_pct"] == 25.0 and c["pcs"] == 50.0
    assert c["patients"] == [3.75, 3.0, 0.75] and c["dlts"] == [0.75, 0.75, 0.5]
    assert c["total_patients"] == 7.5 and c["total_dlts"] == 2.0
    assert c["pct_patients_above_mtd"] == pytest.approx(100 * 3 / 30, rel=1e-15)
    assert c["dlt_rate"] == pytest.approx(8 / 30, rel=1e-15)
    half = 1.96 * np.std([0, 100, 100, 0], ddof=1) / 2
    assert c["pcs_ci95"] == pytest.approx([max(0.0, 50 - half), min(100.0, 50 + half)])
    # regret: |p − φ| = (0.2, 0.05, 0.2), the closest 0.05; per trial Σ n_j gap_j − N·0.05
    regret = np.array([0.6 + 0.15 - 0.3, 0.6 + 0.3 + 0.6 - 0.6, 1.2 + 0.15 - 0.45, 0.6 - 0.15])
    assert c["cum_regret_mean"] == pytest.approx(regret.mean(), rel=1e-14)
    assert c["cum_regret_std"] == pytest.approx(regret.std(ddof=1), rel=1e-12)
    ratio = 3 / 30
    resid = np.array([0, 3, 0, 0]) - ratio * n.sum(axis=1)
    half = 1.96 * resid.std(ddof=1) / 2 / 7.5 * 100
    assert c["pct_patients_above_mtd_ci95"] == pytest.approx([max(0.0, 10 - half), 10 + half])
    assert oc.characteristics(mtd, n, y, p, 0.3, true=0)["pct_patients_above_mtd"] == 100.0


def test_simulate_returns_every_figure_and_each_trials_path():
    res = dosefinding.simulate([0.05, 0.1, 0.2, 0.3, 0.45, 0.6], 0.3, trials=300, seed=3)
    assert res.true_mtd == 4 and res.designs == ("3+3", "boin", "crm")
    for name in res.designs:
        c = res.characteristics[name]
        assert set(oc.FIGURES) <= set(c)
        assert sum(c["select_pct"]) + c["none_pct"] == pytest.approx(100.0, abs=1e-9)
        assert c["total_patients"] == pytest.approx(sum(c["patients"]), rel=1e-12)
        for r in (0, 7):
            path = res.path(name, r)
            assert np.bincount(path.doses, minlength=7)[1:].tolist() == res.n[name][r].tolist()
            assert [int(path.dlt[path.doses == j].sum()) for j in range(1, 7)] == res.y[name][r].tolist()
    first = {name: res.path(name, 5).dlt[:3].tolist() for name in res.designs}
    assert first["3+3"] == first["boin"] == first["crm"], "the same patients open every design's trial"
    again = dosefinding.simulate([0.05, 0.1, 0.2, 0.3, 0.45, 0.6], 0.3, trials=300, seed=3, designs=("boin",))
    assert again.mtd["boin"].tolist() == res.mtd["boin"].tolist()
    assert res.characteristics["3+3"]["total_patients"] <= 6 * 6


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"truth": [0.1, 0.05]}, "truth"), ({"truth": [0.1, 1.2]}, "truth"), ({"truth": [0.1, math.nan]}, "truth"),
    ({"target": 1.0}, "target"), ({"cohort": 0}, "cohort"), ({"cohorts": 0}, "cohorts"), ({"trials": 0}, "trials"),
    ({"skeleton": [0.3, 0.2]}, "skeleton"), ({"skeleton": [0.1, 0.2, 0.3]}, "skeleton"),
    ({"designs": ("boin", "mtpi")}, "designs"), ({"crm_start": 3}, "crm_start"),
])
def test_bad_input_names_the_field(kwargs, field):
    args = {"truth": [0.1, 0.3], "target": 0.3, "trials": 10, **kwargs}
    with pytest.raises(SettingsError) as err:
        dosefinding.simulate(**args)
    assert err.value.field == field


def test_the_draws_are_bounded():
    with pytest.raises(SettingsError) as err:
        dosefinding.simulate([0.1, 0.3], 0.3, cohort=12, cohorts=100, trials=9000)
    assert err.value.field == "trials" and "8,333 with 1200 patients" in err.value.allowed


def test_3p3_selection_matches_its_exact_probabilities():
    """3+3 has a closed form: a dose passes with 0/3, or 1/3 then 0/3; the MTD is the dose below the first that
    fails (K when all pass). Expected patients per dose follow the same way."""
    p = np.array([0.05, 0.15, 0.3, 0.45])
    q = 1 - p
    b0, b1 = q**3, 3 * p * q**2
    passes = b0 + b1 * b0
    reach = np.concatenate([[1.0], np.cumprod(passes)[:-1]])  # P(dose j is tried)
    exact = np.append(reach * (1 - passes), np.prod(passes))  # MTD 0..K: stop at j → MTD j − 1; all pass → K
    patients = reach * (3 + 3 * b1)
    R = 20_000
    res = dosefinding.simulate(p, 0.3, trials=R, seed=1, designs=("3+3",))
    c = res.characteristics["3+3"]
    got = np.array([c["none_pct"], *c["select_pct"]]) / 100
    np.testing.assert_array_less(np.abs(got - exact), 4.5 * np.sqrt(exact * (1 - exact) / R) + 1e-12)
    sd = 3.0 * np.sqrt(reach * (1 + 3 * b1) - (reach * (1 + b1)) ** 2)  # n_j = 3·(tried)·(1 + [1/3])
    np.testing.assert_array_less(np.abs(np.array(c["patients"]) - patients), 4.5 * sd / np.sqrt(R))
