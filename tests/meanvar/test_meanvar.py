"""MV-CUCB and MV-UCB (One-size-fits-all §4): exact agreement with an independent NumPy implementation,
the sample-path constraint under ρ > 2/(α μ₀), the incremental path statistics, the family (both
policies in one scan, chunks, grids, frames and summary), and the ``mv`` command line."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from safebandit_core import cli, families, jsondoc, model, runner
from safebandit_core.meanvar import (
    FAMILY,
    MVSettings,
    arm_means,
    arm_table,
    assumption_ok,
    assumption_text,
    baseline_regret,
    run_on_stream,
)
from safebandit_core.meanvar import family as mvf
from safebandit_core.meanvar.env import Obs, draw_bernoulli, make_env
from safebandit_core.meanvar.policies import make_policy
from safebandit_core.settings import SettingsError, from_dict, to_dict
from safebandit_core.shapes import bucket
from tests.conftest import ROOT
from tests.support import assert_close_sum, only_command

T_EXACT = 300


def reference(policy, table, alpha, mu0, rho, means, variances):
    """MV-CUCB / MV-UCB and the eq. (4) regret, written plainly over rounds in float64.

    Path statistics re-scan the path with np.mean/np.var; arm statistics use np.mean/np.var of
    each arm's (sorted) rewards; the regret is eq. (4)'s double sum over every pair of arms.
    """
    T, K = table.shape
    arm_rewards = [[] for _ in range(K)]
    path = []
    counts = np.zeros(K + 1)  # index 0: the default arm, then arms 0..K-1
    mu_all = np.concatenate([[mu0], means])
    mv_all = np.concatenate([[rho * mu0], rho * means - variances])
    best = mv_all[1:].max()
    m = 0
    actions, slack, mv_path, cum = [], [], [], []
    for t in range(1, T + 1):
        if policy == "mvcucb":
            prev = 0.0 if t == 1 else (t - 1) * (rho * np.mean(path) - np.var(path))
            explore = prev - 2.0 >= (1.0 - alpha) * rho * mu0 * t
        else:
            explore = True
        if explore:
            m += 1
            log_term = np.log(12.0 * K * m**3) if policy == "mvcucb" else np.log(float(T) ** 2)
            index = np.full(K, np.inf)
            for i in range(K):
                if arm_rewards[i]:
                    x = np.sort(np.asarray(arm_rewards[i]))
                    index[i] = rho * x.mean() - x.var() + (5.0 + rho) * np.sqrt(log_term / (2.0 * len(x)))
            a = int(np.argmax(index))
            r = float(table[t - 1, a])
            arm_rewards[a].append(r)
        else:
            a, r = -1, mu0
        path.append(r)
        counts[a + 1] += 1
        mv = rho * np.mean(path) - np.var(path)
        gaps = float(np.sum(counts * (best - mv_all)))
        risk = 0.0
        for x in range(K + 1):
            for y in range(K + 1):
                if y != x:
                    risk += counts[x] * counts[y] * (mu_all[x] - mu_all[y]) ** 2
        actions.append(a)
        slack.append(t * mv - (1.0 - alpha) * rho * mu0 * t)
        mv_path.append(mv)
        cum.append(gaps + 2.0 / t * risk)
    cum = np.asarray(cum)
    return {"action": np.asarray(actions), "slack": np.asarray(slack), "mv_path": np.asarray(mv_path),
            "cum_regret": cum, "regret": np.diff(cum, prepend=0.0), "path": np.asarray(path)}


def random_case(seed: int, kind: str, K: int):
    rng = np.random.default_rng(seed)
    means = rng.uniform(0.1, 0.9, K)
    if kind == "bernoulli":
        table = (rng.random((T_EXACT, K)) < means).astype(np.float64)
        variances = None
    else:
        table = rng.uniform(0.0, 1.0, (T_EXACT, K)) * means * 2 / (1 + means)
        variances = rng.uniform(0.0, 0.25, K)
    alpha = float(rng.uniform(0.05, 0.4))
    mu0 = float(rng.uniform(0.3, 0.9))
    rho = float(rng.uniform(1.0, 3.0) * 2.0 / (alpha * mu0)) if seed % 2 else float(rng.uniform(1.0, 20.0))
    return table, dict(alpha=alpha, mu0=mu0, rho=rho, means=means, variances=variances)



@pytest.mark.parametrize("policy", ["mvcucb", "mvucb"])
@pytest.mark.parametrize("case", [(0, "bernoulli", 3), (1, "bernoulli", 5), (2, "uniform", 3),
                                  (3, "uniform", 5), (5, "bernoulli", 5)])
def test_exact_agreement_with_numpy(policy, case):
    table, kw = random_case(*case)
    got = run_on_stream(policy, table, **kw)
    variances = kw["variances"] if kw["variances"] is not None else kw["means"] * (1 - kw["means"])
    want = reference(policy, table, kw["alpha"], kw["mu0"], kw["rho"], kw["means"], variances)
    assert tuple(got) == ("action", "default", "reward", "slack", "mv_path", "regret", "cum_regret")
    np.testing.assert_array_equal(got["action"], want["action"])
    np.testing.assert_array_equal(got["default"], want["action"] == -1)
    np.testing.assert_array_equal(got["reward"], want["path"])
    for f in ("slack", "mv_path", "regret", "cum_regret"):
        assert got[f].dtype == np.float64
        np.testing.assert_allclose(got[f], want[f], rtol=1e-12, atol=1e-9, err_msg=f)
    np.testing.assert_allclose(np.cumsum(got["regret"]), got["cum_regret"], rtol=1e-12, atol=1e-9)


def test_incremental_path_statistics_match_direct_computation():
    rng = np.random.default_rng(7)
    means = np.linspace(0.8, 0.2, 5)
    table = (rng.random((T_EXACT, 5)) < means).astype(np.float64)
    alpha, mu0, rho = 0.1, 0.7, 40.0
    for policy in ("mvcucb", "mvucb"):
        got = run_on_stream(policy, table, alpha=alpha, mu0=mu0, rho=rho, means=means)
        path = got["reward"]
        t = np.arange(1, len(path) + 1)
        direct = np.array([rho * np.mean(path[:k]) - np.var(path[:k]) for k in t])
        np.testing.assert_allclose(got["mv_path"], direct, rtol=0, atol=1e-9)
        np.testing.assert_allclose(got["slack"], t * direct - (1 - alpha) * rho * mu0 * t, rtol=1e-12, atol=1e-8)
        np.testing.assert_array_equal(path[got["default"]], mu0)
        played = ~got["default"]
        np.testing.assert_array_equal(path[played], table[t[played] - 1, got["action"][played]])


def test_round_one_default_and_mvucb_index_order():
    table, kw = random_case(4, "bernoulli", 3)
    K = table.shape[1]
    cucb = run_on_stream("mvcucb", table, **kw)
    assert cucb["action"][0] == -1 and cucb["default"][0] and cucb["reward"][0] == kw["mu0"]
    ucb = run_on_stream("mvucb", table, **kw)
    np.testing.assert_array_equal(ucb["action"][:K], np.arange(K))
    assert not ucb["default"].any()


def test_float32_table_runs_in_float32():
    table, kw = random_case(0, "bernoulli", 3)
    got = run_on_stream("mvcucb", table.astype(np.float32), **kw)
    assert got["slack"].dtype == np.float32 and got["cum_regret"].dtype == np.float32


def test_means_default_to_bernoulli_variance_and_column_statistics():
    table, kw = random_case(1, "bernoulli", 5)
    a = run_on_stream("mvucb", table, alpha=kw["alpha"], mu0=kw["mu0"], rho=kw["rho"], means=kw["means"])
    b = run_on_stream("mvucb", table, alpha=kw["alpha"], mu0=kw["mu0"], rho=kw["rho"], means=kw["means"],
                      variances=kw["means"] * (1 - kw["means"]))
    np.testing.assert_array_equal(a["cum_regret"], b["cum_regret"])
    c = run_on_stream("mvucb", table, alpha=kw["alpha"], mu0=kw["mu0"], rho=kw["rho"])
    d = run_on_stream("mvucb", table, alpha=kw["alpha"], mu0=kw["mu0"], rho=kw["rho"], means=table.mean(0),
                      variances=table.var(0))
    np.testing.assert_array_equal(c["cum_regret"], d["cum_regret"])


@pytest.mark.parametrize("kwargs, field", [
    (dict(policy="ucb"), "policy"),
    (dict(alpha=1.0), "alpha"),
    (dict(alpha=0.0), "alpha"),
    (dict(mu0=0.0), "mu0"),
    (dict(mu0=1.5), "mu0"),
    (dict(rho=-1.0), "rho"),
    (dict(rewards=np.full((5, 3), 1.5)), "rewards"),
    (dict(rewards=np.zeros(5)), "rewards"),
    (dict(means=[0.5, 0.5]), "means"),
    (dict(variances=[0.1, 0.1, 0.1]), "variances"),
])
def test_invalid_arguments_name_the_argument(kwargs, field):
    args = dict(policy="mvcucb", rewards=np.zeros((5, 3)), alpha=0.1, mu0=0.7, rho=30.0)
    args.update(kwargs)
    with pytest.raises(SettingsError) as err:
        run_on_stream(args.pop("policy"), args.pop("rewards"), **args)
    assert err.value.field == field


def test_policy_functions_unjitted_match_the_scan():
    """The Policy and Env functions driven by a plain Python loop, without jit, give the scan's run."""
    table, kw = random_case(5, "bernoulli", 4)
    table = table[:60]
    means = kw["means"]
    env_p, (row,) = mvf.make_params(kw["alpha"], kw["mu0"], kw["rho"], len(table), means, means * (1 - means),
                                    np.float64, 1, table=table)
    p = jax.tree.map(lambda v: v[0], row)
    env = make_env("table")
    for policy in ("mvcucb", "mvucb"):
        want = run_on_stream(policy, table, **kw)
        pol = make_policy(policy, table.shape[1])
        with jax.disable_jit():
            state = pol.init(p)
            for t in range(len(table)):
                obs = env.draw(env_p, jax.random.PRNGKey(0), jnp.asarray(t))
                action, info = pol.act(p, state, obs)
                reward = env.feedback(env_p, (), obs, action)
                state = pol.update(p, state, obs, action, reward)
                out = {**env.report(env_p, (), obs, action, reward), **pol.report(p, state, action, info)}
                assert int(out["action"]) == want["action"][t]
                for f in ("reward", "slack", "mv_path", "regret"):
                    np.testing.assert_allclose(float(out[f]), want[f][t], rtol=1e-12, atol=1e-9, err_msg=f)


