"""Hand-built trials for each rule of the three designs (CLINICAL.md §1–§3).

A tolerance of 0.01 is a DLT at every dose below, 0.99 at none (a DLT iff ``u_i < p_j``), so a trial's
cohorts are written out patient by patient.
"""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import integrate

from safebandit_core.dosefinding import designs as D
from safebandit_core.dosefinding import rules

T, F = 0.01, 0.99  # a DLT at every dose, at none
P3 = jnp.asarray([0.2, 0.4, 0.6])


def cohorts(*groups: str, total: int = 0) -> jnp.ndarray:
    """Tolerances from cohorts written as strings of ``x`` (DLT) and ``.`` (none), padded with 0.99."""
    u = [T if ch == "x" else F for g in groups for ch in g]
    return jnp.asarray(u + [F] * max(0, total - len(u)))


three = jax.jit(D.three_plus_three)


def test_3p3_one_of_three_then_none_of_three_escalates():
    trial = three(cohorts("x..", "...", "...", "...", total=18), P3)
    assert trial.n.tolist() == [6, 3, 3] and trial.y.tolist() == [1, 0, 0]
    assert int(trial.mtd) == 3, "up at the top dose stops with MTD K"
    assert trial.doses.tolist() == [1] * 6 + [2] * 3 + [3] * 3 + [0] * 6


def test_3p3_two_of_six_stops_below():
    trial = three(cohorts("...", "x..", ".x.", total=18), P3)
    assert trial.n.tolist() == [3, 6, 0] and trial.y.tolist() == [0, 2, 0] and int(trial.mtd) == 1


def test_3p3_two_of_three_at_the_first_dose_has_no_mtd():
    trial = three(cohorts("xx.", total=18), P3)
    assert trial.n.tolist() == [3, 0, 0] and int(trial.mtd) == 0


def test_3p3_never_revisits_a_lower_dose():
    """1/3 at dose 1, then 3 more with 0; 2/3 at dose 2 stops: MTD 1 with only 6 at dose 1 (no re-entry)."""
    trial = three(cohorts(".x.", "...", "xx.", total=18), P3)
    assert trial.n.tolist() == [6, 3, 0] and int(trial.mtd) == 1


@partial(jax.jit, static_argnames=("c", "M", "stop_at"))
def boin(u, p, target, c, M, stop_at=None):
    return D.boin(u, p, target, D.boin_tables(0.3, c * M), c, M, stop_at)


def test_boin_escalates_at_e_n_exactly_and_stays_between():
    """φ = 0.3: 0/3 = e(3) up; 1/3 (e(3)=0 < 1 < b(3)=2) stays; 1/6 = e(6) up."""
    trial = boin(cohorts("...", "x..", "...", "..."), P3, 0.3, 3, 4)
    assert trial.doses.tolist() == [1] * 3 + [2] * 6 + [3] * 3
    assert trial.n.tolist() == [3, 6, 3] and trial.y.tolist() == [0, 1, 0]
    # isotonic fit: dose 3's 0.05/3.1 pools with dose 2's 1.05/6.1 into about 0.041 < φ: the highest of the tie
    assert int(trial.mtd) == 3


def test_boin_eliminates_and_never_returns():
    """3/3 at dose 2 reaches x(3) = 3: doses 2 and 3 go, back to 1, where 0/6 cannot escalate any more."""
    trial = boin(cohorts("...", "xxx", "...", "..."), P3, 0.3, 3, 4)
    assert trial.n.tolist() == [9, 3, 0] and trial.y.tolist() == [0, 3, 0] and int(trial.mtd) == 1


def test_boin_eliminating_the_first_dose_stops_with_no_mtd():
    trial = boin(cohorts("xxx", total=12), P3, 0.3, 3, 4)
    assert trial.n.tolist() == [3, 0, 0] and int(trial.mtd) == 0 and trial.doses.tolist()[3:] == [0] * 9


def test_boin_decides_nothing_after_the_last_cohort():
    """3/3 at dose 2 in the last cohort: no elimination step (the trial ends there); the selection finds dose 2
    over-toxic and picks dose 1."""
    trial = boin(cohorts("...", "xxx"), jnp.asarray([0.2, 0.4]), 0.3, 3, 2)
    assert trial.n.tolist() == [3, 3] and int(trial.mtd) == 1


def test_boin_early_stop_at_m_when_the_step_would_stay():
    """m = 6: 1/3 then 0/3 at dose 1 (1/6 = e(6) escalates: no stop); at dose 2, 1/3 then 1/3: n = 6 with
    e(6) = 1 < 2 < b(6) = 3 would stay, so the trial stops with 12 of its 18 patients."""
    trial = boin(cohorts("x..", "...", "x..", ".x.", "...", "..."), P3, 0.3, 3, 6, stop_at=6)
    assert trial.n.tolist() == [6, 6, 0] and trial.y.tolist() == [1, 2, 0]


def pooled(n, y):
    q = (y + 0.05) / (n + 0.1)
    w = 1.0 / ((y + 0.05) * (n - y + 0.05) / ((n + 0.1) ** 2 * (n + 1.1)))
    return q, float(np.sum(w * q) / np.sum(w))


