"""The dose model (Safety by Design): exact agreement with an independent NumPy reading, the closed
forms, the rank-one updates, the realized-cost guarantee statistically, and reproducibility."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from safebandit_core import families, linalg
from safebandit_core.dose import DoseSettings, curves, run_on_stream
from tests.support import assert_close_sum


def run(s: DoseSettings) -> dict[str, np.ndarray]:
    return families.run(s).outputs


def simulate(s: DoseSettings, chunk: int | None = None):
    return families.simulate(s, chunk=chunk)


# ---------------------------------------------------------------- an independent NumPy reading
def np_curve(kind, p=2.0, ec50=0.5, hill=2.0):
    """g and g⁻¹ written out again, from ALGORITHMS.md and the curves' definitions."""
    if kind == "linear":
        return (lambda a: a), (lambda z: z)
    if kind == "power":
        return (lambda a: a**p), (lambda z: z ** (1 / p))
    c = ec50**hill

    def g(a):
        return a**hill * (c + 1) / (c + a**hill)

    def g_inv(z):
        return (z * c / (c + 1 - z)) ** (1 / hill)

    return g, g_inv


def np_reference(policy, X, xi_r, xi_c, theta, mu, u_eps, *, tau, delta, delta_prime, kappa_r, kappa_c, S, L,
                 lam=1.0, eps=0.5, kind="linear", p=2.0, ec50=0.5, hill=2.0):
    """ALGORITHMS.md §1.1–1.3 with exact solves each round (no rank-one updates)."""
    g, g_inv = np_curve(kind, p, ec50, hill)
    T, d = X.shape
    b_true = kappa_c * math.sqrt(2 * math.log(1 / delta))
    b = 0.0 if policy == "on_expectation" else b_true
    e = eps if policy == "eps_greedy" else 0.0
    a1 = g_inv(min(1.0, tau / (b + S * L)))
    data_x, data_r, data_c = [], [], []
    alpha = np.zeros(T)
    est = np.zeros(T)
    for t in range(T):
        x = X[t]
        if t == 0:
            a, up = a1, a1
        else:
            sigma = lam * np.eye(d) + sum(np.outer(v, v) for v in data_x) if data_x else lam * np.eye(d)
            zero = np.zeros(d)
            th = np.linalg.solve(sigma, sum((r * v for r, v in zip(data_r, data_x, strict=True)), zero))
            mh = np.linalg.solve(sigma, sum((c * v for c, v in zip(data_c, data_x, strict=True)), zero))
            w = math.sqrt(x @ np.linalg.solve(sigma, x))
            n = len(data_x)
            rad = math.sqrt(d * math.log((1 + n * L**2 / lam) / delta_prime))
            u = x @ th + (kappa_r * rad + math.sqrt(lam) * S) * w
            v = x @ mh + (kappa_c * rad + math.sqrt(lam) * S) * w
            B = v + b
            z = 1.0 if B <= 0 else min(1.0, tau / B)
            up = g_inv(z)
            a = a1 if u_eps[t] < e else (up if u >= 0 else 0.0)
        alpha[t], est[t] = a, up
        gz = g(a)
        R = gz * (x @ theta + xi_r[t])
        C = gz * (x @ mu + xi_c[t])
        if gz > 0:
            data_x.append(x)
            data_r.append(R / gz)
            data_c.append(C / gz)
    return alpha, est


