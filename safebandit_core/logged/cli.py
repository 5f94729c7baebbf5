"""``python -m safebandit_core logged``: fit a logged table of contexts, doses, benefits and side effects, then replay
HPC-UCB, On-Expectation and ε-Greedy on the fitted model (Safety by Design §7, for any log).

Prints ONE summary (the schema of :mod:`safebandit_core.jsondoc`): the fit report under ``fit``, the fit's
``rows_used``, ``rows_dropped``, ``d``, ``r2_reward``, ``r2_cost``, ``kappa_r`` and ``kappa_c`` beside it,
and each policy's figures (violation rate with its 95 % interval, regret) under ``rows``. Every bad input
(a file, a column, a value, a flag) exits 2 with one line.
"""

from __future__ import annotations

import argparse
import os
import time

from .. import clikit, jsondoc
from .. import model as M
from ..data.replay import ORDERS
from ..data.ridge import SPLITS
from ..dose.curves import KINDS
from ..dose.policies import NAMES
from ..progress import run_model
from ..settings import SettingsError
from . import family
from .fit import CONTEXTS
from .loader import MISSING
from .settings import LoggedSettings

HELP = "Your own logged data: fit reward and side-effect models to a CSV/Parquet log, replay HPC-UCB and baselines."

_FLAGS = {"data": "--file", "path": "--file", "data_hash": "--file", "context": "--context",
          "categorical": "--categorical", "dose": "--dose", "reward": "--reward", "cost": "--cost", "group": "--group",
          "time": "--time", "missing": "--missing", "contexts": "--contexts", "hash_dim": "--hash-dim",
          "g": "--curve", "g_power": "--g-power", "g_ec50": "--g-ec50", "g_hill": "--g-hill", "fit_lam": "--fit-lam",
          "split": "--split", "min_g": "--min-g", "order": "--order", "order_seed": "--order-seed", "T": "--T",
          "seeds": "--seeds", "policies": "--policy", "base_seed": "--base-seed", "precision": "--precision",
          "tau": "--tau", "delta": "--delta", "delta_prime": "--delta-prime", "lam": "--lam", "eps": "--eps"}
FIT_FIELDS = ("rows_used", "rows_dropped", "d", "r2_reward", "r2_cost", "heldout_r2_reward", "heldout_r2_cost",
              "kappa_r", "kappa_c")
