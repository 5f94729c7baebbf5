"""The papers' synthetic experiments as data, and one function to run any of them at any size.

Every :class:`Preset` is a tuple of sweeps (:class:`~safebandit_core.sweep.SweepSpec`) at the
paper's full size, the numbers the paper reports (:class:`PaperNumber`), the paper's qualitative
claims, and our documented choices where the paper is silent. :func:`run_preset` runs one at the
size a :class:`PresetRun` asks for and returns a :class:`PresetResult` (tidy frames, summary rows).

Seed 000 (*Safety by Design*, §7): θ*, μ*, X_t standard normal then normalised, T = 10⁴, 5 seeds.
Its Table 1 lists violation ratios "across different values of τ" but the τ values are not legible
in the text we have; we use τ ∈ {0.1, 0.2, 0.5, 1.0}. The paper gives no noise levels, δ, δ′ or g:
we use κ_r = κ_c = 0.3, δ = 0.01, δ′ = 0.05, λ = 1, S = L = 1 and g(α) = α.

Seed 001 (*One-Size-Fits-All*, §5 and Appendix A): Bernoulli rewards, 50 runs, CMAB and MV-CBP
arms 0.8 → 0.2 with μ₀ = 0.7, CLB and CCCB with K = 2d. The paper gives no horizon (we use
T = 10⁴), no CCCB super-arm size (we use m = 2) and no μ₀ for CLB and CCCB (we derive it from
the instance as :mod:`safebandit_core.conservative.sim` documents).
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
from .conservative.mv_sim import MVSettings
from .conservative.sim import ConservativeSettings
from .dose.sim import DoseSettings
from .settings import SettingsError, check_choice, check_int_range

MIN_T = 10
MAX_T = 1_000_000
MAX_SEEDS = 1000
PRECISIONS = ("auto", "float64", "float32")
METRICS: dict[str, str] = {
    "violation_rate": "violation rate (share of rounds with C_t > τ)",
    "final_regret": "cumulative regret at T",
    "default_pulls": "default-arm pulls N₀(T)",
    "min_slack": "smallest slack over every seed and round",
}
# metric -> (value, low, high) columns of sweep.cell_summary
_COLUMNS: dict[str, tuple[str, str | None, str | None]] = {
    "violation_rate": ("violation_rate", "violation_rate_lo", "violation_rate_hi"),
    "final_regret": ("regret_mean", "regret_lo", "regret_hi"),
    "default_pulls": ("default_pulls", "default_pulls_lo", "default_pulls_hi"),
    "min_slack": ("min_slack", None, None),
}


@dataclasses.dataclass(frozen=True)
class PaperNumber:
    """A number the paper reports for one policy and metric, as printed and as a range [low, high]."""

    policy: str
    metric: str
    text: str
    low: float
    high: float
    source: str


@dataclasses.dataclass(frozen=True)
class Claim:
    """A qualitative claim of the paper and the name of the check that tests it on a run (see :data:`CHECKS`)."""

    text: str
    check: str


@dataclasses.dataclass(frozen=True)
class Preset:
    """One experiment of a paper at its full size."""

    name: str
    paper: str  # "000" or "001": the seed file under shared/seeds
    artefact: str  # e.g. "Table 1", "Figure 1 (a)"
    title: str
    model: str  # sweep model: "dose", "gencb" or "mv"
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
        """One line for ``replay --list``."""
        return (f"{self.name:<18} seed {self.paper} {self.artefact:<14} {self.title} "
                f"[{self.n_cells} cell{'s' if self.n_cells > 1 else ''}, paper size {self.full_seeds} seeds × "
                f"T = {self.full_T:,}; quick {self.quick_seeds} × {self.quick_T:,}]")


# ----------------------------------------------------------------------------------------------
# Seed 000
S000_TAUS = (0.1, 0.2, 0.5, 1.0)
S000_BASE = DoseSettings(policies=("hpucb", "on_expectation"), d=5, T=10_000, tau=0.5, delta=0.01, delta_prime=0.05,
                         kappa_r=0.3, kappa_c=0.3, S=1.0, L=1.0, lam=1.0, g="linear", eps=0.5, seeds=5)
S000_CHOICES = (
    "Noise: κ_r = κ_c = 0.3 (Gaussian); the paper does not give its noise levels.",
    "δ = 0.01 and δ′ = 0.05; the paper does not give them.",
    "Dose curve g(α) = α, λ = 1, S = L = 1 (θ*, μ* and X_t have unit norm as in the paper).",
)
TABLE1_TAU_CHOICE = ("τ ∈ {0.1, 0.2, 0.5, 1.0}: Table 1 spans 'different values of τ', but its values are not "
                     "legible in the text we have.")


def _s000_table1() -> Preset:
    sweeps = tuple(sweep.SweepSpec("dose", dataclasses.replace(S000_BASE, d=d), S000_TAUS, ()) for d in (5, 10))
    numbers = (
        PaperNumber("hpucb", "violation_rate", "0.02 %", 0.0002, 0.0002, "§7 text and Table 1"),
        PaperNumber("on_expectation", "violation_rate", "12 % – 23 % (range over τ)", 0.12, 0.23,
                    "§7 text and Table 1"),
    )
    claims = (Claim("HPC-UCB's violation rate stays below δ at every τ and d.", "hpucb_below_delta"),
              Claim("The On-Expectation baseline violates far more often (the paper: 12 % – 23 %): on average over "
                    "the settings, more than 2δ and more than 10 times HPC-UCB's rate.", "on_expectation_far_above"))
    return Preset("s000-table1", "000", "Table 1", "HPC-UCB vs On-Expectation: violation ratio over τ, d ∈ {5, 10}",
                  "dose", "violation_table", sweeps, ("d", "tau"), ("violation_rate", "final_regret"), 3, 2000,
                  numbers, claims, (TABLE1_TAU_CHOICE, *S000_CHOICES))


def _s000_fig2() -> Preset:
    base = dataclasses.replace(S000_BASE, policies=("hpucb", "eps_greedy"))
    sweeps = tuple(sweep.SweepSpec("dose", dataclasses.replace(base, d=d), (0.5,), ()) for d in (5, 10))
    claims = (Claim("ε-Greedy (ε = 0.5) reaches a regret comparable to HPC-UCB (within a factor of 2 here).",
                    "eps_comparable"),)
    return Preset("s000-fig2", "000", "Figure 2", "Learning curves, HPC-UCB vs ε-Greedy (ε = 0.5), τ = 0.5, "
                  "d ∈ {5, 10}", "dose", "learning_curves", sweeps, ("d", "tau"), ("final_regret", "violation_rate"),
                  3, 2000, (), claims, S000_CHOICES)


# ----------------------------------------------------------------------------------------------
# Seed 001
S001_T = 10_000
S001_RUNS = 50
S001_CHOICES = (
    "T = 10⁴ rounds: the paper does not state its horizon.",
    "50 runs per setting, as in the paper; the figures show the mean, min and max over runs.",
)
CLB_CHOICES = ("Arms and θ* are drawn from the base seed (K = 2d arms in R^d, means in [0, 1]); the paper does not "
               "give them. μ₀ is derived from the instance (one sixth of the way down from the best mean).",)
CCCB_CHOICES = ("Super arms of m = 2 base arms (the paper does not say), paying the sum of their rewards.",)
MV_CHOICES = ("With α = 0.05 and μ₀ = 0.7, MV-CUCB's guarantee needs ρ > 2/(α μ₀) ≈ 57: the paper's ρ = 10 and 30 "
              "runs are outside it, so their slack is not guaranteed (min slack is reported).",)
GENCB_CLAIMS = (
    Claim("GenCB keeps the sample-path constraint at every round of every run (slack ≥ 0).", "first_slack_ok"),
    Claim("GenCB has lower regret than the previous conservative algorithm.", "gencb_beats_baseline"),
    Claim("GenCB plays the default arm less often than the previous conservative algorithm.",
          "gencb_fewer_default_pulls"),
)
MV_CLAIMS = (
    Claim("MV-CUCB adds only a bounded regret over MV-UCB: less than a learner earning exactly the baseline "
          "would lose.", "mv_bounded_extra"),
    Claim("MV-CUCB's mean-variance constraint holds on every path when ρ > 2/(α μ₀).", "first_slack_ok"),
)
CMAB_BASE = ConservativeSettings(problem="cmab", K=72, alpha=0.05, mu0=0.7, T=S001_T, seeds=S001_RUNS)
LIN_ALPHAS = (0.01, 0.02, 0.03)
CMAB_ALPHAS = (0.05, 0.1, 0.15)
MV_BASE = MVSettings(K=24, alpha=0.05, mu0=0.7, rho=10.0, T=S001_T, seeds=S001_RUNS)


def _lin_base(problem: str, d: int) -> ConservativeSettings:
    return ConservativeSettings(problem=problem, d=d, K=2 * d, m=2, alpha=0.01, mu0=None, T=S001_T, seeds=S001_RUNS)


def _s001() -> list[Preset]:
    out = [
        Preset("s001-fig1a-cmab", "001", "Figure 1 (a)", "CMAB, K = 72, α = 0.05: GenCB vs ConUCB vs UCB", "gencb",
               "regret_minmax", (sweep.SweepSpec("gencb", CMAB_BASE, (0.05,), (0.7,)),), ("K", "alpha"),
               ("final_regret", "default_pulls", "min_slack"), 10, 2000, (), GENCB_CLAIMS, S001_CHOICES),
        Preset("s001-fig1b-clb", "001", "Figure 1 (b)", "CLB, d = 7, α = 0.01: GenCB vs CLUCB vs LinUCB", "gencb",
               "regret_minmax", (sweep.SweepSpec("gencb", _lin_base("clb", 7), (0.01,), ()),), ("d", "alpha"),
               ("final_regret", "default_pulls", "min_slack"), 10, 2000, (), GENCB_CLAIMS,
               (*S001_CHOICES, *CLB_CHOICES)),
        Preset("s001-fig1c-cccb", "001", "Figure 1 (c)", "CCCB, d = 7, α = 0.01: GenCB vs C3UCB vs C2UCB", "gencb",
               "regret_minmax", (sweep.SweepSpec("gencb", _lin_base("cccb", 7), (0.01,), ()),), ("d", "alpha"),
               ("final_regret", "default_pulls", "min_slack"), 10, 2000, (), GENCB_CLAIMS,
               (*S001_CHOICES, *CLB_CHOICES, *CCCB_CHOICES)),
        Preset("s001-fig1d-mv", "001", "Figure 1 (d)", "MV-CBP, K = 24, α = 0.05, ρ = 10: MV-CUCB vs MV-UCB", "mv",
               "regret_minmax", (sweep.SweepSpec("mv", MV_BASE, (0.05,), (10.0,)),), ("K", "alpha", "rho"),
               ("final_regret", "default_pulls", "min_slack"), 10, 2000, (), MV_CLAIMS,
               (*S001_CHOICES, *MV_CHOICES)),
        Preset("s001-grid-cmab", "001", "Figures 2 (App.)", "CMAB grid, K ∈ {24, 72, 144} × α ∈ {0.05, 0.1, 0.15}",
               "gencb", "regret_minmax",
               tuple(sweep.SweepSpec("gencb", dataclasses.replace(CMAB_BASE, K=K), CMAB_ALPHAS, (0.7,))
                     for K in (24, 72, 144)), ("K", "alpha"), ("final_regret", "default_pulls", "min_slack"),
               5, 1000, (), GENCB_CLAIMS, (*S001_CHOICES, "The appendix shows four panels of this grid; the "
                                                         "replay runs all nine cells.")),
    ]
    for problem, fig in (("clb", "3"), ("cccb", "4")):
        extra = CLB_CHOICES + (CCCB_CHOICES if problem == "cccb" else ())
        out.append(Preset(
            f"s001-grid-{problem}", "001", f"Figures {fig} (App.)",
            f"{problem.upper()} grid, d ∈ {{5, 7, 9}} × α ∈ {{0.01, 0.02, 0.03}}, K = 2d", "gencb", "regret_minmax",
            tuple(sweep.SweepSpec("gencb", _lin_base(problem, d), LIN_ALPHAS, ()) for d in (5, 7, 9)),
            ("d", "alpha"), ("final_regret", "default_pulls", "min_slack"), 5, 1000, (), GENCB_CLAIMS,
            (*S001_CHOICES, *extra, "The appendix shows four panels of this grid; the replay runs all nine cells.")))
    out.append(Preset(
        "s001-grid-mv", "001", "Figures 5 (App.)", "MV-CBP grid, K ∈ {24, 72, 144} × α ∈ {0.05, 0.1, 0.15} × "
        "ρ ∈ {10, 30, 60}", "mv", "regret_minmax",
        tuple(sweep.SweepSpec("mv", dataclasses.replace(MV_BASE, K=K), CMAB_ALPHAS, (10.0, 30.0, 60.0))
              for K in (24, 72, 144)), ("K", "alpha", "rho"), ("final_regret", "default_pulls", "min_slack"),
        5, 1000, (), MV_CLAIMS, (*S001_CHOICES, *MV_CHOICES, "The appendix shows six panels of this grid; the "
                                                             "replay runs all 27 cells.")))
    return out


PRESETS: dict[str, Preset] = {p.name: p for p in (_s000_table1(), _s000_fig2(), *_s001())}
NAMES: tuple[str, ...] = tuple(PRESETS)


def get(name: str) -> Preset:
    """The preset called ``name``; :class:`SettingsError` listing the names otherwise."""
    check_choice("preset", name, NAMES)
    return PRESETS[name]


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
        check_choice("preset", self.preset, NAMES)
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
    """A finished preset run: its sweeps' results, and the tidy views of them."""

    run: PresetRun
    preset: Preset
    sweeps: list[sweep.SweepResult]
    seconds: float

    @property
    def device(self) -> str:
        return self.sweeps[0].device

    @property
    def precision(self) -> str:
        return self.sweeps[0].precision

    def index(self) -> list[tuple[int, int]]:
        """(sweep, cell within it) of every preset cell, in order."""
        return [(k, i) for k, r in enumerate(self.sweeps) for i in range(len(r.cells))]

    def cells(self) -> pd.DataFrame:
        """One row per cell: ``cell``, ``name`` (e.g. ``d=5, τ=0.1``), the cell fields and the baseline slope."""
        rows = []
        for c, (k, i) in enumerate(self.index()):
            spec = self.sweeps[k].spec
            s = spec.cell_settings(i)
            values = {f: _plain(getattr(s, f)) for f in self.preset.cell_fields}
            rows.append({"cell": c, "name": cell_name(values), **values,
                         "baseline_slope": sweep.baseline_slope(spec, i), "T": s.T})
        return pd.DataFrame(rows)

    def cell_summary(self) -> pd.DataFrame:
        """:func:`sweep.cell_summary` of every sweep, with the preset's cell numbers and fields."""
        cells = self.cells()
        parts, offset = [], 0
        for r in self.sweeps:
            part = sweep.cell_summary(r)
            part["cell"] = part["cell"] + offset
            offset += len(r.cells)
            parts.append(part)
        out = pd.concat(parts, ignore_index=True)
        drop = [c for c in self.preset.cell_fields if c in out.columns]
        return out.drop(columns=drop).merge(cells, on="cell", how="left")

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
        parts, offset = [], 0
        for r in self.sweeps:
            part = curve_stats(r, value, max_points, spacing)
            part["cell"] = part["cell"] + offset
            offset += len(r.cells)
            parts.append(part)
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
        return sum(len(r.cells) * len(r.spec.policies) * r.spec.base.seeds * r.spec.base.T for r in self.sweeps)


