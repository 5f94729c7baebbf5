"""GenCB and its baselines on CMAB, CLB and CCCB (One-size-fits-all; ALGORITHMS.md §2, BASELINES.md §1–4).

- Exact agreement of ``run_on_stream`` with small NumPy float64 implementations written here from
  the spec (no core logic imported): identical actions, rewards to 1e-12, slack and regret to 1e-9.
- GenCB's slack is ≥ 0 at every round of every run (hypothesis), round 1 plays the default arm.
- Common random numbers: every policy in one scan gives exactly what it gives run alone.
- Compiled widths: a table padded with never-played arms (and zero feature coordinates) gives the
  same run; K and d inside one bucket share one compiled model, whose runs equal their replays.
- The family: registered, grids over its traced fields, derived and summary columns.
- Seed 001's CMAB instance: GenCB against ConUCB.
- The ``conservative`` command line: the JSON contract and one-line errors.

The references evaluate every constraint check in the form "all reward received so far ≥
(1 − α)·μ_0·t", both sides accumulated round by round (the same quantities as the spec's
``r_S + N_0·μ_0`` and ``(1 − α)·μ_0·t``; a separate assertion compares the reported slack with the
spec's product form).
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandit_core import families
from safebandit_core.conservative import (
    FAMILY,
    POLICIES,
    ConservativeSettings,
    describe_instance,
    make_instance,
    run_on_stream,
)
from safebandit_core.settings import SettingsError, from_dict, to_json
from tests.conftest import ROOT
from tests.support import assert_close_sum

UNCONSTRAINED = ("ucb", "linucb", "c2ucb")


# ----------------------------------------------------------------------------- NumPy references

def _top(scores: np.ndarray, size: int) -> list[int]:
    """Indices of the ``size`` largest scores, ties to the lowest index, sorted ascending."""
    return sorted(np.argsort(-scores, kind="stable")[:size].tolist())


def reference(problem, policy, table, *, alpha, mu0, means, arms=None, m=1, S=1.0, L=1.0, lam=1.0):
    """One run of the spec, round by round, in float64 (δ = 1/T)."""
    T, K = table.shape
    delta = 1.0 / T
    size = m if problem == "cccb" else 1
    X = np.eye(K) if arms is None else np.asarray(arms, float)
    d = X.shape[1]
    counts, sums = np.zeros(K), np.zeros(K)
    V, b = lam * np.eye(d), np.zeros(d)
    n_regular = 0
    total = bank0 = r_s = line = 0.0
    rate = (1 - alpha) * mu0
    best = np.sort(means)[::-1][:size].sum()
    out = {k: [] for k in ("action", "default", "reward", "slack", "regret", "super_arm")}
    for t in range(1, T + 1):
        line = line + rate  # (1 − α)·μ_0·t
        h = t if policy in UNCONSTRAINED else n_regular + 1  # A_S's horizon m
        if problem == "cmab" and policy in ("gencb", "ucb", "conucb"):
            pulled = counts > 0
            n = np.where(pulled, counts, 1.0)
            mean = np.where(pulled, sums / n, 0.0)
            if policy == "conucb":
                width = np.sqrt(2 * np.log(K * n ** 3 / delta) / n)
            else:
                width = np.sqrt(2 * np.log(h) / n)
            index = np.where(pulled, mean + width, np.inf)
            A = [int(np.argmax(index))]
            if policy == "gencb":
                go = total >= line
            elif policy == "ucb":
                go = True
            else:
                lcb = np.where(pulled, np.maximum(0.0, mean - width), 0.0)
                go = index[A[0]] > mu0 and bank0 + counts @ lcb + lcb[A[0]] >= line
        elif problem == "cmab":  # CLUCB, multi-armed specialization: V = diag(λ + N_i)
            diag = lam + counts
            mean, width = sums / diag, 1 / np.sqrt(diag)
            beta = np.sqrt(2 * np.log(1 / delta) + np.sum(np.log(diag)) - K * np.log(lam)) + np.sqrt(lam) * S
            ucb = mean + beta * width
            A = [int(np.argmax(ucb))]
            z = counts.copy()
            z[A[0]] += 1
            lower = mean @ z - beta * np.sqrt(np.sum(z * z / diag))
            go = ucb[A[0]] > mu0 and lower + bank0 >= line
        else:
            V_inv = np.linalg.inv(V)
            theta = np.linalg.solve(V, b)
            mean = X @ theta
            width = np.sqrt(np.einsum("kd,de,ke->k", X, V_inv, X))
            if policy in ("gencb", "linucb", "c2ucb"):
                scale = K if problem == "cccb" else 1
                beta = np.sqrt(d * np.log(2 * h * h * (1 + h * scale * L ** 2 / lam))) + np.sqrt(lam) * S
            else:
                logdet = np.linalg.slogdet(V)[1]
                beta = np.sqrt(2 * np.log(1 / delta) + logdet - d * np.log(lam)) + np.sqrt(lam) * S
            ucb = mean + beta * width
            A = _top(ucb, size)
            if policy == "gencb":
                go = total >= line
            elif policy in UNCONSTRAINED:
                go = True
            elif policy == "clucb":
                z = X.T @ counts + X[A[0]]
                go = ucb[A[0]] > mu0 and theta @ z - beta * np.sqrt(z @ V_inv @ z) + bank0 >= line
            elif policy == "clucb2":
                lcb = mean - beta * width
                M = math.sqrt(2 * (n_regular + 1) * math.log(math.sqrt(n_regular + 1) / delta))
                feasible = [i for i in range(K) if r_s - M + lcb[i] + bank0 - line >= 0]
                go = False
                if feasible:
                    j = max(feasible, key=lambda i: (ucb[i], -i))
                    A, go = [j], ucb[j] >= mu0
            else:  # C3UCB
                lo = np.maximum(0.0, mean - beta * width)
                go = sum(ucb[A]) >= mu0 and counts @ lo + sum(lo[A]) + bank0 >= line
        if go:
            reward = float(sum(table[t - 1, e] for e in A))
            for e in A:
                counts[e] += 1
                sums[e] += table[t - 1, e]
                V += np.outer(X[e], X[e])
                b += table[t - 1, e] * X[e]
            n_regular += 1
            r_s += reward
            played = sum(means[e] for e in A)
        else:
            reward, played = mu0, mu0
            bank0 += mu0
        total += reward
        out["action"].append(A[0] if go else -1)
        out["default"].append(not go)
        out["reward"].append(reward)
        out["slack"].append(total - line)
        out["regret"].append(best - played)
        out["super_arm"].append(A if go else [-1] * size)
    return {k: np.asarray(v) for k, v in out.items()}


# ----------------------------------------------------------------------------- instances

def _linear_instance(rng: np.random.Generator, K: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Arms with distinct norms ≤ 1 and θ* with ‖θ*‖ = 1, every ⟨x, θ*⟩ in [0, 1]."""
    u = rng.normal(size=(K, d - 1))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = rng.normal(size=d - 1)
    v /= np.linalg.norm(v)
    arms = rng.uniform(0.5, 1.0, (K, 1)) * np.hstack([np.ones((K, 1)), u]) / math.sqrt(2)
    theta = np.concatenate([[1.0], v]) / math.sqrt(2)
    return arms, theta


