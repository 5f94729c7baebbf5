"""One runner for every model: ``lax.scan`` over rounds, ``vmap`` over seeds and settings.

A model is a :class:`Model`: three pure functions over explicit state (the gymnax/optax way):

- ``init(params, key) -> carry``: the starting state of one run (policy state + environment);
- ``draw(params, key, t) -> obs``: everything random about round ``t`` (0-based), drawn from
  ``fold_in(key, t)`` so a stream is fully determined by its key, whatever the chunking;
- ``step(params, carry, obs) -> (carry, out)``: play one round; ``out`` is a dict of scalars;
- ``policy_axis``: every output of ``step`` carries a trailing policy axis (a model composed by
  :func:`safebandit_core.model.compose`); results then read (policy, seed, t);
- optionally ``refresh(params, carry, block_outs) -> carry`` with ``block``: applied after every
  ``block`` rounds (rounds block, 2·block, ...) with that block's per-round outputs, e.g. an exact
  re-inversion against rank-one drift. It runs between nested scans, never as a per-round branch
  (a per-round ``lax.cond`` on a large carry makes XLA copy it every round). Outputs whose name
  starts with ``_`` are internal: they reach ``refresh`` and are dropped from the results.

``params`` is a pytree of numeric settings (traced, so one compiled function sweeps them);
what fixes array shapes (d, K, the policy, the dose curve) is closed over by the factory that
builds the model. The runner advances in chunks so live pages can draw partial results.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from . import device as _device  # noqa: F401  (enables float64 before any array is built)

_Last = TypeVar("_Last")
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
    refresh: Callable[[Params, Carry, dict[str, jax.Array]], Carry] | None = None
    block: int = 0
    policy_axis: bool = False
    round_cost: int = 1
    """The work of one round of one run, in rounds of a small model (a linear policy of width w: (w/8)², its matrix
    updates being quadratic in w); it only weighs the rounds counted for :data:`FULL_OPT_ROUNDS`."""


@dataclasses.dataclass
class Chunk:
    """Results so far: ``outputs[k]`` has shape batch + (t_done,); ``done`` on the last chunk.

    The pieces are joined on first access, so a caller that only reads the last chunk
    (:func:`final`) joins once instead of once per chunk.
    """

    t_done: int
    T: int
    pieces: dict[str, list[np.ndarray]]

    @functools.cached_property
    def outputs(self) -> dict[str, np.ndarray]:
        return {k: np.concatenate(v, axis=-1) for k, v in self.pieces.items()}

    @property
    def joined(self) -> Mapping[str, np.ndarray]:
        """:attr:`outputs` as a mapping that joins the pieces only when first read: a caller that streams a run
        and reads only its last chunk joins once, not once per chunk (a copy of everything so far each time)."""
        return _Joined(self)

    @property
    def done(self) -> bool:
        return self.t_done >= self.T


class _Joined(Mapping[str, np.ndarray]):
    """A chunk's outputs by name, joined on first read (:attr:`Chunk.joined`)."""

    def __init__(self, chunk: Chunk) -> None:
        self._chunk = chunk

    def __getitem__(self, name: str) -> np.ndarray:
        return self._chunk.outputs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._chunk.pieces)

    def __len__(self) -> int:
        return len(self._chunk.pieces)

    @property
    def fraction(self) -> float:
        return self.t_done / max(self.T, 1)


def _one_run_init(model: Model, params: Params, key: jax.Array) -> Carry:
    return model.init(params, key)


def _one_run_advance(model: Model, params: Params, key: jax.Array, carry: Carry, t0: jax.Array, n: int,
                     last: bool = False, valid: jax.Array | None = None):
    ts = t0 + jnp.arange(n)
    obs = jax.vmap(model.draw, in_axes=(None, None, 0))(params, key, ts)  # the chunk's draws, vectorised
    if valid is None:
        step = lambda c, o: model.step(params, c, o)
    else:  # a padded tail: rounds from ``valid`` on leave the carry as it was (their outputs are dropped)
        obs = (obs, jnp.arange(n) < valid)

        def step(c, o):
            new, out = model.step(params, c, o[0])
            return jax.tree.map(lambda a, b: jnp.where(o[1], a, b), new, c), out
    if not model.block or model.refresh is None or n < model.block:
        return _public(jax.lax.scan(step, carry, obs))
    nb, rem = divmod(n, model.block)  # chunks start at multiples of block (see run_chunks)
    if last and rem == 0:  # no refresh after the run's final round: nothing would use it
        nb, rem = nb - 1, model.block
    head = jax.tree.map(lambda v: v[: nb * model.block].reshape(nb, model.block, *v.shape[1:]), obs)

    def block(c, o):
        c, out = jax.lax.scan(step, c, o)
        return model.refresh(params, c, out), _strip(out)

    carry, outs = jax.lax.scan(block, carry, head)
    outs = jax.tree.map(lambda v: v.reshape(nb * model.block, *v.shape[2:]), outs)
    if rem:
        tail = jax.tree.map(lambda v: v[nb * model.block:], obs)
        carry, more = _public(jax.lax.scan(step, carry, tail))
        outs = jax.tree.map(lambda a, b: jnp.concatenate([a, b]), outs, more)
    return carry, outs


