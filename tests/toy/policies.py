"""The toy policies: one function, its ``first`` row pinned to arm 0."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from safebandit_core.model import Policy


class Params(NamedTuple):
    first: jax.Array  # () 1.0: always play arm 0


class State(NamedTuple):
    pulls: jax.Array  # (2,) plays of each arm
    wins: jax.Array  # (2,) their summed outcomes


def act(p: Params, s: State, obs: object) -> tuple[jax.Array, dict]:
    """Each arm once, then the best empirical mean (ties to arm 0); arm 0 always for the ``first`` row."""
    score = jnp.where(s.pulls == 0, jnp.inf, s.wins / jnp.maximum(s.pulls, 1))
    return jnp.where(p.first > 0, 0, jnp.argmax(score)), {}


def update(p: Params, s: State, obs: object, a: jax.Array, reward: jax.Array) -> State:
    """Count the play and its outcome."""
    one = jax.nn.one_hot(a, 2, dtype=s.wins.dtype)
    return State(s.pulls + one, s.wins + one * reward)


def make_policy(dtype: jnp.dtype) -> Policy:
    """The policy, its state in ``dtype``."""
    return Policy(init=lambda p: State(jnp.zeros(2, dtype), jnp.zeros(2, dtype)), act=act, update=update)
