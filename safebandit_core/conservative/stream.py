"""Conservative bandits with a sample-path reward constraint as runner models, and one run on a given stream.

:func:`make_model` turns (problem, policy, shapes) into the runner's :class:`~safebandit_core.runner.Model`:
``init`` is the wrapped policy's, ``step`` plays one round of :mod:`.gencb`'s wrapper and reports
``action`` (arm index, −1 for x_0; for CCCB the lowest index of the super arm), ``default``,
``reward``, ``slack`` and ``regret`` (plus ``super``, the super arm as a bit mask, for CCCB), and
``draw`` gives round t's outcomes of every base arm: row t of ``params.table`` (an explicit
stream) or Bernoulli draws from ``fold_in(key, t)`` (the simulator, :mod:`.sim`). Both use the
same step, so :func:`run_reward_on_stream` checks the very code the batched runs use.

Regret per round (ALGORITHMS.md §2): ``μ_best − μ_played`` where μ_best is the best super arm's
mean (the top-m base means summed; m = 1 for CMAB and CLB) and x_0 counts as μ_0.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import runner
from ..settings import SettingsError, check_choice, check_int_range, check_open_unit, check_positive
from . import baselines
from .cccb import c2ucb
from .clb import linucb
from .cmab import ucb
from .gencb import Conservative, Params, gencb, unconstrained, wrap

PROBLEMS: tuple[str, ...] = ("cmab", "clb", "cccb")
POLICIES: dict[str, tuple[str, ...]] = {
    "cmab": ("gencb", "conucb", "clucb", "ucb"),
    "clb": ("gencb", "clucb", "clucb2", "linucb"),
    "cccb": ("gencb", "c3ucb", "c2ucb"),
}
BASELINE: dict[str, str] = {"cmab": "conucb", "clb": "clucb", "cccb": "c3ucb"}
UNCONSTRAINED: dict[str, str] = {"cmab": "ucb", "clb": "linucb", "cccb": "c2ucb"}
LABELS: dict[str, str] = {
    "gencb": "GenCB", "conucb": "ConUCB", "clucb": "CLUCB", "clucb2": "CLUCB2", "c3ucb": "C3UCB",
    "ucb": "UCB", "linucb": "LinUCB", "c2ucb": "C2UCB",
}
MAX_CCCB_ARMS = 62  # the super arm travels as an int64 bit mask


def check_policy(problem: str, policy: str, field: str = "policy") -> None:
    """Require a known problem and a policy that fits it."""
    check_choice("problem", problem, PROBLEMS)
    check_choice(field, policy, POLICIES[problem])


def mu0_range(problem: str, m: int) -> float:
    """Upper end of μ_0's open range: 1, or m for CCCB (a super arm's mean is at most m)."""
    return float(m) if problem == "cccb" else 1.0


def check_mu0(problem: str, mu0: Any, m: int) -> None:
    """Require ``0 < μ_0 < 1`` (``0 < μ_0 < m`` for CCCB)."""
    hi = mu0_range(problem, m)
    if hi == 1.0:
        check_open_unit("mu0", mu0)
    elif not (isinstance(mu0, (int, float)) and math.isfinite(mu0) and 0.0 < mu0 < hi):
        raise SettingsError("mu0", f"in (0, {hi:g}) for CCCB with super arms of size m = {m}", mu0)


def check_lam(lam: Any, L: float) -> None:
    """Require the papers' ``λ ≥ max(1, L²)`` (Algorithms 4 and 5)."""
    check_positive("lam", lam)
    if lam < max(1.0, L * L):
        raise SettingsError("lam", f">= max(1, L²) = {max(1.0, L * L):g}", lam)


def default_S(problem: str, K: int) -> float:
    """‖θ*‖ bound when none is given: √K for CMAB (one-hot CLUCB, means in [0, 1]), else 1."""
    return math.sqrt(K) if problem == "cmab" else 1.0