def random_stream(rng, T, d, noise=0.3):
    X = rng.normal(size=(T, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    th = rng.normal(size=d)
    mu = rng.normal(size=d)
    return X, noise * rng.normal(size=T), noise * rng.normal(size=T), th / np.linalg.norm(th), mu / np.linalg.norm(mu)


CURVE_CASES = [("linear", {}), ("power", {"g_power": 0.5}), ("power", {"g_power": 3.0}),
               ("emax", {"g_ec50": 0.3, "g_hill": 1.5})]


@pytest.mark.parametrize("policy", ["hpucb", "on_expectation", "eps_greedy"])
@pytest.mark.parametrize("kind,gp", CURVE_CASES)
def test_run_on_stream_matches_independent_numpy(policy, kind, gp):
    rng = np.random.default_rng(hash((policy, kind, tuple(gp.values()))) % 2**32)
    T, d = 150, 4
    X, xr, xc, th, mu = random_stream(rng, T, d)
    u = rng.uniform(size=T)
    kw = dict(tau=0.4, delta=0.05, delta_prime=0.1, kappa_r=0.3, kappa_c=0.3, S=1.0, L=1.0, lam=1.0, eps=0.5)
    got = run_on_stream(policy, X, xr, xc, th, mu, g=kind, u_eps=u, refresh_every=40, **gp, **kw)
    ref_alpha, ref_est = np_reference(policy, X, xr, xc, th, mu, u, kind=kind, p=gp.get("g_power", 2.0),
                                      ec50=gp.get("g_ec50", 0.5), hill=gp.get("g_hill", 2.0), **kw)
    np.testing.assert_allclose(got["alpha"], ref_alpha, atol=1e-9, rtol=0)
    np.testing.assert_allclose(got["est_upper"], ref_est, atol=1e-9, rtol=0)
    g, _ = np_curve(kind, gp.get("g_power", 2.0), gp.get("g_ec50", 0.5), gp.get("g_hill", 2.0))
    np.testing.assert_allclose(got["reward"], g(ref_alpha) * (X @ th + xr), atol=1e-9)
    np.testing.assert_allclose(got["cost"], g(ref_alpha) * (X @ mu + xc), atol=1e-9)
    assert set(got) >= {"alpha", "reward", "cost", "est_upper", "true_upper", "regret"}
    assert all(v.shape == (T,) for v in got.values())


def test_true_upper_and_regret_by_hand():
    """One round worked out by hand: the clairvoyant's upper end and the pseudo-regret."""
    X = np.array([[1.0, 0.0]])
    th, mu = np.array([0.6, 0.8]), np.array([0.5, 0.0])
    got = run_on_stream("hpucb", X, np.zeros(1), np.zeros(1), th, mu, tau=0.3, delta=0.1, delta_prime=0.1,
                        kappa_r=0.2, kappa_c=0.2, S=1.0, L=1.0)
    b = 0.2 * math.sqrt(2 * math.log(10))
    a1 = min(1.0, 0.3 / (b + 1.0))
    true_upper = min(1.0, 0.3 / (0.5 + b))
    assert got["alpha"][0] == pytest.approx(a1, abs=1e-12)
    assert got["true_upper"][0] == pytest.approx(true_upper, abs=1e-12)
    assert got["regret"][0] == pytest.approx((true_upper - a1) * 0.6, abs=1e-12)


def test_float32_input_runs_in_float32():
    rng = np.random.default_rng(3)
    X, xr, xc, th, mu = (a.astype(np.float32) for a in random_stream(rng, 50, 3))
    got = run_on_stream("hpucb", X, xr, xc, th, mu, tau=0.5, delta=0.05, delta_prime=0.05, kappa_r=0.3, kappa_c=0.3,
                        S=1.0, L=1.0)
    assert got["alpha"].dtype == np.float32
    ref = run_on_stream("hpucb", *(a.astype(np.float64) for a in (X, xr, xc, th, mu)), tau=0.5, delta=0.05,
                        delta_prime=0.05, kappa_r=0.3, kappa_c=0.3, S=1.0, L=1.0)
    np.testing.assert_allclose(got["alpha"], ref["alpha"], atol=1e-4)


# ---------------------------------------------------------------- closed forms and rank-one updates
def test_ellipsoid_closed_form_against_brute_force():
    rng = np.random.default_rng(0)
    d = 3
    M = rng.normal(size=(d, d))
    A = M @ M.T + np.eye(d)
    A_inv = np.linalg.inv(A)
    center, x, beta = rng.normal(size=d), rng.normal(size=d), 0.7
    # points θ = center + β A^{-1/2} s with ‖s‖ = 1 cover the ellipsoid's boundary
    vals, vecs = np.linalg.eigh(A)
    A_mhalf = vecs @ np.diag(vals**-0.5) @ vecs.T
    s = rng.normal(size=(200_000, d))
    s /= np.linalg.norm(s, axis=1, keepdims=True)
    pts = center + beta * s @ A_mhalf.T
    brute_max, brute_min = (pts @ x).max(), (pts @ x).min()
    ax = A_inv @ x  # the dose policy's bounds: ⟨A⁻¹x, b⟩ ± β‖x‖_{A⁻¹} with θ̂ = A⁻¹b (dose/policies.py)
    width = beta * np.sqrt(x @ ax)
    cf_max, cf_min = ax @ (A @ center) + width, ax @ (A @ center) - width
    assert cf_max >= brute_max - 1e-12 and cf_max - brute_max < 1e-3
    assert cf_min <= brute_min + 1e-12 and brute_min - cf_min < 1e-3


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-9), (np.float32, 2e-3)])
def test_sherman_morrison_after_ten_thousand_updates(dtype, tol):
    """Held tolerance (relative, max-abs over entries / max entry): 1e-9 in float64, 2e-3 in float32."""
    import jax

    rng = np.random.default_rng(1)
    d, n = 8, 10_000
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    xs = jnp.asarray(X, dtype=dtype)
    a_inv0 = jnp.eye(d, dtype=dtype)
    a_inv, _ = jax.lax.scan(lambda a, x: (linalg.sherman_morrison(a, x), None), a_inv0, xs)
    direct = np.linalg.inv(np.eye(d) + X.T @ X)
    err = np.abs(np.asarray(a_inv, dtype=np.float64) - direct).max() / np.abs(direct).max()
    assert err < tol, err


