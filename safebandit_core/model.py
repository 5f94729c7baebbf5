"""The one model protocol: every model kind is a :class:`Family`, every run is a :class:`Run`.

Three small pieces, in the spirit of optax and gymnax:

- a :class:`Policy` is three pure functions over a NamedTuple state,
  ``init(params) -> state``, ``act(params, state, obs) -> (action, info)`` and
  ``update(params, state, obs, action, feedback) -> state`` (plus an optional ``report`` of
  what the agent knows after the round, and an optional block ``refresh``);
- an :class:`Env` is a stream plus a feedback rule: ``init(params, key) -> truth`` (the hidden
  parameters of one run), ``draw(params, key, t) -> obs`` (everything random about round ``t``,
  from ``fold_in``), ``feedback(params, truth, obs, action)`` and ``report(...)`` (the
  per-round outputs only the environment can compute: regret, the true safe dose, ...). True
  means, arms and pre-drawn tables are the environment's params, never the policy's;
- :func:`compose` turns an environment and *lanes* of policies into ONE
  :class:`~safebandit_core.runner.Model`: every compared policy plays the same draws in the
  same scan (common random numbers). A lane is one policy function vmapped over rows of its
  params (the dose model's three policies differ only in numbers, so they are one lane of 3).

A :class:`Family` owns a model kind's settings dataclass, policy labels, sweepable axes,
``model(settings, precision)`` (static shapes, cached), ``params(settings, precision)``
(traced numbers, stackable for grids), derived outputs and summary columns. The generic
:func:`simulate`, :func:`tidy` and :func:`summary` work on any family; the registry of
families is :mod:`safebandit_core.families`.

A :class:`Run` holds ``outputs[field]`` shaped (policy, seed, t), or (cell, policy, seed, t)
for a grid, with the settings, policy ids and labels, device, precision and seconds.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from . import device as _device
from . import distributed, results, runner
from .fields import Field
from .settings import SettingsError, from_dict

Params = Any
State = Any
Obs = Any
Action = Any
Info = dict[str, jax.Array]
Outputs = dict[str, jax.Array]


class Policy(NamedTuple):
    """A policy as pure functions over explicit state (the optax way).

    ``report(params, state, action, info)`` returns the per-round outputs the agent side owns
    (an estimated safe dose, the slack of its own book), read after ``update``. ``trace`` and
    ``refresh`` are for policies with a periodic exact recompute: ``trace(params, obs, action)``
    is kept for every round of a block, and ``refresh(params, state, traces)`` runs after the block.
    """

    init: Callable[[Params], State]
    act: Callable[[Params, State, Obs], tuple[Action, Info]]
    update: Callable[[Params, State, Obs, Action, Any], State]
    report: Callable[[Params, State, Action, Info], Outputs] | None = None
    trace: Callable[[Params, Obs, Action], Any] | None = None
    refresh: Callable[[Params, State, Any], State] | None = None


class Env(NamedTuple):
    """An environment: hidden truth, pre-drawable randomness, a feedback rule, and its outputs."""

    init: Callable[[Params, jax.Array], Any]
    draw: Callable[[Params, jax.Array, jax.Array], Obs]
    feedback: Callable[[Params, Any, Obs, Action], Any]
    report: Callable[[Params, Any, Obs, Action, Any], Outputs]


class Lane(NamedTuple):
    """One policy function run over ``n`` rows of its params (the rows are stacked on axis 0)."""

    policy: Policy
    n: int


def compose(env: Env, lanes: Sequence[Lane], *, name: str, block: int = 0, round_cost: int = 1) -> runner.Model:
    """Every lane's policies on the same draws, in one scan; outputs get a trailing policy axis.

    The model's params are ``(env_params, (lane_params, ...))``. Per round, every output field is
    shaped (P,) with P the lanes' rows in order; the runner moves that axis in front of the seeds.
    ``block`` > 0 calls each lane's ``refresh`` after every ``block`` rounds with its traces. ``round_cost``: see
    :attr:`safebandit_core.runner.Model.round_cost`.
    """
    lanes = tuple(lanes)
    if not lanes:
        raise ValueError("a model needs at least one policy")
    refreshing = block > 0 and any(lane.policy.refresh is not None for lane in lanes)

    def init(params: Params, key: jax.Array) -> Any:
        env_p, lane_ps = params
        states = tuple(jax.vmap(lane.policy.init)(lp) for lane, lp in zip(lanes, lane_ps, strict=True))
        return env.init(env_p, key), states

    def draw(params: Params, key: jax.Array, t: jax.Array) -> Obs:
        return env.draw(params[0], key, t)

    def one_round(lane: Lane, env_p: Params, truth: Any, lp: Params, state: State, obs: Obs):
        pol = lane.policy
        action, info = pol.act(lp, state, obs)
        fb = env.feedback(env_p, truth, obs, action)
        state = pol.update(lp, state, obs, action, fb)
        out = dict(env.report(env_p, truth, obs, action, fb))
        if pol.report is not None:
            out.update(pol.report(lp, state, action, info))
        if refreshing and pol.trace is not None:
            out["_trace"] = pol.trace(lp, obs, action)
        return state, out

    def step(params: Params, carry: Any, obs: Obs):
        env_p, lane_ps = params
        truth, states = carry
        new_states, outs = [], []
        for lane, lp, st in zip(lanes, lane_ps, states, strict=True):
            f = functools.partial(one_round, lane, env_p, truth)
            st, out = jax.vmap(f, in_axes=(0, 0, None))(lp, st, obs)
            new_states.append(st)
            outs.append(out)
        merged: dict[str, jax.Array] = {}
        for k in outs[0]:
            if k == "_trace":
                continue
            merged[k] = jnp.concatenate([o[k] for o in outs]) if len(outs) > 1 else outs[0][k]
        for i, o in enumerate(outs):
            if "_trace" in o:
                merged[f"_trace{i}"] = o["_trace"]
        return (truth, tuple(new_states)), merged

    def refresh(params: Params, carry: Any, block_outs: dict[str, jax.Array]) -> Any:
        env_p, lane_ps = params
        truth, states = carry
        new = []
        for i, (lane, lp, st) in enumerate(zip(lanes, lane_ps, states, strict=True)):
            key = f"_trace{i}"
            if lane.policy.refresh is None or key not in block_outs:
                new.append(st)
                continue
            traces = jnp.moveaxis(block_outs[key], 0, 1)  # (block, n, ...) -> (n, block, ...)
            new.append(jax.vmap(lane.policy.refresh)(lp, st, traces))
        return truth, tuple(new)

    return runner.Model(init=init, draw=draw, step=step, name=name, refresh=refresh if refreshing else None,
                        block=block if refreshing else 0, policy_axis=True, round_cost=round_cost)


@dataclasses.dataclass(frozen=True)
class Axis:
    """A setting a sweep may vary: its field, symbol, plain label, allowed range and default values."""

    field: str
    symbol: str
    label: str
    lo: float
    hi: float
    values: tuple[float, ...]
    log: bool = False


@dataclasses.dataclass(frozen=True)
class Panel:
    """One panel of a scrub chart: an output ``field`` per round, reduced over seeds, and how a caption says it.

    ``how``: ``"mean"`` over seeds; ``"running"`` the running mean over the rounds so far (of a boolean
    field: the share of rounds where it held), mean over seeds; or ``"min"`` the worst seed. ``final``: the
    caption reads the value at the last round (``"last"``) or the smallest over rounds (``"min"``); ``say``
    is its phrase, a format string of one number.
    """

    field: str
    title: str
    say: str
    how: str = "mean"
    final: str = "last"


@dataclasses.dataclass(frozen=True)
class Scrub:
    """The knob a model is about, computed along ``values`` at once and scrubbed in the browser.

    ``field`` is a traced setting; ``panels`` are the per-round curves every frame shows.
    """

    field: str
    symbol: str
    label: str
    values: tuple[float, ...]
    panels: tuple[Panel, ...]


@dataclasses.dataclass(frozen=True, eq=False)
class Family:
    """One model kind: everything generic code needs to run, sweep and export it, and nothing of the app.

    - ``settings_cls``: a frozen dataclass with ``KIND``, ``T``, ``seeds``, ``base_seed``,
      ``precision`` and ``validate()``;
    - ``policies(settings)``: the policy ids a run compares, in order; ``labels``: id -> display name;
    - ``model(settings, precision)``: the composed runner model (static shapes; cache it);
    - ``params(settings, precision)``: the traced params ``(env, lanes)`` of one run;
    - ``grid_axes``: the runner's in_axes prefix over those params for a grid (``True``: every
      leaf varies by cell; a tuple shares, e.g., a large context table across cells);
    - ``axes``: the sweepable settings (:class:`Axis`: symbol, words, range, default values);
    - ``traced``: the fields a grid may vary (one compiled function serves them all);
    - ``derive(settings, outputs)``: extra per-round outputs (cumulative regret, violation, ...);
    - ``summarize(settings, outputs)``: family-specific summary columns of one policy's
      outputs, each shaped (seed, t);
    - ``memory_bytes(settings)``: a generous estimate for the memory check before a run;
    - ``warnings(settings)``: plain sentences about settings that run but void a guarantee or teach little;
    - ``keys(settings)``: the PRNG key of each seed where the family does not use ``PRNGKey(base_seed + i)``;
    - ``resolved(settings)``: the settings with every ``None`` default filled in (e.g. a μ₀
      derived from the instance), so a sweep can read any field's value;
    - ``baseline(settings)``: regret per round of a learner that earns exactly the conservative
      baseline (the papers' baseline line), or None where the model has none;
    - ``load(data)``: settings from a JSON dict when the family reads more than its fields;
      ``regret_name``, ``baseline_name``: how figures name its regret and its baseline line;
    - ``stream(settings, i)``: the explicit stream seed ``i`` of a run sees, and
      ``on_stream(settings, policy, stream)``: one policy replayed on it (the public
      ``run_on_stream`` of the family), so any run can be checked against an independent reading.
    - ``prepare(settings, data)``: for a family whose runs need a table (a data set to read, embed and fit): the
      prepared data, computed once per content and held in :data:`safebandit_core.data.cache.MEMO`; its
      ``settings`` (resolved, naming the data by its hash) then run through the generic :func:`simulate`,
      :func:`tidy` and :func:`summary` like any family's. None: the settings are all a run needs.
    - ``example``: the settings of a small, quick run (a few seeds, a few hundred rounds): the conformance
      checks of the one protocol run it for every registered family;
    - ``scrub``: the knobs the model is about (:class:`Scrub`), the first the page's default; each is
      computed along its whole axis in one grid so a page can scrub it with no rerun.

    How it is run from the command line, read from files and swept (what the app shows of it, its page, title and
    presentation, is its entry in :mod:`safebandit_ui.registry`, which points here, never the other way round):

    - ``command``: its command-line name and ``cli`` the module implementing it (``HELP``,
      ``add_arguments(parser)``, ``run(args)``); empty: no command; ``command_aliases``: older names the
      command still answers to (scripts written before a rename keep working);
    - ``fields``: the controls of its settings (:class:`safebandit_core.fields.Field`: label, unit, range, step,
      help, section, expert or not), declared once in the family's folder: its command's flags and its page's
      controls;
    - ``sweep_base()``: the settings a sweep starts from (None: the settings' defaults); ``aliases``:
      older names of the kind that saved sweeps may carry;
    - ``untagged``: a settings file without a ``kind`` may be this family's (the first release's kinds);
    - ``audience``: ``module:name`` of how its runs are told in plain words (a
      :class:`safebandit_core.scenarios.Model`, in its folder); empty: it has no such telling.
    """

    kind: str
    settings_cls: type
    labels: Mapping[str, str]
    policies: Callable[[Any], tuple[str, ...]]
    model: Callable[[Any, str], runner.Model]
    params: Callable[[Any, str], Params]
    axes: tuple[Axis, ...] = ()
    traced: tuple[str, ...] = ()
    grid_axes: Any = True
    derive: Callable[[Any, dict[str, np.ndarray]], dict[str, np.ndarray]] = lambda s, o: {}
    summarize: Callable[[Any, dict[str, np.ndarray]], dict[str, Any]] = lambda s, o: {}
    memory_bytes: Callable[[Any], int] = lambda s: 0
    warnings: Callable[[Any], list[str]] = lambda s: []
    keys: Callable[[Any], jax.Array] | None = None
    resolved: Callable[[Any], Any] = lambda s: s
    baseline: Callable[[Any], float | None] = lambda s: None
    load: Callable[[dict[str, Any]], Any] | None = None
    stream: Callable[[Any, int], dict[str, np.ndarray]] | None = None
    on_stream: Callable[[Any, str, dict[str, np.ndarray]], dict[str, np.ndarray]] | None = None
    prepare: Callable[[Any, Any], Any] | None = None
    scrub: tuple[Scrub, ...] = ()
    example: Any = None
    regret_name: str = "cumulative regret"
    baseline_name: str = "baseline (1 − α)·μ₀"
    command: str = ""
    cli: str = ""
    command_aliases: tuple[str, ...] = ()
    fields: tuple[Field, ...] = ()
    sweep_base: Callable[[], Any] | None = None
    aliases: tuple[str, ...] = ()
    untagged: bool = False
    audience: str = ""

    def from_dict(self, data: dict[str, Any]) -> Any:
        """Settings from a JSON dict (``settings.from_dict`` unless the family reads its own format)."""
        return self.load(data) if self.load is not None else from_dict(self.settings_cls, data)

    def label(self, policy: str) -> str:
        """Display name of a policy id."""
        return self.labels.get(policy, policy)

    def axis(self, field: str) -> Axis:
        """The sweepable axis of ``field``."""
        for a in self.axes:
            if a.field == field:
                return a
        raise SettingsError("axis", "one of " + ", ".join(a.field for a in self.axes), field)

    def precision_of(self, settings: Any, device: str | None = None) -> str:
        """The precision a run uses: the settings' own, or the device's default."""
        p = getattr(settings, "precision", None)
        return _device.default_precision(device) if p in (None, "auto") else p

    def seed_keys(self, settings: Any) -> jax.Array:
        """One PRNG key per seed: ``PRNGKey(base_seed + i)``."""
        if self.keys is not None:
            return self.keys(settings)
        return runner.seed_keys(settings.base_seed, settings.seeds)

    def check_fits(self, settings: Any, device: str | None = None, cells: int = 1, limit: int | None = None) -> None:
        """Raise :class:`SettingsError` naming T when the run would not fit in half the device's memory (or in
        ``limit`` bytes, a server's cap on one run)."""
        per = self.memory_bytes(settings)
        fixed = self.memory_bytes(dataclasses.replace(settings, T=0)) if per else 0
        n = len(self.policies(settings))
        _device.check_fits(per * cells, fixed * cells, device, "T", settings.T,
                           f"{settings.seeds} seeds, {n} polic{'y' if n == 1 else 'ies'}"
                           + (f" and {cells} settings" if cells > 1 else ""), limit)

    def cells(self, settings: Any, overrides: Sequence[Mapping[str, Any]]) -> list[Any]:
        """One validated settings per override; only ``traced`` fields may vary in a grid."""
        out = []
        for o in overrides:
            bad = sorted(set(o) - set(self.traced))
            if bad:
                raise SettingsError(bad[0], "fixed across a sweep (sweepable: " + ", ".join(self.traced) + ")")
            out.append(dataclasses.replace(settings, **o).validate())
        return out


@dataclasses.dataclass
class Run:
    """A run so far: ``outputs[field]`` shaped (policy, seed, t), or (cell, policy, seed, t) with ``cells``.

    ``outputs`` holds the per-round outputs and the family's derived ones (computed on first read).
    """

    family: Family
    settings: Any
    policies: tuple[str, ...]
    raw: Mapping[str, np.ndarray]
    t_done: int
    device: str
    precision: str
    seconds: float
    cells: tuple[dict[str, Any], ...] | None = None

    @property
    def kind(self) -> str:
        return self.family.kind

    @property
    def labels(self) -> list[str]:
        return [self.family.label(p) for p in self.policies]

    @property
    def T(self) -> int:
        return int(self.settings.T)

    @property
    def done(self) -> bool:
        return self.t_done >= self.T

    @property
    def fraction(self) -> float:
        return self.t_done / max(self.T, 1)

    @functools.cached_property
    def outputs(self) -> dict[str, np.ndarray]:
        out = dict(self.raw)
        if self.cells is None:
            out.update(self.family.derive(self.settings, out))
            return out
        per_cell = [self.family.derive(dataclasses.replace(self.settings, **c), {k: v[i] for k, v in self.raw.items()})
                    for i, c in enumerate(self.cells)]
        for k in per_cell[0]:
            out[k] = np.stack([d[k] for d in per_cell])
        return out

    def policy_outputs(self, policy: str, cell: int | None = None) -> dict[str, np.ndarray]:
        """One policy's outputs, each shaped (seed, t)."""
        i = self.policies.index(policy)
        if self.cells is None:
            return {k: v[i] for k, v in self.outputs.items()}
        return {k: v[cell or 0, i] for k, v in self.outputs.items()}


def simulate(family: Family, settings: Any, device: str | None = None, chunk: int | None = None,
             cells: Sequence[Mapping[str, Any]] | None = None, mesh: Any = None, pad_tail: bool = False
             ) -> Iterator[Run]:
    """Run every policy on every seed (and every grid cell); yield partial :class:`Run` s, chunk by chunk.

    With ``cells`` (a list of overrides of ``family.traced`` fields), every cell runs in the same
    compiled, vmapped scan; outputs are (cell, policy, seed, t). With a ``mesh`` (a 1-D
    :class:`jax.sharding.Mesh`), the cells are padded to a multiple of its size (the last cell
    repeated), split across its devices, and the padding dropped again: results equal a
    single-device run's. ``pad_tail``: every chunk has the length ``chunk`` (the last one masked), so
    changing T costs no compilation (see :func:`safebandit_core.runner.run_chunks`).
    A mesh over the devices of several processes (see
    :mod:`safebandit_core.distributed`) splits the cells, or the seeds when there are fewer cells
    than devices, between the processes; each runs its share and every chunk's outputs are
    gathered, so every process yields the whole run.
    """
    settings = settings.validate()
    rows = None if cells is None else family.cells(settings, cells)
    part = distributed.plan(mesh, None if rows is None else len(rows), settings.seeds)
    fit, fit_cells = settings, 1 if rows is None else len(rows)
    if part is not None:  # this process holds only its share, on its own devices
        device = part.device
        if part.axis == "cells":
            fit_cells = part.size
        else:
            fit = dataclasses.replace(settings, seeds=part.size)
    elif distributed.role().multi:
        device = distributed.local_device_id(device)
    family.check_fits(fit, device, cells=fit_cells)
    precision = family.precision_of(settings, device)
    model = family.model(settings, precision)
    if rows is None:
        params, grid = family.params(settings, precision), False
    else:
        grid = family.grid_axes
        params = _stack_cells([family.params(r, precision) for r in rows], grid)
    keys = family.seed_keys(settings)
    dev_id = _device.describe(device)
    shardings, n_cells = None, 0 if rows is None else len(rows)
    if part is not None:
        axes = jax.tree.map(lambda _: 0, params) if grid in (True, False) else _expand_axes(grid, params)
        params, keys, shardings = part.place(params, keys, axes)
        dev_id = part.describe(mesh.devices.flat[0].platform)
    elif mesh is not None and rows is not None:
        params, shardings = _sharded(params, grid, mesh)
        dev_id = f"{mesh.size} × {mesh.devices.flat[0].platform} (sharded)"
    start = time.perf_counter()
    policies = family.policies(settings)
    pieces: dict[str, list[np.ndarray]] = {}
    for chunk_ in runner.run_chunks(model, params, keys, settings.T, chunk=chunk, grid=grid, device=device,
                                    shardings=shardings, pad_tail=pad_tail):
        if part is not None:
            for k, v in part.gather({k: v[-1] for k, v in chunk_.pieces.items()}).items():
                pieces.setdefault(k, []).append(v)
            raw = {k: np.concatenate(v, axis=-1) for k, v in pieces.items()}
        else:
            if shardings is not None:
                raw = {k: v[:n_cells] for k, v in chunk_.outputs.items()}
            else:  # a chunk before the last joins its rounds only if read; the finished run holds them (a dict)
                raw = chunk_.outputs if chunk_.done else chunk_.joined
        yield Run(family=family, settings=settings, policies=policies, raw=raw, t_done=chunk_.t_done,
                  device=dev_id, precision=precision, seconds=time.perf_counter() - start,
                  cells=None if cells is None else tuple(dict(c) for c in cells))


GRID_AXIS = "grid"


def device_mesh(device: str | None = None, shard: bool | None = None) -> jax.sharding.Mesh | None:
    """A 1-D mesh over every device of ``device``'s platform, or None for a single-device run (the ``mesh`` of
    :func:`simulate`).

    ``shard`` None: shard when that platform has several devices; False: never; True: whenever possible.
    In a multi-process run (:mod:`safebandit_core.distributed`) the mesh spans the devices of every
    process, grouped by process in process order (the order their shares are gathered in).
    """
    from jax.sharding import Mesh

    if shard is False:
        return None
    dev = _device.resolve(device)
    try:
        peers = jax.devices(dev.platform)
    except RuntimeError:
        peers = [dev]
    if len(peers) < 2:
        return None
    return Mesh(np.asarray(sorted(peers, key=lambda d: d.process_index)), (GRID_AXIS,))


def _sharded(params: Params, grid: Any, mesh: Any) -> tuple[Params, tuple[Any, Any]]:
    """Pad the batched leaves to a multiple of the mesh size and give each leaf its sharding."""
    from jax.sharding import NamedSharding, PartitionSpec

    axes = jax.tree.map(lambda _: 0, params) if grid is True else _expand_axes(grid, params)
    pad_leaf = lambda a, v: v if a is None else _pad(v, mesh.size)
    params = jax.tree.map(pad_leaf, axes, params, is_leaf=lambda x: x is None)
    rows, rep = NamedSharding(mesh, PartitionSpec(GRID_AXIS)), NamedSharding(mesh, PartitionSpec())
    leaf_sharding = jax.tree.map(lambda a, _: rep if a is None else rows, axes, params, is_leaf=lambda x: x is None)
    return params, (leaf_sharding, rep)


def _expand_axes(prefix: Any, params: Params) -> Any:
    """A full per-leaf tree of in_axes from a prefix tree (None subtrees stay None leaves)."""
    return jax.tree.map(lambda a, sub: None if a is None else jax.tree.map(lambda _: a, sub), prefix, params,
                        is_leaf=lambda x: x is None)


def _pad(v: jax.Array, n: int) -> jax.Array:
    pad = -v.shape[0] % n
    return v if not pad else jnp.concatenate([v, jnp.repeat(v[-1:], pad, axis=0)])


def _stack_cells(per_cell: list[Params], axes: Any) -> Params:
    """The cells' params stacked on a new axis 0, except the parts a grid shares (in_axes None: the first cell's).

    Only what varies by cell is stacked, so a large shared table (the battery's contexts) is held once.
    """
    stack = lambda *subs: jax.tree.map(lambda *xs: jnp.stack(xs), *subs)
    if axes is True:
        return stack(*per_cell)
    return jax.tree.map(lambda a, *subs: subs[0] if a is None else stack(*subs), axes, *per_cell,
                        is_leaf=lambda x: x is None)


def run(family: Family, settings: Any, device: str | None = None, **kw: Any) -> Run:
    """:func:`simulate` to the end."""
    return runner.final(simulate(family, settings, device, **kw))


def cell(run_: Run, i: int) -> Run:
    """Cell ``i`` of a grid run as a run of its own (settings with the cell's values)."""
    if run_.cells is None:
        return run_
    settings = dataclasses.replace(run_.settings, **run_.cells[i])
    return Run(family=run_.family, settings=settings, policies=run_.policies,
               raw={k: v[i] for k, v in run_.raw.items()}, t_done=run_.t_done, device=run_.device,
               precision=run_.precision, seconds=run_.seconds)


SUMMARY_COLUMNS = ("kind", "policy", "label", "rounds", "cum_regret_mean", "cum_regret_std", "cum_regret_lo",
                   "cum_regret_hi")
"""Every summary starts with these (:func:`safebandit_core.results.aggregate` of the per-seed final regret):
``cum_regret_std`` is the sample std across seeds (ddof = 1), ``cum_regret_lo``/``_hi`` the 95 % interval."""

TIDY_COLUMNS = ("kind", "policy", "label", "seed", "t")


def _cell_rows(run_: Run) -> list[tuple[int | None, dict[str, Any]]]:
    if run_.cells is None:
        return [(None, {})]
    return [(i, {"cell": i, **c}) for i, c in enumerate(run_.cells)]


def summary(run_: Run) -> pd.DataFrame:
    """One row per (cell,) policy: the shared columns, then the family's own (violation_rate, min_slack, ...)."""
    rows = []
    for cell, extra in _cell_rows(run_):
        settings = run_.settings if cell is None else dataclasses.replace(run_.settings, **run_.cells[cell])
        for p in run_.policies:
            out = run_.policy_outputs(p, cell)
            cum = results.seed_finals({"regret": out["regret"]})["cum_regret"]
            row = {**extra, "kind": run_.kind, "policy": p, "label": run_.family.label(p),
                   "rounds": int(out["regret"].shape[-1]), **results.aggregate(cum, "cum_regret")}
            row.update(run_.family.summarize(settings, out))
            rows.append(row)
    return pd.DataFrame(rows)


def tidy(run_: Run, fields: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per (cell,) policy, seed and round: ``kind, policy, label, seed, t`` and the outputs."""
    outs = run_.outputs if fields is None else {k: run_.outputs[k] for k in fields}
    frames = []
    for cell, extra in _cell_rows(run_):
        sub = {k: (v if cell is None else v[cell]) for k, v in outs.items()}
        frame = results.tidy(sub, list(run_.policies), base_seed=run_.settings.base_seed)
        frame.insert(1, "label", results.categorical(run_.labels, frame.shape[0] // len(run_.policies)))
        frame.insert(0, "kind", run_.kind)
        for j, (k, v) in enumerate(extra.items()):
            frame.insert(j, k, v)
        frames.append(frame)
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
