"""The sweep engine, generic over families: one compiled function over seeds × a settings grid.

A :class:`SweepSpec` names a family (``kind``), its full ``base`` settings and the values of two
of its sweepable axes (by default the family's first two :class:`~safebandit_core.model.Axis`:
τ × δ for the dose model, α × μ₀ for GenCB, α × ρ for mean-variance). Those settings are traced
numbers, so every cell of the grid, every seed and every policy runs in ONE compiled, vmapped
scan (:func:`safebandit_core.model.simulate` with ``cells``). :func:`run_sweep` returns the
:class:`~safebandit_core.model.Run` (outputs shaped (cell, policy, seed, t));
:func:`seed_frame`, :func:`cell_summary` and :func:`round_frame` turn it into tidy frames.

**Sharding.** When several devices of the chosen platform are visible, the grid axis is split
across them: a 1-D :class:`jax.sharding.Mesh` over those devices, the cells placed with
``NamedSharding(mesh, PartitionSpec("grid"))`` and the keys replicated, so jit partitions the
vmapped scan along the grid (no communication: cells are independent). The grid is padded to a
multiple of the device count by repeating its last cell, and the padding is dropped from the
results, which are identical to a single-device run.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from . import device as _device
from . import families, results
from . import model as M
from .model import device_mesh
from .settings import SettingsError, check_choice, from_dict, to_dict

MAX_CELLS = 400
SLACK_TOL = 1e-9
Progress = Callable[[float, str], None]


def symbol(field: str) -> str:
    """The symbol of a field on any family's axes (τ, δ, α, μ₀, ρ, ...), else the field's name."""
    for f in families.FAMILIES.values():
        for a in f.axes:
            if a.field == field:
                return a.symbol
    return field


@dataclasses.dataclass(frozen=True)
class SweepSpec:
    """A sweep: a family ``kind``, its full ``base`` settings, and the values of two axes.

    ``x`` and ``y`` name the swept fields (empty: the family's first and second axes); ``xs`` are
    the first axis' values, ``ys`` the second's; empty ``ys`` means the base's own value (for
    GenCB without a μ₀: the instance's derived μ₀). Cells run x-major: cell ``i * len(ys) + j``
    is ``(xs[i], ys[j])``.
    """

    KIND: ClassVar[str] = "sweep"

    kind: str
    base: Any
    xs: tuple[float, ...]
    ys: tuple[float, ...] = ()
    x: str = ""
    y: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", families.canonical(self.kind))

    @property
    def family(self) -> M.Family:
        return families.get(self.kind)

    @property
    def axes(self) -> tuple[str, str]:
        """The two swept field names."""
        fam = self.family
        return (self.x or fam.axes[0].field, self.y or fam.axes[1].field)

    def y_values(self) -> tuple[float, ...]:
        """``ys``, or the base's (resolved) value of the second axis."""
        if self.ys:
            return tuple(self.ys)
        return (float(getattr(self.family.resolved(self.base), self.axes[1])),)

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
        return self.family.policies(self.base)

    def validate(self) -> SweepSpec:
        """Raise :class:`SettingsError` naming the first problem; return self."""
        check_choice("kind", self.kind, tuple(families.FAMILIES))
        fam = self.family
        if not isinstance(self.base, fam.settings_cls):
            raise SettingsError("base", f"{fam.settings_cls.__name__} settings for the {fam.kind!r} model")
        self.base.validate()
        fx, fy = self.axes
        for field in (fx, fy):
            if field not in fam.traced:
                raise SettingsError("axis", "a sweepable setting (" + ", ".join(fam.traced) + ")", field)
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
            check_choice("precision", precision, ("auto", *_device.PRECISIONS))
            default = dataclasses.fields(self.base)
            auto = next(f.default for f in default if f.name == "precision")
            change["precision"] = auto if precision == "auto" else precision
        return dataclasses.replace(self, base=dataclasses.replace(self.base, **change))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the base nested with its own kind)."""
        return {"kind": self.KIND, "model": self.kind, "base": to_dict(self.base), "x": self.x, "xs": list(self.xs),
                "y": self.y, "ys": list(self.ys)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SweepSpec:
        """Build and validate a sweep from :meth:`to_dict`'s output (older files without ``x``/``y`` too)."""
        unknown = sorted(set(data) - {"kind", "model", "base", "xs", "ys", "x", "y"})
        if unknown:
            raise SettingsError(unknown[0], "a known field of a sweep (model, base, x, xs, y, ys)")
        model = data.get("model")
        model = families.canonical(model) if isinstance(model, str) else model
        check_choice("model", model, tuple(families.FAMILIES))
        fam = families.get(model)
        base = data.get("base")
        if not isinstance(base, dict):
            raise SettingsError("base", "an object of settings")
        kind = families.canonical(base.get("kind", fam.settings_cls.KIND))
        if kind != fam.settings_cls.KIND:
            raise SettingsError("base", f"settings of kind {fam.settings_cls.KIND!r} for the {model!r} model", kind)
        x, y = str(data.get("x", "")), str(data.get("y", ""))
        spec = cls(kind=model, base=from_dict(fam.settings_cls, base), xs=_floats(data.get("xs"), x or "xs"),
                   ys=_floats(data.get("ys", []), y or "ys"), x=x, y=y)
        return spec.validate()