def test_periodic_refresh_keeps_float32_close_to_float64():
    """The same stream in float32 and float64: the doses agree to 1e-3 on at least 99 % of 3000 rounds."""
    rng = np.random.default_rng(5)
    X, xr, xc, th, mu = random_stream(rng, 3000, 6)
    kw = dict(tau=0.5, delta=0.05, delta_prime=0.05, kappa_r=0.3, kappa_c=0.3, S=1.0, L=1.0, refresh_every=500)
    u = rng.uniform(size=3000)
    a64 = run_on_stream("hpucb", X, xr, xc, th, mu, u_eps=u, **kw)["alpha"]
    a32 = run_on_stream("hpucb", *(a.astype(np.float32) for a in (X, xr, xc, th, mu)), u_eps=u, **kw)["alpha"]
    assert np.mean(np.abs(a64 - a32) < 1e-3) > 0.99


# ---------------------------------------------------------------- the paper's guarantee, statistically
@pytest.mark.slow
def test_violation_rates_heteroscedastic():
    """≥ 2·10⁵ rounds per policy (20 seeds × 10⁴), σ = 0.3, τ = 0.1, δ = 0.05: HPC-UCB ≤ δ, On-Expectation far above."""
    s = DoseSettings(policies=("hpucb", "on_expectation"), d=5, T=10_000, seeds=20, tau=0.1, delta=0.05,
                     delta_prime=0.05, kappa_r=0.3, kappa_c=0.3)
    table = families.summary(families.run(s)).set_index("policy")
    assert table.loc["hpucb", "violation_rate"] <= s.delta
    assert table.loc["hpucb", "violation_rate_hi"] <= s.delta
    assert table.loc["on_expectation", "violation_rate"] >= 2 * s.delta
    assert table.loc["on_expectation", "violation_rate"] > 10 * table.loc["hpucb", "violation_rate"]


def test_hpucb_doses_stay_in_the_true_safe_interval_mostly():
    s = DoseSettings(policies=("hpucb", "on_expectation"), d=5, T=3000, seeds=4, tau=0.3, kappa_c=0.3)
    out = run(s)
    above = out["alpha"] > out["true_upper"] + 1e-12
    assert above[0].mean() <= s.delta_prime
    assert above[1].mean() > above[0].mean()


