"""The sweep engine: one compiled function over seeds × a settings grid, sharded across devices.

A :class:`SweepSpec` names a model and two swept settings (the *axes*):

- ``"dose"`` (seed 000, :mod:`.dose.sim`): τ × δ;
- ``"gencb"`` (seed 001 CMAB / CLB / CCCB, :mod:`.conservative.sim`): α × μ₀;
- ``"mv"`` (seed 001 MV-CBP, :mod:`.conservative.mv_sim`): α × ρ.

Those settings are traced numbers, so every cell of the grid and every seed runs in ONE compiled,
vmapped scan per model (the dose model and MV-CBP run all their policies in that scan; GenCB and
its baselines compile one scan per policy). :func:`run_sweep` returns a :class:`SweepResult`;
:func:`seed_frame`, :func:`cell_summary` and :func:`round_frame` turn it into tidy frames.

**Sharding.** When several devices of the chosen platform are visible, the grid axis is split
across them: a 1-D :class:`jax.sharding.Mesh` over those devices, the batched params placed with
``NamedSharding(mesh, PartitionSpec("grid"))`` and the keys replicated, so jit partitions the
vmapped scan along the grid (no communication: cells are independent). The grid is padded to a
multiple of the device count by repeating its last row, and the padding is dropped from the
results, which are identical to a single-device run.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Callable
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from . import device as _device
from . import results, runner
from .conservative import mv as _mv
from .conservative import mv_sim
from .conservative import sim as csim
from .conservative import stream as cstream
from .dose import policies as dpolicies
from .dose import sim as dsim
from .settings import SettingsError, check_choice

MODELS: tuple[str, ...] = ("dose", "gencb", "mv")
AXES: dict[str, tuple[str, str]] = {"dose": ("tau", "delta"), "gencb": ("alpha", "mu0"), "mv": ("alpha", "rho")}
SYMBOLS: dict[str, str] = {"tau": "τ", "delta": "δ", "alpha": "α", "mu0": "μ₀", "rho": "ρ", "d": "d", "K": "K"}
SETTINGS: dict[str, type] = {"dose": dsim.DoseSettings, "gencb": csim.ConservativeSettings, "mv": mv_sim.MVSettings}
MV_LABELS: dict[str, str] = {"mvcucb": "MV-CUCB", "mvucb": "MV-UCB"}
MAX_CELLS = 400
GRID_AXIS = "grid"
Progress = Callable[[float, str], None]


def policy_label(model: str, policy: str) -> str:
    """Display name of a policy key of ``model``."""
    if model == "dose":
        return dpolicies.LABELS[policy]
    if model == "mv":
        return MV_LABELS[policy]
    return cstream.LABELS[policy]


@dataclasses.dataclass(frozen=True)
class SweepSpec:
    """A sweep: ``model``, its full ``base`` settings, and the values of its two axes (:data:`AXES`).

    ``xs`` are the first axis (τ or α), ``ys`` the second (δ, μ₀ or ρ); empty ``ys`` means the
    base's own value (for GenCB without a μ₀: the instance's derived μ₀). Cells run x-major:
    cell ``i * len(ys) + j`` is ``(xs[i], ys[j])``.
    """

    KIND: ClassVar[str] = "sweep"

    model: str
    base: Any
    xs: tuple[float, ...]
    ys: tuple[float, ...] = ()

    @property
    def axes(self) -> tuple[str, str]:
        """The two swept field names."""
        return AXES[self.model]

    def y_values(self) -> tuple[float, ...]:
        """``ys``, or the base's value of the second axis."""
        if self.ys:
            return tuple(self.ys)
        if self.model == "gencb":
            return (csim.make_instance(self.base).mu0,)
        return (float(getattr(self.base, self.axes[1])),)

    def cells(self) -> list[dict[str, float]]:
        """Every grid cell as ``{x_field: x, y_field: y}``, x-major."""
        fx, fy = self.axes
        return [{fx: float(x), fy: float(y)} for x, y in itertools.product(self.xs, self.y_values())]

    def cell_settings(self, i: int) -> Any:
        """The full settings of cell ``i``."""
        return dataclasses.replace(self.base, **self.cells()[i])

    @property
    def policies(self) -> tuple[str, ...]:
        """The policies every cell runs."""
        if self.model == "gencb":
            return self.base.policy_list()
        return tuple(self.base.policies)

    def validate(self) -> SweepSpec:
        """Raise :class:`SettingsError` naming the first problem; return self."""
        check_choice("model", self.model, MODELS)
        if not isinstance(self.base, SETTINGS[self.model]):
            raise SettingsError("base", f"{SETTINGS[self.model].__name__} settings for the {self.model!r} model")
        self.base.validate()
        fx, fy = self.axes
        for field, values in ((fx, self.xs), (fy, self.ys)):
            if not isinstance(values, tuple) or not all(isinstance(v, (int, float)) for v in values):
                raise SettingsError(field, "a list of numbers", values)
        if not self.xs:
            raise SettingsError(fx, "at least one value")
        n = len(self.xs) * max(1, len(self.ys))
        if n > MAX_CELLS:
            raise SettingsError("cells", f"at most {MAX_CELLS} grid cells", n)
        for cell in self.cells():
            dataclasses.replace(self.base, **cell).validate()
        return self

    def scaled(self, *, seeds: int | None = None, T: int | None = None, base_seed: int | None = None,
               precision: str | None = None) -> SweepSpec:
        """The same sweep with other seeds, horizon, base seed or precision (None keeps the base's)."""
        change: dict[str, Any] = {}
        for field, value in (("seeds", seeds), ("T", T), ("base_seed", base_seed)):
            if value is not None:
                change[field] = value
        if precision is not None:
            change["precision"] = _precision_value(self.model, precision)
        return dataclasses.replace(self, base=dataclasses.replace(self.base, **change))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the base nested with its own kind)."""
        from .settings import to_dict

        return {"kind": self.KIND, "model": self.model, "base": to_dict(self.base), "xs": list(self.xs),
                "ys": list(self.ys)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SweepSpec:
        """Build and validate a sweep from :meth:`to_dict`'s output."""
        from .settings import from_dict

        unknown = sorted(set(data) - {"kind", "model", "base", "xs", "ys"})
        if unknown:
            raise SettingsError(unknown[0], "a known field of a sweep (model, base, xs, ys)")
        model = data.get("model")
        check_choice("model", model, MODELS)
        base = data.get("base")
        if not isinstance(base, dict):
            raise SettingsError("base", "an object of settings")
        kind = base.get("kind", SETTINGS[model].KIND)
        if kind != SETTINGS[model].KIND:
            raise SettingsError("base", f"settings of kind {SETTINGS[model].KIND!r} for the {model!r} model", kind)
        spec = cls(model=model, base=from_dict(SETTINGS[model], base), xs=_floats(data.get("xs"), AXES[model][0]),
                   ys=_floats(data.get("ys", []), AXES[model][1]))
        return spec.validate()