def _floats(values: Any, field: str) -> tuple[float, ...]:
    if not isinstance(values, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                               for v in values):
        raise SettingsError(field, "a list of numbers", values)
    return tuple(float(v) for v in values)


def run_sweep(spec: SweepSpec, device: str | None = None, shard: bool | None = None, chunk: int | None = None,
              progress: Progress | None = None) -> M.Run:
    """Run every cell × seed × policy of ``spec`` in one scan (sharded across devices when several are visible).

    ``progress(fraction, text)`` is called after every chunk of rounds.
    """
    spec.validate()
    T = spec.base.T
    last = None
    for last in M.simulate(spec.family, spec.base, device, chunk, cells=spec.cells(), mesh=device_mesh(device, shard)):
        if progress is not None:
            progress(last.t_done / T, f"Round {last.t_done:,} of {T:,}")
    assert last is not None
    return last


def seed_frame(result: M.Run) -> pd.DataFrame:
    """One row per (cell, policy, seed): the cell's values and :func:`~safebandit_core.results.seed_finals`
    (``cum_regret`` at T, ``violation_rate`` or ``default_pulls`` where the family has them, ``min_slack``)."""
    out = result.outputs
    G, P, S, _ = out["regret"].shape
    cols: dict[str, Any] = {"cell": np.repeat(np.arange(G), P * S)}
    for field in result.cells[0]:
        cols[field] = np.repeat([c[field] for c in result.cells], P * S)
    cols["policy"] = np.tile(np.repeat(result.policies, S), G)
    cols["label"] = np.tile(np.repeat(result.labels, S), G)
    cols["seed"] = np.tile(result.settings.base_seed + np.arange(S), G * P)
    cols.update({k: v.reshape(-1) for k, v in results.seed_finals(out).items()})
    return pd.DataFrame(cols)


def cell_summary(result: M.Run) -> pd.DataFrame:
    """One row per (cell, policy): means with 95 % intervals over seeds, and whether safety held.

    ``safe``: with violations (dose), the violation rate is at most δ; otherwise the slack never
    went below 0.
    """
    return summarise_seeds(seed_frame(result), result.cells, result.settings)


def summarise_seeds(per_seed: pd.DataFrame, cells: Any, settings: Any) -> pd.DataFrame:
    """:func:`cell_summary` from a :func:`seed_frame` and the grid's cells and base settings (no per-round data
    needed, so a run saved cell by cell is summarised exactly as a run held in memory)."""
    rows = []
    for (cell, p), part in per_seed.groupby(["cell", "policy"], sort=False):
        cfg = cells[int(cell)]
        settings_c = dataclasses.replace(settings, **cfg)
        row: dict[str, Any] = {"cell": int(cell), **cfg, "policy": p, "label": part["label"].iloc[0],
                               "seeds": len(part)}
        row.update(results.aggregate(part["cum_regret"].to_numpy(), "cum_regret"))
        row["min_slack"] = float(part["min_slack"].min())
        if "violation_rate" in part:
            m, lo, hi = results.interval95(part["violation_rate"].to_numpy(), 0.0, 1.0)
            row.update(violation_rate=m, violation_rate_lo=lo, violation_rate_hi=hi)
            row["safe"] = bool(m <= settings_c.delta)
        else:
            row["safe"] = bool(row["min_slack"] >= -SLACK_TOL)
        if "default_pulls" in part:
            row.update(results.aggregate(part["default_pulls"].to_numpy(), "default_pulls", 0.0))
        rows.append(row)
    return pd.DataFrame(rows)


