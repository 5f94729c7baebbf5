"""One runner for every model: ``lax.scan`` over rounds, ``vmap`` over seeds and settings.

A model is a :class:`Model`: three pure functions over explicit state (the gymnax/optax way):

- ``init(params, key) -> carry``: the starting state of one run (policy state + environment);
- ``draw(params, key, t) -> obs``: everything random about round ``t`` (0-based), drawn from
  ``fold_in(key, t)`` so a stream is fully determined by its key, whatever the chunking;
- ``step(params, carry, obs) -> (carry, out)``: play one round; ``out`` is a dict of scalars.

``params`` is a pytree of numeric settings (traced, so one compiled function sweeps them);
what fixes array shapes (d, K, the policy, the dose curve) is closed over by the factory that
builds the model. The runner advances in chunks so live pages can draw partial results.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np

from . import device as _device  # noqa: F401  (enables float64 before any array is built)

Params = Any
Carry = Any
Obs = Any


@dataclasses.dataclass(frozen=True, eq=False)
class Model:
    """A model as three pure functions; instances hash by identity (they are static to jit)."""

    init: Callable[[Params, jax.Array], Carry]
    draw: Callable[[Params, jax.Array, jax.Array], Obs]
    step: Callable[[Params, Carry, Obs], tuple[Carry, dict[str, jax.Array]]]
    name: str = "model"


@dataclasses.dataclass
class Chunk:
    """Results so far: ``outputs[k]`` has shape batch + (t_done,); ``done`` on the last chunk."""

    t_done: int
    T: int
    outputs: dict[str, np.ndarray]

    @property
    def done(self) -> bool:
        return self.t_done >= self.T

    @property
    def fraction(self) -> float:
        return self.t_done / max(self.T, 1)


def _one_run_init(model: Model, params: Params, key: jax.Array) -> Carry:
    return model.init(params, key)


def _one_run_advance(model: Model, params: Params, key: jax.Array, carry: Carry, t0: jax.Array, n: int):
    ts = t0 + jnp.arange(n)

    def body(c, t):
        obs = model.draw(params, key, t)
        return model.step(params, c, obs)

    return jax.lax.scan(body, carry, ts)


@functools.partial(jax.jit, static_argnums=(0, 3))
def _init_batched(model: Model, params: Params, keys: jax.Array, grid: bool) -> Carry:
    f = jax.vmap(functools.partial(_one_run_init, model), in_axes=(None, 0))
    if grid:
        f = jax.vmap(f, in_axes=(0, None))
    return f(params, keys)


@functools.partial(jax.jit, static_argnums=(0, 5, 6), donate_argnums=(3,))
def _advance_batched(model: Model, params: Params, keys: jax.Array, carry: Carry, t0: jax.Array, n: int, grid: bool):
    f = jax.vmap(functools.partial(_one_run_advance, model, n=n), in_axes=(None, 0, 0, None))
    if grid:
        f = jax.vmap(f, in_axes=(0, None, 0, None))
    return f(params, keys, carry, t0)


def seed_keys(base_seed: int, n_seeds: int) -> jax.Array:
    """One key per seed: seed ``i`` of a run with base seed ``b`` is ``PRNGKey(b + i)``.

    So seed ``i`` gives the same stream whatever the number of seeds in the run.
    """
    return jnp.stack([jax.random.PRNGKey(base_seed + i) for i in range(n_seeds)])


def run_chunks(
    model: Model,
    params: Params,
    keys: jax.Array,
    T: int,
    chunk: int | None = None,
    grid: bool = False,
    device: str | None = None,
) -> Iterator[Chunk]:
    """Run ``T`` rounds for every key (and every settings row when ``grid``), yielding partial results.

    Outputs have shape ``(S, t)`` or, with ``grid`` (params batched on axis 0), ``(G, S, t)``.
    Chunks are all of size ``chunk`` except possibly the last (one extra compilation at most).
    """
    chunk = T if chunk is None else max(1, min(chunk, T))
    with _device.on_device(device) as dev:
        params = jax.device_put(params, dev)
        keys = jax.device_put(keys, dev)
        carry = _init_batched(model, params, keys, grid)
        pieces: dict[str, list[np.ndarray]] = {}
        t0 = 0
        while t0 < T:
            n = min(chunk, T - t0)
            carry, outs = _advance_batched(model, params, keys, carry, jnp.asarray(t0), n, grid)
            for k, v in outs.items():
                pieces.setdefault(k, []).append(np.asarray(v))
            t0 += n
            yield Chunk(t_done=t0, T=T, outputs={k: np.concatenate(v, axis=-1) for k, v in pieces.items()})


def run(
    model: Model,
    params: Params,
    keys: jax.Array,
    T: int,
    chunk: int | None = None,
    grid: bool = False,
    device: str | None = None,
) -> dict[str, np.ndarray]:
    """Run to the end and return the full outputs (see :func:`run_chunks`)."""
    last = None
    for last in run_chunks(model, params, keys, T, chunk=chunk, grid=grid, device=device):
        pass
    assert last is not None
    return last.outputs