def _floats(values: Any, field: str) -> tuple[float, ...]:
    if not isinstance(values, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                               for v in values):
        raise SettingsError(field, "a list of numbers", values)
    return tuple(float(v) for v in values)


def _precision_value(model: str, precision: str) -> str | None:
    """A precision choice (``auto``, ``float64``, ``float32``) as the model's settings spell it."""
    check_choice("precision", precision, ("auto", *_device.PRECISIONS))
    if model == "dose":
        return precision
    return None if precision == "auto" else precision


def resolved_precision(spec: SweepSpec, device: str | None = None) -> str:
    """The precision a sweep computes in on ``device``."""
    if spec.model == "dose":
        return spec.base.resolved_precision(device)
    return spec.base.precision or _device.default_precision(device)


@dataclasses.dataclass
class SweepResult:
    """A finished sweep: ``outputs[policy][field]`` has shape (cells, seeds, T)."""

    spec: SweepSpec
    outputs: dict[str, dict[str, np.ndarray]]
    seconds: float
    device: str
    precision: str
    n_devices: int

    @property
    def cells(self) -> list[dict[str, float]]:
        return self.spec.cells()


def device_mesh(device: str | None = None, shard: bool | None = None) -> Mesh | None:
    """A 1-D mesh over every device of ``device``'s platform, or None for a single-device run.

    ``shard`` None: shard when that platform has several devices; False: never; True: whenever possible.
    """
    if shard is False:
        return None
    dev = _device.resolve(device)
    try:
        peers = jax.devices(dev.platform)
    except RuntimeError:
        peers = [dev]
    if len(peers) < 2:
        return None
    return Mesh(np.asarray(peers), (GRID_AXIS,))


