"""GenCB (One-size-fits-all, Algorithm 1): one wrapper that makes any standard bandit policy conservative.

A *standard policy* ``A_S`` is a :class:`StandardPolicy`, three pure functions over its own
state (the optax way): ``init(params)``, ``act(params, state, m) -> (mask, info)`` and
``update(params, state, mask, obs)``. ``m`` is A_S's own horizon, the number of regular plays
including the one being decided; A_S is updated with regular plays only. An action is a 0/1
mask over the K base arms (one arm for CMAB and CLB, m arms for a CCCB super arm), so the
observed reward of a regular play is ``mask · obs`` and the same wrapper serves every problem.

:func:`wrap` turns A_S and a *rule* into a :class:`~safebandit_core.model.Policy`. It keeps the book
of Algorithm 1 in a :class:`Ledger` and, every round t, asks the rule whether to play A_S's proposal
or the default arm x_0 (which pays the known μ_0):

- GenCB's rule (ALGORITHMS.md §2.1) is the sample-path check
  ``r_S(t−1) + N_0(t−1)·μ_0 ≥ (1 − α)·μ_0·t`` (worst case: this pull pays 0); at t = 1 it fails,
  so round 1 plays the default arm;
- the expected-reward baselines (ConUCB, CLUCB, CLUCB2, C3UCB in :mod:`.baselines`) are other
  rules over the same book and A_S's confidence bounds;
- the unconstrained policies (UCB, LinUCB, C2UCB) are A_S with :func:`unconstrained`.

The action is an :class:`Action` (default flag and mask); the environment answers with a
:class:`Feedback` (the reward received and the outcomes of the played base arms), and the policy
reports ``action`` (arm index, −1 for x_0), ``default`` and ``slack`` every round.

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

from ..model import Policy
from ..shapes import first_max

State = Any
Info = Any


class Params(NamedTuple):
    """A policy's numeric settings (traced: one compiled function sweeps them with ``vmap``).

    What the agent knows: α, μ_0, the bounds and the arms' features. The true means and the
    outcomes are the environment's (:mod:`.env`), never a policy's. The compiled shapes are
    widths (:mod:`safebandit_core.shapes`): arms from ``K`` on and coordinates from ``d`` on are
    zero padding, so the true sizes are traced and moving them inside a width compiles nothing.
    """

    alpha: jax.Array  # () tolerance α ∈ (0, 1)
    mu0: jax.Array  # () default arm's known reward μ_0
    lam: jax.Array  # () ridge λ (linear policies; one-hot CLUCB on CMAB)
    S: jax.Array  # () bound on ‖θ*‖
    L: jax.Array  # () bound on ‖x‖
    delta: jax.Array  # () confidence δ of the baselines (1/T by convention)
    K: jax.Array  # () the true number of base arms; arms from K on pad the compiled width, never played
    d: jax.Array  # () the true dimension of θ (d for CLB and CCCB; K for the one-hot ridge of CMAB)
    arms: jax.Array | None  # (K, d) features at the compiled widths, zero rows/columns past the true K, d; None: CMAB


class StandardPolicy(NamedTuple):
    """A standard (non-conservative) bandit policy A_S as pure functions over its own state.

    ``act(params, state, m)`` returns a 0/1 mask of shape (K,) over base arms and an ``info``
    pytree of the confidence bounds it used (rules read them); ``m`` ≥ 1 is A_S's horizon.
    ``update(params, state, mask, obs)`` takes the observed outcomes ``obs`` (K,) of the played
    base arms (0 elsewhere) and learns from the entries the mask selects (bandit or semi-bandit
    feedback).
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


class Action(NamedTuple):
    """What a conservative policy plays in one round."""

    default: jax.Array  # () bool, the default arm x_0
    mask: jax.Array  # (K,) 0/1 base arms played (all zero for x_0)


class Feedback(NamedTuple):
    """What the environment returns for an :class:`Action` (bandit or semi-bandit feedback)."""

    reward: jax.Array  # () received reward: mask · outcomes, or μ_0 for x_0
    observed: jax.Array  # (K,) outcomes of the played base arms, 0 elsewhere


class ConservativeState(NamedTuple):
    """A wrapped policy's state: A_S's own and the book of Algorithm 1."""

    inner: State  # A_S's state (learns from regular plays only)
    ledger: Ledger


Rule = Callable[[Params, State, jax.Array, Info, Ledger, jax.Array], tuple[jax.Array, jax.Array]]
"""``rule(params, state, mask, info, ledger, line) -> (play_regular, mask)``.

``ledger`` is the book before round t and ``line`` = (1 − α)·μ_0·t for this round. A rule may
replace the proposal (CLUCB2 picks among the arms that pass its check).
"""


