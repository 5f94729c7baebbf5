"""Non-linear HPC-UCB (Safety by Design, Algorithm 2): exact agreement with an independent NumPy reading,
the realized-cost guarantee and the confidence sets statistically, the family, and the command line."""

from __future__ import annotations

import dataclasses
import json
import math

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest

from safebandit_core import cli, families
from safebandit_core import model as M
from safebandit_core.dose.nonlinear import (
    FAMILY,
    OUTPUT_KEYS,
    NonlinearSettings,
    class_curves,
    classes,
    draw_classes,
    draw_table,
    run_on_table,
)
from safebandit_core.settings import SettingsError
from tests.support import assert_close_sum, only_command


# ---------------------------------------------------------------- an independent NumPy reading
def np_curve(kind, p=2.0):
    """g and g⁻¹ of the linear and power curves (default parameters), written out again."""
    if kind == "linear":
        return (lambda a: a), (lambda z: z)
    return (lambda a: a**p), (lambda z: z ** (1 / p))


def np_reference(policy, Fr, Fc, xi_r, xi_c, r_star, c_star, u_eps, *, tau, delta, delta_prime, kappa_r, kappa_c,
                 kind="linear", eps=0.5):
    """ALGORITHMS.md §1.4 round by round, least squares and sets recomputed from scratch each round."""
    g, g_inv = np_curve(kind)
    n_r, T = Fr.shape
    n_c = Fc.shape[0]
    b_true = kappa_c * math.sqrt(2 * math.log(1 / delta))
    b = 0.0 if policy == "on_expectation" else b_true
    e = eps if policy == "eps_greedy" else 0.0
    rho_r = 8 * kappa_r**2 * math.log(n_r / delta_prime)
    rho_c = 8 * kappa_c**2 * math.log(n_c / delta_prime)
    a1 = g_inv(min(1.0, tau / (b + 1.0)))
    rounds, ys_r, ys_c = [], [], []
    out = {k: [] for k in OUTPUT_KEYS}

    def conf_set(F, ys, rho):
        if not rounds:  # no data: the whole class
            return 0, np.ones(F.shape[0], bool)
        V = F[:, rounds]
        losses = [sum((V[i, j] - ys[j]) ** 2 for j in range(len(rounds))) for i in range(F.shape[0])]
        fit = min(range(F.shape[0]), key=lambda i: (losses[i], i))
        dist = np.array([sum((V[i, j] - V[fit, j]) ** 2 for j in range(len(rounds))) for i in range(F.shape[0])])
        return fit, dist <= rho

    for t in range(T):
        fit_r, in_r = conf_set(Fr, ys_r, rho_r)
        fit_c, in_c = conf_set(Fc, ys_c, rho_c)
        u = max(Fr[i, t] for i in range(n_r) if in_r[i])
        v = max(Fc[i, t] for i in range(n_c) if in_c[i])
        big_b = v + b
        up = g_inv(1.0 if big_b <= 0 else min(1.0, tau / big_b))
        if t == 0:
            a, up = a1, a1
        else:
            a = a1 if u_eps[t] < e else (up if u >= 0 else 0.0)
        th, mu = Fr[r_star, t], Fc[c_star, t]
        gz = g(a)
        R, C = gz * (th + xi_r[t]), gz * (mu + xi_c[t])
        b_star = mu + b_true
        true_up = g_inv(1.0 if b_star <= 0 else min(1.0, tau / b_star))
        a_star = true_up if th >= 0 else 0.0
        row = {"alpha": a, "est_upper": up, "true_upper": true_up, "reward": R, "cost": C,
               "regret": (g(a_star) - g(a)) * th, "set_r": in_r.sum(), "set_c": in_c.sum(), "fit_r": fit_r,
               "fit_c": fit_c, "true_in_r": in_r[r_star], "true_in_c": in_c[c_star]}
        for k, val in row.items():
            out[k].append(val)
        if gz > 0:
            rounds.append(t)
            ys_r.append(R / gz)
            ys_c.append(C / gz)
    return {k: np.asarray(v) for k, v in out.items()}


NUMBERS = dict(tau=0.5, delta=0.05, delta_prime=0.05, kappa_r=0.3, kappa_c=0.3)
T_TABLE = 120


