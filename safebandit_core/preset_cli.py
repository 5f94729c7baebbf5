"""``python -m safebandit_core preset``: list the papers' experiments, or run one at any size.

``--list`` prints one line per preset. ``--preset NAME`` runs it (default: its quick size;
``--full`` for the paper's; ``--seeds``/``--T`` override either) and prints its summary rows and
the paper-vs-run table: with ``--json`` exactly one JSON object of the schema of
:mod:`safebandit_core.jsondoc`, ``{kind: "preset", T, seeds, device, precision, seconds, rows, preset, paper,
claims}`` where ``rows`` are one per preset cell and policy (:meth:`~safebandit_core.presets.PresetResult.cell_summary`:
``cell``, ``name``, the cell's settings, ``policy``, ``label``, ``cum_regret_mean``, ``cum_regret_std``,
``cum_regret_ci95``, ...), ``paper`` is the paper-vs-run table ``{preset, cell, policy, label, settings,
metric, value, ci_low, ci_high, paper_value, paper_low, paper_high}`` and ``claims`` are
``{claim, statement, paper, ours, verdict, why}`` (the verdict computed from the run). ``--out DIR``
writes the export bundle (see :mod:`safebandit_core.export`) to ``DIR/<preset>_T<T>_seeds<N>.zip``
(complete or absent). ``--resume DIR`` runs the preset cell by cell and keeps each finished cell's
summary in DIR (see :mod:`safebandit_core.resume`): the same command continues an interrupted run.
``--report FILE.html`` writes one self-contained HTML report (see :mod:`safebandit_core.report`).
The flags of :func:`safebandit_core.clikit.add_distributed_flags` run the preset on
several processes or machines; only process 0 prints and writes.
Bad input exits with code 2 and one line naming the flag and what it allows.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from . import clikit, jsondoc, outputs, progress
from .clikit import CliError, check_device, emit, settings_error_line
from .settings import SettingsError

HELP = "Run an experiment of either paper (Table 1, Figures 1 and 2, the appendix grids) at any size."

FLAGS = {"preset": "--preset", "seeds": "--seeds", "T": "--T", "base_seed": "--base-seed",
         "precision": "--precision"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommand's flags."""
    parser.add_argument("--list", action="store_true", help="list the presets, one line each")
    parser.add_argument("--preset", default=None, help="the preset to run (see --list)")
    parser.add_argument("--seeds", type=int, default=None, help="runs per setting (default: the preset's quick size)")
    parser.add_argument("--T", type=int, default=None, help="rounds per run (default: the preset's quick size)")
    parser.add_argument("--full", action="store_true", help="the paper's size (its seeds and T)")
    parser.add_argument("--base-seed", type=int, default=0, help="run i of a setting uses PRNGKey(base_seed + i)")
    parser.add_argument("--precision", default="auto", help="auto, float64 or float32 (auto: the device's default)")
    parser.add_argument("--device", default=None, help="cpu, gpu or gpu:N (default: a GPU when present)")
    parser.add_argument("--no-shard", action="store_true", help="keep the run on one device even if several exist")
    parser.add_argument("--json", action="store_true", help=jsondoc.help_for(
        ("preset", "paper", "claims", "compute_seconds"),
        "compute_seconds only with --resume; rows are one per preset cell and policy"))
    parser.add_argument("--out", default=None, metavar="DIR", help="write the export bundle (zip) into DIR")
    parser.add_argument("--report", default=None, metavar="FILE.html",
                        help="write one self-contained HTML report (tables, verdicts, figures; opens offline)")
    parser.add_argument("--resume", default=None, metavar="DIR",
                        help="run cell by cell, keeping each finished cell's summary in DIR; run again with the same "
                             "DIR to continue an interrupted run where it stopped")
    clikit.add_distributed_flags(parser)


def check_out_dir(path: str | None) -> Path | None:
    """Check ``--out`` before running: a writable folder, or a new one whose parent is a writable folder."""
    return outputs.check_folder(path, "--out")


