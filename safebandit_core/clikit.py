"""What every command module shares: one-line errors, printing, output files, the device check and the
flags that run a command as several processes.

A leaf of the command line: it imports neither the registry (:mod:`safebandit_core.families`) nor the router
(:mod:`safebandit_core.cli`), so the router imports the command modules and never the reverse.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import shlex
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from . import distributed, jsondoc, outputs
from .settings import SettingsError, echo
from .uploads import UploadError


class CliError(Exception):
    """Bad command-line input: printed as one line, exit code 2."""


def command_line(command: str, flags: Mapping[str, Any]) -> str:
    """``python -m safebandit_core <command>`` with ``flags`` (None left out, True a bare flag, floats as ``%g``)."""
    parts = ["python", "-m", "safebandit_core", command]
    for flag, value in flags.items():
        if value is None or value is False:
            continue
        text = format(value, "g") if isinstance(value, float) else str(value)
        parts.append(flag if value is True else f"{flag} {shlex.quote(text)}")
    return " ".join(parts)


def flag_of(field: str) -> str:
    """The command-line flag for a settings field name (``delta_prime`` -> ``--delta-prime``)."""
    return "--" + field.replace("_", "-")


def settings_error_line(err: SettingsError, flags: dict[str, str] | None = None) -> str:
    """One line naming the flag and its allowed range for a settings error."""
    flag = (flags or {}).get(err.field, flag_of(err.field))
    if isinstance(err, UploadError):  # one sentence naming the file and what is wrong with it
        return f"error: {flag}: {err}"
    shown = "" if err.value is None else f" (got {echo(err.value)})"
    return f"error: {flag} must be {err.allowed}{shown}"


class DefaultsFormatter(argparse.HelpFormatter):
    """``--help`` with every flag's default: " (default: X)" appended to a help that does not state one already
    ("off" for a switch, "not given" for a flag whose absence means something its help explains)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if not action.option_strings or action.default is argparse.SUPPRESS or _STATES_DEFAULT.search(text):
            return text
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            shown = "on" if action.default else "off"
        elif action.default is None:
            shown = "not given"
        else:
            shown = "%(default)s"
        return f"{text} (default: {shown})"


_STATES_DEFAULT = re.compile(r"\(default\b|\bdefault:|%\(default\)")

SIGNIFICANT = 4
"""Significant digits of a number in a readable table (JSON prints every digit)."""
NO_SPREAD = "one seed: no spread (a standard deviation and a 95 % interval need at least 2 seeds)"
"""What the readable summary says instead of a spread measured on one seed (its JSON has null there)."""
_PERCENT_ENDS = ("_rate", "_share")


def is_percent(key: str) -> bool:
    """Whether a summary figure is a share of rounds or runs, shown in percent (``violation_rate``, ...)."""
    base = key.removesuffix("_ci95").removesuffix("_mean").removesuffix("_std")
    return base.endswith(_PERCENT_ENDS)


def number_text(value: float, digits: int = SIGNIFICANT, trim: bool = False) -> str:
    """A float with ``digits`` significant digits, in fixed point with thousands separators from 10⁻⁴ up to 10⁹
    (``29,755``, ``1.605``, ``0.01230``), in scientific notation outside; ``trim`` drops trailing zeros (a setting
    given as 0.1 reads 0.1, not 0.1000)."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(float(f"{value:.{digits - 1}e}"))))  # of the rounded value: 9.9996 -> 10.00
    if -4 <= magnitude < 9:
        text = f"{value:,.{max(0, digits - 1 - magnitude)}f}"
        if trim and "." in text:
            text = text.rstrip("0").rstrip(".")
        return text if float(text.replace(",", "")) != 0 else "0"
    return f"{value:.{digits - 1}e}"


def cell_text(key: str, value: Any, trim: bool = False) -> str:
    """One value of a summary row as a table shows it: shares in percent with one decimal, other floats with
    :data:`SIGNIFICANT` digits (trailing zeros dropped with ``trim``), whole numbers with separators, a ``_ci95``
    pair as ``[low, high]``, yes/no, "—" for null."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(cell_text(key.removesuffix("_ci95"), v) for v in value) + "]"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{100 * value:.1f} %" if is_percent(key) else number_text(value, trim=trim)
    return str(value)


def table(rows: Sequence[Sequence[str]], header: Sequence[str], indent: str = "  ", left: int = 1,
          align: str = "") -> list[str]:
    """An aligned text table: the header, a rule, then the rows; the first ``left`` columns (names) left-aligned,
    the others (numbers) right-aligned, two spaces between columns; ``align`` ("l" or "r" per column) sets each
    column's side instead."""
    sides = align or "l" * left + "r" * (len(header) - left)
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [str(c).ljust(w) if side == "l" else str(c).rjust(w)
                 for c, w, side in zip(cells, widths, sides, strict=True)]
        return (indent + "  ".join(parts)).rstrip()

    return [line(header), indent + "  ".join("-" * w for w in widths), *(line(r) for r in rows)]


