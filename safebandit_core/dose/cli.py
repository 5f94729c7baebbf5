"""``python -m safebandit_core dose``: run the dose model from the command line."""

from __future__ import annotations

import argparse
import time
from typing import Any

from .. import clikit, jsondoc
from .. import model as M
from ..progress import run_model
from ..settings import SettingsError
from .curves import KINDS
from .family import FAMILY
from .policies import NAMES
from .settings import MAX_D, MAX_SEEDS, MAX_T, DoseSettings, warnings_for

HELP = "Heteroscedastic dose model (Safety by Design): HPC-UCB, On-Expectation, eps-Greedy."

_FLAGS = {"kappa_r": "--noise/--kappa-r", "kappa_c": "--noise/--kappa-c", "policy": "--policy",
          "g_power": "--g-power", "g_ec50": "--g-ec50", "g_hill": "--g-hill", "delta_prime": "--delta-prime",
          "base_seed": "--base-seed", "lam": "--lam"}


JSON_FIELDS = ("d", "tau", "delta", "delta_prime", "kappa_r", "kappa_c", "g")
"""The settings fields every dose-type command's ``--json`` repeats at its top level."""


def add_rule_arguments(p: argparse.ArgumentParser, d: Any, base_seed_help: str = "first seed",
                       json_keys: tuple[str, ...] = ()) -> None:
    """The flags every dose-type command shares (policy, size, the safety rule, noise, ε, seeds, curve, device,
    output), with ``d``'s values as defaults; the ``dose`` and ``nonlinear`` commands add their own (and name
    their own ``--json`` keys, ``json_keys``, beside :data:`JSON_FIELDS`)."""
    p.add_argument("--policy", default="hpucb", help=f"one of {', '.join(NAMES)}, or 'all' (default hpucb)")
    p.add_argument("--d", type=int, default=d.d, help=f"context dimension d in [1, {MAX_D}]")
    p.add_argument("--T", type=int, default=d.T, help=f"rounds T in [1, {MAX_T:,}]")
    p.add_argument("--tau", type=float, default=d.tau, help="safety threshold tau > 0")
    p.add_argument("--delta", type=float, default=d.delta, help="violation probability delta in (0,1)")
    p.add_argument("--delta-prime", type=float, default=d.delta_prime, help="estimation confidence in (0,1)")
    p.add_argument("--noise", type=float, default=d.kappa_c, help="noise std of reward and cost (>= 0)")
    p.add_argument("--kappa-r", type=float, default=None, help="reward noise std, overrides --noise")
    p.add_argument("--kappa-c", type=float, default=None, help="cost noise std, overrides --noise")
    p.add_argument("--eps", type=float, default=d.eps, help="epsilon of eps-Greedy in [0,1]")
    p.add_argument("--seeds", type=int, default=d.seeds, help=f"number of seeds in [1, {MAX_SEEDS:,}]")
    p.add_argument("--base-seed", type=int, default=d.base_seed, help=base_seed_help)
    p.add_argument("--g", default=d.g, help=f"dose curve: {', '.join(KINDS)}")
    p.add_argument("--g-power", type=float, default=d.g_power, help="exponent p of the power curve, in [0.1, 10]")
    p.add_argument("--g-ec50", type=float, default=d.g_ec50, help="EC50 of the emax curve, in (0, 10]")
    p.add_argument("--g-hill", type=float, default=d.g_hill, help="Hill coefficient of the emax curve, in [0.1, 10]")
    p.add_argument("--device", default=None, help="cpu, gpu or an id like gpu:1 (default: GPU when present)")
    p.add_argument("--precision", default="auto", help="float64, float32 or auto (float64 on CPU, float32 on GPU)")
    p.add_argument("--json", action="store_true", help=jsondoc.help_for((*json_keys, *JSON_FIELDS, "settings")))
    p.add_argument("--out", default=None, help="write the tidy per-round frame to FILE.csv or FILE.parquet")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Flags of the ``dose`` command."""
    add_rule_arguments(p, DoseSettings())
    p.add_argument("--lam", type=float, default=DoseSettings().lam, help="ridge lambda > 0")


def rule_values(args: argparse.Namespace) -> dict[str, Any]:
    """The settings fields the shared flags of :func:`add_rule_arguments` give (``--noise`` fills both κ)."""
    if args.policy != "all" and args.policy not in NAMES:
        raise clikit.CliError(f"error: --policy must be one of {', '.join(NAMES)}, all (got {args.policy!r})")
    return {"policies": tuple(NAMES if args.policy == "all" else (args.policy,)), "d": args.d, "T": args.T,
            "tau": args.tau, "delta": args.delta, "delta_prime": args.delta_prime,
            "kappa_r": args.noise if args.kappa_r is None else args.kappa_r,
            "kappa_c": args.noise if args.kappa_c is None else args.kappa_c, "eps": args.eps, "seeds": args.seeds,
            "base_seed": args.base_seed, "g": args.g, "g_power": args.g_power, "g_ec50": args.g_ec50,
            "g_hill": args.g_hill, "precision": args.precision}


def validated(s: Any, args: argparse.Namespace, flags: dict[str, str]) -> Any:
    """``s`` validated, or a :class:`clikit.CliError` naming the flag (``--noise`` when neither κ flag was given)."""
    try:
        return s.validate()
    except SettingsError as err:
        if err.field in ("kappa_r", "kappa_c") and args.kappa_r is None and args.kappa_c is None:
            err = SettingsError("noise", err.allowed, err.value)
        raise clikit.CliError(clikit.settings_error_line(err, flags)) from None


def settings_from_args(args: argparse.Namespace) -> DoseSettings:
    """Build and validate settings from parsed flags."""
    return validated(DoseSettings(**rule_values(args), lam=args.lam), args, _FLAGS)


def run_command(args: argparse.Namespace) -> int:
    """Validate, run, print the summary and optionally write the per-round frame."""
    s = settings_from_args(args)
    out_path = clikit.check_out_path(args.out)
    clikit.check_device(args.device)
    try:
        FAMILY.check_fits(s, args.device)
    except SettingsError as err:
        raise clikit.CliError(clikit.settings_error_line(err, _FLAGS)) from None
    start = time.perf_counter()
    result = run_model(FAMILY, s, args.device)
    seconds = time.perf_counter() - start
    doc = clikit.run_document(result, seconds, JSON_FIELDS)
    if out_path is not None:
        clikit.write_frame(M.tidy(result), out_path)
    lines = [f"dose model, {s.T} rounds x {s.seeds} seeds on {result.device} ({result.precision}), {seconds:.2f} s"]
    lines += [f"warning: {w}" for w in warnings_for(s)]
    clikit.emit(doc, args.json, lines)
    return 0


run = run_command
