"""``python -m safebandit_core battery``: the NASA Li-ion replay of Safety by Design §7 from the command line.

Prints ONE summary object (the schema of :mod:`safebandit_core.jsondoc`): the replay's shared figures
(fit, sizes, first safe dose, ...) at the top level and every policy's figures under ``rows``. With the flags of
:func:`safebandit_core.clikit.add_distributed_flags` the seeds are split between several processes or
machines (:mod:`safebandit_core.distributed`); only process 0 prints.
"""

from __future__ import annotations

import argparse
import os

from .. import clikit, distributed, jsondoc
from .. import model as M
from ..data.embed import HASH_EMBEDDER, SENTENCE_EMBEDDER, EmbedderUnavailable
from ..dose.policies import NAMES
from ..progress import run_model
from ..settings import SettingsError
from . import family
from .loader import BatteryDataError
from .settings import DEFAULT_DIM, DEFAULT_FIT_LAM, OPEN_TAUS, POLICIES, BatteryReplaySettings

HELP = ("NASA Li-ion battery replay (Safety by Design, sec. 7): fit half a NASA file, replay HPC-UCB, eps-Greedy, "
        "On-Expectation.")

_FLAGS = {"dim": "--dim", "T": "--T", "tau": "--tau", "seeds": "--seeds", "fit_lam": "--fit-lam", "lam": "--lam",
          "delta": "--delta", "delta_prime": "--delta-prime", "eps": "--eps", "base_seed": "--base-seed",
          "precision": "--precision", "policies": "--policy", "file": "--data", "path": "--data"}

SHOWN_IF_CHANGED = ("fit_lam", "delta", "delta_prime", "lam", "eps", "base_seed")
"""Settings a rerun's command line names only when they differ from the page's defaults."""


