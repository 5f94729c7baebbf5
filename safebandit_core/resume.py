"""Preset runs that survive an interruption: run cell by cell, keep each finished cell's summary on disk.

A paper-size grid (27 cells × 50 runs × T = 10⁵) takes hours on a small CPU. :func:`run_resumable`
runs a preset one grid cell at a time and, after each cell, writes what the verdicts and figures
need and nothing per round: the per-seed finals (:func:`~safebandit_core.sweep.seed_frame`) and the
mean/std/min/max curves over seeds of every running quantity on 400 evenly and 200 geometrically
spaced rounds (:func:`~safebandit_core.presets.curve_stats`). Run again on the same folder, it loads
the finished cells and runs only the rest. Every file is written whole or not at all (temporary
name, then rename), and a cell counts as finished only once its ``cell-NNN.json`` exists, which is
written last. The folder's ``run.json`` pins the run (preset, seeds, T, base seed, precision): a
folder of another run is refused rather than mixed.

The result, :class:`StoredPresetResult`, answers every view of a
:class:`~safebandit_core.presets.PresetResult` (summary, claim table, figures, bundle) from those
files; a cell run alone draws the same keys as within its grid, so its numbers are those of
:func:`~safebandit_core.presets.run_preset` up to floating-point summation order.
"""

from __future__ import annotations

import dataclasses
import io
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from . import presets, sweep
from .outputs import write
from .settings import SettingsError

CURVE_GRIDS: tuple[tuple[int, str], ...] = ((400, "linear"), (200, "log"))
"""(points, spacing) of the curves kept per cell: the figures' and the verdicts' grids."""
RUN_FILE = "run.json"
OLD_SEED_COLUMNS = {"final_regret": "cum_regret"}
"""Per-seed columns a folder written by the previous release names otherwise: renamed on loading, so an
interrupted run resumes across the release."""


@dataclasses.dataclass(frozen=True)
class CellRecord:
    """One finished cell: its per-seed finals, its curves (one frame, keyed by value and spacing), and how it ran."""

    per_seed: pd.DataFrame
    curves: pd.DataFrame
    seconds: float
    device: str
    precision: str


def _stem(directory: Path, c: int) -> Path:
    return directory / f"cell-{c:03d}"