def round_frame(result: M.Run, i: int) -> pd.DataFrame:
    """Cell ``i``'s per-round tidy frame (``kind, policy, label, seed, t, ...``) with the cell's axes first."""
    frame = M.tidy(M.cell(result, i))
    for pos, (field, value) in enumerate(result.cells[i].items()):
        frame.insert(pos, field, value)
    return frame


def baseline_slope(spec: SweepSpec, i: int) -> float | None:
    """Regret per round of a learner that earns exactly the conservative baseline in cell ``i`` (None: none)."""
    return spec.family.baseline(spec.cell_settings(i))


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


def horizon_grid(T: int, n: int = 5, step: int = 1000) -> tuple[int, ...]:
    """About ``n`` distinct horizons from T/16 to T, geometrically spaced, rounded to multiples of ``step``
    (a smaller step when T is short), all at most T and ending with T."""
    step = max(1, min(step, T // 16 or 1))
    raw = np.geomspace(max(step, T / 16), T, n)
    out = sorted({min(T, max(step, int(round(h / step)) * step)) for h in raw[:-1]} - {T})
    return (*out, T)


def over_horizons(settings: Any, horizons: tuple[int, ...], device: str | None = None,
                  progress: Progress | None = None) -> pd.DataFrame:
    """Cumulative regret and default pulls N₀ at the end of runs of each horizon, every horizon its own run.

    A policy whose confidence uses the final horizon (ConUCB, CLUCB and C3UCB take δ = 1/T) is not
    anytime: the first t rounds of a run of length T are not a run of length t, so each horizon
    runs on its own. One row per (horizon, policy): means and 95 % intervals over seeds.
    """
    fam = families.of(settings)
    rows = []
    total = float(sum(horizons))
    done = 0.0
    for T in horizons:
        s = dataclasses.replace(settings, T=int(T))
        last = None
        for last in M.simulate(fam, s, device, chunk=1000, pad_tail=True):
            if progress is not None:
                progress((done + last.t_done) / total, f"horizon {T:,}: round {last.t_done:,}")
        done += T
        assert last is not None
        out = last.outputs
        for i, p in enumerate(last.policies):
            finals = results.seed_finals({k: v[i] for k, v in out.items() if k in ("regret", "default")})
            row = {"T": int(T), "policy": p, "label": fam.label(p), **results.aggregate(finals["cum_regret"],
                                                                                         "cum_regret")}
            if "default_pulls" in finals:
                row.update(results.aggregate(finals["default_pulls"], "default_pulls", 0.0))
            rows.append(row)
    return pd.DataFrame(rows)


def sizes(spec: SweepSpec) -> dict[str, int]:
    """Cells, policies, seeds and rounds of a sweep (for a progress line)."""
    return {"cells": len(spec.cells()), "policies": len(spec.policies), "seeds": spec.base.seeds,
            "T": spec.base.T}


def describe(spec: SweepSpec) -> str:
    """One plain line: what is swept over what."""
    fx, fy = spec.axes
    n = sizes(spec)
    ys = spec.y_values()
    return (f"{n['cells']} cells ({symbol(fx)} ∈ {{{', '.join(f'{x:g}' for x in spec.xs)}}} × "
            f"{symbol(fy)} ∈ {{{', '.join(f'{y:g}' for y in ys)}}}) × {n['policies']} policies × "
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


__all__ = ["MAX_CELLS", "SLACK_TOL", "SweepSpec", "baseline_slope", "cell_summary", "describe",
           "device_mesh", "fit_loglog_slope", "grid_values", "horizon_grid", "over_horizons", "round_frame",
           "run_sweep", "seed_frame", "sizes", "summarise_seeds", "symbol"]
