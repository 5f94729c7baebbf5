"""``python -m safebandit_core conservative``: GenCB and its baselines (One-size-fits-all) on CMAB, CLB or CCCB.

Bad input exits with code 2 and one line naming the flag and its allowed range.
"""

from __future__ import annotations

import argparse

from .. import clikit, jsondoc
from .. import model as M
from ..clikit import CliError, check_device, check_out_path, emit, settings_error_line, write_frame
from ..progress import run_model
from ..settings import SettingsError
from .family import FAMILY
from .instances import describe_instance, make_instance
from .settings import FEATURES, POLICIES, PROBLEMS, ConservativeSettings

HELP = ("Conservative bandits (One-size-fits-all, AAAI 2021): GenCB, its expected-reward baselines or the "
        "unconstrained policy.")

FLAGS = {"policies": "--policy", "base_seed": "--base-seed"}
JSON_FIELDS = ("problem", "K", "alpha", "base_seed")
"""The settings fields ``--json`` repeats at its top level."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommand's flags (defaults: One-size-fits-all's CMAB preset, K = 72, α = 0.05, μ_0 = 0.7; CLB and
    CCCB take the paper's K = 2d)."""
    fits = "; ".join(f"{p}: {', '.join(POLICIES[p])}" for p in PROBLEMS)
    parser.add_argument("--problem", choices=PROBLEMS, default="cmab", help="which conservative bandit problem")
    parser.add_argument("--policy", default="gencb",
                        help=f"policy that fits the problem ({fits}), or all (GenCB, its baseline, the unconstrained)")
    parser.add_argument("--K", type=int, default=None,
                        help="number of (base) arms, >= 2 (CCCB: <= 62); default: 72 for CMAB, 2·d for CLB and CCCB "
                             "(the paper's K = 2d)")
    parser.add_argument("--d", type=int, default=5, help="feature dimension for CLB and CCCB, >= 1")
    parser.add_argument("--m", type=int, default=2, help="super arm size for CCCB, in [1, K]")
    parser.add_argument("--alpha", type=float, default=0.05, help="tolerance α in (0, 1)")
    parser.add_argument("--mu0", type=float, default=None,
                        help="default arm's reward μ_0 in (0, 1) (CCCB: (0, m)); default: derived from the instance")
    parser.add_argument("--T", type=int, default=10_000, help="rounds, >= 1")
    parser.add_argument("--seeds", type=int, default=5, help="independent runs, >= 1")
    parser.add_argument("--base-seed", type=int, default=0, help="seed i runs on PRNGKey(base_seed + i)")
    parser.add_argument("--lam", type=float, default=1.0, help="ridge λ >= max(1, L²)")
    parser.add_argument("--S", type=float, default=None, help="bound on ‖θ*‖ (default √K for CMAB, else 1)")
    parser.add_argument("--L", type=float, default=1.0, help="bound on ‖x‖")
    parser.add_argument("--precision", choices=("float64", "float32"), default=None,
                        help="default: float64 on the CPU, float32 on a GPU")
    parser.add_argument("--device", default=None, help="cpu, gpu or gpu:N (default: a GPU when present)")
    parser.add_argument("--json", action="store_true", help=jsondoc.help_for(
        (*JSON_FIELDS, "settings", "d", "m", "mu0", "mu0_derived", "best_mean", "out"), "out only with --out"))
    parser.add_argument("--out", default=None, help="write the per-round tidy frame to FILE.csv or FILE.parquet")


def default_K(args: argparse.Namespace) -> int:
    """``--K`` as given, else 72 arms for CMAB and the paper's K = 2d for CLB and CCCB (so that every problem runs
    on its defaults; CCCB's bit mask allows at most 62 arms)."""
    if args.K is not None:
        return args.K
    return 2 * args.d if FEATURES[args.problem] and isinstance(args.d, int) and args.d >= 1 else 72


def run(args: argparse.Namespace) -> int:
    """Validate, run, print the summary (and write the tidy frame with ``--out``)."""
    out_path = check_out_path(args.out)
    settings = ConservativeSettings(
        problem=args.problem, policies=() if args.policy == "all" else (args.policy,), K=default_K(args), d=args.d,
        m=args.m,
        alpha=args.alpha,
        mu0=args.mu0, T=args.T, seeds=args.seeds, base_seed=args.base_seed, lam=args.lam, S=args.S, L=args.L,
        precision=args.precision)
    try:
        settings.validate()
    except SettingsError as err:
        raise CliError(settings_error_line(err, FLAGS)) from None
    check_device(args.device)
    try:
        result = run_model(FAMILY, settings, device=args.device)
    except SettingsError as err:
        raise CliError(settings_error_line(err, FLAGS)) from None
    inst = make_instance(settings)
    report = clikit.run_document(result, round(result.seconds, 3), JSON_FIELDS,
                              d=settings.dim, m=settings.size, mu0=inst.mu0, mu0_derived=not inst.mu0_given,
                              best_mean=inst.best)
    if out_path is not None:
        write_frame(M.tidy(result), out_path)
        report["out"] = str(out_path)
    emit(report, args.json, text_lines=[describe_instance(settings)])
    return 0