def random_table(rng, n, T=T_TABLE, noise=0.3):
    Fr, Fc = rng.uniform(-1, 1, (n, T)), rng.uniform(-1, 1, (n, T))
    return Fr, Fc, noise * rng.normal(size=T), noise * rng.normal(size=T)


def coins(seed, T):
    """ε-Greedy's coins as run_on_table draws them: uniform on [0, 1) from PRNGKey(seed)."""
    return np.asarray(jax.random.uniform(jax.random.PRNGKey(seed), (T,), jnp.float64))


def assert_same(got, want):
    for k in ("alpha", "est_upper", "true_upper", "reward", "cost", "regret"):
        np.testing.assert_allclose(got[k], want[k], rtol=0, atol=1e-9, err_msg=k)
    for k in ("set_r", "set_c", "fit_r", "fit_c", "true_in_r", "true_in_c"):
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


# ---------------------------------------------------------------- (i) exact agreement on explicit tables
@pytest.mark.parametrize("kind", ["linear", "power"])
@pytest.mark.parametrize("n", [1, 8, 64])
@pytest.mark.parametrize("policy", ["hpucb", "on_expectation", "eps_greedy"])
def test_run_on_table_matches_independent_numpy(policy, n, kind):
    rng = np.random.default_rng(100 * n + len(kind))
    Fr, Fc, xr, xc = random_table(rng, n)
    r_star, c_star = int(rng.integers(n)), int(rng.integers(n))
    got = run_on_table(policy, Fr, Fc, xr, xc, r_star, c_star, g=kind, seed=3, **NUMBERS)
    assert set(got) == set(OUTPUT_KEYS)
    assert all(v.shape == (T_TABLE,) for v in got.values())
    assert got["alpha"].dtype == np.float64
    want = np_reference(policy, Fr, Fc, xr, xc, r_star, c_star, coins(3, T_TABLE), kind=kind, **NUMBERS)
    assert_same(got, want)
    if n > 1:  # the sets do shrink, so the comparison covers more than the whole-class case
        assert got["set_r"].min() < n and got["set_c"].min() < n


@pytest.mark.parametrize("policy", ["hpucb", "eps_greedy"])
def test_every_member_identical(policy):
    rng = np.random.default_rng(7)
    row_r, row_c = rng.uniform(-1, 1, T_TABLE), rng.uniform(-1, 1, T_TABLE)
    Fr, Fc = np.tile(row_r, (8, 1)), np.tile(row_c, (8, 1))
    xr, xc = 0.3 * rng.normal(size=T_TABLE), 0.3 * rng.normal(size=T_TABLE)
    got = run_on_table(policy, Fr, Fc, xr, xc, 5, 6, seed=1, **NUMBERS)
    assert_same(got, np_reference(policy, Fr, Fc, xr, xc, 5, 6, coins(1, T_TABLE), **NUMBERS))
    assert (got["fit_r"] == 0).all() and (got["fit_c"] == 0).all()  # every tie goes to the lowest index
    assert (got["set_r"] == 8).all() and got["true_in_r"].all() and got["true_in_c"].all()


@pytest.mark.parametrize("kind", ["linear", "power"])
def test_true_member_loses_the_tie_break(kind):
    rng = np.random.default_rng(11)
    Fr, Fc, xr, xc = random_table(rng, 8)
    Fr[2], Fc[1] = Fr[5], Fc[4]  # copies of the true members at lower indices
    got = run_on_table("hpucb", Fr, Fc, xr, xc, 5, 4, g=kind, **NUMBERS)
    assert_same(got, np_reference("hpucb", Fr, Fc, xr, xc, 5, 4, coins(0, T_TABLE), kind=kind, **NUMBERS))
    assert got["fit_r"][-1] == 2 and got["fit_c"][-1] == 1  # the copy is the fit, the true member loses the tie
    assert got["true_in_r"].all() and got["true_in_c"].all()


