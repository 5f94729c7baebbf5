"""The toy environment: both arms' Bernoulli outcomes drawn each round from ``fold_in(key, t)``."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from safebandit_core.model import Env


class EnvParams(NamedTuple):
    means: jax.Array  # (2,) success probabilities


class Obs(NamedTuple):
    outcomes: jax.Array  # (2,) this round's outcome of each arm


def draw(p: EnvParams, key: jax.Array, t: jax.Array) -> Obs:
    """Round ``t``'s outcomes of both arms."""
    u = jax.random.uniform(jax.random.fold_in(key, t), (2,), dtype=p.means.dtype)
    return Obs((u < p.means).astype(p.means.dtype))


def make_env() -> Env:
    """The environment: the reward is the played arm's outcome, the regret the gap of its mean to the best."""
    return Env(init=lambda p, key: (),
               draw=draw,
               feedback=lambda p, truth, obs, a: obs.outcomes[a],
               report=lambda p, truth, obs, a, fb: {"reward": fb, "regret": jnp.max(p.means) - p.means[a]})
