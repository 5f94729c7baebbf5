"""The command line: ``python -m safebandit_core <command> ...``.

One router over the registry: each family's command (its ``command`` and ``cli`` module), each tool's
(:data:`safebandit_core.families.TOOLS`), then :data:`OTHER_COMMANDS`. Each subcommand module exposes
``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``, built from the shared helpers of
:mod:`safebandit_core.clikit`: this router imports the command modules, never the reverse. Bad input exits with
code 2 and one line naming the flag and its allowed range; never a traceback. Every command's ``--help`` shows each
flag's default (:class:`~safebandit_core.clikit.DefaultsFormatter`).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from . import outputs
from .clikit import CliError, DefaultsFormatter, settings_error_line
from .settings import SettingsError

OTHER_COMMANDS: dict[str, str] = {"devices": "safebandit_core.devices_cli",
                                  "dosefinding": "safebandit_core.dosefinding.cli"}
"""Commands that run no settings kind (command name -> module)."""


def commands() -> dict[str, str]:
    """Every command's name -> the module implementing it: the registry's families, its tools, then the others."""
    from . import families

    entries = [*families.FAMILIES.values(), *families.TOOLS.values()]
    return {**{e.command: e.cli for e in entries if e.command}, **OTHER_COMMANDS}


def command_aliases() -> dict[str, tuple[str, ...]]:
    """Each command's older names (a registry entry's ``command_aliases``), still accepted so that scripts and
    saved bundles written before a rename keep running; ``--help`` lists them in brackets after the name."""
    from . import families

    entries = [*families.FAMILIES.values(), *families.TOOLS.values()]
    return {e.command: tuple(e.command_aliases) for e in entries if e.command and e.command_aliases}


_NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$|^-(inf|infinity|nan)$", re.IGNORECASE)
"""What reads as a negative number, not a flag: ``-3``, ``-0.5``, ``-1e-3``, ``-inf`` (argparse alone knows the
first two, so ``--tau -1e-3`` and ``--tau -inf`` said "expected one argument" instead of the allowed range)."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit code 2; a negative number in any notation is a flag's value."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_NUMBER

    def error(self, message: str) -> NoReturn:
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


POLICY_FLAGS = ("policies",)


def command_for(settings: Any, settings_file: str = "settings.json") -> str | None:
    """The command line that re-runs ``settings`` (flags for every field that differs from the command's
    default), or None when no command takes this kind. Several policies become ``--policy all``; a field
    reaches its flag by name or through the command module's ``FLAGS`` (or ``_FLAGS``) map; a tool's command that
    takes the file (:attr:`safebandit_core.families.Tool.by_file`) reads ``settings_file`` instead."""
    import dataclasses
    import shlex

    from .families import TOOLS, command_of
    from .settings import to_dict

    data = to_dict(settings)
    kind = data.get("kind", "")
    name = command_of(kind)
    known = commands()
    if name not in known:
        return None
    parts = ["python", "-m", "safebandit_core", name]
    if kind in TOOLS and TOOLS[kind].by_file:
        return shlex.join([*parts, "--settings", settings_file, "--json"])
    mod = importlib.import_module(known[name])
    parser = _Parser(prog=name)
    mod.add_arguments(parser)
    actions = {a.dest: a for a in parser._actions if a.option_strings}
    by_flag = {o: a for a in parser._actions for o in a.option_strings}
    renamed = getattr(mod, "FLAGS", None) or getattr(mod, "_FLAGS", {})
    fields = [f.name for f in dataclasses.fields(settings)]
    chosen: dict[str, tuple[argparse.Action, Any]] = {}
    for field in fields:  # by name first, then through the module's map, each flag once
        value = data.get(field)
        if field in POLICY_FLAGS and "policy" in actions:
            chosen["--policy"] = (actions["policy"], value[0] if len(value) == 1 else "all")
        elif field in actions:
            chosen.setdefault(actions[field].option_strings[-1], (actions[field], value))
        elif value is False and f"no_{field}" in actions:
            chosen.setdefault(actions[f"no_{field}"].option_strings[-1], (actions[f"no_{field}"], True))
    for field in fields:
        flag = renamed.get(field, "").split("/")[-1]
        if field not in actions and flag in by_flag and flag not in chosen:
            chosen[flag] = (by_flag[flag], data.get(field))
    order = [a.option_strings[-1] for a in parser._actions if a.option_strings]
    for flag in sorted(chosen, key=lambda f: order.index(by_flag[f].option_strings[-1])):
        action, value = chosen[flag]
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
            value = ",".join(value)
        if value is None or value == action.default or isinstance(value, (list, tuple)):
            continue
        if isinstance(action, argparse._StoreTrueAction):
            parts += [flag] if value is True else []
            continue
        parts += [flag, str(value)]
    return shlex.join(parts + ["--json"])


PROG = "python -m safebandit_core"


def build_parser(prog: str = PROG, extra: Sequence[Any] = ()) -> argparse.ArgumentParser:
    """The full parser with every registered subcommand, then the front end's ``extra`` command modules.

    A command module has ``NAME`` (only the extra ones), ``HELP``, ``add_arguments(parser)`` and ``run(args)``.
    """
    parser = _Parser(prog=prog, description="Safe bandit simulations from the command line.")
    named = [(name, importlib.import_module(modname)) for name, modname in commands().items()]
    every = [*named, *((m.NAME, m) for m in extra)]
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                metavar="{" + ",".join(name for name, _ in every) + "}")
    aliases = command_aliases()
    for name, mod in every:
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP, aliases=aliases.get(name, ()),
                           formatter_class=DefaultsFormatter)
        mod.add_arguments(p)
        p.set_defaults(_module=mod)
    return parser


def main(argv: Sequence[str] | None = None, prog: str = PROG, extra: Sequence[Any] = ()) -> int:
    """Parse, validate and run one command; returns the exit code."""
    args = build_parser(prog, extra).parse_args(argv)
    try:
        return int(args._module.run(args) or 0)
    except CliError as err:
        print(str(err), file=sys.stderr)
        return 2
    except outputs.OutputError as err:
        print(str(err), file=sys.stderr)
        return err.code
    except SettingsError as err:
        print(settings_error_line(err), file=sys.stderr)
        return 2