def _bernoulli(rng: np.random.Generator, means: np.ndarray, T: int) -> np.ndarray:
    return (rng.random((T, means.size)) < means).astype(np.float64)


T_EXACT = 400
CMAB_MEANS = np.array([0.55, 0.8, 0.35, 0.8, 0.6])  # arms 1 and 3 tie: lowest index must win


def _case(problem: str, scale: float = 1.0, seed: int = 7) -> dict:
    """A small instance; ``scale`` < 1 shrinks every mean (CMAB) or θ* (CLB, CCCB), so that x_0 is the
    best arm and the baselines' "x_0 is the optimistic choice" branch is taken too."""
    rng = np.random.default_rng(seed)
    if problem == "cmab":
        means = scale * CMAB_MEANS
        return dict(table=_bernoulli(rng, means, T_EXACT), means=means, kw={})
    K, d = (5, 3) if problem == "clb" else (6, 3)
    arms, theta = _linear_instance(rng, K, d)
    means = arms @ (scale * theta)
    kw = dict(arms=arms) if problem == "clb" else dict(arms=arms, m=2)
    return dict(table=_bernoulli(rng, means, T_EXACT), means=means, kw=kw)


CASES = [
    ("cmab", "gencb", 0.1, 0.6, 1.0), ("cmab", "ucb", 0.1, 0.6, 1.0), ("cmab", "conucb", 0.2, 0.5, 1.0),
    ("cmab", "conucb", 0.9, 0.97, 0.2), ("cmab", "clucb", 0.3, 0.4, 1.0),
    ("clb", "gencb", 0.05, 0.5, 1.0), ("clb", "linucb", 0.05, 0.5, 1.0), ("clb", "clucb", 0.2, 0.3, 1.0),
    ("clb", "clucb", 0.5, 0.9, 0.2), ("clb", "clucb2", 0.2, 0.3, 1.0), ("clb", "clucb2", 0.5, 0.9, 0.2),
    ("cccb", "gencb", 0.05, 0.9, 1.0), ("cccb", "c2ucb", 0.05, 0.9, 1.0), ("cccb", "c3ucb", 0.2, 0.6, 1.0),
    ("cccb", "c3ucb", 0.5, 1.5, 0.2),
]