def run(args: argparse.Namespace) -> int:
    """List, or validate, run, print (and write the bundle with ``--out``)."""
    from . import presets

    if args.list:
        for p in presets.every().values():
            print(p.line())
        return 0
    if args.preset is None:
        raise CliError("error: give --list, or --preset NAME with NAME one of " + ", ".join(presets.names()))
    out_dir = check_out_dir(args.out)
    outputs.check_file(args.report, "--report", (".html", ".htm"))
    options = clikit.distributed_options(args)
    try:
        preset = presets.get(args.preset)
        seeds = args.seeds if args.seeds is not None else (preset.full_seeds if args.full else preset.quick_seeds)
        T = args.T if args.T is not None else (preset.full_T if args.full else preset.quick_T)
        run_settings = presets.PresetRun(preset=args.preset, seeds=seeds, T=T, base_seed=args.base_seed,
                                         precision=args.precision).validate()
    except SettingsError as err:
        raise CliError(settings_error_line(err, FLAGS)) from None
    if args.resume is not None:
        check_device(args.device)
        from .resume import run_resumable

        try:
            with progress.line(f"preset {preset.name}") as tick:
                result = run_resumable(run_settings, args.resume, device=args.device, progress=tick)
        except SettingsError as err:
            raise CliError(settings_error_line(err, {"resume": "--resume"})) from None
        _report(args, preset, result, out_dir)
        return 0
    with clikit.joined(options) as role:
        check_device(args.device)
        with progress.line(f"preset {preset.name}") as tick:
            result = presets.run_preset(run_settings, device=args.device, shard=False if args.no_shard else None,
                                        progress=tick)
        if role.writer:
            _report(args, preset, result, out_dir)
    return 0


def _report(args: argparse.Namespace, preset: Any, result: Any, out_dir: Path | None) -> None:
    """Print the summary and the paper-vs-run table, and write the bundle with ``--out``."""
    from . import presets

    seeds, T = result.run.seeds, result.run.T
    paper = presets.summary_rows(result.summary())
    if out_dir is not None:
        from .export import preset_bundle

        outputs.make_folder(out_dir, "--out")
        target = outputs.write(out_dir / f"{preset.name}_T{T}_seeds{seeds}.zip", preset_bundle(result), "--out")
    if args.report is not None:
        from .device import default_precision
        from .report import preset_report

        outputs.write(args.report, preset_report(result, default_precision(args.device)).encode(), "--report")
    claims = presets.claim_table(result).drop(columns=["T", "seeds"]).to_dict(orient="records")
    lines = [f"{preset.paper}, {preset.artefact}: {preset.title}",
             f"{seeds} seeds × T = {T:,} on {result.device} in {result.precision}: {result.seconds:.2f} s"]
    if out_dir is not None:
        lines.append(f"bundle: {target}")
    if args.report is not None:
        lines.append(f"report: {args.report}")
    if args.json:
        extra = {"compute_seconds": result.compute_seconds} if hasattr(result, "compute_seconds") else {}
        emit(jsondoc.document("preset", T, seeds, result.device, result.precision, result.seconds,
                              jsondoc.rows_of(result.cell_summary(), drop=("seeds", "T")), preset=preset.name,
                              paper=paper, claims=claims, **extra), True)
    else:
        _print_table(lines, paper, one_seed=seeds == 1)
        print("paper vs this run:")
        for c in claims:
            print(f"  {c['claim']} {c['verdict']:<24} {c['ours']}" + (f"  ({c['why']})" if c["why"] else ""))


def _print_table(lines: list[str], rows: list[dict], one_seed: bool = False) -> None:
    """The summary rows as one aligned table (:func:`safebandit_core.clikit.table`), a row per setting, policy and
    metric, every number of a row in one unit (violation rates in percent, as the papers print them), with the
    paper's number and where ours lies against the paper's range; a run of ``one_seed`` shows no interval and says
    why."""
    from .presets import PaperNumber, format_value

    for line in lines:
        print(line)
    cells = []
    for r in rows:
        settings = ", ".join(f"{k}={v}" for k, v in r["settings"].items() if k not in ("T", "seeds"))
        metric = r["metric"]
        ci = ("—" if r["ci_low"] is None or one_seed else
              f"[{format_value(metric, r['ci_low'])}, {format_value(metric, r['ci_high'])}]")
        paper, ours = "—", ""
        if r["paper_value"] is not None:
            paper = str(r["paper_value"])
            ours = PaperNumber(r["policy"], metric, r["paper_value"], r["paper_low"], r["paper_high"],
                               "").position(r["value"])
        cells.append([settings, r["label"], metric, format_value(metric, r["value"]), ci, paper, ours])
    for line in clikit.table(cells, ["settings", "policy", "metric", "value", "95 % CI", "paper", "ours"],
                             align="lllrrll"):
        print(line)
    if one_seed:
        print(f"  {clikit.NO_SPREAD}")