def test_assumption():
    assert assumption_ok(0.1, 0.7, 30.0) and not assumption_ok(0.05, 0.7, 10.0)
    assert "NOT guaranteed" in assumption_text(0.05, 0.7, 10.0) and "57.14" in assumption_text(0.05, 0.7, 10.0)
    assert "guaranteed" in assumption_text(0.1, 0.7, 30.0)
    assert FAMILY.warnings(MVSettings(alpha=0.1, mu0=0.7, rho=30.0)) == []
    (warning,) = FAMILY.warnings(MVSettings(alpha=0.05, mu0=0.7, rho=10.0))
    assert "NOT guaranteed" in warning and "57.14" in warning


PROP_T, PROP_SEEDS = 300, 48


@hsettings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(K=st.sampled_from([3, 24]), alpha=st.floats(0.04, 0.5), mu0=st.floats(0.1, 1.0),
       margin=st.floats(1e-3, 3.0), base_seed=st.integers(0, 10_000))
def test_slack_nonnegative_whenever_assumption_holds(K, alpha, mu0, margin, base_seed):
    rho = 2.0 / (alpha * mu0) * (1.0 + margin)
    s = MVSettings(policies=("mvcucb",), K=K, alpha=alpha, mu0=mu0, rho=rho, T=PROP_T, seeds=PROP_SEEDS,
                   base_seed=base_seed, precision="float64")
    assert assumption_ok(alpha, mu0, rho)
    out = families.run(s, device="cpu").policy_outputs("mvcucb")
    assert out["slack"].min() >= 0.0
    assert out["default"][:, 0].all()


