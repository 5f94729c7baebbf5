"""HPC-UCB beside the designs on the same patients (CLINICAL.md §4 (b)): the tolerances come from the dose
model's stream and decide DLTs exactly as the patients' costs do; HPC-UCB keeps its violation rate under δ."""

from __future__ import annotations

import numpy as np
import pytest

from safebandit_core.dose.family import draw_stream
from safebandit_core.dose.settings import DoseSettings
from safebandit_core.dosefinding import bandit
from safebandit_core.dosefinding.scenarios import _exceed, truth_from_dose_model
from safebandit_core.settings import SettingsError

K, TAU, KAPPA_C, D, DELTA = 5, 0.25, 0.3, 5, 0.3
TRIALS = 250


@pytest.fixture(scope="module")
def comparison() -> bandit.BanditComparison:
    return bandit.compare(K=K, tau=TAU, kappa_c=KAPPA_C, d=D, delta=DELTA, cohort=3, cohorts=10, trials=TRIALS,
                          seed=7)


@pytest.mark.parametrize(("kappa_c", "d"), [(0.3, 5), (0.05, 3), (1.0, 2), (0.0, 4), (0.4, 1)])
def test_exceedance_matches_the_quadrature_of_scenarios(kappa_c: float, d: int) -> None:
    z = np.linspace(-1.4, 1.4, 9)
    ref = np.array([_exceed(float(v), kappa_c, d) for v in z])
    np.testing.assert_allclose(bandit.exceedance(z, kappa_c, d), ref, atol=1e-12)


def test_truth_is_clinical_example() -> None:
    """CLINICAL.md §4's example: τ = 0.25, κ_c = 0.3, d = 5, linear g."""
    p = bandit.dose_truth(K, TAU, KAPPA_C, D)
    np.testing.assert_allclose(p, [0.0064, 0.1313, 0.2332, 0.2942, 0.3332], atol=5e-5)
    np.testing.assert_allclose(p, truth_from_dose_model(K, TAU, KAPPA_C, D), atol=1e-12)


def test_patients_are_the_dose_models_stream(comparison: bandit.BanditComparison) -> None:
    s = DoseSettings(policies=("hpucb",), d=D, T=comparison.patients.W.shape[1], tau=TAU, delta=DELTA,
                     kappa_c=KAPPA_C, seeds=1, base_seed=7, precision="float64")
    for r in (0, 3, TRIALS - 1):
        st = draw_stream(s, r)
        np.testing.assert_allclose(comparison.patients.W[r], st["X"] @ st["mu"] + st["xi_c"], rtol=0, atol=1e-14)
        np.testing.assert_allclose(comparison.patients.x_theta[r], st["X"] @ st["theta"], rtol=0, atol=1e-14)


def test_hpucb_costs_are_its_doses_on_those_patients(comparison: bandit.BanditComparison) -> None:
    N = comparison.alpha.shape[1]
    np.testing.assert_allclose(comparison.cost, comparison.alpha * comparison.patients.W[:, :N], rtol=1e-12,
                               atol=1e-14)


def test_tolerances_are_uniform(comparison: bandit.BanditComparison) -> None:
    u = comparison.patients.u.ravel()
    assert u.min() >= 0.0 and u.max() <= 1.0
    # Kolmogorov–Smirnov at the 0.001 level: D ≤ 1.95/√n for n = 250·30 draws.
    grid = np.sort(u)
    n = grid.size
    ks = np.max(np.maximum(np.arange(1, n + 1) / n - grid, grid - np.arange(n) / n))
    assert ks < 1.95 / np.sqrt(n)
    assert abs(u.mean() - 0.5) < 4 * np.sqrt(1 / 12 / n)


def test_dlt_rule_is_the_cost_rule(comparison: bandit.BanditComparison) -> None:
    """u_i < p_j ⇔ the patient's cost g(α_j)·W_i at dose j exceeds τ, for every drawn patient and dose."""
    p = comparison.result.truth
    u, W = comparison.patients.u, comparison.patients.W
    for j in range(K):
        alpha = (j + 1) / K
        assert np.array_equal(u < p[j], alpha * W > TAU)


def test_design_violation_rate_is_its_dlt_rate(comparison: bandit.BanditComparison) -> None:
    res = comparison.result
    N = comparison.alpha.shape[1]
    for name in res.designs:
        doses = res.doses[name][:, :N]
        treated = doses > 0
        dlt = res.tolerances[:, :N] < res.truth[np.maximum(doses, 1) - 1]
        rate = (dlt & treated).sum() / treated.sum()
        assert comparison.figures[name]["violation_rate"] == pytest.approx(rate, rel=1e-12)


def test_path_dlts_are_costs_over_tau(comparison: bandit.BanditComparison) -> None:
    res = comparison.result
    path = res.path("boin", 2)
    cost = path.doses / K * comparison.patients.W[2][res.doses["boin"][2] > 0]
    assert np.array_equal(path.dlt, cost > TAU)


def test_hpucb_keeps_its_violation_rate_under_delta(comparison: bandit.BanditComparison) -> None:
    """P(C_t > τ) ≤ δ per patient: over 250·30 patients the rate is at most δ plus 3 binomial standard errors."""
    n = comparison.alpha.size
    rate = comparison.figures["hpucb"]["violation_rate"]
    assert rate <= DELTA + 3 * np.sqrt(DELTA * (1 - DELTA) / n)
    assert rate == pytest.approx(float((comparison.cost > TAU).mean()), rel=1e-12)


def test_regret_is_the_dose_models(comparison: bandit.BanditComparison) -> None:
    """A design's regret: Σ_i (g(α*_i) − g(α_i))⟨X_i, θ*⟩ over the N patients, dose 0 when untreated."""
    res, pts = comparison.result, comparison.patients
    N = comparison.alpha.shape[1]
    doses = res.doses["3+3"][:, :N]
    per_trial = ((pts.g_star[:, :N] - doses / K) * pts.x_theta[:, :N]).sum(axis=1)
    assert comparison.figures["3+3"]["cum_regret_mean"] == pytest.approx(per_trial.mean(), rel=1e-12)


def test_bad_input_names_the_field() -> None:
    with pytest.raises(SettingsError, match="^delta"):
        bandit.compare(delta=1.5, trials=2)
    with pytest.raises(SettingsError, match="^K"):
        bandit.compare(K=0, trials=2)
    with pytest.raises(SettingsError, match="^tau"):
        bandit.compare(tau=50.0, kappa_c=0.0, trials=2)
    with pytest.raises(SettingsError, match=r"^cohort .*\[1, 12\]"):  # the designs' own range, as the page's
        bandit.compare(cohort=13, trials=2)
    with pytest.raises(SettingsError, match=r"^cohorts .*\[1, 100\]"):
        bandit.compare(cohorts=1000, trials=2)
