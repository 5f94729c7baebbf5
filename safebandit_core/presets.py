"""The papers' synthetic experiments as data, one function to run any of them at any size, and verdicts.

Every :class:`Preset` is a tuple of sweeps (:class:`~safebandit_core.sweep.SweepSpec`) at the
paper's full size, the numbers the paper reports (:class:`PaperNumber`), the paper's claims
(:class:`Claim`, each with a check computed from the run) and our documented choices where the
paper is silent. :func:`run_preset` runs one at the size a :class:`PresetRun` asks for and returns a
:class:`PresetResult` (tidy frames, summary rows); :func:`claim_table` is the paper-vs-run table:
each claim, the paper's statement, our number with its interval, and a verdict computed from the
run (``consistent``, ``inconsistent``, or ``not shown at this size`` with the reason).

Each family keeps its paper's experiments in its own folder: a ``presets`` module beside its settings with
``PRESETS`` (a tuple of :class:`Preset`) and ``CHECKS`` (claim check name -> function of a :class:`PresetResult`
giving a :class:`Verdict`); :func:`every` collects them over the registry of families, tables before figures within
a paper, so a new family's presets need no edit here. The papers' choices where they are silent are written in
those modules (e.g. :mod:`safebandit_core.dose.presets`, :mod:`safebandit_core.conservative.presets`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from . import sweep
from .model import Run
from .settings import SettingsError, check_choice, check_int_range

MIN_T = 10
MAX_T = 1_000_000
MAX_SEEDS = 1000
PRECISIONS = ("auto", "float64", "float32")
METRICS: dict[str, str] = {
    "violation_rate": "violation rate (share of rounds with C_t > τ)",
    "cum_regret": "cumulative regret at T",
    "default_pulls": "default-arm pulls N₀(T)",
    "min_slack": "smallest slack over every seed and round",
}
# metric -> (value, low, high) columns of sweep.cell_summary
_COLUMNS: dict[str, tuple[str, str | None, str | None]] = {
    "violation_rate": ("violation_rate", "violation_rate_lo", "violation_rate_hi"),
    "cum_regret": ("cum_regret_mean", "cum_regret_lo", "cum_regret_hi"),
    "default_pulls": ("default_pulls_mean", "default_pulls_lo", "default_pulls_hi"),
    "min_slack": ("min_slack", None, None),
}
CONSISTENT, INCONSISTENT, NOT_SHOWN = "consistent", "inconsistent", "not shown at this size"


@dataclasses.dataclass(frozen=True)
class PaperNumber:
    """A number the paper reports for one policy and metric, as printed and as a range [low, high].

    ``accepts`` is the range a claim's verdict accepts for our value (the paper's range widened for
    what the paper leaves open, such as its noise levels); ``None`` means the paper's range itself.
    """

    policy: str
    metric: str
    text: str
    low: float
    high: float
    source: str
    accepts: tuple[float, float] | None = None

    @property
    def accepted(self) -> tuple[float, float]:
        """The range the verdict accepts: :attr:`accepts`, or the paper's own [low, high]."""
        return self.accepts if self.accepts is not None else (self.low, self.high)

    def position(self, value: float) -> str:
        """Where ``value`` lies against the paper's range: ``below``, ``within`` or ``above``."""
        return "below" if value < self.low else "above" if value > self.high else "within"


def format_value(metric: str, value: float) -> str:
    """A metric's value in the unit people read it in: violation rates in percent (as the papers print
    them), everything else as a plain number."""
    if metric == "violation_rate":
        return f"{100 * value:.3g} %"
    return f"{value:.4g}"


def format_range(metric: str, low: float, high: float) -> str:
    """A range in the metric's unit (one number when low == high): ``10 % – 30 %``."""
    if low == high:
        return format_value(metric, low)
    return f"{format_value(metric, low)} – {format_value(metric, high)}"


@dataclasses.dataclass(frozen=True)
class Claim:
    """A claim of a paper: its id (C1–C6), our words, the paper's statement, and its check (named in :func:`checks`)."""

    id: str
    text: str
    paper: str
    check: str


