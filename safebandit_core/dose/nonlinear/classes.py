"""Finite function classes X → [−1, 1] for non-linear HPC-UCB (Safety by Design §6, ALGORITHMS.md §1.4).

A class is DATA: a pytree of member parameters with a leading member axis, drawn once from a
key, plus one pure ``evaluate(params, x) -> (|F|,)`` giving every member's value at a context
``x`` with ‖x‖ ≤ 1. The kind fixes the code (static); the members are traced numbers, so one
compiled function serves any class of the same kind and size.

- ``linear-grid``: f(x) = ⟨θ, x⟩ over a finite sample of unit vectors θ (so |f| ≤ 1 and a run
  can sit beside linear HPC-UCB on the same stream);
- ``logistic``: f(x) = 2σ(⟨w, x⟩ + c) − 1 with w ~ N(0, 4 I_d), c ~ N(0, 1/4);
- ``mlp``: f(x) = tanh(⟨v, tanh(W x + b)⟩ + c), one hidden layer of ``hidden`` tanh units, with
  W ~ N(0, 4), b ~ N(0, 1), v ~ N(0, 4/hidden), c ~ N(0, 1/4).

Members are drawn in float64 (numpy), whatever the run's precision, so a class does not depend
on the device; the run casts them. :func:`pad` fills them out with zeros to compiled widths (more
members, coordinates, hidden units): a zero coordinate or hidden unit changes no member's value
(bit for bit in exact sums; XLA may group a longer sum differently, a last-bit change), and a zero
member (value 0 everywhere) is masked out by the policy (:mod:`.policy`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ...shapes import zero_pad


class Linear(NamedTuple):
    """Members of ``linear-grid``."""

    theta: Any  # (n, d) unit vectors


class Logistic(NamedTuple):
    """Members of ``logistic``."""

    w: Any  # (n, d)
    c: Any  # (n,)


class MLP(NamedTuple):
    """Members of ``mlp``."""

    w1: Any  # (n, h, d)
    b1: Any  # (n, h)
    w2: Any  # (n, h)
    b2: Any  # (n,)


class ClassKind(NamedTuple):
    """A kind of finite class: ``draw(key, n, d, hidden)`` members, ``evaluate(members, x)``, and each
    member field's axes (``"n"`` members, ``"h"`` hidden units, ``"d"`` coordinates) for :func:`pad`."""

    draw: Callable[[jax.Array, int, int, int], Any]
    evaluate: Callable[[Any, jax.Array], jax.Array]
    about: str
    axes: tuple[str, ...]


def _normal(key: jax.Array, shape: tuple[int, ...], std: float) -> np.ndarray:
    return std * np.asarray(jax.random.normal(key, shape, jnp.float64))


def _draw_linear(key: jax.Array, n: int, d: int, hidden: int) -> Linear:
    theta = _normal(key, (n, d), 1.0)
    return Linear(theta / np.linalg.norm(theta, axis=1, keepdims=True))


def _draw_logistic(key: jax.Array, n: int, d: int, hidden: int) -> Logistic:
    kw, kc = jax.random.split(key)
    return Logistic(_normal(kw, (n, d), 2.0), _normal(kc, (n,), 0.5))


def _draw_mlp(key: jax.Array, n: int, d: int, hidden: int) -> MLP:
    k1, k2, k3, k4 = jax.random.split(key, 4)
    return MLP(_normal(k1, (n, hidden, d), 2.0), _normal(k2, (n, hidden), 1.0),
               _normal(k3, (n, hidden), 2.0 / np.sqrt(hidden)), _normal(k4, (n,), 0.5))


def _eval_linear(m: Linear, x: jax.Array) -> jax.Array:
    return m.theta @ x


def _eval_logistic(m: Logistic, x: jax.Array) -> jax.Array:
    return 2.0 * jax.nn.sigmoid(m.w @ x + m.c) - 1.0


def _eval_mlp(m: MLP, x: jax.Array) -> jax.Array:
    hidden = jnp.tanh(m.w1 @ x + m.b1)  # (n, h)
    return jnp.tanh(jnp.sum(m.w2 * hidden, axis=-1) + m.b2)


CLASSES: dict[str, ClassKind] = {
    "linear-grid": ClassKind(_draw_linear, _eval_linear, "f(x) = <theta, x> over unit vectors theta", ("nd",)),
    "logistic": ClassKind(_draw_logistic, _eval_logistic, "f(x) = 2 sigmoid(<w, x> + c) - 1", ("nd", "n")),
    "mlp": ClassKind(_draw_mlp, _eval_mlp, "f(x) = tanh(<v, tanh(W x + b)> + c), one hidden tanh layer",
                     ("nhd", "nh", "nh", "n")),
}
KINDS = tuple(CLASSES)


def draw(kind: str, key: jax.Array, n: int, d: int, hidden: int) -> Any:
    """``n`` members of a class kind in ``d`` dimensions (float64 numpy leaves)."""
    return CLASSES[kind].draw(key, n, d, hidden)


def pad(kind: str, members: Any, n: int, d: int, hidden: int) -> Any:
    """The members zero-padded to ``n`` members, ``d`` coordinates and ``hidden`` units (numpy leaves).

    Zero weights on the extra coordinates and zero hidden units (tanh(0) = 0, outgoing weight 0) leave
    every member's value unchanged; the extra members are 0 everywhere and must be masked by the user.
    """
    width = {"n": n, "d": d, "h": hidden}
    return type(members)(*(zero_pad(v, tuple(width[a] for a in axes))
                           for v, axes in zip(members, CLASSES[kind].axes, strict=True)))


def evaluate(kind: str, members: Any, x: jax.Array) -> jax.Array:
    """Every member's value at one context ``x`` (d,): an (n,) vector in [−1, 1]."""
    return CLASSES[kind].evaluate(members, x)


def cast(members: Any, dtype: Any) -> Any:
    """The members as JAX arrays of ``dtype``."""
    return jax.tree.map(lambda v: jnp.asarray(v, dtype), members)