def summary_lines(summary: Mapping[str, Any]) -> list[str]:
    """The readable form of a ``--json`` object: one table row per policy (per cell) of ``rows`` (spreads left out,
    with :data:`NO_SPREAD`, when the run has one seed), then the command's own figures as a two-column table."""
    rows = [r for r in summary.get("rows", []) if isinstance(r, dict)]
    one_seed = summary.get("seeds") == 1
    keys: list[str] = []
    for r in rows:
        keys += [k for k, v in r.items() if k not in keys and k not in ("policy", "label") and not isinstance(v, dict)
                 and not (one_seed and jsondoc.is_spread(k))]
    out = []
    if rows:
        out += table([[r.get("label", r.get("policy", "")), *(cell_text(k, r.get(k)) for k in keys)] for r in rows],
                     ["policy", *keys])
    if rows and one_seed:
        out.append(f"  {NO_SPREAD}")
    own = [(k, v) for k, v in summary.items() if k not in ("kind", "rows") and not isinstance(v, (dict, list))]
    if own:
        out += [""] + table([[k, cell_text(k, v, trim=True)] for k, v in own], ["", ""], left=2)[2:]
    return out


def emit(summary: dict[str, Any], as_json: bool, text_lines: Sequence[str] = ()) -> None:
    """Print a summary: exactly one JSON document with ``--json`` (:mod:`safebandit_core.jsondoc`), otherwise the
    ``text_lines`` and :func:`summary_lines` (one aligned table, sensible digits)."""
    if as_json:
        print(json.dumps(summary, default=_json_default))
        return
    for line in (*text_lines, *summary_lines(summary)):
        print(line)


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "item"):
        return obj.item()
    if hasattr(obj, "tolist"):
        return obj.tolist()
    return str(obj)


def check_out_path(path: str | None, allowed: tuple[str, ...] = (".csv", ".parquet")) -> Path | None:
    """Check an ``--out`` file before running (see :func:`safebandit_core.outputs.check_file`)."""
    return outputs.check_file(path, "--out", allowed)


def check_device(wanted: str | None) -> str:
    """Resolve ``--device`` up front (one line on failure, before any work); returns its label."""
    from . import device

    try:
        device.resolve(wanted)
    except ValueError as err:
        raise CliError(f"error: --{err}") from None
    return device.describe(wanted)


def run_document(result: Any, seconds: float, fields: Sequence[str] = (), **extra: Any) -> dict[str, Any]:
    """The ``--json`` object of a finished model run (the schema of :mod:`safebandit_core.jsondoc`).

    Top level: ``kind, T, seeds``, the settings ``fields`` named, ``device, precision, seconds``, ``rows``
    (one per policy: ``policy, label, cum_regret_mean, cum_regret_std, cum_regret_ci95``, then the family's
    summary columns: ``violation_rate`` with ``violation_rate_ci95``, ``min_slack``, ...), ``settings`` and
    ``extra``.
    """
    from .model import summary
    from .settings import to_dict

    s = result.settings
    rows = jsondoc.rows_of(summary(result), drop=("kind", "rounds", "cell"))
    return jsondoc.document(result.kind, s.T, s.seeds, result.device, result.precision, seconds, rows,
                            **{f: getattr(s, f) for f in fields}, settings=to_dict(s), **extra)


def write_frame(frame: pd.DataFrame, path: Path) -> None:
    """Write a tidy frame as CSV or Parquet by the file's suffix, atomically (:func:`safebandit_core.outputs.write`)."""
    if path.suffix.lower() == ".parquet":
        outputs.write(path, lambda fh: frame.to_parquet(fh, index=False), "--out")
    else:
        outputs.write(path, lambda fh: frame.to_csv(fh, index=False), "--out")



def add_distributed_flags(parser: argparse.ArgumentParser) -> None:
    """The flags that run one command as several processes on JAX's multi-controller runtime.

    Without any of them the run is local, as always. Every process runs the same command line;
    only ``--process-id`` differs (or, with ``--distributed auto``, nothing: JAX reads SLURM's or
    Open MPI's environment).
    """
    g = parser.add_argument_group("several processes or machines")
    g.add_argument("--coordinator", default=None, metavar="HOST:PORT",
                   help="address of process 0 (it listens there; the others connect)")
    g.add_argument("--num-processes", type=int, default=None, metavar="N", help="how many processes run the command")
    g.add_argument("--process-id", type=int, default=None, metavar="I", help="this process's index, 0 to N-1")
    g.add_argument("--distributed", choices=("auto",), default=None,
                   help="auto: read the processes from the cluster's environment (SLURM, Open MPI, ...)")
    g.add_argument("--connect-timeout", type=int, default=None, metavar="S",
                   help=f"seconds to wait for every process to join (default {distributed.DEFAULT_CONNECT_TIMEOUT})")
    g.add_argument("--heartbeat-timeout", type=int, default=None, metavar="S",
                   help="seconds of silence after which a process counts as dead and the others stop "
                        f"(default {distributed.DEFAULT_HEARTBEAT_TIMEOUT})")