def rerun_command(s: BatteryReplaySettings, tau: float) -> str:
    """The command line that reruns one τ of a battery replay (the page runs its τ values as one grid: the same
    numbers)."""
    default, name = BatteryReplaySettings(dim=s.dim, base_seed=0), s.embedder.partition(":")[2]
    flags: dict[str, object] = {"--data": s.file if s.source != "embedded" else None, "--tau": tau, "--T": s.T,
                                "--dim": s.dim, "--seeds": s.seeds}
    flags.update({_FLAGS[f]: getattr(s, f) for f in SHOWN_IF_CHANGED if getattr(s, f) != getattr(default, f)})
    flags.update({"--policy": s.policies[0] if len(s.policies) == 1 else None, "--model": name or None,
                  "--embedder": "sentence" if name else None, "--precision": s.precision, "--json": True})
    return clikit.command_line("battery", flags)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Flags of the ``battery`` command."""
    p.add_argument("--data", default=None, metavar="FILE.mat",
                   help="a NASA randomized-usage .mat file (e.g. RW9.mat); default: the embedded RW26 table")
    p.add_argument("--tau", type=float, default=OPEN_TAUS[0],
                   help=f"cost limit tau > 0 (default {OPEN_TAUS[0]:g}, as the page; the paper: 0.1, 0.2 on RW9-RW12, "
                        "which on the embedded RW26 leave a round-1 safe dose below 0.02)")
    p.add_argument("--T", type=int, default=None,
                   help="rounds >= 1 (default: every replay round; more goes through them again)")
    p.add_argument("--dim", type=int, default=DEFAULT_DIM, help="hash-embedding size d >= 1")
    p.add_argument("--embedder", default=HASH_EMBEDDER, help="hash, or sentence (with --model)")
    p.add_argument("--model", default=None, help="a local sentence-transformers model (directory or cached name)")
    p.add_argument("--fit-lam", type=float, default=DEFAULT_FIT_LAM,
                   help="ridge of the ground-truth fit > 0 (sets the norm bound S)")
    p.add_argument("--policy", default="all", help=f"one of {', '.join(NAMES)}, or 'all' (default)")
    p.add_argument("--seeds", type=int, default=1, help="noise seeds >= 1")
    p.add_argument("--base-seed", type=int, default=0, help="first seed")
    p.add_argument("--delta", type=float, default=0.05, help="violation probability delta in (0,1)")
    p.add_argument("--delta-prime", type=float, default=0.05, help="estimation confidence in (0,1)")
    p.add_argument("--lam", type=float, default=1.0, help="the learner's ridge lambda > 0")
    p.add_argument("--eps", type=float, default=0.5, help="epsilon of eps-Greedy in [0,1]")
    p.add_argument("--device", default=None, help="cpu, gpu or an id like gpu:1 (default: GPU when present)")
    p.add_argument("--precision", default="auto", help="float64, float32 or auto (float64 on CPU, float32 on GPU)")
    p.add_argument("--json", action="store_true", help=jsondoc.help_for(family.FACT_KEYS))
    clikit.add_distributed_flags(p)


def _embedder(args: argparse.Namespace) -> str:
    if args.embedder == HASH_EMBEDDER:
        return HASH_EMBEDDER
    if args.embedder in ("sentence", SENTENCE_EMBEDDER):
        if not args.model:
            raise clikit.CliError("error: --embedder sentence needs --model (a local sentence-transformers model)")
        return f"{SENTENCE_EMBEDDER}:{args.model}"
    raise clikit.CliError(f"error: --embedder must be hash or sentence (got {args.embedder!r})")


def settings_of(args: argparse.Namespace) -> BatteryReplaySettings:
    """The replay settings the flags ask for (validated; one line naming the flag otherwise)."""
    if args.policy != "all" and args.policy not in NAMES:
        raise clikit.CliError(f"error: --policy must be one of {', '.join(NAMES)}, all (got {args.policy!r})")
    try:
        return BatteryReplaySettings(
            source="embedded" if args.data is None else "path", path=args.data,
            file=None if args.data is None else os.path.basename(args.data), dim=args.dim, embedder=_embedder(args),
            fit_lam=args.fit_lam, T=args.T, seeds=args.seeds,
            policies=POLICIES if args.policy == "all" else (args.policy,), base_seed=args.base_seed,
            precision=args.precision, tau=args.tau, delta=args.delta, delta_prime=args.delta_prime, lam=args.lam,
            eps=args.eps).validate()
    except SettingsError as err:
        raise clikit.CliError(clikit.settings_error_line(err, _FLAGS)) from None


def run_command(args: argparse.Namespace) -> int:
    """Check the flags, fit, replay with the battery family, print the summary."""
    settings = settings_of(args)
    options = clikit.distributed_options(args)
    with clikit.joined(options) as role:
        clikit.check_device(args.device)
        device = distributed.local_device_id(args.device) if role.multi else args.device
        try:
            run = family.prepare(settings)
            family.check_contexts_fit(run, device)
        except SettingsError as err:
            raise clikit.CliError(clikit.settings_error_line(err, _FLAGS)) from None
        except (BatteryDataError, EmbedderUnavailable, ValueError) as err:
            raise clikit.CliError(f"error: {err}") from None
        mesh = M.device_mesh(device) if role.multi else None
        result = run_model(family.FAMILY, run.settings, device, mesh=mesh)
        if not role.writer:
            return 0
        doc = jsondoc.document(result.kind, result.T, run.settings.seeds, result.device, result.precision,
                               result.seconds, jsondoc.rows_of(M.summary(result), drop=("kind", "rounds")),
                               **family.facts(run, result))
        lines = [f"battery replay of {run.source}: {doc['T']} rounds x {doc['seeds']} seeds, d = {doc['dim']}, "
                 f"tau = {doc['tau']:g} on {doc['device']} ({doc['precision']}), {doc['seconds']:.2f} s"]
        clikit.emit(doc, args.json, lines)
    return 0


run = run_command