def test_float32_tables_run_in_float32_and_bad_tables_are_named():
    rng = np.random.default_rng(5)
    Fr, Fc, xr, xc = random_table(rng, 8)
    got = run_on_table("hpucb", Fr.astype(np.float32), Fc.astype(np.float32), xr, xc, 0, 0, **NUMBERS)
    assert got["alpha"].dtype == np.float32
    want = run_on_table("hpucb", Fr, Fc, xr, xc, 0, 0, **NUMBERS)
    assert np.mean(np.abs(got["alpha"] - want["alpha"]) < 1e-4) > 0.95
    cases = [(dict(Fr=Fr * 2), "Fr"), (dict(Fc=Fc[:, :-1]), "Fc"), (dict(xi_r=xr[:-1]), "xi_r"),
             (dict(r_star=8), "r_star"), (dict(policy="thompson"), "policy"), (dict(tau=0.0), "tau"),
             (dict(delta_prime=1.0), "delta_prime"), (dict(g="sigmoid"), "g")]
    for change, field in cases:
        kw = dict(policy="hpucb", Fr=Fr, Fc=Fc, xi_r=xr, xi_c=xc, r_star=0, c_star=0, **NUMBERS) | change
        args = [kw.pop(k) for k in ("policy", "Fr", "Fc", "xi_r", "xi_c", "r_star", "c_star")]
        with pytest.raises(SettingsError) as err:
            run_on_table(*args, **kw)
        assert err.value.field == field


# ---------------------------------------------------------------- (ii), (iii) the guarantees, statistically
STAT = NonlinearSettings(function_class="linear-grid", size=64, d=5, T=2000, seeds=20, tau=0.1, delta=0.05,
                         delta_prime=0.05, kappa_r=0.3, kappa_c=0.3)
STAT_ARGS = ["--class", "linear-grid", "--size", "64", "--d", "5", "--T", "2000", "--seeds", "20", "--tau", "0.1",
             "--policy", "all", "--device", "cpu"]  # the same run from the command line (shares the compilation)


@pytest.fixture(scope="module")
def stat_run():
    """20 seeds × 2000 rounds of the three policies with the linear-grid class (θ*, μ* in it)."""
    return families.run(STAT, "cpu")


def check_guarantees(run):
    """HPC-UCB's violation rate ≤ δ (95 % upper end), On-Expectation's far above; Lemma 10: the sets
    leave out θ* or μ* at some round in at most a 2δ′ share of runs (counted here against δ′)."""
    s = run.settings
    table = M.summary(run).set_index("policy")
    assert table.loc["hpucb", "violation_rate_hi"] <= s.delta
    assert table.loc["on_expectation", "violation_rate"] >= s.delta
    assert table.loc["on_expectation", "violation_rate"] > 10 * table.loc["hpucb", "violation_rate"]
    excluded = runs = 0
    for p in run.policies:
        out = run.policy_outputs(p)
        excluded += int((~(out["true_in_r"].all(axis=1) & out["true_in_c"].all(axis=1))).sum())
        runs += out["true_in_r"].shape[0]
    assert excluded <= s.delta_prime * runs
    assert (table["true_excluded_rate"] <= s.delta_prime).all()
    assert (table["set_c_final"] <= 2).all() and (table["set_r_final"] <= 2).all()  # the sets do shrink


def test_violation_rate_and_true_functions_kept(stat_run):
    check_guarantees(stat_run)


@pytest.mark.slow
def test_violation_rate_and_true_functions_kept_long():
    """The paper's scale: 20 seeds × 10⁴ rounds."""
    check_guarantees(families.run(dataclasses.replace(STAT, T=10_000, policies=("hpucb", "on_expectation")), "cpu"))


def test_family_run_is_run_on_table_of_the_drawn_stream(stat_run):
    table = draw_table(STAT, seed_index=3, T=500)
    members_r, members_c, r_star, c_star = draw_classes(STAT)
    assert (table["r_star"], table["c_star"]) == (r_star, c_star)
    np.testing.assert_allclose(table["Fr"][:, 7], members_r.theta @ table["X"][7], rtol=0, atol=1e-12)
    np.testing.assert_allclose(table["Fc"][:, 7], members_c.theta @ table["X"][7], rtol=0, atol=1e-12)
    got = run_on_table("hpucb", table["Fr"], table["Fc"], table["xi_r"], table["xi_c"], r_star, c_star,
                       tau=STAT.tau, delta=STAT.delta, delta_prime=STAT.delta_prime, kappa_r=STAT.kappa_r,
                       kappa_c=STAT.kappa_c)
    out = stat_run.policy_outputs("hpucb")
    for k in ("alpha", "est_upper", "cost", "regret", "set_r", "set_c", "fit_r", "fit_c"):
        np.testing.assert_allclose(got[k], out[k][3, :500], rtol=0, atol=1e-12, err_msg=k)