def _strip(outs: dict[str, jax.Array]) -> dict[str, jax.Array]:
    return {k: v for k, v in outs.items() if not k.startswith("_")}


def _public(result: tuple[Carry, dict[str, jax.Array]]) -> tuple[Carry, dict[str, jax.Array]]:
    return result[0], _strip(result[1])


@functools.partial(jax.jit, static_argnums=(0, 3))
def _init_batched(model: Model, params: Params, keys: jax.Array, grid: Any) -> Carry:
    f = jax.vmap(functools.partial(_one_run_init, model), in_axes=(None, 0))
    if grid is not False:
        f = jax.vmap(f, in_axes=(_axes(grid), None))
    return f(params, keys)


def _advance(model: Model, params: Params, keys: jax.Array, carry: Carry, t0: jax.Array, n: int, grid: Any,
             last: bool = False, valid: jax.Array | None = None):
    one = lambda p, k, c, t, v: _one_run_advance(model, p, k, c, t, n, last, v)
    f = jax.vmap(one, in_axes=(None, 0, 0, None, None))
    if grid is not False:
        f = jax.vmap(f, in_axes=(_axes(grid), None, 0, None, None))
    return f(params, keys, carry, t0, valid)


_advance_batched = jax.jit(_advance, static_argnums=(0, 5, 6, 7), donate_argnums=(3,))
"""One chunk of every run, compiled as ``XLA_FLAGS`` say (XLA's default level unless they say otherwise)."""
FULL_LEVEL = 3
"""XLA's own default ``xla_backend_optimization_level``."""
_advance_optimised = jax.jit(_advance, static_argnums=(0, 5, 6, 7), donate_argnums=(3,),
                             compiler_options={"xla_backend_optimization_level": FULL_LEVEL})
"""The same chunk compiled at :data:`FULL_LEVEL` whatever ``XLA_FLAGS`` say (see :data:`FULL_OPT_ROUNDS`)."""
FULL_OPT_ENV = "SAFEBANDIT_FULL_OPT_ROUNDS"


def _full_opt_rounds(environ: Any = os.environ) -> int | None:
    """``$SAFEBANDIT_FULL_OPT_ROUNDS`` as a whole number, or None when unset or empty."""
    value = environ.get(FULL_OPT_ENV, "").strip()
    if not value:
        return None
    if not value.isdigit():
        raise ValueError(f"{FULL_OPT_ENV} must be a whole number of rounds (e.g. 50000), got {value!r}")
    return int(value)


FULL_OPT_ROUNDS: int | None = _full_opt_rounds()
"""``$SAFEBANDIT_FULL_OPT_ROUNDS``: a run whose chunks play at least this many rounds in all (runs × chunk length,
weighed by the model's :attr:`Model.round_cost`) compiles them at XLA's full level whatever ``XLA_FLAGS`` say, since
running them then costs more than compiling them. Unset (the app, the test suite): every chunk compiles as
``XLA_FLAGS`` say. For a process that compiles at level 0 (as the suite does): its large runs (the pages' scrub
grids, the battery replay) then run at full speed, two to three times quicker, at the price of dearer compiles, which
cost the cold suite more than they saved (README, *Benchmarks and checks*). Every chunk of one run shares a level:
the run's chunk length decides, not the length of its last chunk."""


def _advance_for(rounds: int) -> Any:
    """The compiled chunk for a run whose chunks play ``rounds`` rounds in all (see :data:`FULL_OPT_ROUNDS`)."""
    return _advance_optimised if FULL_OPT_ROUNDS is not None and rounds >= FULL_OPT_ROUNDS else _advance_batched


