"""The heteroscedastic dose environment of seed 000: a stream plus a feedback rule.

R_t = g(α_t)·(⟨X_t, θ*⟩ + ξ^r_t),   C_t = g(α_t)·(⟨X_t, μ*⟩ + ξ^c_t)   (eqs. 1–2)

Streams are drawn from one key: θ*, μ* (standard normal, normalised to unit norm, §7) from the
key itself, and round t's context (standard normal, normalised), noises (Gaussian, std κ_r, κ_c)
and the ε-Greedy coin from ``fold_in(stream key, t)`` — so a stream does not depend on how it is chunked,
and every policy run on the same key sees the same stream (common random numbers).
An explicit stream (given arrays) replaces the draws for replays and cross-checks.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from .curves import Curve
from .policies import DoseParams, margin


class Obs(NamedTuple):
    """Everything random about one round."""

    x: jax.Array  # (d,) context
    xi_r: jax.Array  # () reward noise
    xi_c: jax.Array  # () cost noise
    u_eps: jax.Array  # () uniform coin of ε-Greedy


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


def draw_truth(key: jax.Array, d: int, dtype: jnp.dtype) -> Truth:
    """θ*, μ* ~ N(0, I_d), normalised to unit norm (seed 000 §7)."""
    _, k_theta, k_mu = _keys(key)
    return Truth(unit(jax.random.normal(k_theta, (d,), dtype)), unit(jax.random.normal(k_mu, (d,), dtype)))


def draw_round(p: DoseParams, key: jax.Array, t: jax.Array, d: int, dtype: jnp.dtype) -> Obs:
    """Round t of the synthetic stream: normalised Gaussian context, Gaussian noises, a coin."""
    kx, kr, kc, ku = jax.random.split(jax.random.fold_in(_keys(key)[0], t), 4)
    x = unit(jax.random.normal(kx, (d,), dtype))
    return Obs(
        x=x,
        xi_r=p.kappa_r * jax.random.normal(kr, (), dtype),
        xi_c=p.kappa_c * jax.random.normal(kc, (), dtype),
        u_eps=jax.random.uniform(ku, (), dtype),
    )


def feedback(curve: Curve, p: DoseParams, truth: Truth, obs: Obs, alpha: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(R_t, C_t) of eqs. 1–2."""
    gz = curve.g(alpha, p.g1, p.g2)
    return gz * (obs.x @ truth.theta + obs.xi_r), gz * (obs.x @ truth.mu + obs.xi_c)


def clairvoyant(curve: Curve, p: DoseParams, truth: Truth, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(α*max_t, α*_t): the true safe upper end (with the true margin b_δ) and the optimal dose."""
    big_b = x @ truth.mu + margin(p)
    safe_b = jnp.where(big_b > 0, big_b, 1.0)
    z = jnp.where(big_b <= 0, 1.0, jnp.minimum(1.0, p.tau / safe_b))
    upper = curve.g_inv(z, p.g1, p.g2)
    return upper, jnp.where(x @ truth.theta >= 0, upper, 0.0)


def pseudo_regret(curve: Curve, p: DoseParams, truth: Truth, x: jax.Array, alpha: jax.Array,
                  alpha_star: jax.Array) -> jax.Array:
    """(g(α*_t) − g(α_t))·⟨X_t, θ*⟩ (negative when a policy leaves the true safe set)."""
    return (curve.g(alpha_star, p.g1, p.g2) - curve.g(alpha, p.g1, p.g2)) * (x @ truth.theta)
