"""The jitted designs agree exactly (MTD, patients and DLTs per dose) with the plain-NumPy reading of
``reference.py`` on the same tolerances, trial by trial, across scenarios and options."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from safebandit_core.dosefinding import designs as D
from safebandit_core.dosefinding import rules
from tests.dosefinding import reference as ref

SCENARIOS = [  # (truth, target, cohort, cohorts)
    ((0.05, 0.1, 0.2, 0.3, 0.45, 0.6), 0.3, 3, 10),
    ((0.02, 0.06, 0.1, 0.15, 0.2), 0.25, 3, 8),
    ((0.3, 0.45, 0.6, 0.7), 0.2, 2, 12),  # too toxic: early elimination and the 3+3 stopping at once
    ((0.01, 0.03, 0.05, 0.08, 0.12, 0.4, 0.5), 0.33, 3, 10),  # everything low: the top dose of 3+3
]
TRIALS = 120


def run(truth, target, cohort, cohorts, options: D.Options, seed: int):
    p = np.asarray(truth)
    K = p.size
    u = D.tolerances(seed, TRIALS, D.patients_needed(K, cohort, cohorts))
    s = rules.getprior(rules.default_halfwidth(target), target, rules.default_prior_mtd(K), K)
    out = D.simulate_all(u, jnp.asarray(p), jnp.float64(target), D.boin_tables(target, cohort * cohorts),
                         D.crm_tables(s, target, cohort), options)
    return np.asarray(u), p, s, {k: tuple(np.asarray(x) for x in (t.mtd, t.n, t.y, t.doses)) for k, t in out.items()}


def assert_same(got, want, r, name):
    mtd, n, y, doses = got
    w_mtd, w_n, w_y = want
    assert (int(mtd[r]), n[r].tolist(), y[r].tolist()) == (w_mtd, w_n.tolist(), w_y.tolist()), (name, r)
    treated = doses[r][doses[r] > 0]
    assert np.bincount(treated, minlength=n.shape[1] + 1)[1:].tolist() == w_n.tolist(), (name, r)


@pytest.mark.parametrize("index", range(len(SCENARIOS)))
def test_the_designs_agree_with_the_numpy_reading_trial_by_trial(index):
    truth, target, cohort, cohorts = SCENARIOS[index]
    u, p, s, got = run(truth, target, cohort, cohorts, D.Options(cohort, cohorts), seed=index)
    for r in range(TRIALS):
        assert_same(got["3+3"], ref.three_plus_three(u[r], p), r, "3+3")
        assert_same(got["boin"], ref.boin(u[r], p, target, cohort, cohorts), r, "boin")
        assert_same(got["crm"], ref.crm(u[r], p, target, cohort, cohorts, s), r, "crm")


def test_the_options_agree_with_the_numpy_reading():
    """BOIN's per-dose early stop, the CRM's overdose stop, posterior-mean estimate and start dose."""
    truth, target, cohort, cohorts = (0.15, 0.3, 0.45, 0.55, 0.65), 0.25, 3, 10
    options = D.Options(cohort, cohorts, ("boin", "crm"), boin_stop_at=9, crm_start=2, crm_overdose_stop=True,
                        crm_posterior_mean=True)
    u, p, s, got = run(truth, target, cohort, cohorts, options, seed=11)
    stopped = 0
    for r in range(TRIALS):
        want = ref.boin(u[r], p, target, cohort, cohorts, stop_at=9)
        stopped += int(want[1].sum() < cohort * cohorts)
        assert_same(got["boin"], want, r, "boin")
        assert_same(got["crm"], ref.crm(u[r], p, target, cohort, cohorts, s, start=2, stop=True, mean=True), r,
                    "crm")
    assert stopped > 10, "the early stop is exercised"
    assert (got["crm"][0] == 0).sum() > 0, "the overdose stop is exercised"
