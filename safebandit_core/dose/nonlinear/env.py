"""The non-linear dose environment (Safety by Design §6): realizable finite classes, a stream, a feedback rule.

R_t = g(α_t)·(θ*(X_t) + ξ^r_t),   C_t = g(α_t)·(μ*(X_t) + ξ^c_t),   θ* ∈ F^r, μ* ∈ F^c.

Round t's context, noises and ε-Greedy coin are the dose model's (:func:`..env.draw_round`: a
normalised standard-normal context, Gaussian noises of std κ_r, κ_c, a uniform coin, all from
``fold_in(stream key, t)``), so a run sees the same stream as the linear dose model on the same
key. The observation carries every member's value at the context (``fr``, ``fc``); the class
members and the true indices ``r_star``, ``c_star`` are the environment's params (data). With a
:class:`Table` the per-round values, noises and coins are given instead (explicit replays).

A compiled model serves every dimension, class size and hidden width up to its widths: the
context's coordinates from the true d on (traced) are zero, and so are the padded members'
weights there (:func:`.classes.pad`); padded members sit after the true ones and the policy
never picks them (:mod:`.policy`), so r_star, c_star < the true size index the same members.

The clairvoyant knows θ*, μ* and the true margin b_δ = κ_c sqrt(2 log(1/δ)):
B* = μ*(X_t) + b_δ, z* = 1 if B* ≤ 0 else min(1, τ/B*), α*max = g⁻¹(z*),
α* = α*max if θ*(X_t) ≥ 0 else 0; regret_t = (g(α*) − g(α_t))·θ*(X_t).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from ...model import Env
from ..curves import Curve
from ..env import draw_round
from .classes import CLASSES
from .policy import NLAction


class Table(NamedTuple):
    """An explicit stream: every member's value per round, noises and coins (leading axis T)."""

    fr: jax.Array  # (T, n_r) f(X_t) for every f ∈ F^r
    fc: jax.Array  # (T, n_c) f(X_t) for every f ∈ F^c
    xi_r: jax.Array  # (T,)
    xi_c: jax.Array  # (T,)
    u_eps: jax.Array  # (T,)


class NLEnvParams(NamedTuple):
    """The environment's numbers (traced), its classes' members and the true members' indices."""

    tau: jax.Array  # () τ (for the clairvoyant's safe dose)
    delta: jax.Array  # () δ (the clairvoyant uses the true margin b_δ)
    kappa_r: jax.Array  # () reward noise std
    kappa_c: jax.Array  # () cost noise std
    g1: jax.Array  # () curve parameter p or EC50
    g2: jax.Array  # () curve parameter n
    d: jax.Array  # () the true dimension: context coordinates from d on are zero (unused with a table)
    r_star: jax.Array  # () int, index of θ* in F^r
    c_star: jax.Array  # () int, index of μ* in F^c
    class_r: Any = None  # members of F^r (see :mod:`.classes`), or None with a table
    class_c: Any = None  # members of F^c
    table: Table | None = None


class Obs(NamedTuple):
    """Everything random about one round, and its index."""

    fr: jax.Array  # (n_r,) every reward member at X_t
    fc: jax.Array  # (n_c,) every cost member at X_t
    xi_r: jax.Array  # () reward noise
    xi_c: jax.Array  # () cost noise
    u_eps: jax.Array  # () uniform coin of ε-Greedy
    t: jax.Array  # () int, 0-based round


class Truth(NamedTuple):
    """The true members' indices."""

    r_star: jax.Array  # () int
    c_star: jax.Array  # () int


def margin(p: NLEnvParams) -> jax.Array:
    """The true realized-cost margin b_δ = κ_c·sqrt(2 log(1/δ))."""
    return p.kappa_c * jnp.sqrt(2.0 * jnp.log(1.0 / p.delta))


def class_draw(kind: str, width: int, dtype: Any) -> Callable[[NLEnvParams, jax.Array, jax.Array], Obs]:
    """Round t of the synthetic stream for a class kind: the dose stream's draws, the members' values.

    The context has ``width`` coordinates, the first ``p.d`` drawn (the very numbers a width-d draw
    gives), the rest zero; the members are padded to the same width.
    """
    evaluate = CLASSES[kind].evaluate

    def draw(p: NLEnvParams, key: jax.Array, t: jax.Array) -> Obs:
        o = draw_round(p, key, t, width, dtype, padded=True)
        return Obs(evaluate(p.class_r, o.x), evaluate(p.class_c, o.x), o.xi_r, o.xi_c, o.u_eps, t)

    return draw


def table_draw(p: NLEnvParams, key: jax.Array, t: jax.Array) -> Obs:
    """Round t of an explicit :class:`Table`."""
    tb = p.table
    return Obs(tb.fr[t], tb.fc[t], tb.xi_r[t], tb.xi_c[t], tb.u_eps[t], t)


def true_values(truth: Truth, obs: Obs) -> tuple[jax.Array, jax.Array]:
    """(θ*(X_t), μ*(X_t))."""
    return obs.fr[truth.r_star], obs.fc[truth.c_star]


def clairvoyant(curve: Curve, p: NLEnvParams, theta_x: jax.Array, mu_x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(α*max_t, α*_t): the true safe upper end (with the true margin) and the optimal dose."""
    big_b = mu_x + margin(p)
    safe_b = jnp.where(big_b > 0, big_b, 1.0)
    z = jnp.where(big_b <= 0, 1.0, jnp.minimum(1.0, p.tau / safe_b))
    upper = curve.g_inv(z, p.g1, p.g2)
    return upper, jnp.where(theta_x >= 0, upper, 0.0)


def make_env(curve: Curve, draw: Callable[[NLEnvParams, jax.Array, jax.Array], Obs]) -> Env:
    """The environment for a dose curve and a round drawer (:func:`class_draw` or :func:`table_draw`)."""

    def init(p: NLEnvParams, key: jax.Array) -> Truth:
        return Truth(p.r_star, p.c_star)

    def feedback(p: NLEnvParams, truth: Truth, obs: Obs, action: NLAction) -> tuple[jax.Array, jax.Array]:
        gz = curve.g(action.alpha, p.g1, p.g2)
        th, mu = true_values(truth, obs)
        return gz * (th + obs.xi_r), gz * (mu + obs.xi_c)

    def report(p: NLEnvParams, truth: Truth, obs: Obs, action: NLAction, fb: tuple[jax.Array, jax.Array]
               ) -> dict[str, jax.Array]:
        th, mu = true_values(truth, obs)
        upper, alpha_star = clairvoyant(curve, p, th, mu)
        g = lambda a: curve.g(a, p.g1, p.g2)
        return {"alpha": action.alpha, "reward": fb[0], "cost": fb[1], "true_upper": upper,
                "regret": (g(alpha_star) - g(action.alpha)) * th,
                "true_in_r": action.in_r[truth.r_star], "true_in_c": action.in_c[truth.c_star]}

    return Env(init=init, draw=draw, feedback=feedback, report=report)