@dataclasses.dataclass(frozen=True)
class Preset:
    """One experiment of a paper at its full size."""

    name: str
    paper: str  # the paper's short title
    artefact: str  # e.g. "Table 1", "Figure 1 (a)"
    title: str
    kind: str  # the family of its sweeps
    figure: str  # "violation_table", "learning_curves" or "regret_minmax"
    sweeps: tuple[sweep.SweepSpec, ...]
    cell_fields: tuple[str, ...]  # the settings that tell its cells apart
    metrics: tuple[str, ...]
    quick_seeds: int
    quick_T: int
    paper_numbers: tuple[PaperNumber, ...] = ()
    claims: tuple[Claim, ...] = ()
    choices: tuple[str, ...] = ()

    @property
    def full_seeds(self) -> int:
        return int(self.sweeps[0].base.seeds)

    @property
    def full_T(self) -> int:
        return int(self.sweeps[0].base.T)

    @property
    def n_cells(self) -> int:
        return sum(len(s.cells()) for s in self.sweeps)

    def line(self) -> str:
        """One line for ``preset --list``."""
        return (f"{self.name:<18} {self.artefact:<16} {self.title} "
                f"[{self.n_cells} cell{'s' if self.n_cells > 1 else ''}, paper size {self.full_seeds} seeds × "
                f"T = {self.full_T:,}; quick {self.quick_seeds} × {self.quick_T:,}]")


Check = Callable[["PresetResult"], "Verdict"]
"""A claim's check: the verdict computed from a finished preset run."""
_REGISTRY: dict[tuple[str, ...], tuple[dict[str, Preset], dict[str, Check]]] = {}


def _family_presets() -> tuple[dict[str, Preset], dict[str, Check]]:
    """Every registered family's presets and checks (its ``presets`` module beside its settings, where it has one),
    read once per set of families; a family registered later is read on the next call."""
    from . import families

    key = tuple(families.FAMILIES)
    if key not in _REGISTRY:
        found: list[Preset] = []
        by_name: dict[str, Check] = {}
        for module in families.modules("presets"):
            found.extend(module.PRESETS)
            by_name.update(module.CHECKS)
        papers = list(dict.fromkeys(p.paper for p in found))
        found.sort(key=lambda p: (papers.index(p.paper), not p.artefact.startswith("Table"), p.artefact))
        _REGISTRY[key] = ({p.name: p for p in found}, by_name)
    return _REGISTRY[key]


def every() -> dict[str, Preset]:
    """Every preset by name: each paper's tables, then its figures in their order."""
    return _family_presets()[0]


def names() -> tuple[str, ...]:
    """The presets' names, in :func:`every`'s order."""
    return tuple(every())


def checks() -> dict[str, Check]:
    """Every claim check by the name a :class:`Claim` gives."""
    return _family_presets()[1]


def get(name: str) -> Preset:
    """The preset called ``name``; :class:`SettingsError` listing the names otherwise."""
    check_choice("preset", name, names())
    return every()[name]


@dataclasses.dataclass(frozen=True)
class PresetRun:
    """How to run a preset: its name, seeds and rounds, base seed and precision (``auto``: the device's)."""

    KIND: ClassVar[str] = "preset"

    preset: str
    seeds: int
    T: int
    base_seed: int = 0
    precision: str = "auto"

    @classmethod
    def quick(cls, name: str, **kw: Any) -> PresetRun:
        """The preset's reduced default size."""
        p = get(name)
        return cls(preset=name, seeds=p.quick_seeds, T=p.quick_T, **kw)

    @classmethod
    def full(cls, name: str, **kw: Any) -> PresetRun:
        """The paper's size."""
        p = get(name)
        return cls(preset=name, seeds=p.full_seeds, T=p.full_T, **kw)

    def validate(self) -> PresetRun:
        """Raise :class:`SettingsError` naming the first field out of range; return self."""
        check_choice("preset", self.preset, names())
        check_int_range("seeds", self.seeds, 1, MAX_SEEDS)
        check_int_range("T", self.T, MIN_T, MAX_T)
        check_int_range("base_seed", self.base_seed, 0, 2**31 - 1 - MAX_SEEDS)
        check_choice("precision", self.precision, PRECISIONS)
        return self

    def specs(self) -> tuple[sweep.SweepSpec, ...]:
        """The preset's sweeps at this size."""
        self.validate()
        return tuple(s.scaled(seeds=self.seeds, T=self.T, base_seed=self.base_seed, precision=self.precision)
                     for s in get(self.preset).sweeps)