def _plain(v: Any) -> Any:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def cell_name(values: dict[str, Any]) -> str:
    """``{"d": 5, "tau": 0.1}`` → ``d=5, τ=0.1``."""
    return ", ".join(f"{sweep.SYMBOLS.get(k, k)}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}"
                     for k, v in values.items())


def slug(name: str) -> str:
    """A file-name-safe form of a cell name (``d=5, τ=0.1`` → ``d5_tau0.1``)."""
    ascii_names = {"τ": "tau", "δ": "delta", "α": "alpha", "μ₀": "mu0", "ρ": "rho"}
    for k, v in ascii_names.items():
        name = name.replace(k, v)
    return name.replace("=", "").replace(", ", "_").replace(" ", "")


def curve_stats(result: sweep.SweepResult, value: str = "cum_regret", max_points: int = 400,
                spacing: str = "linear") -> pd.DataFrame:
    """Per (cell, policy, t): mean, std (ddof 0), min and max over seeds of a running quantity.

    ``value``: ``cum_regret`` (cumulative regret; MV-CBP: T·R̃_t), ``default_pulls`` (N₀(t)) or
    ``violation_rate`` (running share of rounds with C_t > τ). Rounds are ``max_points`` evenly
    spaced (``linear``) or geometrically spaced (``log``) ones, the last always kept.
    """
    check_choice("spacing", spacing, ("linear", "log"))
    T = result.spec.base.T
    grid = np.geomspace(1, T, max_points) if spacing == "log" else np.linspace(1, T, max_points)
    ts = np.unique(np.concatenate([np.round(grid).astype(np.int64), [T]]))
    ts = ts[(ts >= 1) & (ts <= T)]
    frames = []
    for p, out in result.outputs.items():
        running = _running(result, p, out, value)  # (G, S, T)
        picked = running[..., ts - 1]
        G = picked.shape[0]
        frames.append(pd.DataFrame({
            "cell": np.repeat(np.arange(G), ts.size),
            "policy": p,
            "label": sweep.policy_label(result.spec.model, p),
            "t": np.tile(ts, G),
            "mean": picked.mean(axis=1).reshape(-1),
            "std": picked.std(axis=1).reshape(-1),
            "min": picked.min(axis=1).reshape(-1),
            "max": picked.max(axis=1).reshape(-1),
        }))
    return pd.concat(frames, ignore_index=True)