def small_settings(**kw):
    base = dict(K=5, alpha=0.1, mu0=0.7, rho=30.0, T=PROP_T, seeds=4, precision="float64")
    base.update(kw)
    return MVSettings(**base).validate()


def test_registry_and_kind():
    s = small_settings()
    assert families.get("mv") is FAMILY and families.of(s) is FAMILY and FAMILY.kind == MVSettings.KIND == "meanvar"
    assert FAMILY.policies(s) == ("mvcucb", "mvucb") and FAMILY.label("mvcucb") == "MV-CUCB"
    assert [a.field for a in FAMILY.axes] == ["alpha", "rho"] and set(FAMILY.traced) >= {"alpha", "rho"}
    mv_star = float(np.max(s.rho * arm_means(s.K) - arm_means(s.K) * (1 - arm_means(s.K))))
    assert baseline_regret(s) == pytest.approx(mv_star - (1 - s.alpha) * s.rho * s.mu0)


def test_simulation_streams_match_stream_runs_and_common_numbers():
    s = small_settings()
    run = families.run(s, device="cpu")
    env_p, _ = FAMILY.params(s, "float64")
    keys = runner.seed_keys(s.base_seed, s.seeds)
    for seed in (0, s.seeds - 1):
        obs = jax.vmap(draw_bernoulli, in_axes=(None, None, 0))(env_p, keys[seed], jnp.arange(s.T))
        assert isinstance(obs, Obs)
        table = np.asarray(obs.outcomes)[:, : s.K]  # the padded arms of the compiled width left out
        for policy in s.policies:
            ref = run_on_stream(policy, table, alpha=s.alpha, mu0=s.mu0, rho=s.rho, means=arm_means(s.K))
            out = run.policy_outputs(policy)
            np.testing.assert_array_equal(out["action"][seed], ref["action"])
            for f in ("slack", "cum_regret"):
                np.testing.assert_allclose(out[f][seed], ref[f], rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_both_policies_in_one_scan_equal_each_alone(precision):
    s = small_settings(precision=precision, base_seed=11)
    both = families.run(s, device="cpu")
    assert both.policies == ("mvcucb", "mvucb")
    for policy in s.policies:
        alone = families.run(dataclasses.replace(s, policies=(policy,)), device="cpu")
        assert alone.policies == (policy,)
        got, want = both.policy_outputs(policy), alone.policy_outputs(policy)
        assert set(got) == set(want)
        for f in want:  # another scan body may group the sum over arms differently: counts exact, floats close
            assert got[f].dtype == want[f].dtype
            if want[f].dtype.kind in "bi":
                np.testing.assert_array_equal(got[f], want[f], err_msg=f)
            else:
                assert_close_sum(got[f], want[f], s.T * bucket(s.K), precision, scale=s.rho * s.T, err_msg=f)


def test_chunked_grid_sweep_agrees_with_single_runs():
    s = small_settings()
    full = families.run(s, device="cpu")
    other = families.run(dataclasses.replace(s, alpha=0.2, rho=60.0), device="cpu")
    cells = [{"alpha": s.alpha, "rho": s.rho}, {"alpha": 0.2, "rho": 60.0}]
    runs = list(families.simulate(s, device="cpu", chunk=s.T // 2, cells=cells))
    assert [r.t_done for r in runs] == [s.T // 2, s.T] and runs[-1].done
    np.testing.assert_array_equal(runs[0].raw["action"][0], full.raw["action"][:, :, : s.T // 2])
    grid = runs[-1].raw
    for k in full.raw:
        assert grid[k].shape == (2, len(s.policies), s.seeds, s.T)
        for g, single in enumerate((full, other)):
            if grid[k].dtype.kind == "f":
                np.testing.assert_allclose(grid[k][g], single.raw[k], rtol=1e-12, atol=1e-9)
            else:
                np.testing.assert_array_equal(grid[k][g], single.raw[k])
    with pytest.raises(SettingsError):
        next(families.simulate(s, device="cpu", cells=[{"K": 3}]))


def test_frames_summary_and_arm_table():
    s = small_settings()
    run = families.run(s, device="cpu")
    frame = families.tidy(run)
    assert list(frame.columns[:5]) == ["kind", "policy", "label", "seed", "t"]
    assert {"action", "default", "reward", "slack", "mv_path", "regret", "cum_regret", "default_pulls",
            "baseline"} <= set(frame.columns)
    assert len(frame) == len(s.policies) * s.seeds * s.T
    last = frame[frame.t == s.T]
    np.testing.assert_allclose(last.baseline, (1 - s.alpha) * s.rho * s.mu0 * s.T)
    summ = families.summary(run).set_index("policy")
    assert list(summ.columns[: len(model.SUMMARY_COLUMNS) - 1]) == [c for c in model.SUMMARY_COLUMNS if c != "policy"]
    for policy in s.policies:
        rows = last[last.policy == policy]
        assert summ.loc[policy, "cum_regret_mean"] == pytest.approx(rows.cum_regret.mean(), rel=1e-12)
        assert summ.loc[policy, "cum_regret_std"] == pytest.approx(rows.cum_regret.std(ddof=1), rel=1e-9)
        assert summ.loc[policy, "cum_regret_min"] == pytest.approx(rows.cum_regret.min(), rel=1e-12)
        assert summ.loc[policy, "cum_regret_max"] == pytest.approx(rows.cum_regret.max(), rel=1e-12)
        assert summ.loc[policy, "default_pulls_mean"] == pytest.approx(rows.default_pulls.mean())
        assert summ.loc[policy, "min_slack"] == pytest.approx(frame[frame.policy == policy].slack.min())
        assert summ.loc[policy, "t_done"] == s.T and summ.loc[policy, "assumption_ok"]
    assert summ.loc["mvcucb", "min_slack"] >= 0 and summ.loc["mvucb", "default_pulls_mean"] == 0
    arms = arm_table(run)
    assert len(arms) == s.K + 1 and arms.arm.iloc[0] == -1 and arms["variance"].iloc[0] == 0
    np.testing.assert_allclose(arms["mean"].iloc[1:], np.linspace(0.8, 0.2, s.K))
    np.testing.assert_allclose(arms.mv, s.rho * arms["mean"] - arms["variance"])
    for policy in s.policies:
        assert arms[f"pulls_{policy}"].sum() == pytest.approx(s.T)


def test_arm_table_of_a_grid_cell():
    s = small_settings()
    grid = families.run(s, device="cpu", cells=[{"alpha": 0.1, "rho": 30.0}, {"alpha": 0.2, "rho": 60.0}])
    single = families.run(dataclasses.replace(s, alpha=0.2, rho=60.0), device="cpu")
    arms = arm_table(grid, cell=1)
    np.testing.assert_allclose(arms.mv, 60.0 * arms["mean"] - arms["variance"])
    for policy in s.policies:
        np.testing.assert_array_equal(arms[f"pulls_{policy}"], arm_table(single)[f"pulls_{policy}"])


@pytest.mark.parametrize("change, field", [
    (dict(K=0), "K"), (dict(alpha=1.2), "alpha"), (dict(mu0=2.0), "mu0"), (dict(rho=0.0), "rho"),
    (dict(T=0), "T"), (dict(seeds=0), "seeds"), (dict(base_seed=-3), "base_seed"),
    (dict(policies=("mvcucb", "x")), "policies"), (dict(policies=()), "policies"), (dict(precision="f16"), "precision"),
])
def test_settings_validation_names_field(change, field):
    with pytest.raises(SettingsError) as err:
        dataclasses.replace(MVSettings(), **change).validate()
    assert err.value.field == field and field in str(err.value)


def test_settings_round_trip():
    s = MVSettings(K=7, rho=12.5)
    data = json.loads(json.dumps(to_dict(s)))
    assert data["kind"] == "meanvar" and from_dict(MVSettings, data) == s
    saved = {"kind": "mv", "policies": ["mvcucb", "mvucb"], "K": 24, "alpha": 0.05, "mu0": 0.7, "rho": 10.0,
             "T": 10000, "seeds": 50, "base_seed": 0, "precision": None}
    assert from_dict(MVSettings, saved) == MVSettings(alpha=0.05, rho=10.0, seeds=50)


@pytest.fixture
def mv_router(monkeypatch):
    """The command-line router with only the ``mv`` command, so this file tests that command alone."""
    monkeypatch.setattr(cli, "commands", only_command("meanvar"))
    return cli.main


ROUTER_SCRIPT = ("import sys; from safebandit_core import cli; only = {'meanvar': cli.commands()['meanvar']}; "
                 "cli.commands = lambda: only; sys.exit(cli.main(sys.argv[1:]))")


def run_cli(*args):
    """``mv`` in a fresh process through the router (with only the ``mv`` command, see :func:`mv_router`)."""
    return subprocess.run([sys.executable, "-c", ROUTER_SCRIPT, "meanvar", *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_cli_json_contract(mv_router, capfd):
    """In this process (its compiled functions reused), stdout read at the file-descriptor level as a process's."""
    code = mv_router(["meanvar", "--policy", "mvcucb", "--K", "5", "--alpha", "0.1", "--mu0", "0.7", "--rho", "30",
                      "--T", "200", "--seeds", "3", "--device", "cpu", "--json"])
    out, err = capfd.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert jsondoc.problems(data) == []
    assert {"K", "T", "seeds", "base_seed", "alpha", "mu0", "rho", "assumption_ok", "assumption", "seconds", "device",
            "precision", "kind", "settings"} <= set(data)
    (row,) = data["rows"]
    assert {"policy", "label", "default_pulls_mean", "cum_regret_mean", "cum_regret_std", "cum_regret_ci95",
            "cum_regret_min", "cum_regret_max", "min_slack", "constraint_held"} <= set(row)
    assert row["policy"] == "mvcucb" and data["T"] == 200 and data["seeds"] == 3
    assert data["assumption_ok"] is True and row["min_slack"] >= 0 and row["default_pulls_mean"] >= 1
    assert row["constraint_held"] is True and data["precision"] == "float64"


def test_cli_numbers_are_the_family_run(mv_router, capsys):
    assert mv_router(["meanvar", "--policy", "mvucb", "--K", "4", "--T", "150", "--seeds", "3", "--base-seed", "5",
                      "--device", "cpu", "--precision", "float64", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    s = MVSettings(policies=("mvucb",), K=4, T=150, seeds=3, base_seed=5, precision="float64")
    row = families.summary(families.run(s, device="cpu")).iloc[0]
    for k in ("default_pulls_mean", "cum_regret_mean", "cum_regret_std", "cum_regret_min", "min_slack"):
        assert data["rows"][0][k] == pytest.approx(row[k], rel=1e-12), k
    assert data["rows"][0]["cum_regret_ci95"] == pytest.approx([row["cum_regret_lo"], row["cum_regret_hi"]])


def test_cli_text_warns_when_assumption_fails(tmp_path, capsys, mv_router):
    out = tmp_path / "mv.csv"
    rc = mv_router(["meanvar", "--K", "3", "--alpha", "0.05", "--rho", "10", "--T", str(PROP_T), "--seeds",
                    str(PROP_SEEDS), "--device", "cpu", "--precision", "float64", "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "NOT guaranteed" in text and "2/(α·μ₀) = 57.14" in text and "{" not in text
    assert len(out.read_text().splitlines()) == 1 + PROP_SEEDS * PROP_T


@pytest.mark.parametrize("argv, flag", [
    (["--alpha", "1.5"], "--alpha"),
    (["--K", "x"], "--K"),
])
def test_cli_bad_input_subprocess(argv, flag):
    proc = run_cli(*argv)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and "Traceback" not in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize("argv, flag, allowed", [
    (["--rho", "-1"], "--rho", "> 0"),
    (["--mu0", "1.5"], "--mu0", "(0, 1]"),
    (["--K", "0"], "--K", "[1, 1000]"),
    (["--T", "0"], "--T", "[1, 10000000]"),
    (["--seeds", "0"], "--seeds", "[1, 10000]"),
    (["--base-seed", "-1"], "--base-seed", "[0,"),
    (["--out", "x.txt"], "--out", ".csv"),
    (["--policy", "ucb"], "--policy", "mvcucb"),
])
def test_cli_bad_input_in_process(argv, flag, allowed, capsys, mv_router):
    try:
        rc = mv_router(["meanvar", *argv])
    except SystemExit as exc:
        rc = exc.code
    captured = capsys.readouterr()
    assert rc == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and allowed in lines[0]


def test_a_run_too_large_for_memory_is_a_settings_error_naming_T():
    with pytest.raises(SettingsError) as err:
        next(families.simulate(MVSettings(T=10_000_000, seeds=10_000)))
    assert err.value.field == "T" and "at most about" in err.value.allowed


@pytest.mark.parametrize("policy", ["mvcucb", "mvucb"])
@pytest.mark.parametrize("case,width", [((1, "bernoulli", 5), 8), ((2, "uniform", 3), 4), ((3, "uniform", 5), 11)])
def test_padded_arms_change_nothing(policy, case, width):
    """The same table at its own width and padded with never-played arms: the same run."""
    table, kw = random_case(*case)
    plain = run_on_stream(policy, table, **kw)
    padded = run_on_stream(policy, table, width=width, **kw)
    for k, v in plain.items():  # wider sums over arms may be grouped differently; ρ·T bounds every running sum
        if v.dtype.kind in "bi":
            np.testing.assert_array_equal(padded[k], v, err_msg=k)
        else:
            assert_close_sum(padded[k], v, T_EXACT * width, scale=kw["rho"] * T_EXACT, err_msg=k)
    assert padded["action"].max() < table.shape[1]


def test_moving_k_inside_a_bucket_reuses_the_compiled_model():
    """K = 5…8 share the width-8 model, and the run is the replay of its own K-column stream."""
    fam = families.get("meanvar")
    assert len({id(fam.model(MVSettings(K=k), "float64")) for k in (5, 6, 7, 8)}) == 1
    s = MVSettings(K=6, T=300, seeds=1)
    st_ = fam.stream(s, 0)
    assert st_["rewards"].shape == (300, 6)
    got = families.run(s).outputs
    for i, policy in enumerate(s.policies):
        ref = fam.on_stream(s, policy, st_)
        np.testing.assert_array_equal(got["action"][i, 0], ref["action"])
        np.testing.assert_allclose(got["cum_regret"][i, 0], ref["cum_regret"], rtol=0, atol=1e-9)


@hsettings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base_seed=st.integers(0, 2**20), seeds=st.sampled_from([1, 1, 3]),
       precision=st.sampled_from(["float32", "float64"]), policy=st.sampled_from(["mvcucb", "mvucb"]))
def test_the_mean_lies_between_the_min_and_the_max(base_seed, seeds, precision, policy):
    """The summary's mean, min and max are of the same per-seed finals: one seed's mean is its value exactly (the
    float32 run once printed a mean above its max, the min and max being of the running sum cast to float32)."""
    s = MVSettings(policies=(policy,), K=24, T=2000, seeds=seeds, base_seed=base_seed, precision=precision)
    row = families.summary(families.run(s, device="cpu")).iloc[0]
    assert row["cum_regret_min"] <= row["cum_regret_mean"] <= row["cum_regret_max"]
    if seeds == 1:
        assert row["cum_regret_mean"] == row["cum_regret_min"] == row["cum_regret_max"]