JSON_FIELDS = ("tau", "delta", "delta_prime", "g")
"""The settings fields ``--json`` repeats at its top level."""
EXAMPLE_COLUMNS = "; default: the built-in synthetic dose log's"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Flags of the ``logged`` command."""
    d = LoggedSettings()
    p.add_argument("--file", default=None, metavar="F", help="a CSV (plain or .gz) or Parquet log, at most 64 MB; "
                                                             "default: the built-in synthetic dose log")
    p.add_argument("--context", default=None, metavar="COL[,COL...]", help="context columns" + EXAMPLE_COLUMNS)
    p.add_argument("--categorical", default="", metavar="COL[,COL...]", help="context columns to one-hot encode")
    p.add_argument("--dose", default=None, metavar="COL", help="the dose column, in [0, 1]" + EXAMPLE_COLUMNS)
    p.add_argument("--reward", default=None, metavar="COL", help="the benefit column" + EXAMPLE_COLUMNS)
    p.add_argument("--cost", default=None, metavar="COL", help="the side-effect column" + EXAMPLE_COLUMNS)
    p.add_argument("--group", default=None, metavar="COL", help="a group column (the held-out half keeps groups whole)")
    p.add_argument("--time", default=None, metavar="COL", help="a time column (the replay follows its order)")
    p.add_argument("--scale-dose", action="store_true", help="map the doses onto [0, 1] by min-max")
    p.add_argument("--missing", default=d.missing, help=f"rows with missing values: {' or '.join(MISSING)}")
    p.add_argument("--contexts", default=d.contexts, help=f"context transform: {', '.join(CONTEXTS)}")
    p.add_argument("--hash-dim", type=int, default=d.hash_dim, help="dimension of hashed contexts")
    p.add_argument("--no-intercept", action="store_true", help="no constant context column")
    p.add_argument("--curve", default=d.g, help=f"dose curve g: {', '.join(KINDS)}")
    p.add_argument("--g-power", type=float, default=d.g_power, help="exponent p of the power curve, in [0.1, 10]")
    p.add_argument("--g-ec50", type=float, default=d.g_ec50, help="EC50 of the emax curve, in (0, 10]")
    p.add_argument("--g-hill", type=float, default=d.g_hill, help="Hill coefficient of the emax curve, in [0.1, 10]")
    p.add_argument("--fit-lam", type=float, default=None, help="ridge of the fit (default: chosen on a held-out half)")
    p.add_argument("--split", default=d.split, help=f"{' or '.join(SPLITS)}")
    p.add_argument("--min-g", type=float, default=d.min_g, help="rows with g(dose) below this stay out of the fit")
    p.add_argument("--order", default=d.order, help=f"replay order: {' or '.join(ORDERS)}")
    p.add_argument("--order-seed", type=int, default=d.order_seed, help="seed of the resampled order")
    p.add_argument("--tau", type=float, default=d.tau, help="side-effect limit tau > 0")
    p.add_argument("--delta", type=float, default=d.delta, help="violation probability delta in (0,1)")
    p.add_argument("--delta-prime", type=float, default=d.delta_prime, help="estimation confidence in (0,1)")
    p.add_argument("--lam", type=float, default=d.lam, help="the learner's ridge lambda > 0")
    p.add_argument("--eps", type=float, default=d.eps, help="epsilon of eps-Greedy in [0,1]")
    p.add_argument("--T", type=int, default=d.T, help="rounds >= 1 (past the log's end the replay starts again)")
    p.add_argument("--seeds", type=int, default=d.seeds, help="noise seeds >= 1")
    p.add_argument("--base-seed", type=int, default=d.base_seed, help="first seed")
    p.add_argument("--policy", default="all", help=f"one of {', '.join(NAMES)}, or 'all' (default)")
    p.add_argument("--device", default=None, help="cpu, gpu or an id like gpu:1 (default: GPU when present)")
    p.add_argument("--precision", default="auto", help="float64, float32 or auto (float64 on CPU, float32 on GPU)")
    p.add_argument("--json", action="store_true", help=jsondoc.help_for((*JSON_FIELDS, "settings", *FIT_FIELDS, "fit")))
    p.add_argument("--out", default=None, help="write the tidy per-round frame to FILE.csv or FILE.parquet")


def _columns(text: str | None) -> tuple[str, ...]:
    return tuple(c.strip() for c in (text or "").split(",") if c.strip())


def settings_of(args: argparse.Namespace) -> LoggedSettings:
    """The replay settings the flags ask for (validated; one line naming the flag otherwise)."""
    if args.policy != "all" and args.policy not in NAMES:
        raise clikit.CliError(f"error: --policy must be one of {', '.join(NAMES)}, all (got {args.policy!r})")
    d = LoggedSettings()
    if args.file is not None:
        missing = [f"--{n}" for n in ("context", "dose", "reward", "cost") if getattr(args, n) is None]
        if missing:
            raise clikit.CliError(f"error: {', '.join(missing)} must be given with --file "
                                  "(which columns play which role)")
    try:
        return LoggedSettings(
            source="example" if args.file is None else "path", path=args.file,
            file=None if args.file is None else os.path.basename(args.file),
            context=_columns(args.context) if args.context is not None else d.context,
            categorical=_columns(args.categorical), dose=args.dose or d.dose, reward=args.reward or d.reward,
            cost=args.cost or d.cost, group=args.group or None, time=args.time or None, scale_dose=args.scale_dose,
            missing=args.missing, contexts=args.contexts, hash_dim=args.hash_dim, intercept=not args.no_intercept,
            g=args.curve, g_power=args.g_power, g_ec50=args.g_ec50, g_hill=args.g_hill, fit_lam=args.fit_lam,
            split=args.split, min_g=args.min_g, order=args.order, order_seed=args.order_seed, T=args.T,
            seeds=args.seeds, policies=NAMES if args.policy == "all" else (args.policy,), base_seed=args.base_seed,
            precision=args.precision, tau=args.tau, delta=args.delta, delta_prime=args.delta_prime, lam=args.lam,
            eps=args.eps).validate()
    except SettingsError as err:
        raise clikit.CliError(clikit.settings_error_line(err, _FLAGS)) from None


def run_command(args: argparse.Namespace) -> int:
    """Check the flags, read and fit the data, replay, print the fit report and the per-policy summary."""
    settings = settings_of(args)
    out_path = clikit.check_out_path(args.out)
    clikit.check_device(args.device)
    try:
        run = family.prepare(settings)
        run.family.check_fits(run.settings, args.device)
    except SettingsError as err:
        raise clikit.CliError(clikit.settings_error_line(err, _FLAGS)) from None
    start = time.perf_counter()
    result = run_model(run.family, run.settings, args.device)
    seconds = time.perf_counter() - start
    report = run.report()
    doc = clikit.run_document(result, seconds, JSON_FIELDS,
                           **{k: report[k] for k in FIT_FIELDS}, fit=report)
    if out_path is not None:
        clikit.write_frame(M.tidy(result), out_path)
    lines = [f"replay of {run.raw.name}: {report['rows_used']:,} rows used ({report['rows_dropped']:,} dropped), "
             f"d = {report['d']}, {run.settings.T:,} rounds x {run.settings.seeds} seeds on {result.device} "
             f"({result.precision}), {seconds:.2f} s",
             f"fit: R² benefit {report['r2_reward']:.3f}, side effect {report['r2_cost']:.3f} (held-out "
             f"{report['heldout_r2_reward']:.3f}, {report['heldout_r2_cost']:.3f}); kappa_r {report['kappa_r']:.4g}, "
             f"kappa_c {report['kappa_c']:.4g}, S {report['S']:.4g}, L {report['L']:.4g}"]
    lines += [f"note: {n}" for n in report["notes"]]
    lines += [f"warning: {w}" for w in run.family.warnings(run.settings)]
    clikit.emit(doc, args.json, lines)
    return 0


run = run_command