def _pad_rows(params: Any, n_dev: int) -> tuple[Any, int]:
    """Params with the grid axis padded to a multiple of ``n_dev`` (last row repeated); the true size."""
    G = int(jax.tree.leaves(params)[0].shape[0])
    pad = -G % n_dev
    if pad:
        params = jax.tree.map(lambda v: jnp.concatenate([v, jnp.repeat(v[-1:], pad, axis=0)]), params)
    return params, G


def run_grid(model: runner.Model, params: Any, keys: jax.Array, T: int, *, device: str | None = None,
             mesh: Mesh | None = None, chunk: int | None = None,
             on_chunk: Callable[[int], None] | None = None) -> dict[str, np.ndarray]:
    """Run ``model`` over every params row (axis 0 of every leaf) × every key; outputs (G, S, T).

    With a ``mesh``, rows are padded to a multiple of its size and sharded along it; the padding
    is dropped before returning.
    """
    shardings = None
    G = int(jax.tree.leaves(params)[0].shape[0])
    if mesh is not None:
        params, G = _pad_rows(params, mesh.size)
        rows = NamedSharding(mesh, PartitionSpec(GRID_AXIS))
        shardings = (jax.tree.map(lambda _: rows, params), NamedSharding(mesh, PartitionSpec()))
    last = None
    for last in runner.run_chunks(model, params, keys, T, chunk=chunk, grid=True, device=device,
                                  shardings=shardings):
        if on_chunk is not None:
            on_chunk(last.t_done)
    assert last is not None
    return {k: v[:G] for k, v in last.outputs.items()}


def _dose_jobs(spec: SweepSpec, device: str | None, precision: str):
    base: dsim.DoseSettings = spec.base
    rows = [spec.cell_settings(i) for i in range(len(spec.cells()))]
    dsim.check_fits(dataclasses.replace(base, seeds=base.seeds * len(rows)), device)
    dtype = _device.dtype_of(precision)
    params = jax.tree.map(lambda *xs: jnp.concatenate(xs), *(dsim.params_for(r, dtype) for r in rows))
    model = dsim.make_model(base.d, base.g, base.refresh_every, precision, "synthetic")
    P, G = len(base.policies), len(rows)

    def split(out: dict[str, np.ndarray]) -> dict[str, dict[str, np.ndarray]]:
        shaped = {k: v.reshape(G, P, *v.shape[1:]) for k, v in out.items()}
        return {p: {k: v[:, j] for k, v in shaped.items()} for j, p in enumerate(base.policies)}

    return [(model, params, split)]


def _gencb_jobs(spec: SweepSpec, device: str | None, precision: str):
    base: csim.ConservativeSettings = spec.base
    params, _ = csim.grid_params(base, spec.xs, spec.y_values(), precision)
    jobs = []
    for p in base.policy_list():
        model = cstream.make_model(base.problem, p, base.K, base.dim, base.size)
        jobs.append((model, params, lambda out, p=p: {p: out}))
    return jobs


def _mv_jobs(spec: SweepSpec, device: str | None, precision: str):
    base: mv_sim.MVSettings = dataclasses.replace(spec.base, precision=precision)
    pairs = [(c["alpha"], c["rho"]) for c in spec.cells()]
    params = mv_sim.grid_params(base, pairs, device)
    model = _mv.make_model(tuple(base.policies), base.K, "bernoulli")
    return [(model, params, mv_sim.split_outputs)]


_JOBS = {"dose": _dose_jobs, "gencb": _gencb_jobs, "mv": _mv_jobs}


def run_sweep(spec: SweepSpec, device: str | None = None, shard: bool | None = None, chunk: int | None = None,
              progress: Progress | None = None) -> SweepResult:
    """Run every cell × seed × policy of ``spec`` (sharded across devices when several are visible).

    ``progress(fraction, text)`` is called after every chunk of rounds.
    """
    spec.validate()
    precision = resolved_precision(spec, device)
    mesh = device_mesh(device, shard)
    T = spec.base.T
    keys = runner.seed_keys(spec.base.base_seed, spec.base.seeds)
    jobs = _JOBS[spec.model](spec, device, precision)
    outputs: dict[str, dict[str, np.ndarray]] = {}
    start = time.perf_counter()
    for j, (model, params, split) in enumerate(jobs):
        def tick(t_done: int, j: int = j) -> None:
            if progress is not None:
                progress((j * T + t_done) / (len(jobs) * T), f"Round {t_done:,} of {T:,}"
                         + (f" (pass {j + 1} of {len(jobs)})" if len(jobs) > 1 else ""))

        out = run_grid(model, params, keys, T, device=device, mesh=mesh, chunk=chunk, on_chunk=tick)
        outputs.update(split(out))
    seconds = time.perf_counter() - start
    n_dev = 1 if mesh is None else mesh.size
    label = _device.describe(device) if mesh is None else f"{n_dev} × {mesh.devices.flat[0].platform} (sharded)"
    return SweepResult(spec=spec, outputs=outputs, seconds=seconds, device=label, precision=precision,
                       n_devices=n_dev)