def test_class_curves_agree_with_the_run(stat_run):
    for policy in ("hpucb", "eps_greedy"):
        out = stat_run.policy_outputs(policy)
        for t in (1, 5, 12):
            c = class_curves(STAT, 2, t, 31, policy=policy, run=stat_run, direction=np.ones(STAT.d))
            assert c["values"].shape == (STAT.size, 31) and c["grid"].shape == (31,)
            assert np.abs(c["values"]).max() <= 1.0 and c["in_set"][c["true"]]
            assert c["set_size"] == out["set_c"][2, t - 1] and c["fit"] == out["fit_c"][2, t - 1]
    from_run = class_curves(STAT, 2, 12, 31, policy="hpucb", run=stat_run)
    fresh = class_curves(STAT, 2, 12, 31, policy="hpucb")  # its own one-seed run
    np.testing.assert_array_equal(fresh["in_set"], from_run["in_set"])
    np.testing.assert_array_equal(fresh["values"], from_run["values"])
    with pytest.raises(SettingsError):
        class_curves(STAT, 0, STAT.T + 1)


@pytest.mark.parametrize("kind", ["linear-grid", "logistic", "mlp"])
def test_built_in_classes_are_data_from_the_base_seed(kind):
    s = NonlinearSettings(function_class=kind, size=32, d=4, hidden=6, base_seed=9)
    members_r, members_c, r_star, c_star = draw_classes(s)
    again = draw_classes(s)
    other = draw_classes(dataclasses.replace(s, base_seed=10))
    for a, b, c in zip(jax.tree.leaves(members_r), jax.tree.leaves(again[0]), jax.tree.leaves(other[0]), strict=True):
        assert a.shape[0] == 32
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)
    assert 0 <= r_star < 32 and 0 <= c_star < 32 and (r_star, c_star) == again[2:]
    X = np.random.default_rng(0).normal(size=(40, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    values = np.stack([np.asarray(classes.evaluate(kind, classes.cast(members_c, jnp.float64), x)) for x in X], 1)
    assert values.shape == (32, 40) and np.abs(values).max() <= 1.0
    assert values.std(axis=1).mean() > 0.1  # the members do vary with the context


# ---------------------------------------------------------------- padding to compiled widths
@pytest.mark.parametrize("policy", ["hpucb", "eps_greedy"])
@pytest.mark.parametrize("n_r,n_c,width", [(5, 3, 8), (8, 8, 16), (1, 2, 64)])
def test_run_on_table_padded_with_members_is_the_same_run(policy, n_r, n_c, width):
    """Never-chosen members after the true ones change no fit, set, dose or count."""
    rng = np.random.default_rng(10 * n_r + n_c)
    Fr, Fc = rng.uniform(-1, 1, (n_r, T_TABLE)), rng.uniform(-1, 1, (n_c, T_TABLE))
    xr, xc = 0.3 * rng.normal(size=T_TABLE), 0.3 * rng.normal(size=T_TABLE)
    r_star, c_star = n_r - 1, n_c - 1
    own = run_on_table(policy, Fr, Fc, xr, xc, r_star, c_star, seed=2, **NUMBERS)
    padded = run_on_table(policy, Fr, Fc, xr, xc, r_star, c_star, seed=2, width=width, **NUMBERS)
    for k in OUTPUT_KEYS:
        # Exact: the losses are per-member running sums over rounds, the fit an argmin, the set a max (no sum
        # across members), so extra members cannot reorder anything.
        np.testing.assert_array_equal(padded[k], own[k], err_msg=k)
    assert padded["fit_r"].max() < n_r and padded["set_c"].max() <= n_c
    assert_same(own, np_reference(policy, Fr, Fc, xr, xc, r_star, c_star, coins(2, T_TABLE), **NUMBERS))
    with pytest.raises(SettingsError) as err:
        run_on_table(policy, Fr, Fc, xr, xc, r_star, c_star, width=max(n_r, n_c) - 1, **NUMBERS)
    assert err.value.field == "width"


@pytest.mark.parametrize("kind", ["linear-grid", "logistic", "mlp"])
def test_padded_members_keep_their_values(kind):
    """Zero coordinates and zero hidden units change no member's value (up to the last bit: XLA's code for a
    longer array may group a sum or vectorise tanh differently); padded members are 0 everywhere."""
    s = NonlinearSettings(function_class=kind, size=12, d=5, hidden=5)
    members, _, _, _ = draw_classes(s)
    X = np.random.default_rng(1).normal(size=(50, 5))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    values = jax.jit(jax.vmap(lambda m, x: classes.evaluate(kind, m, x), in_axes=(None, 0)))
    want = np.asarray(values(classes.cast(members, jnp.float64), jnp.asarray(X)))
    padded = classes.pad(kind, members, 16, 8, 8)
    got = np.asarray(values(classes.cast(padded, jnp.float64), jnp.asarray(np.pad(X, [(0, 0), (0, 3)]))))
    assert all(v.shape[0] == 16 for v in jax.tree.leaves(padded))
    assert_close_sum(got[:, :12], want, 8 + 8)  # a sum over 8 coordinates, then one over 8 hidden units
    np.testing.assert_array_equal(got[:, 12:], 0.0)


PADDED = [NonlinearSettings(function_class="logistic", size=20, d=5, T=300, seeds=2, tau=0.1),
          NonlinearSettings(function_class="mlp", size=12, d=3, hidden=6, T=300, seeds=2, tau=0.1)]


@pytest.mark.parametrize("s", PADDED, ids=lambda s: s.function_class)
def test_padded_family_run_is_run_on_table_of_the_drawn_stream(s):
    """|F|, d and the hidden width off their buckets: the padded run is the unpadded replay of its stream,
    and the public tables and curves keep the true sizes."""
    run = families.run(s, "cpu")
    table = draw_table(s, seed_index=1)
    members_r, members_c, r_star, c_star = draw_classes(s)
    assert table["X"].shape == (s.T, s.d) and table["Fr"].shape == table["Fc"].shape == (s.size, s.T)
    X = jnp.asarray(table["X"][:40])
    for F, members in ((table["Fr"], members_r), (table["Fc"], members_c)):
        want = np.stack([np.asarray(classes.evaluate(s.function_class, classes.cast(members, jnp.float64), x))
                         for x in X], 1)
        np.testing.assert_allclose(F[:, :40], want, rtol=0, atol=1e-12)
    for policy in ("hpucb", "on_expectation"):
        out = run.policy_outputs(policy)
        got = run_on_table(policy, table["Fr"], table["Fc"], table["xi_r"], table["xi_c"], r_star, c_star,
                           tau=s.tau, delta=s.delta, delta_prime=s.delta_prime, kappa_r=s.kappa_r, kappa_c=s.kappa_c)
        for k in OUTPUT_KEYS:
            np.testing.assert_allclose(got[k], out[k][1], rtol=0, atol=1e-12, err_msg=k)
        assert out["fit_r"].max() < s.size and out["fit_c"].max() < s.size and out["set_c"].max() <= s.size
        assert out["set_c"][:, -1].max() < s.size  # the sets shrink: the comparison covers more than the whole class
        c = class_curves(s, 1, 50, 21, policy=policy, run=run)
        assert c["values"].shape == (s.size, 21) and c["in_set"].shape == c["distance"].shape == (s.size,)
        assert c["direction"].shape == (s.d,)
        assert c["set_size"] == out["set_c"][1, 49] and c["fit"] == out["fit_c"][1, 49]


def test_moving_sizes_inside_a_bucket_reuses_the_model():
    """d = 5..8, |F| = 33..64 and hidden = 5..8 share one compiled model; the next bucket is another."""
    family = families.get("nonlinear")
    base = NonlinearSettings(function_class="mlp", size=40, d=5, hidden=5)
    model = family.model(base, "float64")
    for change in [dict(d=6), dict(d=7), dict(d=8), dict(size=33), dict(size=64), dict(hidden=8),
                   dict(d=8, size=50, hidden=7)]:
        assert family.model(dataclasses.replace(base, **change), "float64") is model, change
    for change in [dict(d=9), dict(size=65), dict(hidden=9), dict(d=4)]:
        assert family.model(dataclasses.replace(base, **change), "float64") is not model, change


def test_registry_and_settings_errors():
    assert families.get("nonlinear") is FAMILY and families.of(STAT) is FAMILY
    for change, field in [(dict(size=0), "size"), (dict(size=5000), "size"), (dict(function_class="rbf"),
                                                                              "function_class"),
                          (dict(hidden=0), "hidden"), (dict(eps=1.5), "eps"), (dict(policies=("x",)), "policy")]:
        with pytest.raises(SettingsError) as err:
            NonlinearSettings(**change).validate()
        assert err.value.field == field


# ---------------------------------------------------------------- (iv) the command line
@pytest.fixture
def nl_cli(monkeypatch, capsys):
    """``python -m safebandit_core nonlinear ...`` in this process (compiled functions are shared)."""
    monkeypatch.setattr(cli, "commands", only_command("nonlinear"))

    def call(*args):
        try:
            code = cli.main(["nonlinear", *args])
        except SystemExit as stop:
            code = stop.code
        out = capsys.readouterr()
        return code, out.out, out.err

    return call


def test_cli_json_contract(nl_cli, stat_run, tmp_path):
    path = tmp_path / "run.parquet"
    code, out, err = nl_cli(*STAT_ARGS, "--json", "--out", str(path))
    assert code == 0, err
    doc = json.loads(out)
    assert len(doc["rows"]) == 3 and doc["precision"] == "float64" and doc["device"].startswith("cpu")
    assert doc["settings"]["function_class"] == "linear-grid" and doc["settings"]["size"] == 64
    table = M.summary(stat_run).set_index("policy")
    for row in doc["rows"]:
        row = {**doc, **row}
        for key in ("violation_rate", "violation_rate_ci95", "cum_regret_mean", "cum_regret_std", "set_r_final",
                    "set_c_final", "seconds", "device", "precision", "settings"):
            assert key in row
        lo, hi = row["violation_rate_ci95"]
        assert 0.0 <= lo <= row["violation_rate"] <= hi <= 1.0
        assert row["cum_regret_mean"] == pytest.approx(table.loc[row["policy"], "cum_regret_mean"], rel=1e-12)
    frame = pd.read_parquet(path)
    assert len(frame) == 3 * 20 * 2000
    assert {"policy", "seed", "t", "alpha", "set_c", "fit_c", "true_in_c", "cum_regret"} <= set(frame.columns)


def test_cli_one_policy_text(nl_cli):
    code, out, err = nl_cli("--class", "mlp", "--size", "8", "--d", "2", "--T", "30", "--seeds", "2")
    assert code == 0, err
    assert "violation_rate" in out and "set_c_final" in out and "mlp" in out


@pytest.mark.parametrize(
    "args,flag,allowed",
    [
        (["--size", "0"], "--size", "[1, 4096]"),
        (["--size", "5000"], "--size", "[1, 4096]"),
        (["--class", "rbf"], "--class", "linear-grid"),
        (["--hidden", "0"], "--hidden", "[1, 256]"),
        (["--tau", "0"], "--tau", "> 0"),
        (["--delta", "1"], "--delta", "(0, 1)"),
        (["--delta-prime", "0"], "--delta-prime", "(0, 1)"),
        (["--noise", "-0.1"], "--noise", ">= 0"),
        (["--T", "0"], "--T", "[1, 1000000]"),
        (["--eps", "2"], "--eps", "[0, 1]"),
        (["--policy", "thompson"], "--policy", "hpucb"),
        (["--g", "sigmoid"], "--g", "linear"),
        (["--out", "x.txt"], "--out", ".csv"),
        (["--size", "abc"], "--size", "int"),
        (["--device", "tpu"], "--device", "cpu"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(nl_cli, args, flag, allowed):
    code, out, err = nl_cli(*args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert flag in lines[0] and allowed in lines[0]
    assert "Traceback" not in err and out == ""
