"""``python -m safebandit_core meanvar``: MV-CUCB or MV-UCB on One-size-fits-all's Bernoulli arms (MV-CBP).

Prints a summary (one JSON object with ``--json``) and optionally writes the tidy per-round
frame to ``--out`` (CSV or Parquet). When ``ρ ≤ 2/(α μ_0)`` the text output says plainly that
the mean-variance constraint is not guaranteed.
"""

from __future__ import annotations

import argparse
import time

from .. import clikit, jsondoc
from .. import device as _device
from .. import model as M
from ..clikit import CliError, check_device, check_out_path, emit, settings_error_line, write_frame
from ..progress import run_model
from ..settings import SettingsError
from .family import FAMILY
from .policies import NAMES
from .settings import MVSettings, assumption_ok, assumption_text

HELP = "Conservative mean-variance bandits (One-size-fits-all, AAAI 2021, §4): MV-CUCB vs MV-UCB on Bernoulli arms."

FLAGS = {"policies": "--policy", "K": "--K", "alpha": "--alpha", "mu0": "--mu0", "rho": "--rho", "T": "--T",
         "seeds": "--seeds", "base_seed": "--base-seed", "precision": "--precision"}

JSON_FIELDS = ("K", "alpha", "mu0", "rho", "base_seed")
"""The settings fields ``--json`` repeats at its top level."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``meanvar`` flags; defaults are :class:`MVSettings`' defaults."""
    d = MVSettings()
    parser.add_argument("--policy", choices=(*NAMES, "all"), default=NAMES[0],
                        help="policy to run, or all (default %(default)s)")
    parser.add_argument("--K", type=int, default=d.K, help="number of regular arms, 1..1000 (default %(default)s)")
    parser.add_argument("--alpha", type=float, default=d.alpha, help="tolerance α in (0, 1) (default %(default)s)")
    parser.add_argument("--mu0", type=float, default=d.mu0,
                        help="default arm's reward μ₀ in (0, 1] (default %(default)s)")
    parser.add_argument("--rho", type=float, default=d.rho, help="weight ρ > 0 in MV = ρμ − σ² (default %(default)s)")
    parser.add_argument("--T", type=int, default=d.T, help="rounds per run (default %(default)s)")
    parser.add_argument("--seeds", type=int, default=d.seeds, help="independent runs (default %(default)s)")
    parser.add_argument("--base-seed", type=int, default=d.base_seed, help="seed of run 0 (default %(default)s)")
    parser.add_argument("--device", choices=("cpu", "gpu"), default=None, help="device (default: GPU when present)")
    parser.add_argument("--precision", choices=_device.PRECISIONS, default=None,
                        help="float precision (default: float64 on the CPU, float32 on a GPU)")
    parser.add_argument("--json", action="store_true", help=jsondoc.help_for(
        (*JSON_FIELDS, "settings", "assumption_ok", "assumption", "out"), "out only with --out"))
    parser.add_argument("--out", default=None, help="write the per-round tidy frame to FILE.csv or FILE.parquet")


def run(args: argparse.Namespace) -> int:
    """Validate the flags, run the simulation, print the summary; 2 on bad input."""
    policies = NAMES if args.policy == "all" else (args.policy,)
    settings = MVSettings(policies=tuple(policies), K=args.K, alpha=args.alpha, mu0=args.mu0, rho=args.rho,
                          T=args.T, seeds=args.seeds, base_seed=args.base_seed, precision=args.precision)
    try:
        settings.validate()
    except SettingsError as err:
        raise CliError(settings_error_line(err, FLAGS)) from None
    out_path = check_out_path(args.out)
    device_label = check_device(args.device)

    start = time.perf_counter()
    result_run = run_model(FAMILY, settings, device=args.device)
    seconds = time.perf_counter() - start

    ok = assumption_ok(settings.alpha, settings.mu0, settings.rho)
    result = clikit.run_document(result_run, round(seconds, 4), JSON_FIELDS,
                              assumption_ok=ok,
                              assumption=assumption_text(settings.alpha, settings.mu0, settings.rho))
    result["device"] = device_label
    for row in result["rows"]:
        row["constraint_held"] = bool(row["min_slack"] >= 0.0)
    if out_path is not None:
        write_frame(M.tidy(result_run), out_path)
        result["out"] = str(out_path)

    lines = [f"{', '.join(policies)}: K={settings.K}, α={settings.alpha:g}, μ₀={settings.mu0:g}, ρ={settings.rho:g}, "
             f"T={settings.T}, {settings.seeds} seeds"]
    lines += ["WARNING: " + w for w in FAMILY.warnings(settings)]
    emit(result, args.json, lines)
    return 0