def conservative_policy(problem: str, policy: str, K: int, d: int | None = None, m: int = 1) -> Conservative:
    """The wrapped policy for a problem: GenCB, its expected-reward baseline(s), or the unconstrained A_S."""
    check_policy(problem, policy)
    if problem == "cmab":
        table = {"gencb": lambda: gencb(ucb(K)), "conucb": lambda: baselines.conucb(K),
                 "clucb": lambda: baselines.clucb_multiarmed(K), "ucb": lambda: wrap(ucb(K), unconstrained)}
    elif problem == "clb":
        table = {"gencb": lambda: gencb(linucb(K, d)), "clucb": lambda: baselines.clucb(K, d),
                 "clucb2": lambda: baselines.clucb2(K, d), "linucb": lambda: wrap(linucb(K, d), unconstrained)}
    else:
        table = {"gencb": lambda: gencb(c2ucb(K, d, m)), "c3ucb": lambda: baselines.c3ucb(K, d, m),
                 "c2ucb": lambda: wrap(c2ucb(K, d, m), unconstrained)}
    return table[policy]()


@functools.cache
def make_model(problem: str, policy: str, K: int, d: int | None = None, m: int = 1,
               source: str = "bernoulli") -> runner.Model:
    """The runner model of one policy (cached, so each shape compiles once per process).

    ``source`` is ``"table"`` (outcomes from ``params.table[t]``) or ``"bernoulli"``
    (``uniform(fold_in(key, t), K) < means``: every policy of a seed sees the same outcomes).
    """
    check_choice("source", source, ("table", "bernoulli"))
    size = m if problem == "cccb" else 1
    cons = conservative_policy(problem, policy, K, d, size)

    def init(params: Params, key: jax.Array) -> Any:
        return cons.init(params)

    def draw(params: Params, key: jax.Array, t: jax.Array) -> jax.Array:
        if source == "table":
            return params.table[t]
        dtype = params.means.dtype
        return (jax.random.uniform(jax.random.fold_in(key, t), (K,), dtype) < params.means).astype(dtype)

    def step(params: Params, carry: Any, obs: jax.Array) -> tuple[Any, dict[str, jax.Array]]:
        carry, out = cons.step(params, carry, obs)
        best = jnp.sum(jax.lax.top_k(params.means, size)[0])
        played = jnp.where(out.default, params.mu0, out.mask @ params.means)
        res = {
            "action": jnp.where(out.default, -1, jnp.argmax(out.mask)).astype(jnp.int32),
            "default": out.default,
            "reward": out.reward,
            "slack": out.slack,
            "regret": best - played,
        }
        if problem == "cccb":
            bits = jnp.left_shift(jnp.int64(1), jnp.arange(K, dtype=jnp.int64))
            res["super"] = jnp.sum(jnp.where(out.mask > 0, bits, 0))
        return carry, res

    return runner.Model(init=init, draw=draw, step=step, name=f"conservative-{problem}-{policy}")


def make_params(*, alpha: float, mu0: float, means: Any, arms: Any = None, table: Any = None, lam: float = 1.0,
                S: float = 1.0, L: float = 1.0, delta: float, dtype: Any = jnp.float64) -> Params:
    """Params of one run as arrays of ``dtype`` (the caller validates)."""

    def arr(x: Any) -> jax.Array | None:
        return None if x is None else jnp.asarray(x, dtype)

    return Params(alpha=arr(alpha), mu0=arr(mu0), lam=arr(lam), S=arr(S), L=arr(L), delta=arr(delta),
                  means=arr(means), arms=arr(arms), table=arr(table))


def decode_super(bits: np.ndarray, K: int, m: int) -> np.ndarray:
    """Bit masks (T,) → sorted base-arm indices (T, m); a row of −1 where x_0 was played."""
    held = (bits[:, None] >> np.arange(K)) & 1
    order = np.argsort(-held, axis=1, kind="stable")[:, :m]
    return np.where(bits[:, None] == 0, -1, np.sort(order, axis=1)).astype(np.int64)


def _float_array(name: str, value: Any, shape: tuple[int | None, ...], allowed: str) -> np.ndarray:
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise SettingsError(name, allowed) from None
    ok = a.ndim == len(shape) and all(s is None or s == n for s, n in zip(shape, a.shape, strict=True))
    if not (ok and np.isfinite(a).all()):
        raise SettingsError(name, allowed, f"array of shape {a.shape}")
    return a


