"""The environment of One-size-fits-all's conservative bandits: every base arm's outcome each round, and the feedback
rule.

Round t's outcomes (K,) are either Bernoulli draws ``uniform(fold_in(key, t), K) < means`` (source
``"bernoulli"``: every policy of a seed sees the same outcomes, whatever the chunking) or row t of a
given table (source ``"table"``: a replay, or a cross-check against a reference). A regular play
pays ``mask · outcomes`` (the sum over a super arm's base arms) and shows the played base arms'
outcomes (semi-bandit feedback); the default arm x_0 pays the known μ_0 and shows nothing.

Regret per round (ALGORITHMS.md §2): ``μ_best − μ_played`` where μ_best is the best super arm's
mean (the top-m base means summed; m = 1 for CMAB and CLB) and x_0 counts as μ_0. The true means
are the environment's params, never a policy's.

The arms form a compiled width (:mod:`safebandit_core.shapes`): arms from the true ``K`` on have mean 0
(their Bernoulli outcome is always 0, and the first K draws are those of an unpadded run), are never
played, and stay out of the best super arm.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from ..model import Env
from ..shapes import within
from .gencb import Action, Feedback


class EnvParams(NamedTuple):
    """The environment's numbers (traced) and, for the ``"table"`` source, the outcomes."""

    mu0: jax.Array  # () what the default arm x_0 pays
    means: jax.Array  # (K,) true base-arm means, 0 for padding
    K: jax.Array  # () the true number of base arms; arms from K on pad the compiled width
    table: jax.Array | None = None  # (T, K) given outcomes; None when drawn


class Obs(NamedTuple):
    """Everything random about one round."""

    outcomes: jax.Array  # (K,) what every base arm pays if played this round


def _bernoulli(p: EnvParams, key: jax.Array, t: jax.Array) -> Obs:
    dtype = p.means.dtype
    u = jax.random.uniform(jax.random.fold_in(key, t), p.means.shape, dtype)
    return Obs((u < p.means).astype(dtype))


def _table(p: EnvParams, key: jax.Array, t: jax.Array) -> Obs:
    return Obs(p.table[t])


DRAWS: dict[str, Callable[[EnvParams, jax.Array, jax.Array], Obs]] = {"bernoulli": _bernoulli, "table": _table}
SOURCES: tuple[str, ...] = tuple(DRAWS)


def feedback(p: EnvParams, truth: tuple, obs: Obs, action: Action) -> Feedback:
    """The reward (``mask · outcomes``, or μ_0 for x_0) and the played base arms' outcomes."""
    reward = jnp.where(action.default, p.mu0, action.mask @ obs.outcomes)
    return Feedback(reward=reward, observed=action.mask * obs.outcomes)


def make_env(size: int, source: str = "bernoulli") -> Env:
    """The environment for super arms of ``size`` base arms (1 for CMAB and CLB) and a stream ``source``."""
    if source not in DRAWS:
        raise ValueError(f"source must be one of {', '.join(SOURCES)} (got {source!r})")

    def init(p: EnvParams, key: jax.Array) -> tuple:
        return ()

    def report(p: EnvParams, truth: tuple, obs: Obs, action: Action, fb: Feedback) -> dict[str, jax.Array]:
        best = jnp.sum(jax.lax.top_k(jnp.where(within(p.K, p.means.shape[0]), p.means, -jnp.inf), size)[0])
        played = jnp.where(action.default, p.mu0, action.mask @ p.means)
        return {"reward": fb.reward, "regret": best - played}

    return Env(init=init, draw=DRAWS[source], feedback=feedback, report=report)
