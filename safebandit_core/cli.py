"""The command line: ``python -m safebandit_core <command> ...``.

One router, one subcommand module per model family. Each subcommand module exposes
``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``. Bad input exits with
code 2 and one line naming the flag and its allowed range; never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd

from .settings import SettingsError

# command name -> module implementing it
COMMANDS: dict[str, str] = {
    "dose": "safebandit_core.dose.cli",
    "nonlinear": "safebandit_core.dose.nonlinear_cli",
    "mv": "safebandit_core.meanvar.cli",
    "conservative": "safebandit_core.conservative.cli",
    "battery": "safebandit_core.battery.cli",
    "data": "safebandit_core.logged.cli",
    "replay": "safebandit_core.replay_cli",
    "devices": "safebandit_core.devices_cli",
}


class CliError(Exception):
    """Bad command-line input: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit code 2."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


def flag_of(field: str) -> str:
    """The command-line flag for a settings field name (``delta_prime`` -> ``--delta-prime``)."""
    return "--" + field.replace("_", "-")


def settings_error_line(err: SettingsError, flags: dict[str, str] | None = None) -> str:
    """One line naming the flag and its allowed range for a settings error."""
    flag = (flags or {}).get(err.field, flag_of(err.field))
    shown = "" if err.value is None else f" (got {err.value!r})"
    return f"error: {flag} must be {err.allowed}{shown}"


def emit(summary: dict[str, Any] | list[dict[str, Any]], as_json: bool, text_lines: Sequence[str] = ()) -> None:
    """Print a summary: exactly one JSON document with ``--json``, readable lines otherwise."""
    if as_json:
        print(json.dumps(summary, default=_json_default))
        return
    for line in text_lines:
        print(line)
    rows = summary if isinstance(summary, list) else [summary]
    for row in rows:
        for k, v in row.items():
            if isinstance(v, dict):  # the settings object: JSON's business (--json), not a readable line
                continue
            if isinstance(v, list) and v and isinstance(v[0], dict):
                for i, sub in enumerate(v, 1):
                    print(f"  {k} {i}: " + ", ".join(f"{a}={b}" for a, b in sub.items() if not isinstance(b, dict)))
                continue
            print(f"  {k}: {v}")
        if len(rows) > 1:
            print()


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "item"):
        return obj.item()
    if hasattr(obj, "tolist"):
        return obj.tolist()
    return str(obj)


def check_out_path(path: str | None, allowed: tuple[str, ...] = (".csv", ".parquet")) -> Path | None:
    """Validate an ``--out`` path up front, so no run is lost to a bad file name."""
    if path is None:
        return None
    p = Path(path)
    if p.suffix.lower() not in allowed:
        raise CliError(f"error: --out must end in {' or '.join(allowed)} (got {path!r})")
    if not p.parent.exists():
        raise CliError(f"error: --out folder {str(p.parent)!r} does not exist")
    return p


def check_device(wanted: str | None) -> str:
    """Resolve ``--device`` up front (one line on failure, before any work); returns its label."""
    from . import device

    try:
        device.resolve(wanted)
    except ValueError as err:
        raise CliError(f"error: --{err}") from None
    return device.describe(wanted)


def run_rows(result: Any, seconds: float, fields: Sequence[str] = ()) -> list[dict[str, Any]]:
    """One JSON row per policy of a finished run, with the keys every model command shares.

    Shared keys: ``kind, policy, label, T, seeds`` and the settings ``fields`` named, the summary's
    columns (``cum_regret_mean``, ``cum_regret_std``, ``violation_rate`` with ``violation_rate_ci95``
    or ``min_slack`` where the family has them, ...), ``device, precision, seconds, settings``.
    """
    from . import families
    from .settings import to_dict

    s = result.settings
    rows = []
    for row in families.summary(result).to_dict("records"):
        out: dict[str, Any] = {"kind": row.pop("kind"), "policy": row.pop("policy"), "label": row.pop("label"),
                               "T": s.T, "seeds": s.seeds}
        out.update({f: getattr(s, f) for f in fields})
        if "violation_rate_lo" in row:
            out["violation_rate"] = row.pop("violation_rate")
            out["violation_rate_ci95"] = [row.pop("violation_rate_lo"), row.pop("violation_rate_hi")]
        out.update(row)
        out.update({"device": result.device, "precision": result.precision, "seconds": seconds,
                    "settings": to_dict(s)})
        rows.append(out)
    return rows


def grouped(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One row as it is; several as their shared keys plus ``policy: "all"`` and ``by_policy``."""
    if len(rows) == 1:
        return rows[0]
    shared = {k: v for k, v in rows[0].items() if all(r.get(k) == v for r in rows)}
    return {**shared, "policy": "all", "by_policy": [{k: v for k, v in r.items() if k not in shared} for r in rows]}


def write_frame(frame: pd.DataFrame, path: Path) -> None:
    """Write a tidy frame as CSV or Parquet by the file's suffix."""
    if path.suffix.lower() == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)


COMMAND_OF_KIND: dict[str, str] = {"dose": "dose", "nonlinear": "nonlinear", "conservative": "conservative",
                                   "mv": "mv", "battery": "battery", "logged": "data", "preset": "replay",
                                   "sweep": "sweep"}
"""The command that runs each settings kind (for the line a page shows)."""
POLICY_FLAGS = ("policies",)


def command_for(settings: Any) -> str | None:
    """The command line that re-runs ``settings`` (flags for every field that differs from the command's
    default), or None when no command takes this kind. Several policies become ``--policy all``."""
    import dataclasses

    from .settings import to_dict

    data = to_dict(settings)
    name = COMMAND_OF_KIND.get(data.get("kind", ""))
    if name is None or name not in COMMANDS:
        return None
    mod = importlib.import_module(COMMANDS[name])
    parser = _Parser(prog=name)
    mod.add_arguments(parser)
    actions = {a.dest: a for a in parser._actions if a.option_strings}
    parts = ["python", "-m", "safebandit_core", name]
    for field in (f.name for f in dataclasses.fields(settings)):
        value = data.get(field)
        if field in POLICY_FLAGS and "policy" in actions:
            parts += ["--policy", value[0] if len(value) == 1 else "all"]
            continue
        action = actions.get(field)
        if action is None or value is None or value == action.default or isinstance(value, (list, tuple)):
            continue
        parts += [action.option_strings[-1], str(value)]
    return " ".join(parts + ["--json"])


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every registered subcommand."""
    parser = _Parser(prog="python -m safebandit_core", description="Safe bandit simulations from the command line.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, modname in COMMANDS.items():
        mod = importlib.import_module(modname)
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_module=mod)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, validate and run one command; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return int(args._module.run(args) or 0)
    except CliError as err:
        print(str(err), file=sys.stderr)
        return 2
    except SettingsError as err:
        print(settings_error_line(err), file=sys.stderr)
        return 2