def _final_regret(model: str, out: dict[str, np.ndarray]) -> np.ndarray:
    if model == "mv":
        return out["cum_regret"][..., -1].astype(np.float64)
    return np.sum(out["regret"], axis=-1, dtype=np.float64)


def seed_frame(result: SweepResult) -> pd.DataFrame:
    """One row per (cell, policy, seed): the cell's axes, final cumulative regret, min slack and
    (dose) violation rate or (GenCB, MV) default pulls."""
    spec = result.spec
    cells = result.cells
    S = spec.base.seeds
    frames = []
    for p, out in result.outputs.items():
        G = next(iter(out.values())).shape[0]
        cols: dict[str, Any] = {"cell": np.repeat(np.arange(G), S)}
        for field in spec.axes:
            cols[field] = np.repeat([c[field] for c in cells], S)
        cols["policy"] = p
        cols["label"] = policy_label(spec.model, p)
        cols["seed"] = np.tile(spec.base.base_seed + np.arange(S), G)
        cols["final_regret"] = _final_regret(spec.model, out).reshape(-1)
        if spec.model == "dose":
            tau = np.asarray([c["tau"] for c in cells])[:, None, None]
            cost = out["cost"].astype(np.float64)
            cols["violation_rate"] = (cost > tau).mean(axis=-1).reshape(-1)
            cols["min_slack"] = (tau - cost).min(axis=-1).reshape(-1)
        else:
            cols["default_pulls"] = np.sum(out["default"], axis=-1).reshape(-1).astype(np.int64)
            cols["min_slack"] = np.min(out["slack"], axis=-1).reshape(-1).astype(np.float64)
        frames.append(pd.DataFrame(cols))
    return pd.concat(frames, ignore_index=True)


SLACK_TOL = 1e-9


def cell_summary(result: SweepResult) -> pd.DataFrame:
    """One row per (cell, policy): means with 95 % intervals over seeds, and whether safety held.

    ``safe``: dose, the violation rate is at most δ; GenCB and MV, the slack never went below 0.
    """
    spec = result.spec
    per_seed = seed_frame(result)
    rows = []
    for (cell, p), part in per_seed.groupby(["cell", "policy"], sort=False):
        cfg = result.cells[int(cell)]
        row: dict[str, Any] = {"cell": int(cell), **cfg, "policy": p, "label": part["label"].iloc[0],
                               "seeds": len(part)}
        m, lo, hi = results.interval95(part["final_regret"].to_numpy())
        row.update(regret_mean=m, regret_lo=lo, regret_hi=hi)
        row["min_slack"] = float(part["min_slack"].min())
        if spec.model == "dose":
            m, lo, hi = results.interval95(part["violation_rate"].to_numpy(), 0.0, 1.0)
            row.update(violation_rate=m, violation_rate_lo=lo, violation_rate_hi=hi)
            row["safe"] = bool(m <= cfg["delta"])
        else:
            m, lo, hi = results.interval95(part["default_pulls"].to_numpy(), 0.0)
            row.update(default_pulls=m, default_pulls_lo=lo, default_pulls_hi=hi)
            row["safe"] = bool(row["min_slack"] >= -SLACK_TOL)
        rows.append(row)
    return pd.DataFrame(rows)


def cell_outputs(result: SweepResult, i: int) -> Any:
    """Cell ``i``'s results in the form its model's own frame builders take.

    Dose: ``{field: (policies, seeds, T)}``; GenCB: a :class:`~.conservative.sim.SimResult`;
    MV: ``{"<policy>/<field>": (seeds, T)}``.
    """
    spec = result.spec
    settings = spec.cell_settings(i)
    if spec.model == "dose":
        fields = result.outputs[spec.policies[0]].keys()
        return {k: np.stack([result.outputs[p][k][i] for p in spec.policies]) for k in fields}
    if spec.model == "gencb":
        outs = {p: {k: v[i] for k, v in result.outputs[p].items()} for p in spec.policies}
        return csim.SimResult(settings=settings, instance=csim.make_instance(settings), t_done=settings.T,
                              outputs=outs, device=result.device, precision=result.precision,
                              seconds=result.seconds)
    return {f"{p}/{k}": v[i] for p in spec.policies for k, v in result.outputs[p].items()}