def _assert_same(got: dict, want: dict) -> None:
    np.testing.assert_array_equal(got["action"], want["action"])
    np.testing.assert_array_equal(got["default"], want["default"])
    np.testing.assert_allclose(got["reward"], want["reward"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["slack"], want["slack"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(got["regret"], want["regret"], rtol=0, atol=1e-9)


# ----------------------------------------------------------------------------- exact agreement

@pytest.mark.parametrize("problem,policy,alpha,mu0,scale", CASES,
                         ids=[f"{p}-{q}-{a}-{m}" for p, q, a, m, _ in CASES])
def test_run_on_stream_matches_numpy_reference(problem, policy, alpha, mu0, scale):
    case = _case(problem, scale)
    got = run_on_stream(problem, policy, case["table"], alpha=alpha, mu0=mu0, means=case["means"], **case["kw"])
    ref_kw = {k: v for k, v in case["kw"].items()}
    if problem == "cmab":
        ref_kw["S"] = math.sqrt(CMAB_MEANS.size)  # the documented default bound for one-hot CLUCB
    want = reference(problem, policy, case["table"], alpha=alpha, mu0=mu0, means=case["means"], **ref_kw)
    _assert_same(got, want)
    if problem == "cccb":
        np.testing.assert_array_equal(got["super_arm"], np.stack(want["super_arm"]))
        assert np.all(got["action"] == got["super_arm"][:, 0])
    # Both branches are exercised: conservative policies play x_0 and regular arms.
    if policy in UNCONSTRAINED:
        assert not got["default"].any()
    else:
        assert got["default"].any() and not got["default"].all()
        assert got["default"][0], "round 1 plays the default arm"
    # The slack is the spec's r_S(t) + N_0(t)·μ_0 − (1 − α)·μ_0·t.
    t = np.arange(1, T_EXACT + 1)
    r_S = np.cumsum(np.where(got["default"], 0.0, got["reward"]))
    n0 = np.cumsum(got["default"])
    np.testing.assert_allclose(got["slack"], r_S + n0 * mu0 - (1 - alpha) * mu0 * t, rtol=0, atol=1e-9)
    if policy == "gencb":
        assert (got["slack"] >= 0).all()


def test_gencb_on_real_valued_outcomes():
    rng = np.random.default_rng(3)
    table = rng.uniform(0.0, 1.0, (300, 4)) * np.array([1.0, 0.9, 0.7, 0.5])
    means = np.array([0.5, 0.45, 0.35, 0.25])
    got = run_on_stream("cmab", "gencb", table, alpha=0.1, mu0=0.4, means=means)
    _assert_same(got, reference("cmab", "gencb", table, alpha=0.1, mu0=0.4, means=means))
    assert (got["slack"] >= 0).all() and got["default"][0]


def test_ties_go_to_the_lowest_index():
    table = np.ones((40, 3))
    got = run_on_stream("cmab", "ucb", table, alpha=0.1, mu0=0.5, means=np.array([1.0, 1.0, 1.0]))
    # Unpulled arms in index order, then exact ties between identical arms → arm 0 first.
    np.testing.assert_array_equal(got["action"][:4], [0, 1, 2, 0])


@pytest.mark.parametrize("kwargs,field", [
    (dict(problem="cmab", policy="linucb"), "policy"),
    (dict(problem="bandit", policy="gencb"), "problem"),
    (dict(problem="cmab", policy="gencb", alpha=1.0), "alpha"),
    (dict(problem="cmab", policy="gencb", mu0=0.0), "mu0"),
    (dict(problem="cmab", policy="gencb", means=None), "means"),
    (dict(problem="cmab", policy="gencb", rewards=np.ones(5)), "rewards"),
    (dict(problem="clb", policy="gencb"), "arms"),
    (dict(problem="cccb", policy="gencb", arms=np.ones((5, 2)), theta=np.ones(2), m=6), "m"),
    (dict(problem="cmab", policy="gencb", lam=0.5), "lam"),
])
def test_run_on_stream_rejects_bad_arguments(kwargs, field):
    args = dict(problem="cmab", policy="gencb", rewards=np.ones((10, 5)), alpha=0.1, mu0=0.5,
                means=np.full(5, 0.5))
    args.update(kwargs)
    problem, policy, rewards = args.pop("problem"), args.pop("policy"), args.pop("rewards")
    with pytest.raises(SettingsError) as err:
        run_on_stream(problem, policy, rewards, **args)
    assert err.value.field == field


# ----------------------------------------------------------------------------- safety property

@settings(max_examples=16, deadline=None)
@given(
    shape=st.sampled_from([("cmab", 3), ("clb", 4), ("cccb", 4)]),
    alpha=st.floats(0.005, 0.995),
    level=st.floats(0.02, 0.98),
    base_seed=st.integers(0, 10_000),
)
def test_gencb_slack_is_never_negative(shape, alpha, level, base_seed):
    problem, K = shape
    m = 2 if problem == "cccb" else 1
    s = ConservativeSettings(problem=problem, policies=("gencb",), K=K, d=3, m=2, alpha=alpha, mu0=level * m,
                             T=200, seeds=6, base_seed=base_seed, precision="float64")
    out = families.run(s, device="cpu").policy_outputs("gencb")
    assert (out["slack"] >= 0).all()
    assert (out["action"][:, 0] == -1).all() and out["default"][:, 0].all()


def test_float32_runs_keep_gencb_safe():
    s = ConservativeSettings(problem="cccb", policies=("gencb",), K=6, d=3, m=2, alpha=0.05, T=300, seeds=3,
                             precision="float32")
    res = families.run(s, device="cpu")
    assert res.precision == "float32" and res.outputs["slack"].dtype == np.float32
    assert (res.outputs["slack"] >= 0).all()
    row = families.summary(res).iloc[0]
    assert row["policy"] == "gencb" and row["min_slack"] >= 0 and 0 < row["default_pulls_mean"] < 300


def test_grid_sweep_matches_single_runs():
    base = ConservativeSettings(problem="cmab", policies=("gencb",), K=3, alpha=0.05, mu0=0.7, T=200, seeds=6,
                                precision="float64")
    cells = [{"alpha": a, "mu0": m} for a in (0.05, 0.5) for m in (0.5, 0.7)]
    frame = families.summary(families.run(base, device="cpu", cells=cells))
    assert len(frame) == 4 and (frame["min_slack"] >= 0).all()
    by = frame.set_index(["alpha", "mu0"])
    for mu0 in (0.5, 0.7):
        assert by.loc[(0.5, mu0), "default_pulls_mean"] < by.loc[(0.05, mu0), "default_pulls_mean"]
    single = families.summary(families.run(base, device="cpu")).iloc[0]
    for col in ("default_pulls_mean", "cum_regret_mean", "min_slack"):
        assert by.loc[(0.05, 0.7), col] == pytest.approx(single[col], abs=1e-9)


def test_grid_over_the_ridge_and_bounds_matches_single_runs():
    base = ConservativeSettings(problem="clb", K=5, d=3, alpha=0.05, T=150, seeds=2, base_seed=3, precision="float64")
    cells = [{"lam": 2.0, "L": 1.2}, {"lam": 1.0, "S": 0.8}]
    grid = families.run(base, device="cpu", cells=cells)
    for i, cell in enumerate(cells):
        alone = families.run(dataclasses.replace(base, **cell), device="cpu")
        for p in base.policy_list():
            want = alone.policy_outputs(p)
            got = grid.policy_outputs(p, cell=i)
            np.testing.assert_array_equal(got["action"], want["action"])
            np.testing.assert_allclose(got["slack"], want["slack"], rtol=0, atol=1e-9)
    with pytest.raises(SettingsError) as err:
        families.run(base, device="cpu", cells=[{"K": 4}])
    assert err.value.field == "K"


def test_settings_round_trip_instances_and_messages():
    s = ConservativeSettings(problem="cccb", K=10, d=5, m=3, alpha=0.02, mu0=1.2, policies=("gencb", "c3ucb"))
    assert from_dict(ConservativeSettings, json.loads(to_json(s))) == s
    for bad, field in ((dict(problem="cccb", K=10, m=11), "m"), (dict(L=2.0), "lam"), (dict(alpha=0.0), "alpha"),
                       (dict(problem="clb", policies=("ucb",)), "policies"), (dict(problem="cccb", K=63), "K"),
                       (dict(problem="cccb", K=10, m=2, mu0=2.0), "mu0"), (dict(precision="half"), "precision")):
        with pytest.raises(SettingsError) as err:
            ConservativeSettings(**bad).validate()
        assert err.value.field == field
    cmab = make_instance(ConservativeSettings(K=72))
    assert cmab.mu0 == 0.7 and cmab.means[0] == 0.8 and cmab.means[-1] == pytest.approx(0.2)
    assert "μ₀ = 0.7" in describe_instance(ConservativeSettings(K=72))
    for problem in ("clb", "cccb"):
        st_ = ConservativeSettings(problem=problem, K=8, d=4, m=3, base_seed=5)
        inst = make_instance(st_)
        assert np.all(np.linalg.norm(inst.arms, axis=1) <= st_.L + 1e-12)
        assert np.linalg.norm(inst.theta) <= 1 + 1e-12
        assert np.all((inst.means >= 0) & (inst.means <= 1))
        np.testing.assert_allclose(inst.means, inst.arms @ inst.theta, atol=1e-15)
        assert 0 < inst.mu0 < inst.best
        assert np.array_equal(make_instance(st_).arms, inst.arms)  # deterministic in base_seed


# ----------------------------------------------------------------------------- one scan, common random numbers

CRN_SHAPES = [dict(problem="cmab", K=6), dict(problem="clb", K=6, d=3), dict(problem="cccb", K=6, d=3, m=2)]


@pytest.mark.parametrize("shape", CRN_SHAPES, ids=[s_["problem"] for s_ in CRN_SHAPES])
@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_every_policy_in_one_scan_equals_each_run_alone(shape, precision):
    s = ConservativeSettings(**shape, policies=POLICIES[shape["problem"]], alpha=0.1, T=300, seeds=3, base_seed=9,
                             precision=precision)
    together = families.run(s, device="cpu")
    assert together.policies == POLICIES[shape["problem"]]
    for p in s.policies:
        alone = families.run(dataclasses.replace(s, policies=(p,)), device="cpu")
        want = alone.policy_outputs(p)
        got = together.policy_outputs(p)
        assert set(got) == set(want)
        for k in want:  # another scan body may fuse, and so group, a sum differently: counts exact, floats close
            if want[k].dtype.kind in "bi":
                np.testing.assert_array_equal(got[k], want[k], err_msg=f"{p} {k}")
            else:
                assert_close_sum(got[k], want[k], s.T * s.K, precision, err_msg=f"{p} {k}")


def test_the_family_is_registered_and_its_outputs_are_tidy():
    s = ConservativeSettings(problem="cccb", K=6, d=3, m=2, alpha=0.05, T=120, seeds=2, base_seed=4,
                             precision="float64")
    assert families.get("conservative") is FAMILY and families.of(s) is FAMILY
    assert [FAMILY.axis(f).field for f in ("alpha", "mu0")] == ["alpha", "mu0"]
    run = families.run(s, device="cpu")
    assert run.policies == ("gencb", "c3ucb", "c2ucb") and run.labels == ["GenCB", "C3UCB", "C2UCB"]
    out = run.policy_outputs("gencb")
    np.testing.assert_array_equal(out["default_pulls"], np.cumsum(out["default"], axis=-1))
    assert_close_sum(out["cum_regret"], np.cumsum(out["regret"], axis=-1), s.T)  # running sums of T terms
    mu0 = make_instance(s).mu0
    assert_close_sum(out["baseline_line"][0], (1 - s.alpha) * mu0 * np.arange(1, s.T + 1), s.T)
    # The slack is the cumulative reward minus the baseline line (the same two sums, up to rounding).
    np.testing.assert_allclose(out["slack"], out["cum_reward"] - out["baseline_line"], rtol=0, atol=1e-9)
    held = (out["super"][..., None] >> np.arange(s.K)) & 1
    assert (held.sum(axis=-1) == np.where(out["default"], 0, s.m)).all()
    frame = families.tidy(run)
    assert list(frame.columns[:5]) == ["kind", "policy", "label", "seed", "t"] and len(frame) == 3 * 2 * 120
    table = families.summary(run).set_index("policy")
    for p in run.policies:
        o = run.policy_outputs(p)
        n0 = o["default"].sum(axis=-1)
        assert table.loc[p, "default_pulls_mean"] == pytest.approx(n0.mean()) and "default_pulls" not in table
        assert table.loc[p, "min_slack"] == o["slack"].min()
        cum = o["regret"].sum(axis=-1)
        assert table.loc[p, "cum_regret_std"] == pytest.approx(cum.std(ddof=1))
    assert table.loc["gencb", "min_slack"] >= 0


# ----------------------------------------------------------------------------- compiled widths

PADDING = {"cmab": (8, None), "clb": (7, 5), "cccb": (8, 4)}
"""Widths (arms, feature coordinates) the padded runs use, above _case's K = 5, 5, 6 and d = 3."""


@pytest.mark.parametrize("problem,policy,alpha,mu0,scale", CASES,
                         ids=[f"{p}-{q}-{a}-{m}" for p, q, a, m, _ in CASES])
def test_padded_arms_and_coordinates_change_nothing(problem, policy, alpha, mu0, scale):
    """The same table at its own shape and padded to larger widths: identical outputs, padded arms never played."""
    case = _case(problem, scale)
    width, dim_width = PADDING[problem]
    args = dict(alpha=alpha, mu0=mu0, means=case["means"], **case["kw"])
    plain = run_on_stream(problem, policy, case["table"], **args)
    padded = run_on_stream(problem, policy, case["table"], width=width, dim_width=dim_width, **args)
    assert set(padded) == set(plain)
    for k, v in plain.items():
        if v.dtype.kind in "bi":
            np.testing.assert_array_equal(padded[k], v, err_msg=k)
        else:
            assert_close_sum(padded[k], v, T_EXACT * width, err_msg=k)  # wider sums may be grouped differently
    assert padded["action"].max() < case["table"].shape[1]


def test_widths_below_the_true_sizes_are_settings_errors():
    case = _case("clb")
    args = dict(alpha=0.1, mu0=0.5, means=case["means"], **case["kw"])
    for kw, field in ((dict(width=4), "width"), (dict(dim_width=2), "dim_width")):
        with pytest.raises(SettingsError) as err:
            run_on_stream("clb", "gencb", case["table"], **kw, **args)
        assert err.value.field == field
    with pytest.raises(SettingsError) as err:
        run_on_stream("cmab", "gencb", np.ones((10, 5)), alpha=0.1, mu0=0.5, means=np.full(5, 0.5), dim_width=4)
    assert err.value.field == "dim_width"


def test_moving_k_and_d_inside_a_bucket_reuses_the_compiled_model():
    """K = 5…8 (and d = 3, 4 for CLB, d = 5…8 for CCCB) share one model; the next bucket is another."""
    fam = families.get("conservative")
    shapes = {"cmab": [dict(K=k) for k in (5, 6, 7, 8)],
              "clb": [dict(K=k, d=d) for k in (5, 6, 7, 8) for d in (3, 4)],
              "cccb": [dict(K=k, d=d, m=2) for k in (5, 8) for d in (5, 6, 7, 8)]}
    for problem, sizes in shapes.items():
        models = {id(fam.model(ConservativeSettings(problem=problem, **kw), "float64")) for kw in sizes}
        assert len(models) == 1, problem
        bigger = fam.model(ConservativeSettings(problem=problem, **{**sizes[-1], "K": 9}), "float64")
        assert id(bigger) not in models, problem


@pytest.mark.parametrize("shape", CRN_SHAPES, ids=[s_["problem"] for s_ in CRN_SHAPES])
def test_padded_runs_equal_replays_of_their_own_stream(shape):
    """K = 6 (width 8) and d = 3 (width 4): the drawn stream has K columns and its replays are the run."""
    s = ConservativeSettings(**shape, alpha=0.1, T=150, seeds=1, base_seed=2, precision="float64")
    stream = FAMILY.stream(s, 0)
    assert stream["rewards"].shape == (s.T, s.K)
    run = families.run(s, device="cpu")
    for p in s.policy_list():
        got = run.policy_outputs(p)
        ref = FAMILY.on_stream(s, p, stream)
        np.testing.assert_array_equal(got["action"][0], ref["action"], err_msg=p)
        np.testing.assert_array_equal(got["default"][0], ref["default"], err_msg=p)
        for k in ("reward", "slack", "regret"):
            assert_close_sum(got[k][0], ref[k], s.T * 8, err_msg=f"{p} {k}")  # sums over the width-8 arms
        assert got["action"][0].max() < s.K


# ----------------------------------------------------------------------------- One-size-fits-all's CMAB

@pytest.mark.slow
def test_seed001_cmab_gencb_against_conucb():
    """K = 72, α = 0.05, μ_0 = 0.7, 5 seeds. GenCB pulls x_0 far less than ConUCB from the start;
    its regret is higher at T = 10⁴ (UCB is still exploring 72 arms; see the module report) and lower
    once UCB concentrates (crossing near T ≈ 3.5·10⁴): checked at T = 5·10⁴."""
    s = ConservativeSettings(problem="cmab", policies=("gencb", "conucb"), K=72, alpha=0.05, mu0=0.7,
                             T=50_000, seeds=5, precision="float64")
    run = families.run(s, device="cpu")
    out = {p: run.policy_outputs(p) for p in run.policies}
    n0 = {p: out[p]["default"].sum(axis=1) for p in out}
    early = {p: out[p]["default"][:, :10_000].sum(axis=1).mean() for p in out}
    regret = {p: out[p]["regret"].sum(axis=1).mean() for p in out}
    assert early["gencb"] < 0.8 * early["conucb"]
    assert n0["gencb"].mean() < 0.2 * n0["conucb"].mean()
    assert regret["gencb"] < 0.95 * regret["conucb"]
    assert (out["gencb"]["slack"] >= 0).all() and (out["gencb"]["action"][:, 0] == -1).all()


# ----------------------------------------------------------------------------- command line

def _cli(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "safebandit_core", "conservative", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_cli_json_contract(tmp_path, capfd):
    """In this process (its compiled functions reused), stdout read at the file-descriptor level as a process's."""
    from safebandit_core.cli import main

    out_file = tmp_path / "runs.csv"
    code = main(["conservative", "--problem", "cccb", "--policy", "gencb", "--K", "6", "--d", "3", "--m", "2",
                 "--alpha", "0.05", "--T", "150", "--seeds", "2", "--device", "cpu", "--json", "--out", str(out_file)])
    stdout, stderr = capfd.readouterr()
    assert code == 0, stderr
    lines = [ln for ln in stdout.splitlines() if ln.strip()]
    assert len(lines) == 1
    report = json.loads(lines[0])
    (row,) = report["rows"]
    for key in ("problem", "T", "seeds", "alpha", "mu0", "seconds", "device"):
        assert key in report
    for key in ("policy", "default_pulls_mean", "cum_regret_mean", "cum_regret_std", "cum_regret_ci95", "min_slack"):
        assert key in row
    assert report["problem"] == "cccb" and row["policy"] == "gencb" and report["T"] == 150
    assert row["min_slack"] >= 0
    import pandas as pd

    frame = pd.read_csv(out_file)
    assert len(frame) == 2 * 150
    assert {"policy", "seed", "t", "action", "default", "reward", "slack", "regret", "cum_regret",
            "default_pulls", "cum_reward", "baseline_line"} <= set(frame.columns)


@pytest.mark.parametrize(("problem", "arms"), [("cmab", 72), ("clb", 10), ("cccb", 10)])
def test_cli_every_problem_runs_on_its_default_K(problem, arms, capfd):
    """Without --K a problem takes its paper's arms (72 for CMAB, K = 2d for CLB and CCCB): CCCB's default is no
    longer refused for the bit mask's 62 arms."""
    from safebandit_core.cli import main

    code = main(["conservative", "--problem", problem, "--policy", "gencb", "--T", "20", "--seeds", "1",
                 "--device", "cpu", "--json"])
    stdout, stderr = capfd.readouterr()
    assert code == 0, stderr
    assert json.loads(stdout.strip().splitlines()[-1])["K"] == arms


BAD = [
    (("--alpha", "1.5"), "--alpha", "(0, 1)"),
    (("--mu0", "0"), "--mu0", "(0, 1)"),
    (("--K", "1"), "--K", "[2,"),
    (("--T", "0"), "--T", "[1,"),
    (("--seeds", "0"), "--seeds", "[1,"),
    (("--problem", "clb", "--policy", "conucb"), "--policy", "gencb, clucb, clucb2, linucb"),
    (("--problem", "cccb", "--K", "6", "--m", "7"), "--m", "[1, 6]"),
    (("--problem", "clb", "--d", "0"), "--d", "[1,"),
    (("--K", "two"), "--K", "invalid int"),
]


def _one_error_line(stderr: str, flag: str, allowed: str) -> None:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    assert flag in lines[0] and allowed in lines[0], lines[0]
    assert "Traceback" not in stderr


@pytest.mark.parametrize("args,flag,allowed", BAD, ids=[b[1] + "-" + b[0][-1] for b in BAD])
def test_cli_bad_input_in_process(args, flag, allowed, capsys):
    from safebandit_core.cli import main

    try:
        code = main(["conservative", *args])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    _one_error_line(captured.err, flag, allowed)


def test_cli_bad_input_as_a_process():
    picked = [BAD[0], BAD[5], BAD[8]]
    procs = [(_cli(*args), flag, allowed) for args, flag, allowed in picked]
    for proc, flag, allowed in procs:
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 2 and stdout == "", (flag, stderr)
        _one_error_line(stderr, flag, allowed)


def test_a_run_too_large_for_memory_is_a_settings_error_naming_T():
    with pytest.raises(SettingsError) as err:
        next(families.simulate(ConservativeSettings(T=1_000_000, seeds=1_000)))
    assert err.value.field == "T" and "at most about" in err.value.allowed
