"""GenCB (seed 001, Algorithm 1): one wrapper that makes any standard bandit policy conservative.

A *standard policy* ``A_S`` is a :class:`StandardPolicy`, three pure functions over its own
state (the optax way): ``init(params)``, ``act(params, state, m) -> (mask, info)`` and
``update(params, state, mask, obs)``. ``m`` is A_S's own horizon, the number of regular plays
including the one being decided; A_S is updated with regular plays only. An action is a 0/1
mask over the K base arms (one arm for CMAB and CLB, m arms for a CCCB super arm), so the
observed reward of a regular play is ``mask · obs`` and the same wrapper serves every problem.

The wrapper keeps the book of Algorithm 1 in a :class:`Ledger` and, every round t, asks a
*rule* whether to play A_S's proposal or the default arm x_0 (which pays the known μ_0):

- GenCB's rule (ALGORITHMS.md §2.1) is the sample-path check
  ``r_S(t−1) + N_0(t−1)·μ_0 ≥ (1 − α)·μ_0·t`` (worst case: this pull pays 0); at t = 1 it fails,
  so round 1 plays the default arm;
- the expected-reward baselines (ConUCB, CLUCB, CLUCB2, C3UCB in :mod:`.baselines`) are other
  rules over the same book and A_S's confidence bounds;
- the unconstrained policies (UCB, LinUCB, C2UCB) are A_S with :func:`unconstrained`.

Numerics: ``r_S + N_0·μ_0`` (all reward received so far) and ``(1 − α)·μ_0·t`` are kept as running
sums, so the check is a comparison of two sums of the played rewards and of ``(1 − α)·μ_0``: no
product is formed, no fused multiply-add can round it differently on another backend, and an
exact tie in the reals is resolved the same way by any float implementation that adds in order.
The reported slack is the difference of the same two sums, hence ≥ 0 exactly whenever GenCB plays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

State = Any
Info = Any


class Params(NamedTuple):
    """Numeric settings of one run (traced: one compiled function sweeps them with ``vmap``).

    Shapes are unbatched; with ``runner.run(..., grid=True)`` every leaf gets a leading axis.
    """

    alpha: jax.Array  # () tolerance α ∈ (0, 1)
    mu0: jax.Array  # () default arm's known reward μ_0
    lam: jax.Array  # () ridge λ (linear policies; one-hot CLUCB on CMAB)
    S: jax.Array  # () bound on ‖θ*‖
    L: jax.Array  # () bound on ‖x‖
    delta: jax.Array  # () confidence δ of the baselines (1/T by convention)
    means: jax.Array  # (K,) true base-arm means (regret only; never seen by a policy)
    arms: jax.Array | None  # (K, d) base-arm features (CLB, CCCB); None for CMAB
    table: jax.Array | None  # (T, K) pre-drawn outcomes (run on an explicit stream); None when drawn


class StandardPolicy(NamedTuple):
    """A standard (non-conservative) bandit policy A_S as pure functions over its own state.

    ``act(params, state, m)`` returns a 0/1 mask of shape (K,) over base arms and an ``info``
    pytree of the confidence bounds it used (rules read them); ``m`` ≥ 1 is A_S's horizon.
    ``update(params, state, mask, obs)`` takes the round's outcome row ``obs`` (K,) and learns
    from the entries the mask selects (bandit or semi-bandit feedback).
    """

    init: Callable[[Params], State]
    act: Callable[[Params, State, jax.Array], tuple[jax.Array, Info]]
    update: Callable[[Params, State, jax.Array, jax.Array], State]


class Ledger(NamedTuple):
    """The book of Algorithm 1 after ``t`` rounds."""

    t: jax.Array  # () int32, rounds played
    m: jax.Array  # () int32, regular plays (A_S's horizon so far)
    n0: jax.Array  # () int32, default plays N_0(t)
    r_s: jax.Array  # () float, r_S(t): rewards of regular plays
    bank0: jax.Array  # () float, N_0(t)·μ_0 as a running sum
    total: jax.Array  # () float, r_S(t) + N_0(t)·μ_0: every reward received, as a running sum
    line: jax.Array  # () float, (1 − α)·μ_0·t as a running sum


class Outcome(NamedTuple):
    """What one round of a conservative policy did."""

    default: jax.Array  # () bool, the default arm x_0 was played
    mask: jax.Array  # (K,) 0/1 base arms played (all zero for x_0)
    reward: jax.Array  # () received reward: mask · obs, or μ_0 for x_0
    slack: jax.Array  # () r_S(t) + N_0(t)·μ_0 − (1 − α)·μ_0·t after the round


Rule = Callable[[Params, State, jax.Array, Info, Ledger, jax.Array], tuple[jax.Array, jax.Array]]
"""``rule(params, state, mask, info, ledger, line) -> (play_regular, mask)``.

