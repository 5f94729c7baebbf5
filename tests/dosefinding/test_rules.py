"""BOIN's boundaries and the CRM's skeleton against CLINICAL.md's tables and independent computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from safebandit_core.dosefinding import rules

TABLE = {  # φ: (λe, λd, e(n), b(n), x(n)) for n = 3, 6, ..., 30 (CLINICAL.md §2)
    0.20: (0.1572, 0.2385, "0 0 1 1 2 2 3 3 4 4", "1 2 3 3 4 5 6 6 7 8", "2 3 4 5 6 7 8 8 9 10"),
    0.25: (0.1968, 0.2984, "0 1 1 2 2 3 4 4 5 5", "1 2 3 4 5 6 7 8 9 9", "3 4 5 6 7 8 9 10 11 12"),
    0.30: (0.2365, 0.3585, "0 1 2 2 3 4 4 5 6 7", "2 3 4 5 6 7 8 9 10 11", "3 4 5 7 8 9 10 11 12 14"),
    0.33: (0.2604, 0.3947, "0 1 2 3 3 4 5 6 7 7", "2 3 4 5 6 8 9 10 11 12", "3 4 6 7 8 10 11 12 13 15"),
}


@pytest.mark.parametrize("target", sorted(TABLE))
def test_boin_boundaries_are_the_table(target):
    lam_e, lam_d, e, b, x = TABLE[target]
    got = rules.boin_boundaries(target, 30)
    assert round(got.lambda_e, 4) == lam_e and round(got.lambda_d, 4) == lam_d
    ns = np.arange(3, 31, 3)
    assert got.escalate[ns].tolist() == [int(v) for v in e.split()]
    assert got.deescalate[ns].tolist() == [int(v) for v in b.split()]
    assert got.eliminate[ns].tolist() == [int(v) for v in x.split()]
    assert got.defined[ns].all() and not got.defined[:3].any()


@pytest.mark.parametrize("target", [0.1, 0.2, 0.25, 0.3, 0.33, 0.4, 0.5])
def test_boin_lambdas_are_where_the_two_binomial_likelihoods_meet(target):
    """λe equates the likelihoods of p̂ under φ1 = 0.6φ and φ; λd under φ and φ2 = 1.4φ (Liu & Yuan 2015)."""
    def meet(lo: float, hi: float) -> float:
        return optimize.brentq(lambda x: x * math.log(hi / lo) + (1 - x) * math.log((1 - hi) / (1 - lo)), lo, hi,
                               xtol=1e-15, rtol=1e-15)

    lam_e, lam_d = rules.boin_lambdas(target)
    assert lam_e == pytest.approx(meet(0.6 * target, target), abs=1e-12)
    assert lam_d == pytest.approx(meet(target, 1.4 * target), abs=1e-12)


def test_an_integer_lambda_d_times_n_gets_one_more(monkeypatch):
    """``b(n) = round(λd n) + 1`` when ``λd n`` is an integer up to 1e-12 (0.4 × 5 is 2.0000000000000004)."""
    monkeypatch.setattr(rules, "boin_lambdas", lambda target: (0.1, 0.4))
    got = rules.boin_boundaries(0.3, 10)
    assert got.deescalate[[1, 2, 4, 5, 10]].tolist() == [1, 1, 2, 3, 5]  # 0.4→1, 0.8→1, 1.6→2, 2.0→3, 4.0→5


def test_x_n_is_undefined_where_no_count_reaches_the_cutoff():
    """At φ = 0.6 even 3 of 3 leaves P(p > 0.6) = 1 − 0.6⁴ = 0.87 < 0.95: no x(3)."""
    got = rules.boin_boundaries(0.6, 12)
    assert not got.defined[3] and got.eliminate[3] == 4
    assert got.defined[12]
    assert got.deescalate[3] == math.ceil(rules.boin_lambdas(0.6)[1] * 3)


def test_the_selection_table_is_the_posterior_cutoff():
    table = rules.boin_select_table(0.3, 9)
    assert table[3].tolist()[:4] == [False, False, False, True]  # 3/3 only: P(p > 0.3 | 2/3) = 0.92
    assert not table[:3].any()
    assert table[9, 5] and not table[9, 4]  # x(9) = 5 in the table


@pytest.mark.parametrize(("target", "skeleton"), [(0.3, (0.1225, 0.2040, 0.3000, 0.4018, 0.5013)),
                                                  (0.25, (0.0840, 0.1567, 0.2500, 0.3545, 0.4603))])
def test_getprior_gives_the_examples(target, skeleton):
    got = rules.getprior(0.05, target, rules.default_prior_mtd(5), 5)
    np.testing.assert_array_equal(np.round(got, 4), skeleton)
    r = math.log(target - 0.05) / math.log(target + 0.05)
    np.testing.assert_allclose(np.log(got[:-1]) / np.log(got[1:]), r, rtol=1e-12)  # the ratio of neighbours


def test_the_crm_grid_has_trapezoid_weights():
    a, log_prior = rules.crm_grid()
    assert a.size == 2001 and a[0] == -10.0 and a[-1] == pytest.approx(10.0, abs=1e-12)
    assert log_prior[0] == pytest.approx(math.log(0.5) - 100 / 2.68, rel=1e-14)
    assert log_prior[1000] == pytest.approx(-a[1000] ** 2 / 2.68, abs=1e-14)
    assert rules.default_halfwidth(0.3) == 0.05 and rules.default_halfwidth(0.05) == 0.025