@pytest.mark.parametrize(("target", "expected"), [(0.40, 1), (0.45, 2)])
def test_boin_isotonic_tie_rule(target, expected):
    """3/6 then 2/6 violate monotonicity and pool to about 0.413: at φ = 0.45 (pooled below φ) the highest of the
    tie, at φ = 0.40 (pooled above) the lowest."""
    n, y = np.array([6, 6]), np.array([3, 2])
    q, value = pooled(n, y)
    assert q[0] > q[1] and 0.40 < value < 0.45
    over = jnp.asarray(rules.boin_select_table(target, 6))
    assert int(D.boin_select(jnp.asarray(n), jnp.asarray(y), jnp.float64(target), over)) == expected


def test_boin_selection_two_values_equally_far_take_the_lower():
    """No pooling, q̃ = (0.2, 0.4) with φ = 0.3: the k·1e-10 slope favours the lower."""
    fit = D.pava(jnp.asarray([0.2, 0.4]), jnp.asarray([1.0, 1.0]), jnp.asarray([True, True]))
    assert fit.tolist() == [0.2, 0.4]
    score = np.abs(np.asarray(fit) + np.array([1, 2]) * 1e-10 - 0.3)
    assert int(np.argmin(score)) == 0


def test_pava_pools_by_weight():
    fit = D.pava(jnp.asarray([0.5, 0.1, 0.3, 0.2]), jnp.asarray([1.0, 3.0, 1.0, 1.0]),
                 jnp.asarray([True, True, True, True]))
    np.testing.assert_allclose(fit, [0.2, 0.2, 0.25, 0.25], rtol=1e-15)
    masked = D.pava(jnp.asarray([0.5, 0.1, 9.0]), jnp.asarray([1.0, 1.0, 1.0]), jnp.asarray([True, True, False]))
    np.testing.assert_allclose(masked, [0.3, 0.3, 0.0], rtol=1e-15)


SKELETON = rules.getprior(0.05, 0.3, 3, 5)
TABLES = D.crm_tables(SKELETON, 0.3, 3)
P5 = jnp.asarray([0.05, 0.1, 0.2, 0.3, 0.45])


def test_crm_posterior_step_by_quadrature():
    """One DLT of 3 at dose 1: the posterior mean of a on the grid against SciPy's adaptive quadrature."""
    n, y = np.array([3, 0, 0, 0, 0]), np.array([1, 0, 0, 0, 0])
    w = np.asarray(D.crm_posterior(jnp.asarray(n), jnp.asarray(y), TABLES))
    s1 = SKELETON[0]

    def density(a):
        p = s1 ** math.exp(a)
        return math.exp(-a * a / 2.68) * p * (1 - p) ** 2

    num, _ = integrate.quad(lambda a: a * density(a), -10, 10, epsabs=1e-14, epsrel=1e-13, limit=200)
    den, _ = integrate.quad(density, -10, 10, epsabs=1e-14, epsrel=1e-13, limit=200)
    a_hat = float(w @ np.asarray(TABLES.grid))
    # the trapezoid rule on a smooth integrand that vanishes at ±10 is accurate far below this
    assert a_hat == pytest.approx(num / den, abs=1e-9)
    p_hat = SKELETON ** math.exp(a_hat)
    assert int(np.argmin(np.abs(p_hat - 0.3))) == 0 and a_hat < 0  # more toxic than the skeleton: stay at dose 1


def crm_rec(n, y):
    w = np.asarray(D.crm_posterior(jnp.asarray(n), jnp.asarray(y), TABLES))
    p_hat = SKELETON ** math.exp(float(w @ np.asarray(TABLES.grid)))
    return int(np.argmin(np.abs(p_hat - 0.3))) + 1


crm = jax.jit(partial(D.crm, target=jnp.float64(0.3), tables=TABLES, cohort=3, cohorts=3))


def test_crm_never_skips_an_untried_dose():
    assert crm_rec([3, 0, 0, 0, 0], [0, 0, 0, 0, 0]) >= 3, "the estimate alone would skip dose 2"
    trial = crm(cohorts("...", "...", "..."), P5)
    assert trial.doses.tolist()[:9] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert int(trial.mtd) == crm_rec([3, 3, 3, 0, 0], [0, 0, 0, 0, 0]), "the final MTD is the unrestricted estimate"


def test_crm_coherence_holds_after_a_toxic_cohort():
    """0/3, 0/3, then 1/3 at dose 3 (1/3 ≥ 0.3): the estimate says dose 4, the next cohort stays at 3."""
    assert crm_rec([3, 3, 3, 0, 0], [0, 0, 1, 0, 0]) == 4
    trial = jax.jit(partial(D.crm, target=jnp.float64(0.3), tables=TABLES, cohort=3, cohorts=4))(
        cohorts("...", "...", "x..", "..."), P5)
    assert trial.doses.tolist()[9:12] == [3, 3, 3]
    assert trial.n.tolist() == [3, 3, 6, 0, 0]


def test_the_per_cohort_product_is_the_term_by_term_posterior():
    """The scan's weights (prior × each cohort's likelihood, rescaled each time) equal the formula of the counts."""
    history = [(0, 0), (1, 1), (1, 0), (2, 2), (1, 1), (1, 0), (2, 1), (3, 3), (2, 0), (2, 1)]  # (dose, DLTs of 3)
    e = np.asarray(TABLES.prior)
    n, y = np.zeros(5, int), np.zeros(5, int)
    for dose, dlt in history:
        e = e * np.asarray(TABLES.cohort_likelihood)[dose, dlt]
        e = e / e.max()
        n[dose] += 3
        y[dose] += dlt
        w = np.asarray(D.crm_posterior(jnp.asarray(n), jnp.asarray(y), TABLES))
        np.testing.assert_allclose(e / e.sum(), w, rtol=1e-11, atol=1e-15)
