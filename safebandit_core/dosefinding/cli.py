"""``python -m safebandit_core dosefinding``: operating characteristics of 3+3, BOIN and CRM from the command line.

The scenario is a shipped standard one (``--scenario NAME``), a truth vector (``--truth``, ``--target``) or the
heteroscedastic dose model's settings
(``--from-dose`` with ``--K --tau --kappa-c --d --delta`` and the curve; the target is then δ). With
``--json`` one object of the shared schema (:mod:`safebandit_core.jsondoc`: one row per design, ``T`` = N,
``seeds`` = trials); with one ``--design`` its figures are also at the top level.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from typing import Any

from .. import clikit, jsondoc
from ..dose import curves
from ..dose.settings import MAX_D, DoseSettings
from ..settings import SettingsError, check_int_range, check_nonnegative, check_open_unit, check_positive
from . import oc, scenarios
from .api import ESTIMATES, MAX_COHORT, MAX_COHORTS, MAX_TRIALS, DoseFindingResult, simulate
from .designs import DESIGNS, LABELS

HELP = "Phase-I dose finding: 3+3, BOIN and CRM over many simulated trials (operating characteristics)."

DEFAULT_SCENARIO = next(iter(scenarios.STANDARD.values()))
DEFAULT_TRUTH = ",".join(f"{v:g}" for v in DEFAULT_SCENARIO.truth)
DEFAULT_TARGET = DEFAULT_SCENARIO.target
DEFAULT_K = 5
FLAGS = {"designs": "--design", "boin_stop_at": "--boin-stop-at"}
"""Fields whose flag is not their name with dashes."""
OWN_KEYS = ("design", "designs", "scenario", "truth", "target", "cohort", "cohorts", "N", "seed", "true_mtd",
            "skeleton", "lambda_e", "lambda_d", "escalate", "deescalate", "eliminate", "dose_model", *oc.FIGURES)
_DOSE = DoseSettings()


def _float(allowed: str) -> Callable[[str], float]:
    """An argparse type: a number, else one line naming the allowed range (the range is checked with the other
    inputs)."""
    def parse(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number {allowed} (got {text!r})") from None
    parse.__name__ = "number"
    return parse


def _integer(text: str) -> int:
    """An argparse type: a whole number (its range is checked with the other inputs)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number (got {text!r})") from None


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Flags of the ``dosefinding`` command."""
    p.add_argument("--design", default="all", choices=(*DESIGNS, "all"), help="which design to run (default all)")
    p.add_argument("--scenario", default=None, choices=tuple(scenarios.STANDARD),
                   help="a shipped standard scenario, its chances per dose and its target (each name says which "
                        "dose is the true MTD, of how many) (default: not given)")
    p.add_argument("--truth", default=None,
                   help=f"true DLT probability of each dose, comma-separated, strictly increasing in [0, 1] "
                        f"(default {DEFAULT_TRUTH})")
    p.add_argument("--target", type=_float("in (0, 1)"), default=None, help=f"target DLT rate phi in (0, 1) (default "
                                                               f"{DEFAULT_TARGET}; delta with --from-dose)")
    p.add_argument("--cohort", type=_integer, default=3, help=f"patients per cohort c in [1, {MAX_COHORT}] "
                                                              "(default 3)")
    p.add_argument("--cohorts", type=_integer, default=10, help=f"cohorts M in [1, {MAX_COHORTS}] (default 10; "
                                                                "3+3 ignores it)")
    p.add_argument("--trials", type=_integer, default=10_000, help=f"simulated trials R in [1, {MAX_TRIALS:,}] "
                                                                   "(default 10000)")
    p.add_argument("--seed", type=_integer, default=0, help="seed of the patients' tolerances (default 0)")
    g = p.add_argument_group("BOIN and CRM options")
    g.add_argument("--boin-stop-at", type=_integer, default=None,
                   help="BOIN's early stop: end the trial when the current dose has this many patients and the next "
                        "step would stay (default off)")
    g.add_argument("--skeleton", default=None,
                   help="CRM skeleton, comma-separated, strictly increasing in (0, 1), one per dose (default dfcrm "
                        "getprior with --crm-halfwidth and --crm-prior-mtd)")
    g.add_argument("--crm-halfwidth", type=_float("in (0, min(phi, 1 - phi))"), default=None,
                   help="getprior's halfwidth delta (default 0.05, or half the distance of phi to 0 or 1 when "
                        "that is smaller)")
    g.add_argument("--crm-prior-mtd", type=_integer, default=None,
                   help="getprior's prior MTD nu, 1-based (default ceil(K/2))")
    g.add_argument("--crm-start", type=_integer, default=1, help="CRM start dose, 1-based (default 1)")
    g.add_argument("--crm-overdose-stop", action="store_true",
                   help="stop with no MTD when P(p_1 > phi | data) > 0.9 (default off)")
    g.add_argument("--crm-estimate", default="plugin", choices=ESTIMATES,
                   help="plugin: s_j^exp(a-hat) as dfcrm; mean: posterior mean of p_j (default plugin)")
    d = p.add_argument_group("truth from the dose model (the target is then delta)")
    d.add_argument("--from-dose", action="store_true",
                   help="derive the truth of K doses j/K from the dose model's settings below (default off)")
    d.add_argument("--K", type=_integer, default=None,
                   help=f"number of doses in [1, {scenarios.MAX_DOSES}] (default {DEFAULT_K})")
    d.add_argument("--tau", type=_float("> 0"), default=None,
                   help=f"safety threshold tau > 0 (default {_DOSE.tau})")
    d.add_argument("--kappa-c", type=_float(">= 0"), default=None,
                   help=f"cost noise std kappa_c >= 0 (default {_DOSE.kappa_c})")
    d.add_argument("--d", type=_integer, default=None, help=f"context dimension d in [1, {MAX_D}] "
                                                               f"(default {_DOSE.d})")
    d.add_argument("--delta", type=_float("in (0, 1)"), default=None,
                   help=f"violation probability delta in (0, 1), the target (default {_DOSE.delta})")
    d.add_argument("--g", default=None, help=f"dose curve: {', '.join(curves.KINDS)} (default {_DOSE.g})")
    d.add_argument("--g-power", type=_float("in [0.1, 10]"), default=None,
                   help=f"exponent of the power curve (default {_DOSE.g_power})")
    d.add_argument("--g-ec50", type=_float("in (0, 10]"), default=None,
                   help=f"EC50 of the emax curve (default {_DOSE.g_ec50})")
    d.add_argument("--g-hill", type=_float("in [0.1, 10]"), default=None,
                   help=f"Hill coefficient of the emax curve (default {_DOSE.g_hill})")
    p.add_argument("--json", action="store_true",
                   help=jsondoc.help_for(OWN_KEYS, "with one --design its figures are also at the top level"))


def _probabilities(flag: str, text: str, allowed: str) -> list[float]:
    """A comma-separated list of numbers, or one line naming the flag."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise clikit.CliError(f"error: {flag} must be comma-separated numbers {allowed} (got {text!r})") from None
    if not all(math.isfinite(v) for v in values):
        raise clikit.CliError(f"error: {flag} must be comma-separated numbers {allowed} (got {text!r})")
    return values