_TRIO = ("--coordinator", "--num-processes", "--process-id")


def distributed_options(args: argparse.Namespace) -> distributed.Options | None:
    """Check the flags of :func:`add_distributed_flags` (one line naming the flag otherwise); None: a local run."""
    given = dict(zip(_TRIO, (args.coordinator, args.num_processes, args.process_id), strict=True))
    auto = args.distributed == "auto"
    if not auto and not any(v is not None for v in given.values()):
        for flag, value in (("--connect-timeout", args.connect_timeout), ("--heartbeat-timeout",
                                                                          args.heartbeat_timeout)):
            if value is not None:
                raise CliError(f"error: {flag} needs --coordinator, --num-processes and --process-id "
                               "(or --distributed auto)")
        return None
    if not auto:
        for flag, value in given.items():
            if value is None:
                raise CliError(f"error: {flag} is needed with " + " and ".join(f for f in _TRIO if f != flag)
                               + " (or give --distributed auto)")
    if args.coordinator is not None:
        try:
            distributed.split_address(args.coordinator)
        except ValueError:
            raise CliError("error: --coordinator must be HOST:PORT with a port 1-65535 "
                           f"(got {args.coordinator!r})") from None
    if args.num_processes is not None and args.num_processes < 1:
        raise CliError(f"error: --num-processes must be at least 1 (got {args.num_processes})")
    if args.process_id is not None and (args.process_id < 0 or (args.num_processes is not None
                                                                and args.process_id >= args.num_processes)):
        top = "at least 0" if args.num_processes is None else f"from 0 to {args.num_processes - 1}"
        raise CliError(f"error: --process-id must be {top} (got {args.process_id})")
    for flag, value in (("--connect-timeout", args.connect_timeout), ("--heartbeat-timeout", args.heartbeat_timeout)):
        if value is not None and value < 1:
            raise CliError(f"error: {flag} must be a whole number of seconds >= 1 (got {value})")
    if getattr(args, "no_shard", False):
        raise CliError("error: --no-shard cannot be combined with several processes (each runs its share of the "
                       "cells)")
    return distributed.Options(
        coordinator=args.coordinator, num_processes=args.num_processes, process_id=args.process_id, auto=auto,
        connect_timeout=args.connect_timeout or distributed.DEFAULT_CONNECT_TIMEOUT,
        heartbeat_timeout=args.heartbeat_timeout or distributed.DEFAULT_HEARTBEAT_TIMEOUT)


@contextlib.contextmanager
def joined(options: distributed.Options | None) -> Iterator[distributed.Role]:
    """Join the processes ``options`` name (nothing when None) for the body of a command.

    In a multi-process run, an error in the body ends this process at once with its one line
    (exit code 2 for bad input, 1 otherwise), without waiting for the others at JAX's shutdown
    barrier: they then stop within the heartbeat timeout instead of hanging. On success every
    process waits for the others (process 0 writes its files first), and the others print one line
    on stderr. If that last wait fails on process 0, every file is already written: it prints
    "results complete; process N left during shutdown" and exits 0.
    """
    try:
        role = distributed.start(options)
    except distributed.JoinError as err:
        raise CliError(str(err)) from None
    if not role.multi:
        yield role
        return
    where = f"process {role.process} of {role.processes}"
    print(f"{where}: joined, {distributed.device_count()} devices in all", file=sys.stderr, flush=True)
    try:
        yield role
    except BaseException as err:  # every way out of a multi-process body ends the process
        _end(*_failure(err, where))
    try:
        distributed.barrier("safebandit-done")
    except Exception as err:  # process 0 has written everything: a peer leaving now loses nothing
        _end(*((0, distributed.left_during_shutdown(err, role)) if role.writer else _failure(err, where)))
    except BaseException as err:
        _end(*_failure(err, where))
    if not role.writer:
        print(f"{where}: done; process 0 prints the results and writes the files", file=sys.stderr, flush=True)


def _end(code: int, line: str) -> None:
    """End this process of a multi-process run now with ``code`` and ``line`` on stderr, skipping JAX's shutdown
    barrier (which would wait for, or fail on, a peer that is gone)."""
    if line:
        print(line, file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _failure(err: BaseException, where: str) -> tuple[int, str]:
    """The exit code and one line for an error that ends a process of a multi-process run."""
    if isinstance(err, CliError):
        return 2, str(err)
    if isinstance(err, outputs.OutputError):
        return err.code, str(err)
    if isinstance(err, SettingsError):
        return 2, settings_error_line(err)
    if isinstance(err, SystemExit):
        return (err.code if isinstance(err.code, int) else 1), ""
    if isinstance(err, KeyboardInterrupt):
        return 130, f"error: {where}: interrupted"
    first = str(err).strip().splitlines()[0] if str(err).strip() else ""
    return 1, f"error: {where}: {type(err).__name__}: {first}"
