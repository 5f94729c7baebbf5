"""``python -m safebandit_core nonlinear``: non-linear HPC-UCB (Safety by Design, Algorithm 2) from the command line."""

from __future__ import annotations

import argparse

from .. import clikit
from .. import model as M
from ..progress import run_model
from ..settings import SettingsError
from . import cli as dose_cli
from .nonlinear.classes import KINDS as CLASS_KINDS
from .nonlinear.family import FAMILY
from .nonlinear.settings import MAX_SIZE, NonlinearSettings, warnings_for

HELP = "Non-linear dose model (Safety by Design, Algorithm 2): HPC-UCB over finite function classes."

_FLAGS = {"kappa_r": "--noise/--kappa-r", "kappa_c": "--noise/--kappa-c", "policy": "--policy",
          "function_class": "--class", "size": "--size", "g_power": "--g-power", "g_ec50": "--g-ec50",
          "g_hill": "--g-hill", "delta_prime": "--delta-prime", "base_seed": "--base-seed"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Flags of the ``nonlinear`` command: the class, then the flags every dose-type command shares."""
    d = NonlinearSettings()
    p.add_argument("--class", dest="function_class", default=d.function_class,
                   help=f"function class: {', '.join(CLASS_KINDS)} (default {d.function_class})")
    p.add_argument("--size", type=int, default=d.size, help=f"members per class |F|, in [1, {MAX_SIZE}]")
    p.add_argument("--hidden", type=int, default=d.hidden, help="hidden tanh units of the mlp class")
    dose_cli.add_rule_arguments(p, d, "first seed (it also draws the classes)", ("class", "size"))


def settings_from_args(args: argparse.Namespace) -> NonlinearSettings:
    """Build and validate settings from parsed flags."""
    s = NonlinearSettings(**dose_cli.rule_values(args), function_class=args.function_class, size=args.size,
                          hidden=args.hidden)
    return dose_cli.validated(s, args, _FLAGS)


def run_command(args: argparse.Namespace) -> int:
    """Validate, run, print the summary and optionally write the per-round frame."""
    s = settings_from_args(args)
    out_path = clikit.check_out_path(args.out)
    used = clikit.check_device(args.device)
    try:
        result = run_model(FAMILY, s, args.device)
    except SettingsError as err:  # the memory check before the run
        raise clikit.CliError(clikit.settings_error_line(err, _FLAGS)) from None
    doc = clikit.run_document(result, result.seconds, ("size", *dose_cli.JSON_FIELDS), **{"class": s.function_class})
    doc["device"] = used
    if out_path is not None:
        clikit.write_frame(M.tidy(result), out_path)
    lines = [f"non-linear dose model ({s.function_class}, |F| = {s.size}), {s.T} rounds x {s.seeds} seeds on {used} "
             f"({result.precision}), {result.seconds:.2f} s"]
    lines += [f"warning: {w}" for w in warnings_for(s)]
    clikit.emit(doc, args.json, lines)
    return 0


run = run_command