DOSE_FLAGS = {"K": DEFAULT_K, "tau": _DOSE.tau, "kappa_c": _DOSE.kappa_c, "d": _DOSE.d, "delta": _DOSE.delta,
              "g": _DOSE.g, "g_power": _DOSE.g_power, "g_ec50": _DOSE.g_ec50, "g_hill": _DOSE.g_hill}
"""The flags of the dose model (``--from-dose``) and their defaults."""


def _dose_truth(args: argparse.Namespace) -> tuple[list[float], dict[str, Any]]:
    """The truth derived from the dose model's flags, and those settings (for the JSON)."""
    for field, default in DOSE_FLAGS.items():
        if getattr(args, field) is None:
            setattr(args, field, default)
    check_int_range("K", args.K, 1, scenarios.MAX_DOSES)
    check_positive("tau", args.tau)
    check_nonnegative("kappa_c", args.kappa_c)
    check_int_range("d", args.d, 1, MAX_D)
    check_open_unit("delta", args.delta)
    curves.validate(args.g, args.g_power, args.g_ec50, args.g_hill)
    model = {"K": args.K, "tau": args.tau, "kappa_c": args.kappa_c, "d": args.d, "delta": args.delta, "g": args.g,
             "g_power": args.g_power, "g_ec50": args.g_ec50, "g_hill": args.g_hill}
    p = scenarios.truth_from_dose_model(args.K, args.tau, args.kappa_c, args.d, args.g, args.g_power, args.g_ec50,
                                        args.g_hill)
    if any(b <= a for a, b in zip(p[:-1], p[1:], strict=True)):
        shown = ", ".join(f"{v:.4g}" for v in p)
        raise clikit.CliError(f"error: --from-dose gives DLT probabilities that are not strictly increasing "
                              f"({shown}); choose --tau, --kappa-c and --d so that they rise with the dose")
    return [float(v) for v in p], model