@dataclasses.dataclass
class PresetResult:
    """A finished preset run: one grid :class:`~safebandit_core.model.Run` per sweep, and tidy views of them."""

    run: PresetRun
    preset: Preset
    sweeps: list[Run]
    specs: tuple[sweep.SweepSpec, ...]
    seconds: float

    @property
    def device(self) -> str:
        return self.sweeps[0].device

    @property
    def precision(self) -> str:
        return self.sweeps[0].precision

    def index(self) -> list[tuple[int, int]]:
        """(sweep, cell within it) of every preset cell, in order."""
        return [(k, i) for k, s in enumerate(self.specs) for i in range(len(s.cells()))]

    def cells(self) -> pd.DataFrame:
        """One row per cell: ``cell``, ``name`` (e.g. ``d=5, τ=0.1``), the cell fields and the baseline slope."""
        rows = []
        for c, (k, i) in enumerate(self.index()):
            spec = self.specs[k]
            s = spec.family.resolved(spec.cell_settings(i))
            values = {f: _plain(getattr(s, f)) for f in self.preset.cell_fields}
            rows.append({"cell": c, "name": cell_name(values), **values,
                         "baseline_slope": sweep.baseline_slope(spec, i), "T": s.T})
        return pd.DataFrame(rows)

    def cell_summary(self) -> pd.DataFrame:
        """:func:`sweep.cell_summary` of every sweep, with the preset's cell numbers and fields."""
        cells = self.cells()
        out = pd.concat(self._summary_parts(), ignore_index=True)
        drop = [c for c in self.preset.cell_fields if c in out.columns]
        return out.drop(columns=drop).merge(cells, on="cell", how="left")

    def _summary_parts(self) -> list[pd.DataFrame]:
        """:func:`sweep.cell_summary` of every sweep, numbered by preset cell."""
        parts, offset = [], 0
        for r in self.sweeps:
            part = sweep.cell_summary(r)
            part["cell"] = part["cell"] + offset
            offset += len(r.cells)
            parts.append(part)
        return parts

    def _curve_parts(self, value: str, max_points: int, spacing: str) -> list[pd.DataFrame]:
        """:func:`curve_stats` of every sweep, numbered by preset cell."""
        parts, offset = [], 0
        for r in self.sweeps:
            part = curve_stats(r, value, max_points, spacing)
            part["cell"] = part["cell"] + offset
            offset += len(r.cells)
            parts.append(part)
        return parts

    def summary(self) -> pd.DataFrame:
        """Summary rows: preset, cell, policy, label, settings (JSON), metric, value, ci_low, ci_high,
        paper_value (as printed), paper_low, paper_high."""
        per_cell = self.cell_summary()
        numbers = {(n.policy, n.metric): n for n in self.preset.paper_numbers}
        rows = []
        for _, r in per_cell.iterrows():
            settings = {f: _plain(r[f]) for f in self.preset.cell_fields}
            settings.update(T=int(r["T"]), seeds=int(r["seeds"]))
            for metric in self.preset.metrics:
                col, lo, hi = _COLUMNS[metric]
                if col not in r or pd.isna(r[col]):
                    continue
                paper = numbers.get((r["policy"], metric))
                rows.append({
                    "preset": self.preset.name, "cell": int(r["cell"]), "policy": r["policy"], "label": r["label"],
                    "settings": json.dumps(settings, sort_keys=True), "metric": metric, "value": float(r[col]),
                    "ci_low": None if lo is None else float(r[lo]), "ci_high": None if hi is None else float(r[hi]),
                    "paper_value": None if paper is None else paper.text,
                    "paper_low": None if paper is None else paper.low,
                    "paper_high": None if paper is None else paper.high,
                })
        return pd.DataFrame(rows)

    def curves(self, value: str = "cum_regret", max_points: int = 400, spacing: str = "linear") -> pd.DataFrame:
        """Per (cell, policy, round): mean, std, min and max over seeds of ``value`` (see :func:`curve_stats`)."""
        parts = self._curve_parts(value, max_points, spacing)
        return pd.concat(parts, ignore_index=True).merge(self.cells()[["cell", "name"]], on="cell", how="left")

    def frames(self) -> dict[str, pd.DataFrame]:
        """Per-round tidy frames, one per cell, named by the cell (for export)."""
        out = {}
        names = self.cells()["name"].tolist()
        for c, (k, i) in enumerate(self.index()):
            out[slug(names[c])] = sweep.round_frame(self.sweeps[k], i)
        return out

    def rows(self) -> int:
        """Per-round rows the frames hold in all."""
        return sum(len(r.cells) * len(r.policies) * r.settings.seeds * r.settings.T for r in self.sweeps)