def sample_path_check(params: Params, state: State, mask: jax.Array, info: Info, ledger: Ledger,
                      line: jax.Array) -> tuple[jax.Array, jax.Array]:
    """GenCB's rule (One-size-fits-all, Algorithm 1, line 3): play A_S iff r_S(t−1) + N_0(t−1)·μ_0 ≥ (1 − α)·μ_0·t."""
    return ledger.total >= line, mask


def unconstrained(params: Params, state: State, mask: jax.Array, info: Info, ledger: Ledger,
                  line: jax.Array) -> tuple[jax.Array, jax.Array]:
    """No check: A_S plays every round (the unconstrained UCB, LinUCB and C2UCB)."""
    return jnp.asarray(True), mask


def _empty_ledger(dtype: jnp.dtype) -> Ledger:
    zi = jnp.zeros((), jnp.int32)
    zf = jnp.zeros((), dtype)
    return Ledger(t=zi, m=zi, n0=zi, r_s=zf, bank0=zf, total=zf, line=zf)


def _line(params: Params, ledger: Ledger) -> jax.Array:
    """(1 − α)·μ_0·t for the round after ``ledger``, as a running sum."""
    return ledger.line + (1 - params.alpha) * params.mu0


def wrap(policy: StandardPolicy, rule: Rule = sample_path_check) -> Policy:
    """Algorithm 1 around ``policy`` with the given ``rule`` (default: GenCB's sample-path check).

    Round t: A_S proposes with horizon ``m + 1``; if the rule passes, the proposal is played,
    ``m ← m + 1``, ``r_S ← r_S + reward`` and A_S is updated; otherwise x_0 is played, pays μ_0,
    and ``N_0 ← N_0 + 1`` (A_S sees nothing). The round's outcomes in ``obs`` are never read:
    the policy learns from the :class:`Feedback` only.
    """

    def init(params: Params) -> ConservativeState:
        return ConservativeState(policy.init(params), _empty_ledger(params.mu0.dtype))

    def act(params: Params, state: ConservativeState, obs: Any) -> tuple[Action, Info]:
        led = state.ledger
        proposal, info = policy.act(params, state.inner, (led.m + 1).astype(params.mu0.dtype))
        go, proposal = rule(params, state.inner, proposal, info, led, _line(params, led))
        return Action(default=~go, mask=jnp.where(go, proposal, jnp.zeros_like(proposal))), info

    def update(params: Params, state: ConservativeState, obs: Any, action: Action,
               fb: Feedback) -> ConservativeState:
        led = state.ledger
        go = ~action.default
        learned = policy.update(params, state.inner, action.mask, fb.observed)
        inner = jax.tree_util.tree_map(lambda new, old: jnp.where(go, new, old), learned, state.inner)
        zero = jnp.zeros((), params.mu0.dtype)
        led = Ledger(
            t=led.t + 1,
            m=led.m + go.astype(jnp.int32),
            n0=led.n0 + action.default.astype(jnp.int32),
            r_s=led.r_s + jnp.where(go, fb.reward, zero),
            bank0=led.bank0 + jnp.where(go, zero, params.mu0),
            total=led.total + fb.reward,
            line=_line(params, led),
        )
        return ConservativeState(inner, led)

    def report(params: Params, state: ConservativeState, action: Action, info: Info) -> dict[str, jax.Array]:
        led = state.ledger
        return {
            "action": jnp.where(action.default, -1, first_max(action.mask)).astype(jnp.int32),
            "default": action.default,
            "slack": led.total - led.line,
        }

    return Policy(init=init, act=act, update=update, report=report)


def gencb(policy: StandardPolicy) -> Policy:
    """GenCB (One-size-fits-all, Algorithm 1) around a standard policy: GenCB-CMAB/CLB/CCCB with UCB/LinUCB/C2UCB."""
    return wrap(policy, sample_path_check)


def with_super_arm(policy: Policy) -> Policy:
    """``policy`` that also reports ``super``, the played super arm as an int64 bit mask (0 for x_0; K ≤ 62).

    Padded arms of a compiled width (up to 64) are never played, so their bits stay 0.

    ``action`` stays the lowest index of the super arm (CCCB).
    """
    inner = policy.report

    def report(params: Params, state: Any, action: Action, info: Info) -> dict[str, jax.Array]:
        out = dict(inner(params, state, action, info))
        K = action.mask.shape[0]
        bits = jnp.left_shift(jnp.int64(1), jnp.arange(K, dtype=jnp.int64))
        out["super"] = jnp.sum(jnp.where(action.mask > 0, bits, 0))
        return out

    return policy._replace(report=report)
