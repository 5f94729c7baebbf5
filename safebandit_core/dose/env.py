"""The heteroscedastic dose environment of Safety by Design: a stream plus a feedback rule.

R_t = g(α_t)·(⟨X_t, θ*⟩ + ξ^r_t),   C_t = g(α_t)·(⟨X_t, μ*⟩ + ξ^c_t)   (eqs. 1–2)

Streams are drawn from one key: θ*, μ* (standard normal, normalised to unit norm, §7) from the
key itself, and round t's context (standard normal, normalised), noises (Gaussian, std κ_r, κ_c)
and the ε-Greedy coin from ``fold_in(stream key, t)`` — so a stream does not depend on how it is chunked,
and every policy run on the same key sees the same stream (common random numbers).
An explicit stream (given arrays) replaces the draws for replays and cross-checks.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from ..model import Env
from ..shapes import within
from .curves import Curve


class EnvParams(NamedTuple):
    """The environment's numbers (traced) and, when the stream is given, its arrays.

    ``source`` of :func:`make_env` decides what ``stream`` holds: nothing (everything drawn from the
    key), a whole :class:`Stream` (an explicit replay), or a :class:`Stream` whose contexts and
    truth are used while noises and coins are drawn (a fitted real-data model: the battery).
    """

    tau: jax.Array  # () safety threshold τ (for the clairvoyant's safe dose)
    delta: jax.Array  # () δ (the clairvoyant uses the true margin b_δ)
    kappa_r: jax.Array  # () reward noise std
    kappa_c: jax.Array  # () cost noise std
    g1: jax.Array  # () curve parameter p or EC50
    g2: jax.Array  # () curve parameter n
    d: jax.Array  # () the true dimension: coordinates from d on are zero (a padded width, see make_env)
    stream: Stream | None = None


class Obs(NamedTuple):
    """Everything random about one round, and its index."""

    x: jax.Array  # (d,) context
    xi_r: jax.Array  # () reward noise
    xi_c: jax.Array  # () cost noise
    u_eps: jax.Array  # () uniform coin of ε-Greedy
    t: jax.Array  # () int, 0-based round


class Truth(NamedTuple):
    """The environment's hidden parameters."""

    theta: jax.Array  # (d,) θ*
    mu: jax.Array  # (d,) μ*


class Stream(NamedTuple):
    """An explicit stream: contexts, noises, coins and the true parameters (leading axis T)."""

    X: jax.Array  # (T, d)
    xi_r: jax.Array  # (T,)
    xi_c: jax.Array  # (T,)
    u_eps: jax.Array  # (T,)
    theta: jax.Array  # (d,)
    mu: jax.Array  # (d,)


def unit(v: jax.Array) -> jax.Array:
    """v / ‖v‖."""
    return v / jnp.linalg.norm(v)


def _keys(key: jax.Array) -> jax.Array:
    """(stream key, θ* key, μ* key) of a run's key."""
    return jax.random.split(key, 3)


def _normal(key: jax.Array, width: int, d: Any, dtype: jnp.dtype) -> jax.Array:
    """N(0, I_d) in the first d of ``width`` coordinates, zero after them.

    JAX draws element i of a shape from the key and i alone, so the first d coordinates are the
    very numbers a width-d draw gives: padding changes no draw.
    """
    z = jax.random.normal(key, (width,), dtype)
    return z if d is None else jnp.where(within(d, width), z, jnp.zeros((), dtype))


def draw_truth(key: jax.Array, width: int, dtype: jnp.dtype, d: Any = None) -> Truth:
    """θ*, μ* ~ N(0, I_d), normalised to unit norm (Safety by Design §7); zero from coordinate d on (None: none
    padded)."""
    _, k_theta, k_mu = _keys(key)
    return Truth(unit(_normal(k_theta, width, d, dtype)), unit(_normal(k_mu, width, d, dtype)))


def margin(p: EnvParams) -> jax.Array:
    """The true realized-cost margin b_δ = κ_c·sqrt(2 log(1/δ))."""
    return p.kappa_c * jnp.sqrt(2.0 * jnp.log(1.0 / p.delta))