def _plain(v: Any) -> Any:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def cell_name(values: dict[str, Any]) -> str:
    """``{"d": 5, "tau": 0.1}`` → ``d=5, τ=0.1``."""
    return ", ".join(f"{sweep.symbol(k)}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}"
                     for k, v in values.items())


def slug(name: str) -> str:
    """A file-name-safe form of a cell name (``d=5, τ=0.1`` → ``d5_tau0.1``)."""
    ascii_names = {"τ": "tau", "δ": "delta", "α": "alpha", "μ₀": "mu0", "ρ": "rho"}
    for k, v in ascii_names.items():
        name = name.replace(k, v)
    return name.replace("=", "").replace(", ", "_").replace(" ", "")


RUNNING: dict[str, tuple[str, str]] = {
    "cum_regret": ("cum_regret", "sum"),
    "default_pulls": ("default", "cumsum"),
    "violation_rate": ("violation", "mean"),
}
"""A running quantity -> (the output it is built from, how): the cumulative regret as it is, the
running count of default pulls N₀(t), the running share of rounds that crossed the line."""


def running(result: Run, value: str) -> np.ndarray:
    """The running ``value`` of every (cell, policy, seed, t) of a grid run, in float64."""
    check_choice("value", value, tuple(RUNNING))
    field, how = RUNNING[value]
    out = result.outputs
    if field not in out:
        raise SettingsError("value", f"a running quantity of the {result.kind!r} model", value)
    v = out[field].astype(np.float64)
    if how == "cumsum":
        return np.cumsum(v, axis=-1)
    if how == "mean":
        return np.cumsum(v, axis=-1) / np.arange(1, v.shape[-1] + 1)
    return v


def curve_stats(result: Run, value: str = "cum_regret", max_points: int = 400,
                spacing: str = "linear") -> pd.DataFrame:
    """Per (cell, policy, t): mean, std (ddof 1), min and max over seeds of a running quantity.

    ``value``: ``cum_regret`` (cumulative regret; MV-CBP: T·R̃_t), ``default_pulls`` (N₀(t)) or
    ``violation_rate`` (running share of rounds with C_t > τ). Rounds are ``max_points`` evenly
    spaced (``linear``) or geometrically spaced (``log``) ones, the last always kept.
    """
    check_choice("spacing", spacing, ("linear", "log"))
    T = result.settings.T
    grid = np.geomspace(1, T, max_points) if spacing == "log" else np.linspace(1, T, max_points)
    ts = np.unique(np.concatenate([np.round(grid).astype(np.int64), [T]]))
    ts = ts[(ts >= 1) & (ts <= T)]
    picked = running(result, value)[..., ts - 1]  # (G, P, S, n)
    G, P, S, n = picked.shape
    std = picked.std(axis=2, ddof=1) if S > 1 else np.zeros_like(picked[:, :, 0])
    return pd.DataFrame({
        "cell": np.repeat(np.arange(G), P * n),
        "policy": np.tile(np.repeat(result.policies, n), G),
        "label": np.tile(np.repeat(result.labels, n), G),
        "t": np.tile(ts, G * P),
        "mean": picked.mean(axis=2).reshape(-1),
        "std": std.reshape(-1),
        "min": picked.min(axis=2).reshape(-1),
        "max": picked.max(axis=2).reshape(-1),
    })


def memory_bytes(run: PresetRun) -> int:
    """The estimate for the preset's largest sweep at this size (its sweeps run one after another), in bytes."""
    return max(spec.family.memory_bytes(spec.base) * len(spec.cells()) for spec in run.specs())


def check_fits(run: PresetRun, device: str | None = None, limit: int | None = None) -> None:
    """Raise :class:`SettingsError` naming T (with the largest T that fits) when a sweep of the preset at this size
    would not fit in half the device's memory, or in ``limit`` bytes (a server's cap on one run)."""
    for spec in run.specs():
        spec.family.check_fits(spec.base, device, cells=len(spec.cells()), limit=limit)


