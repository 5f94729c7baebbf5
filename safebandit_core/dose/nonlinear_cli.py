"""``python -m safebandit_core nonlinear``: non-linear HPC-UCB (seed 000, Algorithm 2) from the command line."""

from __future__ import annotations

import argparse
import dataclasses

from .. import cli
from .. import model as M
from ..settings import SettingsError
from .curves import KINDS
from .nonlinear.classes import KINDS as CLASS_KINDS
from .nonlinear.family import FAMILY
from .nonlinear.policy import NAMES
from .nonlinear.settings import MAX_SIZE, NonlinearSettings, warnings_for

HELP = "Non-linear dose model (seed 000, Algorithm 2): HPC-UCB over finite function classes."

_FLAGS = {"kappa_r": "--noise/--kappa-r", "kappa_c": "--noise/--kappa-c", "policy": "--policy",
          "function_class": "--class", "size": "--size", "g_power": "--g-power", "g_ec50": "--g-ec50",
          "g_hill": "--g-hill", "delta_prime": "--delta-prime", "base_seed": "--base-seed"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Flags of the ``nonlinear`` command."""
    d = NonlinearSettings()
    p.add_argument("--class", dest="function_class", default=d.function_class,
                   help=f"function class: {', '.join(CLASS_KINDS)} (default {d.function_class})")
    p.add_argument("--size", type=int, default=d.size, help=f"members per class |F|, in [1, {MAX_SIZE}]")
    p.add_argument("--hidden", type=int, default=d.hidden, help="hidden tanh units of the mlp class")
    p.add_argument("--policy", default="hpucb", help=f"one of {', '.join(NAMES)}, or 'all' (default hpucb)")
    p.add_argument("--d", type=int, default=d.d, help="context dimension d >= 1")
    p.add_argument("--T", type=int, default=d.T, help="rounds T >= 1")
    p.add_argument("--tau", type=float, default=d.tau, help="safety threshold tau > 0")
    p.add_argument("--delta", type=float, default=d.delta, help="violation probability delta in (0,1)")
    p.add_argument("--delta-prime", type=float, default=d.delta_prime, help="estimation confidence in (0,1)")
    p.add_argument("--noise", type=float, default=d.kappa_c, help="noise std of reward and cost (>= 0)")
    p.add_argument("--kappa-r", type=float, default=None, help="reward noise std, overrides --noise")
    p.add_argument("--kappa-c", type=float, default=None, help="cost noise std, overrides --noise")
    p.add_argument("--eps", type=float, default=d.eps, help="epsilon of eps-Greedy in [0,1]")
    p.add_argument("--seeds", type=int, default=d.seeds, help="number of seeds >= 1")
    p.add_argument("--base-seed", type=int, default=d.base_seed, help="first seed (it also draws the classes)")
    p.add_argument("--g", default=d.g, help=f"dose curve: {', '.join(KINDS)}")
    p.add_argument("--g-power", type=float, default=d.g_power, help="exponent p of the power curve, in [0.1, 10]")
    p.add_argument("--g-ec50", type=float, default=d.g_ec50, help="EC50 of the emax curve, in (0, 10]")
    p.add_argument("--g-hill", type=float, default=d.g_hill, help="Hill coefficient of the emax curve, in [0.1, 10]")
    p.add_argument("--device", default=None, help="cpu, gpu or an id like gpu:1 (default: GPU when present)")
    p.add_argument("--precision", default="auto", help="float64, float32 or auto (float64 on CPU, float32 on GPU)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object")
    p.add_argument("--out", default=None, help="write the tidy per-round frame to FILE.csv or FILE.parquet")


def settings_from_args(args: argparse.Namespace) -> NonlinearSettings:
    """Build and validate settings from parsed flags."""
    if args.policy != "all" and args.policy not in NAMES:
        raise cli.CliError(f"error: --policy must be one of {', '.join(NAMES)}, all (got {args.policy!r})")
    policies = NAMES if args.policy == "all" else (args.policy,)
    kr = args.noise if args.kappa_r is None else args.kappa_r
    kc = args.noise if args.kappa_c is None else args.kappa_c
    s = NonlinearSettings(policies=tuple(policies), function_class=args.function_class, size=args.size, d=args.d,
                          T=args.T, tau=args.tau, delta=args.delta, delta_prime=args.delta_prime, kappa_r=kr,
                          kappa_c=kc, g=args.g, g_power=args.g_power, g_ec50=args.g_ec50, g_hill=args.g_hill,
                          eps=args.eps, seeds=args.seeds, base_seed=args.base_seed, precision=args.precision,
                          hidden=args.hidden)
    try:
        return s.validate()
    except SettingsError as err:
        if err.field in ("kappa_r", "kappa_c") and args.kappa_r is None and args.kappa_c is None:
            err = SettingsError("noise", err.allowed, err.value)
        raise cli.CliError(cli.settings_error_line(err, _FLAGS)) from None


def run_command(args: argparse.Namespace) -> int:
    """Validate, run, print the summary and optionally write the per-round frame."""
    s = settings_from_args(args)
    out_path = cli.check_out_path(args.out)
    used = cli.check_device(args.device)
    try:
        result = M.run(FAMILY, s, args.device)
    except SettingsError as err:  # the memory check before the run
        raise cli.CliError(cli.settings_error_line(err, _FLAGS)) from None
    rows = []
    for row in M.summary(result).to_dict("records"):
        rows.append({
            "policy": row["policy"], "class": s.function_class, "size": s.size, "d": s.d, "T": s.T,
            "seeds": s.seeds, "tau": s.tau, "delta": s.delta, "delta_prime": s.delta_prime, "kappa_r": s.kappa_r,
            "kappa_c": s.kappa_c, "g": s.g, "violation_rate": row["violation_rate"],
            "violation_rate_ci95": [row["violation_rate_lo"], row["violation_rate_hi"]],
            "cum_regret_mean": row["cum_regret_mean"], "cum_regret_std": row["cum_regret_std"],
            "min_slack": row["min_slack"], "set_r_final": row["set_r_final"], "set_c_final": row["set_c_final"],
            "true_excluded_rate": row["true_excluded_rate"], "device": used, "precision": result.precision,
            "seconds": result.seconds, "settings": dataclasses.asdict(s),
        })
    if out_path is not None:
        cli.write_frame(M.tidy(result), out_path)
    lines = [f"non-linear dose model ({s.function_class}, |F| = {s.size}), {s.T} rounds x {s.seeds} seeds on {used} "
             f"({result.precision}), {result.seconds:.2f} s"]
    lines += [f"warning: {w}" for w in warnings_for(s)]
    if len(rows) == 1:
        out = rows[0]
    else:
        shared = {k: v for k, v in rows[0].items() if all(r[k] == v for r in rows)}
        out = {**shared, "policy": "all", "by_policy": [{k: v for k, v in r.items() if k not in shared} for r in rows]}
    cli.emit(out, args.json, lines)
    return 0


run = run_command