def run_reward_on_stream(
    problem: str,
    policy: str,
    rewards: Any,
    *,
    alpha: float,
    mu0: float,
    means: Any = None,
    arms: Any = None,
    theta: Any = None,
    m: int | None = None,
    S: float | None = None,
    L: float = 1.0,
    lam: float = 1.0,
    delta: float | None = None,
    device: str | None = "cpu",
) -> dict[str, np.ndarray]:
    """One run of a conservative policy on an explicit T×K table of outcomes, in float64.

    ``rewards[t, k]`` is what base arm k pays if played at round t + 1 (any floats in [0, 1]).
    CMAB needs ``means`` (K,); CLB and CCCB need ``arms`` (K, d) and ``theta`` (d,) or ``means``;
    CCCB needs ``m``, the super arm size. ``S`` defaults to √K for CMAB (one-hot CLUCB) and 1
    otherwise; ``delta`` to 1/T. Returns length-T arrays ``action`` (−1 for x_0; CCCB: lowest
    index of the super arm), ``default``, ``reward``, ``slack``, ``regret`` and, for CCCB,
    ``super_arm`` (T, m) sorted, a row of −1 for x_0. Runs the runner's compiled step, so it
    is the code path of the batched simulations. Bad arguments raise SettingsError naming them.
    """
    check_policy(problem, policy)
    table = _float_array("rewards", rewards, (None, None), "a T×K array of finite floats with T >= 1 and K >= 2")
    T, K = table.shape
    if T < 1 or K < 2:
        raise SettingsError("rewards", "a T×K array of finite floats with T >= 1 and K >= 2", f"shape {table.shape}")
    check_open_unit("alpha", alpha)
    check_positive("L", L)
    check_lam(lam, L)
    S = default_S(problem, K) if S is None else S
    check_positive("S", S)
    delta = 1.0 / T if delta is None else delta
    if not (isinstance(delta, (int, float)) and 0.0 < delta <= 1.0):
        raise SettingsError("delta", "in (0, 1]", delta)
    if problem == "cccb":
        if K > MAX_CCCB_ARMS:
            raise SettingsError("rewards", f"at most {MAX_CCCB_ARMS} base arms (columns) for CCCB", K)
        check_int_range("m", m, 1, K)
    elif m not in (None, 1):
        raise SettingsError("m", "None or 1 outside CCCB", m)
    size = m if problem == "cccb" else 1
    check_mu0(problem, mu0, size)
    d = None
    if problem == "cmab":
        if means is None:
            raise SettingsError("means", f"the K = {K} true arm means (needed for the regret)")
        mu = _float_array("means", means, (K,), f"a length-{K} array of finite floats")
        x = None
    else:
        if arms is None:
            raise SettingsError("arms", f"a K×d array of features with K = {K}")
        x = _float_array("arms", arms, (K, None), f"a {K}×d array of finite floats with d >= 1")
        d = x.shape[1]
        if d < 1:
            raise SettingsError("arms", f"a {K}×d array of finite floats with d >= 1", f"shape {x.shape}")
        if means is not None:
            mu = _float_array("means", means, (K,), f"a length-{K} array of finite floats")
        elif theta is not None:
            mu = x @ _float_array("theta", theta, (d,), f"a length-{d} array of finite floats")
        else:
            raise SettingsError("theta", f"a length-{d} array (or pass means) to measure the regret")
    model = make_model(problem, policy, K, d, size, "table")
    params = make_params(alpha=alpha, mu0=mu0, means=mu, arms=x, table=table, lam=lam, S=S, L=L, delta=delta)
    out = runner.run(model, params, runner.seed_keys(0, 1), T, device=device)
    res = {k: np.asarray(v[0]) for k, v in out.items()}
    result = {
        "action": res["action"].astype(np.int64),
        "default": res["default"].astype(bool),
        "reward": res["reward"].astype(np.float64),
        "slack": res["slack"].astype(np.float64),
        "regret": res["regret"].astype(np.float64),
    }
    if problem == "cccb":
        result["super_arm"] = decode_super(res["super"].astype(np.int64), K, size)
    return result