def run_preset(run: PresetRun, device: str | None = None, shard: bool | None = None,
               progress: Callable[[float, str], None] | None = None) -> PresetResult:
    """Run every sweep of a preset at the size ``run`` asks for; ``progress(fraction, text)`` after each chunk."""
    specs = run.specs()
    preset = get(run.preset)
    out: list[Run] = []
    start = time.perf_counter()
    chunk = max(MIN_T, run.T // 10)
    for k, spec in enumerate(specs):
        def tick(fraction: float, text: str, k: int = k) -> None:
            if progress is not None:
                progress((k + fraction) / len(specs), f"Part {k + 1} of {len(specs)}: {text}")

        out.append(sweep.run_sweep(spec, device=device, shard=shard, chunk=chunk, progress=tick))
    return PresetResult(run=run, preset=preset, sweeps=out, specs=specs, seconds=time.perf_counter() - start)


def summary_rows(summary: pd.DataFrame) -> list[dict[str, Any]]:
    """Summary rows as JSON-ready dicts (``settings`` parsed back to an object; NaN as None)."""
    out = []
    for row in summary.to_dict(orient="records"):
        row = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        row["settings"] = json.loads(row["settings"])
        out.append(row)
    return out


# ---------------------------------------------------------------------------------------------- verdicts
@dataclasses.dataclass(frozen=True)
class Verdict:
    """Our number for a claim (with its interval, in words) and the verdict computed from the run."""

    ours: str
    verdict: str
    why: str = ""


def pct(v: float) -> str:
    """A share in percent, three digits."""
    return f"{100 * v:.3g} %"


def by_policy(per_cell: pd.DataFrame, policy: str) -> pd.DataFrame:
    """The per-cell rows of one policy, indexed by cell."""
    return per_cell[per_cell["policy"] == policy].set_index("cell")


def first_two(per_cell: pd.DataFrame) -> tuple[str, str | None]:
    """The first policy a preset ran (the paper's algorithm) and the second (its baseline), if any."""
    policies = list(dict.fromkeys(per_cell["policy"]))
    return policies[0], (policies[1] if len(policies) > 1 else None)


def claim_table(result: PresetResult) -> pd.DataFrame:
    """The paper-vs-run table: claim id and words, the paper's statement, our number, the verdict and why."""
    rows = []
    for c in result.preset.claims:
        v = checks()[c.check](result)
        rows.append({"claim": c.id, "statement": c.text, "paper": c.paper, "ours": v.ours, "verdict": v.verdict,
                     "why": v.why, "T": result.run.T, "seeds": result.run.seeds})
    return pd.DataFrame(rows)


def paper_table(summary: pd.DataFrame) -> pd.DataFrame:
    """"Paper vs this run": the rows for which the paper reports a number, side by side, each with where
    ours lies against the paper's range (within, above, below) and the range the claim's verdict accepts."""
    rows = summary[summary["paper_value"].notna()]
    numbers = [{(n.policy, n.metric): n for n in get(name).paper_numbers}[(policy, metric)]
               for name, policy, metric in zip(rows["preset"], rows["policy"], rows["metric"], strict=True)]
    metrics, values = rows["metric"].to_numpy(), rows["value"].to_numpy()
    return pd.DataFrame({
        "setting": [", ".join(f"{sweep.symbol(k)}={v}" for k, v in json.loads(s).items()
                              if k not in ("T", "seeds")) for s in rows["settings"]],
        "policy": rows["label"].to_numpy(),
        "metric": metrics,
        "paper": rows["paper_value"].to_numpy(),
        "this run": [format_value(m, v) for m, v in zip(metrics, values, strict=True)],
        "95 % interval": [f"{format_value(m, lo)} – {format_value(m, hi)}" for m, lo, hi in
                          zip(metrics, rows["ci_low"], rows["ci_high"], strict=True)],
        "vs the paper": [n.position(float(v)) for n, v in zip(numbers, values, strict=True)],
        "the verdict accepts": [format_range(m, *n.accepted) for m, n in zip(metrics, numbers, strict=True)],
    })


__all__ = ["CONSISTENT", "INCONSISTENT", "METRICS", "NOT_SHOWN", "Check", "Claim", "PaperNumber", "Preset",
           "PresetResult", "PresetRun", "Verdict", "by_policy", "cell_name", "checks", "claim_table", "curve_stats",
           "every", "first_two", "format_range", "format_value", "get", "names", "paper_table", "pct", "run_preset",
           "running", "summary_rows", "slug"]