def round_frame(result: SweepResult, i: int) -> pd.DataFrame:
    """Cell ``i``'s per-round tidy frame (its model's own columns), with ``policy`` the policy key,
    ``label`` its display name and the cell's axes as leading columns."""
    spec = result.spec
    settings = spec.cell_settings(i)
    outs = cell_outputs(result, i)
    if spec.model == "dose":
        frame = dsim.tidy_frame(settings, outs)
        by_label = {policy_label("dose", p): p for p in spec.policies}
        frame.insert(1, "label", frame["policy"].astype(str))
        frame["policy"] = frame["label"].map(by_label)
    elif spec.model == "gencb":
        frame = csim.tidy_frame(outs)
        frame.insert(1, "label", frame["policy"].map(cstream.LABELS))
    else:
        frame = mv_sim.tidy_frame(settings, outs)
        frame["cum_regret"] = frame["cum_regret"].astype(np.float64)
        frame.insert(1, "label", frame["policy"].map(MV_LABELS))
    for pos, field in enumerate(spec.axes):
        frame.insert(pos, field, result.cells[i][field])
    return frame


def baseline_slope(spec: SweepSpec, i: int) -> float | None:
    """Regret per round of a policy that earns exactly the conservative baseline in cell ``i``.

    GenCB: ``μ* − (1 − α)·μ₀``; MV: ``MV* − (1 − α)·MV₀`` (the paper's baseline line in regret
    terms); dose: None (no baseline).
    """
    s = spec.cell_settings(i)
    if spec.model == "gencb":
        inst = csim.make_instance(s)
        return float(inst.best - (1 - s.alpha) * inst.mu0)
    if spec.model == "mv":
        mv_best = float(np.max(s.rho * mv_sim.arm_means(s.K) - mv_sim.arm_variances(s.K)))
        return mv_best - (1 - s.alpha) * s.mv0
    return None


def fit_loglog_slope(t: np.ndarray, values: np.ndarray, start_fraction: float = 0.1) -> tuple[float, float]:
    """Least-squares slope and intercept of log(values) against log(t) over ``t ≥ start_fraction·max(t)``
    (positive values only); NaNs when fewer than two points qualify."""
    t = np.asarray(t, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    keep = (t >= start_fraction * t.max()) & (v > 0) & np.isfinite(v)
    if keep.sum() < 2:
        return math.nan, math.nan
    slope, intercept = np.polyfit(np.log(t[keep]), np.log(v[keep]), 1)
    return float(slope), float(intercept)


def sizes(spec: SweepSpec) -> dict[str, int]:
    """Cells, policies, seeds and rounds of a sweep (for a progress line)."""
    return {"cells": len(spec.cells()), "policies": len(spec.policies), "seeds": spec.base.seeds,
            "T": spec.base.T}


def describe(spec: SweepSpec) -> str:
    """One plain line: what is swept over what."""
    fx, fy = spec.axes
    n = sizes(spec)
    ys = spec.y_values()
    return (f"{n['cells']} cells ({SYMBOLS[fx]} ∈ {{{', '.join(f'{x:g}' for x in spec.xs)}}} × "
            f"{SYMBOLS[fy]} ∈ {{{', '.join(f'{y:g}' for y in ys)}}}) × {n['policies']} policies × "
            f"{n['seeds']} seeds × {n['T']:,} rounds")


def grid_values(text: str, field: str, lo: float, hi: float, max_values: int = 12) -> tuple[float, ...]:
    """Parse a comma-separated list of numbers for an axis; :class:`SettingsError` naming ``field`` if bad."""
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        raise SettingsError(field, "a comma-separated list of numbers", text) from None
    if not values or len(values) > max_values:
        raise SettingsError(field, f"1 to {max_values} values", text)
    for v in values:
        if not (math.isfinite(v) and lo < v < hi):
            raise SettingsError(field, f"values in ({lo:g}, {hi:g})", v)
    return tuple(dict.fromkeys(values))

