"""The fit of a logged table: it recovers a planted θ*, μ* and κ, reads every format alike, and says when it is poor."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from safebandit_core import logged
from safebandit_core.logged import fit as lfit
from tests.logged.planted import CONTEXT, KAPPA_C, KAPPA_R, cosine, csv_bytes, planted

N = 5000


def settings(**kw) -> logged.LoggedSettings:
    base = {"source": "upload", "file": "planted.csv", "context": CONTEXT, "dose": "dose", "reward": "benefit",
            "cost": "side_effect", "T": 2000}
    return logged.LoggedSettings(**{**base, **kw})


@pytest.fixture(scope="module")
def truth():
    return planted(N)


@pytest.fixture(scope="module")
def run(truth):
    return logged.prepare(settings(), csv_bytes(truth.frame))


def test_the_fit_recovers_the_planted_truth(truth, run) -> None:
    coef = run.fit.coefficients()
    assert list(coef["feature"]) == ["(intercept)", *CONTEXT]
    assert cosine(coef["reward"].to_numpy(), truth.theta_raw) > 0.99
    assert cosine(coef["cost"].to_numpy(), truth.mu_raw) > 0.99
    m, sd = run.fit.contexts.mean, run.fit.contexts.scale  # the replay's coordinates: z = (x - m) / sd, then 1
    for raw, fitted in ((truth.theta_raw, run.fit.env.theta), (truth.mu_raw, run.fit.env.mu)):
        assert cosine(fitted, np.append(raw[1:] * sd, raw[0] + raw[1:] @ m)) > 0.99
    rep = run.report()
    assert rep["kappa_r"] == pytest.approx(KAPPA_R, rel=0.1) and rep["kappa_c"] == pytest.approx(KAPPA_C, rel=0.1)
    assert rep["d"] == 5 and rep["rows_used"] == N and rep["rows_dropped"] == 0 and rep["contexts"] == "standardise"
    assert rep["rows_fit"] == int((truth.frame["dose"] >= 0.05).sum()) and rep["rows_replayed"] == N
    assert rep["lam_reward"] in logged.LAMS and rep["lam_cost"] in logged.LAMS
    assert 0.3 < rep["heldout_r2_reward"] <= 1 and 0.3 < rep["heldout_r2_cost"] <= 1
    assert rep["S"] == pytest.approx(max(np.linalg.norm(run.fit.env.theta), np.linalg.norm(run.fit.env.mu)))
    assert rep["L"] == pytest.approx(np.linalg.norm(run.fit.Z, axis=1).max())
    assert rep["notes"][-1] == logged.NOISE_NOTE and not any("explains little" in n for n in rep["notes"])
    assert run.settings.data_hash == run.raw.digest and run.settings.file == "planted.csv"


def test_the_realizability_check_holds_on_realizable_data(run) -> None:
    frame = run.fit.residual_frame()
    assert len(frame) == run.fit.fitted.n_fit and {"dose", "reward_residual", "cost_residual"} <= set(frame)
    assert abs(frame["cost_residual"].mean()) < 0.01
    spread = run.fit.spread_by_dose()
    assert len(spread) == 5 and (spread["cost_spread"] / KAPPA_C).between(0.85, 1.15).all()
    for tau in (0.2, 0.4, 0.6):
        shares = run.fit.exceed_shares(tau)
        assert abs(shares.logged - shares.model) < 0.02 and shares.close, tau
    assert not any("does not reproduce" in n for n in run.fit.notes(0.4))


def test_csv_gzip_parquet_and_a_dataframe_fit_alike(truth, run) -> None:
    frame = truth.frame
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    gz = io.BytesIO()
    frame.to_csv(gz, index=False, compression={"method": "gzip", "mtime": 0})
    semicolons = frame.to_csv(index=False, sep=";").encode()
    for data in (buffer.getvalue(), gz.getvalue(), semicolons, frame):
        other = logged.prepare(settings(), data)
        np.testing.assert_allclose(other.fit.env.theta, run.fit.env.theta, rtol=1e-9, atol=1e-12)
        assert other.raw.digest != run.raw.digest


def test_groups_time_and_one_hot(truth) -> None:
    data = csv_bytes(truth.frame)
    timed = logged.prepare(settings(time="day", group="site"), data)
    np.testing.assert_array_equal(timed.fit.table.rows, np.argsort(truth.frame["day"].to_numpy(), kind="stable"))
    halves = logged.ridge.halves(N, timed.fit.table.groups)
    for g in np.unique(timed.fit.table.groups):
        assert len(set(halves[timed.fit.table.groups == g])) == 1, "a group was split across the halves"
    coded = logged.prepare(settings(context=(*CONTEXT, "site"), categorical=("site",)), data)
    assert coded.fit.table.features == (*CONTEXT, "site=b", "site=c", "site=d") and coded.fit.d == 8


def test_wide_tables_are_hashed_with_the_battery_embedder(truth) -> None:
    rng = np.random.default_rng(3)
    wide = pd.concat([truth.frame, pd.DataFrame(rng.standard_normal((N, 70)), columns=[f"w{i}" for i in range(70)])],
                     axis=1)
    hashed = logged.prepare(settings(context=(*CONTEXT, *[f"w{i}" for i in range(70)]), hash_dim=32), wide)
    assert hashed.fit.contexts.kind == "hash" and hashed.fit.d == 33 and hashed.fit.coefficients() is None
    np.testing.assert_allclose(np.linalg.norm(hashed.fit.Z[:, :-1], axis=1), 1.0)


def test_a_wrong_curve_and_a_poor_fit_are_said_in_words() -> None:
    rng = np.random.default_rng(5)
    base = planted(3000, seed=1).frame
    dose = base["dose"].to_numpy()
    squared = base.assign(benefit=base["benefit"] * dose, side_effect=base["side_effect"] * dose)  # g(α) = α²
    notes = logged.prepare(settings(), squared).fit.notes()
    for name in ("benefit", "side effect"):
        assert any(n.startswith(f"The {name} residuals drift with the dose") and "try another curve" in n
                   for n in notes)
    assert not any("curve" in n for n in logged.prepare(settings(g="power", g_power=2.0), squared).fit.notes())
    noise = base.assign(side_effect=rng.standard_normal(3000))
    poor = logged.prepare(settings(), noise).fit.notes(names=("benefit", "toxicity grade"))
    assert any(n.startswith("The toxicity grade model explains little of the data (held-out R²") for n in poor)


def test_rows_without_a_usable_dose_stay_out_of_the_fit_but_are_replayed(run) -> None:
    left = [n for n in run.fit.notes() if "left out of the fit" in n]
    assert left and left[0].startswith(f"{int((run.fit.table.dose < 0.05).sum()):,} rows")
    assert run.fit.env.n == N
    assert lfit.context_dim(4, "auto", 64, True) == 5 and lfit.context_dim(100, "auto", 64, True) == 65