def _running(result: sweep.SweepResult, policy: str, out: dict[str, np.ndarray], value: str) -> np.ndarray:
    model = result.spec.model
    if value == "cum_regret":
        if model == "mv":
            return out["cum_regret"].astype(np.float64)
        return np.cumsum(out["regret"], axis=-1, dtype=np.float64)
    if value == "default_pulls" and model != "dose":
        return np.cumsum(out["default"], axis=-1, dtype=np.float64)
    if value == "violation_rate" and model == "dose":
        tau = np.asarray([c["tau"] for c in result.cells])[:, None, None]
        viol = np.cumsum(out["cost"] > tau, axis=-1, dtype=np.float64)
        return viol / np.arange(1, viol.shape[-1] + 1)
    raise SettingsError("value", f"a running quantity of the {model!r} model", value)


def run_preset(run: PresetRun, device: str | None = None, shard: bool | None = None,
               progress: Callable[[float, str], None] | None = None) -> PresetResult:
    """Run every sweep of a preset at the size ``run`` asks for; ``progress(fraction, text)`` after each chunk."""
    specs = run.specs()
    preset = get(run.preset)
    results: list[sweep.SweepResult] = []
    start = time.perf_counter()
    chunk = max(MIN_T, run.T // 10)
    for k, spec in enumerate(specs):
        def tick(fraction: float, text: str, k: int = k) -> None:
            if progress is not None:
                progress((k + fraction) / len(specs), f"Part {k + 1} of {len(specs)}: {text}")

        results.append(sweep.run_sweep(spec, device=device, shard=shard, chunk=chunk, progress=tick))
    return PresetResult(run=run, preset=preset, sweeps=results, seconds=time.perf_counter() - start)


def summary_rows(summary: pd.DataFrame) -> list[dict[str, Any]]:
    """Summary rows as JSON-ready dicts (``settings`` parsed back to an object; NaN as None)."""
    out = []
    for row in summary.to_dict(orient="records"):
        row = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        row["settings"] = json.loads(row["settings"])
        out.append(row)
    return out


def paper_table(summary: pd.DataFrame) -> pd.DataFrame:
    """"Paper vs this run": the rows for which the paper reports a number, side by side."""
    rows = summary[summary["paper_value"].notna()]
    percent = rows["metric"] == "violation_rate"
    scale = np.where(percent, 100.0, 1.0)
    unit = np.where(percent, " %", "")
    return pd.DataFrame({
        "setting": [", ".join(f"{sweep.SYMBOLS.get(k, k)}={v}" for k, v in json.loads(s).items()
                              if k not in ("T", "seeds")) for s in rows["settings"]],
        "policy": rows["label"].to_numpy(),
        "metric": rows["metric"].to_numpy(),
        "paper": rows["paper_value"].to_numpy(),
        "this run": [f"{v * k:.3g}{u}" for v, k, u in zip(rows["value"], scale, unit, strict=True)],
        "95 % interval": [f"{lo * k:.3g} – {hi * k:.3g}{u}" for lo, hi, k, u in
                          zip(rows["ci_low"], rows["ci_high"], scale, unit, strict=True)],
        "consistent": [bool(lo <= pl and ph <= hi) or bool(pl <= v <= ph) for lo, hi, v, pl, ph
                                              in zip(rows["ci_low"], rows["ci_high"], rows["value"],
                                                     rows["paper_low"], rows["paper_high"], strict=True)],
    })


def _metric(per_cell: pd.DataFrame, policy: str, column: str) -> pd.Series:
    return per_cell.loc[per_cell["policy"] == policy].set_index("cell")[column]


def _check(result: PresetResult, name: str) -> bool | None:
    """Evaluate the named claim check on a run (None: not applicable)."""
    per_cell = result.cell_summary()
    policies = list(dict.fromkeys(per_cell["policy"]))
    first = policies[0]
    if name == "hpucb_below_delta":
        part = per_cell[per_cell["policy"] == "hpucb"]
        return bool((part["violation_rate"] <= part["delta"]).all())
    if name == "on_expectation_far_above":
        oe = _metric(per_cell, "on_expectation", "violation_rate").mean()
        hp = _metric(per_cell, "hpucb", "violation_rate").mean()
        delta = _metric(per_cell, "hpucb", "delta").mean()
        return bool(oe > 2 * delta and oe > 10 * hp)
    if name == "eps_comparable":
        hp = _metric(per_cell, "hpucb", "regret_mean")
        eg = _metric(per_cell, "eps_greedy", "regret_mean")
        return bool((eg <= 2 * hp.abs() + 1).all())
    if name == "first_slack_ok":
        return bool((_metric(per_cell, first, "min_slack") >= -sweep.SLACK_TOL).all())
    if name in ("gencb_beats_baseline", "gencb_fewer_default_pulls"):
        if len(policies) < 2:
            return None
        col = "regret_mean" if name == "gencb_beats_baseline" else "default_pulls"
        return bool((_metric(per_cell, first, col) <= _metric(per_cell, policies[1], col)).all())
    if name == "mv_bounded_extra":
        if len(policies) < 2:
            return None
        extra = _metric(per_cell, first, "regret_mean") - _metric(per_cell, policies[1], "regret_mean")
        slope = result.cells().set_index("cell")["baseline_slope"]
        return bool((extra <= slope * result.run.T).all())
    raise SettingsError("check", "a known claim check", name)


def claim_checks(result: PresetResult) -> list[tuple[str, bool | None]]:
    """Each claim of the preset and whether it holds in this run (None: not applicable)."""
    return [(c.text, _check(result, c.check)) for c in result.preset.claims]


@dataclasses.dataclass
class TheoryResult:
    """The theory overlay: HPC-UCB's regret growth against √T, and GenCB's default pulls N₀(T) against T."""

    regret: pd.DataFrame  # curve_stats of cum_regret on log-spaced rounds (dose model)
    slopes: dict[str, tuple[float, float]]  # label -> (slope, intercept) of log regret on log t, t >= fit_from
    fit_from: int
    default_pulls: pd.DataFrame  # curve_stats of default_pulls on log-spaced rounds (GenCB-CMAB and ConUCB)
    seconds: float
    device: str
    precision: str


THEORY_DOSE = dataclasses.replace(S000_BASE, policies=("hpucb", "eps_greedy"), d=5, tau=0.5)
# Few arms and α = 0.1, so that GenCB's exploration ends (and N₀ levels off) within a few thousand rounds.
THEORY_GENCB = ConservativeSettings(problem="cmab", policies=("gencb", "conucb"), K=10, alpha=0.1, mu0=0.7)


def run_theory(T: int, seeds: int, base_seed: int = 0, precision: str = "auto", device: str | None = None,
               progress: Callable[[float, str], None] | None = None, fit_share: float = 0.1) -> TheoryResult:
    """Run the two theory overlays at horizon ``T``.

    Both algorithms are anytime (HPC-UCB's radius uses the rounds so far, GenCB wraps UCB with its
    own counter), so the first t rounds of one run of length T are a run of horizon t: one run
    gives the whole curve against T. Slopes are fitted on ``t ≥ fit_share·T``.
    """
    check_int_range("T", T, MIN_T, MAX_T)
    check_int_range("seeds", seeds, 1, MAX_SEEDS)
    start = time.perf_counter()
    specs = (sweep.SweepSpec("dose", THEORY_DOSE, (THEORY_DOSE.tau,), ()),
             sweep.SweepSpec("gencb", THEORY_GENCB, (THEORY_GENCB.alpha,), (THEORY_GENCB.mu0,)))
    specs = tuple(s.scaled(seeds=seeds, T=T, base_seed=base_seed, precision=precision) for s in specs)
    results = []
    for k, spec in enumerate(specs):
        def tick(fraction: float, text: str, k: int = k) -> None:
            if progress is not None:
                progress((k + fraction) / len(specs), ("Dose model: " if k == 0 else "GenCB: ") + text)

        results.append(sweep.run_sweep(spec, device=device, chunk=max(MIN_T, T // 10), progress=tick))
    regret = curve_stats(results[0], "cum_regret", 200, "log")
    fit_from = max(1, int(fit_share * T))
    slopes = {lab: sweep.fit_loglog_slope(part["t"].to_numpy(), part["mean"].to_numpy(), fit_share)
              for lab, part in regret.groupby("label", sort=False)}
    return TheoryResult(regret=regret, slopes=slopes, fit_from=fit_from,
                        default_pulls=curve_stats(results[1], "default_pulls", 200, "log"),
                        seconds=time.perf_counter() - start, device=results[0].device,
                        precision=results[0].precision)