def _axes(grid: Any) -> Any:
    """``grid=True`` batches every params leaf on axis 0; a tuple prefix like ``(0, None)`` batches
    only some parts (e.g. settings rows) and shares the rest (e.g. a large context table)."""
    return 0 if grid is True else grid


def _runs(params: Params, keys: jax.Array, grid: Any) -> int:
    """How many runs one call advances: the keys, times the settings rows of a grid."""
    if grid is False:
        return keys.shape[0]
    rows = jax.tree.map(lambda a, sub: None if a is None else sub, _axes(grid), params, is_leaf=lambda x: x is None)
    return keys.shape[0] * jax.tree.leaves(rows)[0].shape[0]


CHUNK_BYTES = 256 * 2**20


def auto_chunk(model: Model, params: Params, keys: jax.Array, grid: Any) -> int:
    """The largest chunk whose pre-drawn randomness stays under ``CHUNK_BYTES``."""
    if grid is False:
        p1, rows = params, 1
    else:
        first = lambda a, sub: sub if a is None else jax.tree.map(lambda v: v[0], sub)
        p1 = jax.tree.map(first, _axes(grid), params, is_leaf=lambda x: x is None)
        rows = jax.tree.leaves(params)[0].shape[0]
    shape = jax.eval_shape(model.draw, p1, keys[0], jnp.asarray(0))
    per_round = sum(x.size * x.dtype.itemsize for x in jax.tree.leaves(shape))
    runs = keys.shape[0] * rows
    return max(1, CHUNK_BYTES // max(1, per_round * runs))


T_BUCKET_MIN = 128
"""The shortest chunk a run gets when its caller names none (:func:`t_bucket`)."""
ONE_CHUNK_T, LONG_RUN_CHUNKS = 8192, 8
"""Without a chunk named, a run of up to 8192 rounds goes in one chunk of its bucket; a longer one in chunks of the
largest bucket within T/8 (so the masked tail adds at most an eighth of the rounds)."""


def _ladder(size: int) -> int:
    """The bucket after ``size``: ``size`` times √2, rounded up."""
    return math.ceil(size * math.sqrt(2))


def t_bucket(T: int, block: int = 0) -> int:
    """The bucket of a run of ``T`` rounds: the smallest of 128, 182, 258, 365, … (each the last times √2, rounded
    up) that holds T. For a model with a refresh ``block``: a bucket past the block is rounded up to a multiple of
    it, and a run of at most one block gets at most one block (no refresh falls inside it). Every T of one bucket
    runs in the same compiled shape with its tail masked, so a Python or command-line user who varies T compiles
    once per bucket, not once per T, and computes at most 41 % more rounds than asked (the masked ones) once T
    passes the shortest bucket or, with a block, the block."""
    size = T_BUCKET_MIN
    while size < T:
        size = _ladder(size)
    if not block:
        return size
    return min(size, block) if T <= block else -(-size // block) * block


def bucket_at_most(limit: int, block: int = 0) -> int:
    """The largest bucket of :func:`t_bucket` within ``limit`` (the shortest bucket when none is)."""
    size = T_BUCKET_MIN
    while _ladder(size) <= limit:
        size = _ladder(size)
    return -(-size // block) * block if block else size


LONG_CHUNK_MIN = t_bucket(1024)
"""The shortest chunk of a run longer than :data:`ONE_CHUNK_T`, 1036 rounds (the bucket that holds 1024, as before
the buckets started at 128): it bounds the count of its chunks, each a round trip to the host."""


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
    grid: Any = False,
    device: str | None = None,
    shardings: tuple[Any, Any] | None = None,
    pad_tail: bool = False,
) -> Iterator[Chunk]:
    """Run ``T`` rounds for every key (and every settings row when ``grid``), yielding partial results.

    Outputs have shape ``(S, t)`` or, with ``grid`` (params batched on axis 0, or as the in_axes
    prefix ``grid`` gives), ``(G, S, t)``.
    Chunks are all of size ``chunk`` except possibly the last (one extra compilation at most).
    Without ``chunk`` the run goes in buckets with a masked tail: one chunk of :func:`t_bucket` (T) rounds up to
    :data:`ONE_CHUNK_T`, else chunks of the largest bucket within T/8 whose draws fit in ``CHUNK_BYTES``; so a new
    T within a bucket compiles nothing, and the numbers are those of any other chunking. For a model with a
    ``block``, chunks are rounded down to a multiple of it (at least one block), so results do
    not depend on the chunking.

    ``pad_tail``: run the last chunk at the full chunk length with its extra rounds masked (they
    leave the state as it was and their outputs are dropped), so T never enters a static shape: the
    same two compiled variants (a middle chunk, a masked last chunk) serve every T, even one that is
    a multiple of the chunk (the pages use it, so moving T neither compiles nor re-traces anything).

    ``shardings``: ``(params_sharding, keys_sharding)``, a sharding (or a pytree of them matching
    ``params``) for the params and one for the keys. The inputs are placed with them instead of on
    ``device``, and jit lays the whole computation out the same way (e.g. the settings rows of a
    sweep split across devices, see :mod:`safebandit_core.sweep`).
    """
    with _device.on_device(device) as dev:
        if chunk is None:
            fits = auto_chunk(model, params, keys, grid)
            whole = t_bucket(T, model.block)
            chunk = whole if whole <= min(fits, ONE_CHUNK_T) else bucket_at_most(
                min(fits, max(LONG_CHUNK_MIN, T // LONG_RUN_CHUNKS)), model.block)
            pad_tail = True
        chunk = max(1, chunk if pad_tail else min(chunk, T))
        if model.block and chunk < T:
            chunk = max(model.block, chunk - chunk % model.block)
        params = jax.device_put(params, dev if shardings is None else shardings[0])
        keys = jax.device_put(keys, dev if shardings is None else shardings[1])
        carry = _init_batched(model, params, keys, grid)
        advance = _advance_for(_runs(params, keys, grid) * chunk * model.round_cost)
        if shardings is None:  # committed, like every later carry: a state built from constants alone comes
            carry = jax.device_put(carry, dev)  # out uncommitted, and the second chunk would trace anew
        pieces: dict[str, list[np.ndarray]] = {}
        t0 = 0
        while t0 < T:
            n = min(chunk, T - t0)
            if pad_tail and t0 + n >= T:  # the last chunk, full or not: always the one masked variant
                carry, outs = advance(model, params, keys, carry, jnp.asarray(t0), chunk, grid, True, jnp.asarray(n))
                cut = (Ellipsis, slice(0, n)) + ((slice(None),) if model.policy_axis else ())
                outs = {k: np.asarray(v)[cut] for k, v in outs.items()}  # on the host: no slice op per length
            else:
                carry, outs = advance(model, params, keys, carry, jnp.asarray(t0), n, grid, t0 + n >= T)
            for k, v in outs.items():
                v = np.asarray(v)
                if model.policy_axis:  # (..., S, n, P) -> (..., P, S, n)
                    v = np.moveaxis(v, -1, -3)
                pieces.setdefault(k, []).append(v)
            t0 += n
            yield Chunk(t_done=t0, T=T, pieces={k: list(v) for k, v in pieces.items()})


def run(
    model: Model,
    params: Params,
    keys: jax.Array,
    T: int,
    chunk: int | None = None,
    grid: Any = False,
    device: str | None = None,
    shardings: tuple[Any, Any] | None = None,
) -> dict[str, np.ndarray]:
    """Run to the end and return the full outputs (see :func:`run_chunks`)."""
    return final(run_chunks(model, params, keys, T, chunk=chunk, grid=grid, device=device, shardings=shardings)).outputs


def final(chunks: Iterable[_Last]) -> _Last:
    """Drive a chunked run to its end and return its last chunk (the whole run)."""
    last = None
    for chunk in chunks:
        last = chunk
    if last is None:
        raise ValueError("a run of zero rounds has no results")
    return last


def timed_final(runs: Iterable[Any]) -> tuple[Any, float | None]:
    """Drive a chunked run (each chunk a :class:`safebandit_core.model.Run` with its ``seconds`` so far) to its end:
    its last chunk, and how long the run takes once compiled (:func:`steady_seconds`; None for a single chunk)."""
    stamps = []
    last = None
    for last in runs:
        stamps.append(last.seconds)
    if last is None:
        raise ValueError("a run of zero rounds has no results")
    return last, steady_seconds(stamps)


def steady_seconds(stamps: list[float]) -> float | None:
    """How long a chunked run takes once compiled, from the seconds at which each of its chunks was done: every chunk
    has the same compiled length (the last one masked, ``pad_tail``), so the chunks after the first, which alone may
    trace, compile or read its program from disk, time them all. None for a single chunk, which cannot tell the two
    apart."""
    return None if len(stamps) < 2 else (stamps[-1] - stamps[0]) * len(stamps) / (len(stamps) - 1)