def _inputs(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The keyword arguments of :func:`.api.simulate` from the flags, and the dose model's settings (or None)."""
    model = None
    if args.scenario is not None:
        for flag, value in (("--truth", args.truth), ("--target", args.target), ("--from-dose", args.from_dose)):
            if value:
                raise clikit.CliError(f"error: {flag} cannot be combined with --scenario (the scenario gives the "
                                      "truth and the target)")
    if args.from_dose:
        for flag, value in (("--truth", args.truth), ("--target", args.target)):
            if value is not None:
                raise clikit.CliError(f"error: {flag} cannot be combined with --from-dose (the truth comes from the "
                                      "dose model and the target is --delta)")
        truth, model = _dose_truth(args)
        target = args.delta
    else:
        given = [clikit.flag_of(f) for f in DOSE_FLAGS if getattr(args, f) is not None]
        if given:
            raise clikit.CliError(f"error: {given[0]} describes the dose model: it needs --from-dose (or give the "
                                  "truth with --truth)")
        chosen = scenarios.STANDARD.get(args.scenario or "", DEFAULT_SCENARIO)
        truth = (list(chosen.truth) if args.scenario else
                 _probabilities("--truth", args.truth or DEFAULT_TRUTH, "in [0, 1]"))
        target = chosen.target if args.scenario or args.target is None else args.target
    skeleton = None if args.skeleton is None else _probabilities("--skeleton", args.skeleton, "in (0, 1)")
    kwargs = {"truth": truth, "target": target, "cohort": args.cohort, "cohorts": args.cohorts,
              "trials": args.trials, "seed": args.seed, "designs": DESIGNS if args.design == "all" else (args.design,),
              "skeleton": skeleton, "crm_halfwidth": args.crm_halfwidth, "crm_prior_mtd": args.crm_prior_mtd,
              "crm_start": args.crm_start, "crm_overdose_stop": args.crm_overdose_stop,
              "crm_estimate": args.crm_estimate, "boin_stop_at": args.boin_stop_at}
    return kwargs, model


def rerun_command(truth: Sequence[float], target: float, cohort: int, cohorts: int, trials: int, seed: int) -> str:
    """The command line that runs the same trials of the three designs (every flag given, so that a default of the
    command that differs from the page's changes nothing)."""
    return clikit.command_line("dosefinding", {
        "--truth": ",".join(f"{float(v):g}" for v in truth), "--target": float(target), "--cohort": int(cohort),
        "--cohorts": int(cohorts), "--trials": int(trials), "--seed": int(seed), "--json": True})


def document(res: DoseFindingResult, design: str, model: dict[str, Any] | None,
             scenario: str | None = None) -> dict[str, Any]:
    """The ``--json`` object: the shared envelope, one row per design, the scenario and the designs' own numbers."""
    rows = [{"policy": name, "label": LABELS[name], **res.characteristics[name]} for name in res.designs]
    extra: dict[str, Any] = {"design": design, "designs": list(res.designs), "truth": res.truth.tolist(),
                             "target": res.target, "cohort": res.cohort, "cohorts": res.cohorts, "N": res.N,
                             "seed": res.seed, "true_mtd": res.true_mtd}
    if model is not None:
        extra["dose_model"] = model
    if scenario is not None:
        extra["scenario"] = scenario
    if "crm" in res.designs:
        extra["skeleton"] = res.skeleton.tolist()
    if "boin" in res.designs:
        b = res.boin
        extra.update(lambda_e=b.lambda_e, lambda_d=b.lambda_d, escalate=b.escalate[1:].tolist(),
                     deescalate=b.deescalate[1:].tolist(),
                     eliminate=[int(x) if ok else None for x, ok in zip(b.eliminate[1:], b.defined[1:], strict=True)])
    doc = jsondoc.document("dosefinding", res.N, res.trials, res.device, "float64", res.seconds, rows, **extra)
    if len(res.designs) == 1:  # as its row says them (one trial: no intervals)
        doc.update({k: doc["rows"][0][k] for k in oc.FIGURES})
    return doc


def table(res: DoseFindingResult) -> list[str]:
    """The readable output: per design the selection %, mean patients and DLTs by dose, then a summary line each."""
    K = res.truth.size
    head = f"{'':<16}" + "".join(f"{'dose ' + str(j):>8}" for j in range(1, K + 1)) + f"{'none':>8}"
    true = "none" if res.true_mtd == 0 else f"dose {res.true_mtd}"
    lines = [f"dose finding: {K} doses, target {res.target:g}, {res.cohorts} cohorts of {res.cohort}, "
             f"{res.trials} trials (seed {res.seed}); true MTD {true}; {res.seconds:.2f} s on {res.device}",
             head, f"{'true p':<16}" + "".join(f"{v:>8.3f}" for v in res.truth)]
    for name in res.designs:
        c = res.characteristics[name]
        lines.append(f"{LABELS[name] + ' select %':<16}" + "".join(f"{v:>8.1f}" for v in c["select_pct"])
                     + f"{c['none_pct']:>8.1f}")
        lines.append(f"{'  patients':<16}" + "".join(f"{v:>8.2f}" for v in c["patients"]))
        lines.append(f"{'  DLTs':<16}" + "".join(f"{v:>8.2f}" for v in c["dlts"]))
    lines.append(f"{'design':<8}{'PCS %':>8}{'above MTD %':>13}{'patients':>10}{'DLTs':>8}{'DLT rate':>10}")
    for name in res.designs:
        c = res.characteristics[name]
        lines.append(f"{LABELS[name]:<8}{c['pcs']:>8.1f}{c['pct_patients_above_mtd']:>13.1f}"
                     f"{c['total_patients']:>10.2f}{c['total_dlts']:>8.2f}{c['dlt_rate']:>10.3f}")
    return lines


def run(args: argparse.Namespace) -> int:
    """Check the flags, run the trials, print the table or the JSON object."""
    try:
        kwargs, model = _inputs(args)
        res = simulate(**kwargs)
    except SettingsError as err:
        raise clikit.CliError(clikit.settings_error_line(err, FLAGS)) from None
    if args.json:
        clikit.emit(document(res, args.design, model, args.scenario), True)
    else:
        for line in table(res):
            print(line)
    return 0