def _parquet(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


def _pin(run: presets.PresetRun, directory: Path) -> None:
    """Write ``run.json``, or check that the folder holds this very run."""
    want = {"preset": run.preset, "seeds": run.seeds, "T": run.T, "base_seed": run.base_seed,
            "precision": run.precision}
    path = directory / RUN_FILE
    if path.exists():
        have = json.loads(path.read_text())
        if have != want:
            raise SettingsError("resume", f"a folder of this run or a new one (it holds {have})", str(directory))
        return
    directory.mkdir(parents=True, exist_ok=True)
    write(path, json.dumps(want, indent=1, sort_keys=True).encode(), "--resume")


def load_cell(directory: Path, c: int) -> CellRecord | None:
    """Cell ``c``'s record if it finished, else None."""
    stem = _stem(directory, c)
    meta = stem.with_suffix(".json")
    if not meta.exists():
        return None
    info = json.loads(meta.read_text())
    per_seed = pd.read_parquet(stem.with_suffix(".seeds.parquet")).rename(columns=OLD_SEED_COLUMNS)
    return CellRecord(per_seed=per_seed,
                      curves=pd.read_parquet(stem.with_suffix(".curves.parquet")), seconds=float(info["seconds"]),
                      device=str(info["device"]), precision=str(info["precision"]))


def _save_cell(directory: Path, c: int, result: Any, cell: dict[str, Any]) -> CellRecord:
    """Reduce a one-cell run to its record and write it (the ``.json`` last: it marks the cell done)."""
    parts = []
    for value, (field, _) in presets.RUNNING.items():
        if field not in result.outputs:
            continue
        for points, spacing in CURVE_GRIDS:
            parts.append(presets.curve_stats(result, value, points, spacing).assign(value=value, spacing=spacing,
                                                                                   points=points))
    record = CellRecord(per_seed=sweep.seed_frame(result), curves=pd.concat(parts, ignore_index=True),
                        seconds=float(result.seconds), device=result.device, precision=result.precision)
    stem = _stem(directory, c)
    write(stem.with_suffix(".seeds.parquet"), _parquet(record.per_seed), "--resume")
    write(stem.with_suffix(".curves.parquet"), _parquet(record.curves), "--resume")
    info = {"cell": c, "settings": cell, "seconds": record.seconds, "device": record.device,
            "precision": record.precision}
    write(stem.with_suffix(".json"), json.dumps(info, indent=1, sort_keys=True).encode(), "--resume")
    return record


@dataclasses.dataclass
class StoredPresetResult(presets.PresetResult):
    """A preset run assembled from its cells' records (see the module docstring); no per-round data."""

    records: list[CellRecord] = dataclasses.field(default_factory=list)
    resumed: int = 0  # cells loaded from disk rather than run now

    @property
    def device(self) -> str:
        return self.records[0].device

    @property
    def precision(self) -> str:
        return self.records[0].precision

    @property
    def compute_seconds(self) -> float:
        """Seconds spent on the cells, summed over every session that ran some of them."""
        return sum(r.seconds for r in self.records)

    def _summary_parts(self) -> list[pd.DataFrame]:
        out = []
        for c, (k, i) in enumerate(self.index()):
            spec = self.specs[k]
            per_seed = self.records[c].per_seed.assign(cell=0)
            out.append(sweep.summarise_seeds(per_seed, [spec.cells()[i]], spec.base).assign(cell=c))
        return out

    def _curve_parts(self, value: str, max_points: int, spacing: str) -> list[pd.DataFrame]:
        out = []
        for c, rec in enumerate(self.records):
            kept = rec.curves[(rec.curves["value"] == value) & (rec.curves["spacing"] == spacing)]
            if kept.empty:
                raise SettingsError("value", "a running quantity kept for this run", value)
            nearest = min(kept["points"].unique(), key=lambda n: abs(int(n) - max_points))
            part = kept[kept["points"] == nearest].drop(columns=["value", "spacing", "points"])
            out.append(part.assign(cell=c).reset_index(drop=True))
        return out

    def frames(self) -> dict[str, pd.DataFrame]:
        """No per-round data is kept: the curves over seeds stand in for it."""
        return {"curves": self.curves()}


def run_resumable(run: presets.PresetRun, directory: str | Path, device: str | None = None,
                  progress: Callable[[float, str], None] | None = None) -> StoredPresetResult:
    """Run the preset cell by cell into ``directory``, skipping the cells a previous call finished there.

    ``progress(fraction, text)`` is called after every chunk of rounds, the fraction over all cells.
    """
    directory = Path(directory)
    specs = run.specs()
    _pin(run, directory)
    index = [(k, i) for k, s in enumerate(specs) for i in range(len(s.cells()))]
    start = time.perf_counter()
    chunk = max(presets.MIN_T, run.T // 10)
    records: list[CellRecord] = []
    resumed = 0
    for c, (k, i) in enumerate(index):
        record = load_cell(directory, c)
        if record is not None:
            resumed += 1
        else:
            spec = specs[k]
            cell = spec.cells()[i]
            fx, fy = spec.axes
            one = dataclasses.replace(spec, xs=(cell[fx],), ys=(cell[fy],), x=fx, y=fy)

            def tick(fraction: float, text: str, c: int = c) -> None:
                if progress is not None:
                    progress((c + fraction) / len(index), f"Cell {c + 1} of {len(index)}: {text}")

            result = sweep.run_sweep(one, device=device, shard=False, chunk=chunk, progress=tick)
            record = _save_cell(directory, c, result, cell)
        records.append(record)
        if progress is not None:
            progress((c + 1) / len(index), f"Cell {c + 1} of {len(index)} done")
    return StoredPresetResult(run=run, preset=presets.get(run.preset), sweeps=[], specs=specs,
                              seconds=time.perf_counter() - start, records=records, resumed=resumed)


def load(run: presets.PresetRun, directory: str | Path) -> StoredPresetResult | None:
    """The finished run kept in ``directory`` without running anything; None unless every cell finished there."""
    directory = Path(directory)
    specs = run.specs()
    records = [load_cell(directory, c) for c in range(presets.get(run.preset).n_cells)]
    if not (directory / RUN_FILE).exists() or any(r is None for r in records):
        return None
    _pin(run, directory)
    return StoredPresetResult(run=run, preset=presets.get(run.preset), sweeps=[], specs=specs,
                              seconds=sum(r.seconds for r in records), records=records, resumed=len(records))


def finished_cells(run: presets.PresetRun, directory: str | Path) -> int:
    """How many of the preset's cells ``directory`` holds finished (0 for a missing folder)."""
    directory = Path(directory)
    return sum((_stem(directory, c).with_suffix(".json")).exists() for c in range(presets.get(run.preset).n_cells))


__all__ = ["CURVE_GRIDS", "CellRecord", "StoredPresetResult", "finished_cells", "load", "load_cell",
           "run_resumable"]
