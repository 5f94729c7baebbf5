"""``python -m safebandit_core sweep``: run a sweep settings file, on one machine or on several processes.

``--settings FILE`` is a sweep as :func:`safebandit_core.export.settings_dict` writes it (kind
``sweep``: a model, its base settings and the values of two sweepable axes; a bundle's
``settings.json`` too). Every cell × seed × policy runs in one compiled scan
(:func:`safebandit_core.sweep.run_sweep`), sharded over every device, and with the flags of
:func:`safebandit_core.clikit.add_distributed_flags` over several processes or machines.

It prints an aligned table, one row per (cell, policy) (:func:`safebandit_core.clikit.table`); with ``--json``
exactly one JSON object of the schema of
:mod:`safebandit_core.jsondoc`: ``{kind: "sweep", T, seeds, device, precision, seconds, rows, model, x, y,
cells, policies, processes, files}`` where ``rows`` are :func:`safebandit_core.sweep.cell_summary`'s
(``cell``, the two axes, ``policy``, ``label``, ``cum_regret_mean``, ``cum_regret_std``, ``cum_regret_ci95``,
...). ``--out DIR`` writes three files named
``sweep_<model>_T<T>_seeds<N>``: ``.json`` (that object), ``.parquet`` (one row per cell, policy
and seed: :func:`~safebandit_core.sweep.seed_frame`) and ``.zip`` (the export bundle), each
complete or absent. In a multi-process run only process 0 prints and writes.
"""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

from . import clikit, jsondoc, outputs, progress
from .preset_cli import check_out_dir
from .settings import SettingsError, echo

BUNDLE_PAGE = "Sweeps"
"""The app's page that takes a sweep bundle back (named in the bundle's README)."""
HELP = "Run a sweep settings file (a grid over two settings of any model) on one machine or several."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommand's flags."""
    parser.add_argument("--settings", required=True, metavar="FILE", help="a sweep settings file (kind 'sweep')")
    parser.add_argument("--out", default=None, metavar="DIR", help="write the JSON, Parquet and zip files into DIR")
    parser.add_argument("--json", action="store_true", help=jsondoc.help_for(
        ("model", "x", "y", "cells", "policies", "processes", "files"),
        "files only with --out; rows are one per cell and policy, with the cell's two axes"))
    parser.add_argument("--device", default=None, help="cpu, gpu or gpu:N (default: a GPU when present)")
    parser.add_argument("--no-shard", action="store_true", help="keep the run on one device even if several exist")
    clikit.add_distributed_flags(parser)


def load_spec(path: str) -> Any:
    """The validated :class:`~safebandit_core.sweep.SweepSpec` of a settings file; one line naming it otherwise."""
    from .export import MAX_SETTINGS_BYTES, parse_json
    from .sweep import SweepSpec

    try:
        data = parse_json(outputs.read_capped(path, "--settings", MAX_SETTINGS_BYTES))
    except SettingsError as err:
        raise clikit.CliError(f"error: --settings {path}: {err.allowed}") from None
    if data.get("kind") != "sweep":
        raise clikit.CliError("error: --settings must be a sweep settings file "
                           f"(kind 'sweep'; got {echo(data.get('kind'))})")
    try:
        return SweepSpec.from_dict(data)
    except SettingsError as err:
        shown = "" if err.value is None else f" (got {echo(err.value)})"
        raise clikit.CliError(f"error: --settings {path}: {err.field} must be {err.allowed}{shown}") from None


def stem(spec: Any) -> str:
    """The files' common name: ``sweep_<model>_T<T>_seeds<N>``."""
    return f"sweep_{spec.kind}_T{spec.base.T}_seeds{spec.base.seeds}"


def document(spec: Any, result: Any, processes: int) -> dict[str, Any]:
    """The JSON object the command prints (and writes to ``<stem>.json``)."""
    from .sweep import cell_summary

    fx, fy = spec.axes
    rows = jsondoc.rows_of(cell_summary(result), drop=("seeds",))
    return jsondoc.document("sweep", spec.base.T, spec.base.seeds, result.device, result.precision, result.seconds,
                            rows, model=spec.kind, x=fx, y=fy, cells=len(result.cells),
                            policies=list(result.policies), processes=processes)


def write_files(out_dir: Path, spec: Any, result: Any, doc: dict[str, Any]) -> list[str]:
    """Write ``<stem>.json``, ``.parquet`` and ``.zip`` into ``out_dir``, each atomically; returns their paths."""
    from . import export
    from .sweep import cell_summary, round_frame, seed_frame

    outputs.make_folder(out_dir, "--out")
    name = stem(spec)
    frames = {f"cell{i}": round_frame(result, i) for i in range(len(result.cells))}
    if sum(len(f) for f in frames.values()) > export.MAX_BUNDLE_ROWS:
        frames = {"per_seed": seed_frame(result)}
    zipped = export.bundle(frames, cell_summary(result), spec.to_dict(), {}, page=BUNDLE_PAGE,
                           device=result.device, precision=result.precision)
    table = io.BytesIO()
    seed_frame(result).to_parquet(table, index=False)
    files = [out_dir / f"{name}.json", out_dir / f"{name}.parquet", out_dir / f"{name}.zip"]
    doc = {**doc, "files": [str(f) for f in files]}
    for path, data in zip(files, (json.dumps(doc, default=_plain, indent=1).encode(), table.getvalue(), zipped),
                          strict=True):
        outputs.write(path, data, "--out")
    return doc["files"]


def _plain(obj: Any) -> Any:
    return obj.item() if hasattr(obj, "item") else str(obj)


def run(args: argparse.Namespace) -> int:
    """Read and check the file, join the other processes (if any), run, and print/write on process 0."""
    from .sweep import run_sweep, symbol

    options = clikit.distributed_options(args)
    spec = load_spec(args.settings)
    out_dir = check_out_dir(args.out)
    with clikit.joined(options) as role:
        clikit.check_device(args.device)
        with progress.line("sweep") as tick:
            result = run_sweep(spec, device=args.device, shard=False if args.no_shard else None, progress=tick)
        if not role.writer:
            return 0
        doc = document(spec, result, role.processes)
        if out_dir is not None:
            doc["files"] = write_files(out_dir, spec, result, doc)
        if args.json:
            clikit.emit(doc, True)
            return 0
        fx, fy = spec.axes
        print(f"sweep of the {spec.kind} model: {doc['cells']} cells ({symbol(fx)} × {symbol(fy)}) × "
              f"{len(doc['policies'])} policies × {doc['seeds']} seeds × T = {doc['T']:,} on {doc['device']} "
              f"({doc['precision']}): {doc['seconds']:.2f} s")
        figures = ["cum_regret_mean", *(["cum_regret_ci95"] if doc["seeds"] > 1 else []),
                   "violation_rate" if any("violation_rate" in r for r in doc["rows"]) else "min_slack"]
        cells = [[f"{symbol(fx)}={r[fx]:g}, {symbol(fy)}={r[fy]:g}", r["label"],
                  *(clikit.cell_text(k, r.get(k)) for k in figures), "safe" if r["safe"] else "UNSAFE"]
                 for r in doc["rows"]]
        for line in clikit.table(cells, ["cell", "policy", *figures, "safe"], left=2):
            print(line)
        if doc["seeds"] == 1:
            print(f"  {clikit.NO_SPREAD}")
        for f in doc.get("files", []):
            print(f"wrote {f}")
    return 0