``ledger`` is the book before round t and ``line`` = (1 − α)·μ_0·t for this round. A rule may
replace the proposal (CLUCB2 picks among the arms that pass its check).
"""


def sample_path_check(params: Params, state: State, mask: jax.Array, info: Info, ledger: Ledger,
                      line: jax.Array) -> tuple[jax.Array, jax.Array]:
    """GenCB's rule (seed 001, Algorithm 1, line 3): play A_S iff r_S(t−1) + N_0(t−1)·μ_0 ≥ (1 − α)·μ_0·t."""
    return ledger.total >= line, mask


def unconstrained(params: Params, state: State, mask: jax.Array, info: Info, ledger: Ledger,
                  line: jax.Array) -> tuple[jax.Array, jax.Array]:
    """No check: A_S plays every round (the unconstrained UCB, LinUCB and C2UCB)."""
    return jnp.asarray(True), mask


class Conservative(NamedTuple):
    """A standard policy wrapped by a rule: ``init(params) -> carry``, ``step(params, carry, obs)``."""

    init: Callable[[Params], tuple[State, Ledger]]
    step: Callable[[Params, tuple[State, Ledger], jax.Array], tuple[tuple[State, Ledger], Outcome]]


def _empty_ledger(dtype: jnp.dtype) -> Ledger:
    zi = jnp.zeros((), jnp.int32)
    zf = jnp.zeros((), dtype)
    return Ledger(t=zi, m=zi, n0=zi, r_s=zf, bank0=zf, total=zf, line=zf)


def wrap(policy: StandardPolicy, rule: Rule = sample_path_check) -> Conservative:
    """Algorithm 1 around ``policy`` with the given ``rule`` (default: GenCB's sample-path check).

    Round t: A_S proposes with horizon ``m + 1``; if the rule passes, the proposal is played,
    ``m ← m + 1``, ``r_S ← r_S + reward`` and A_S is updated; otherwise x_0 is played, pays μ_0,
    and ``N_0 ← N_0 + 1`` (A_S sees nothing).
    """

    def init(params: Params) -> tuple[State, Ledger]:
        return policy.init(params), _empty_ledger(params.mu0.dtype)

    def step(params: Params, carry: tuple[State, Ledger], obs: jax.Array) -> tuple[tuple[State, Ledger], Outcome]:
        state, led = carry
        dtype = params.mu0.dtype
        line = led.line + (1 - params.alpha) * params.mu0
        proposal, info = policy.act(params, state, (led.m + 1).astype(dtype))
        go, proposal = rule(params, state, proposal, info, led, line)
        mask = jnp.where(go, proposal, jnp.zeros_like(proposal))
        reward = jnp.where(go, mask @ obs, params.mu0)
        learned = policy.update(params, state, mask, obs)
        state = jax.tree_util.tree_map(lambda new, old: jnp.where(go, new, old), learned, state)
        zero = jnp.zeros((), dtype)
        led = Ledger(
            t=led.t + 1,
            m=led.m + go.astype(jnp.int32),
            n0=led.n0 + (~go).astype(jnp.int32),
            r_s=led.r_s + jnp.where(go, reward, zero),
            bank0=led.bank0 + jnp.where(go, zero, params.mu0),
            total=led.total + reward,
            line=line,
        )
        return (state, led), Outcome(default=~go, mask=mask, reward=reward, slack=led.total - line)

    return Conservative(init=init, step=step)


def gencb(policy: StandardPolicy) -> Conservative:
    """GenCB (seed 001, Algorithm 1) around a standard policy: GenCB-CMAB/CLB/CCCB with UCB/LinUCB/C2UCB."""
    return wrap(policy, sample_path_check)