def draw_round(p: EnvParams, key: jax.Array, t: jax.Array, width: int, dtype: jnp.dtype, padded: bool = False
               ) -> Obs:
    """Round t of the synthetic stream: normalised Gaussian context, Gaussian noises, a coin.

    ``padded``: the context has ``width`` coordinates of which the first ``p.d`` are drawn, the rest zero.
    """
    kx, kr, kc, ku = jax.random.split(jax.random.fold_in(_keys(key)[0], t), 4)
    x = unit(_normal(kx, width, p.d if padded else None, dtype))
    return Obs(
        x=x,
        xi_r=p.kappa_r * jax.random.normal(kr, (), dtype),
        xi_c=p.kappa_c * jax.random.normal(kc, (), dtype),
        u_eps=jax.random.uniform(ku, (), dtype),
        t=t,
    )


def feedback(curve: Curve, p: EnvParams, truth: Truth, obs: Obs, alpha: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(R_t, C_t) of eqs. 1–2."""
    gz = curve.g(alpha, p.g1, p.g2)
    return gz * (obs.x @ truth.theta + obs.xi_r), gz * (obs.x @ truth.mu + obs.xi_c)


def clairvoyant(curve: Curve, p: EnvParams, truth: Truth, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(α*max_t, α*_t): the true safe upper end (with the true margin b_δ) and the optimal dose."""
    big_b = x @ truth.mu + margin(p)
    safe_b = jnp.where(big_b > 0, big_b, 1.0)
    z = jnp.where(big_b <= 0, 1.0, jnp.minimum(1.0, p.tau / safe_b))
    upper = curve.g_inv(z, p.g1, p.g2)
    return upper, jnp.where(x @ truth.theta >= 0, upper, 0.0)


def pseudo_regret(curve: Curve, p: EnvParams, truth: Truth, x: jax.Array, alpha: jax.Array,
                  alpha_star: jax.Array) -> jax.Array:
    """(g(α*_t) − g(α_t))·⟨X_t, θ*⟩ (negative when a policy leaves the true safe set)."""
    return (curve.g(alpha_star, p.g1, p.g2) - curve.g(alpha, p.g1, p.g2)) * (x @ truth.theta)


SOURCES = ("synthetic", "stream", "contexts")


def make_env(curve: Curve, width: int, dtype: jnp.dtype, source: str = "synthetic") -> Env:
    """The dose environment for one compiled width and stream source (see :class:`EnvParams`).

    The synthetic source draws the first ``p.d`` of ``width`` coordinates and leaves the rest zero,
    so one compiled width serves every d up to it; a given stream is used at its own width.
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)} (got {source!r})")

    def init(p: EnvParams, key: jax.Array) -> Truth:
        if source == "synthetic":
            return draw_truth(key, width, dtype, p.d)
        return Truth(p.stream.theta, p.stream.mu)

    def draw(p: EnvParams, key: jax.Array, t: jax.Array) -> Obs:
        if source == "stream":
            st = p.stream
            return Obs(st.X[t], st.xi_r[t], st.xi_c[t], st.u_eps[t], t)
        if source == "contexts":
            return draw_round(p, key, t, 1, dtype)._replace(x=p.stream.X[t])
        return draw_round(p, key, t, width, dtype, padded=True)

    def env_feedback(p: EnvParams, truth: Truth, obs: Obs, alpha: jax.Array) -> tuple[jax.Array, jax.Array]:
        return feedback(curve, p, truth, obs, alpha)

    def report(p: EnvParams, truth: Truth, obs: Obs, alpha: jax.Array, fb: tuple[jax.Array, jax.Array]
               ) -> dict[str, jax.Array]:
        upper, alpha_star = clairvoyant(curve, p, truth, obs.x)
        return {
            "alpha": alpha,
            "reward": fb[0],
            "cost": fb[1],
            "cost_mean": curve.g(alpha, p.g1, p.g2) * (obs.x @ truth.mu),
            "true_upper": upper,
            "regret": pseudo_regret(curve, p, truth, obs.x, alpha, alpha_star),
        }

    return Env(init=init, draw=draw, feedback=env_feedback, report=report)