# ---------------------------------------------------------------- reproducibility and chunking
def test_same_settings_same_run_and_chunking_is_invisible():
    s = DoseSettings(T=700, d=4, seeds=2, refresh_every=100)
    full = run(s)
    chunks = list(simulate(s, chunk=250))  # rounded down to whole refresh blocks
    assert [c.t_done for c in chunks] == [200, 400, 600, 700]
    assert chunks[-1].done and not chunks[0].done
    for k, v in full.items():  # a chunk is another compiled scan length, which XLA may group differently
        assert_close_sum(chunks[-1].outputs[k], v, s.T * s.d, err_msg=k)
    again = run(s)  # the same program twice: bit for bit
    for k, v in full.items():
        np.testing.assert_array_equal(v, again[k])


def test_seed_i_is_the_same_stream_whatever_the_seed_count():
    a = run(DoseSettings(T=200, d=3, seeds=3, base_seed=7))
    b = run(DoseSettings(T=200, d=3, seeds=1, base_seed=8))
    assert_close_sum(a["alpha"][:, 1], b["alpha"][:, 0], 200 * 3)  # 3 seeds vs 1: a batched shape may group sums anew


def test_policies_share_the_stream():
    out = run(DoseSettings(T=50, d=3, seeds=2, policies=("hpucb", "eps_greedy"), eps=0.0))
    np.testing.assert_allclose(out["alpha"][0], out["alpha"][1], rtol=0, atol=1e-12)


def test_tidy_frame_shape_and_columns():
    s = DoseSettings(T=40, d=3, seeds=2)
    frame = families.tidy(families.run(s))
    assert len(frame) == 3 * 2 * 40
    wanted = {"kind", "policy", "label", "seed", "t", "alpha", "cost", "violation", "slack", "cum_regret"}
    assert wanted <= set(frame.columns)
    last = frame[frame.t == 40].groupby("policy", observed=True)["cum_regret"].mean()
    assert np.isfinite(last).all()


# ---------------------------------------------------------------- dose curves (property tests)
curve_params = st.one_of(
    st.tuples(st.just("linear"), st.just(2.0), st.just(0.5), st.just(2.0)),
    st.tuples(st.just("power"), st.floats(0.1, 10.0), st.just(0.5), st.just(2.0)),
    st.tuples(st.just("emax"), st.just(2.0), st.floats(0.05, 10.0), st.floats(0.1, 10.0)),
)


@given(curve_params, st.lists(st.floats(0.0, 1.0), min_size=2, max_size=20))
def test_curve_properties(cp, doses):
    kind, p, ec50, hill = cp
    curves.validate(kind, p, ec50, hill)
    p1, p2 = curves.params_of(kind, p, ec50, hill)
    c = curves.get(kind)
    assert float(c.g(jnp.float64(0.0), p1, p2)) == 0.0
    assert float(c.g(jnp.float64(1.0), p1, p2)) == pytest.approx(1.0, abs=1e-12)
    a = np.sort(np.unique(np.asarray(doses)))
    ga = np.asarray(c.g(jnp.asarray(a), p1, p2))
    assert np.all(np.diff(ga) >= 0)
    grid = np.linspace(0.0, 1.0, 101)
    gg = np.asarray(c.g(jnp.asarray(grid), p1, p2))
    assert np.all(np.diff(gg) > 0)
    back = np.asarray(c.g_inv(jnp.asarray(ga), p1, p2))
    # g(a) carries a rounding error of a few eps relative to itself, and g⁻¹ turns an error dy into dy / g'(a): a
    # saturated curve (Emax with a steep Hill coefficient near a = 1) is flat there, so its inverse is that much
    # less precise. 64 eps covers the handful of roundings in g and g⁻¹. A dose whose g falls below the smallest
    # normal float (a = 1e-154 under g(a) = a³) has lost its digits to underflow, and so has a subnormal dose itself
    # (XLA's CPU arithmetic flushes subnormals to zero): for those only the sign is checked.
    slope = np.asarray(jax.vmap(jax.grad(lambda x: c.g(x, p1, p2)))(jnp.asarray(a)))
    eps, tiny = np.finfo(np.float64).eps, np.finfo(np.float64).tiny
    # A power is exp(p·log x), whose rounding grows with |log x|: a dose of 1e-265 carries ~600× the error of 0.5.
    logs = 1 + np.maximum(np.abs(np.log(np.maximum(a, tiny))), np.abs(np.log(np.maximum(ga, tiny))))
    bound = 64 * eps * (np.abs(ga) / np.maximum(slope, tiny) + np.abs(a)) * logs
    lost = (ga < 64 * tiny) | (a < 64 * tiny)
    assert np.all((np.abs(back - a) <= bound) | lost), (back - a, bound)
    assert np.all(back[lost] >= 0)


@pytest.mark.parametrize("kind,kw,field", [("power", {"power": 0.0}, "g_power"), ("power", {"power": 11}, "g_power"),
                                           ("emax", {"ec50": 0.0}, "g_ec50"), ("emax", {"hill": 20}, "g_hill")])
def test_curve_parameters_out_of_range(kind, kw, field):
    from safebandit_core.settings import SettingsError

    args = {"power": 2.0, "ec50": 0.5, "hill": 2.0, **kw}
    with pytest.raises(SettingsError) as err:
        curves.validate(kind, **args)
    assert err.value.field == field


# ---------------------------------------------------------------- d padded to a compiled width
@pytest.mark.parametrize("policy", ["hpucb", "on_expectation", "eps_greedy"])
@pytest.mark.parametrize("d,width", [(3, 4), (5, 8), (5, 13)])
def test_zero_padded_coordinates_change_nothing(policy, d, width):
    """The same explicit stream at its own width and padded with zero coordinates: the same run."""
    rng = np.random.default_rng(d * 100 + width)
    T = 300
    X, xr, xc, th, mu = random_stream(rng, T, d)
    kw = dict(tau=0.4, delta=0.05, delta_prime=0.1, kappa_r=0.3, kappa_c=0.3, S=1.0, L=1.0, eps=0.3,
              u_eps=rng.uniform(size=T), refresh_every=50)
    plain = run_on_stream(policy, X, xr, xc, th, mu, **kw)
    padded = run_on_stream(policy, X, xr, xc, th, mu, width=width, **kw)
    for k, v in plain.items():
        assert_close_sum(padded[k], v, T * width, err_msg=k)  # wider sums may be grouped differently


def test_moving_d_inside_a_bucket_reuses_the_compiled_model():
    """d = 5, 6, 7, 8 share the width-8 model; the draws are the width-d draws, padded (a replay agrees)."""
    fam = families.get("dose")
    models = {id(fam.model(DoseSettings(d=d), "float64")) for d in (5, 6, 7, 8)}
    assert len(models) == 1
    assert fam.model(DoseSettings(d=9), "float64") is not fam.model(DoseSettings(d=8), "float64")
    s = DoseSettings(d=5, T=200, seeds=1, refresh_every=50)
    st_ = fam.stream(s, 0)
    assert st_["X"].shape == (200, 5)
    got = run(s)
    for i, policy in enumerate(s.policies):
        ref = fam.on_stream(s, policy, st_)
        assert_close_sum(got["alpha"][i, 0], ref["alpha"], s.T * 8)  # the run sums over width 8, the replay over 5


@given(st.integers(1, 5000))
def test_buckets_cover_and_are_few(n):
    from safebandit_core.shapes import bucket

    w = bucket(n)
    assert n <= w and bucket(w) == w
    assert w < 2 * n or n <= 64
    assert (w & (w - 1) == 0) if n <= 64 else (w % 32 == 0 and w - n < 32)
