"""``python -m safebandit_core toy``: the toy family from the command line, one flag per settings field."""

from __future__ import annotations

import argparse
import time

from safebandit_core import clikit
from safebandit_core import model as M

from .family import FAMILY
from .settings import NAMES, ToySettings

HELP = "Toy bandit (tests): two Bernoulli arms, greedy against arm 0 only."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``toy`` flags; defaults are :class:`ToySettings`' defaults."""
    d = ToySettings()
    parser.add_argument("--policy", choices=(*NAMES, "all"), default="all", help="policy to run, or all")
    for field in ("p0", "p1"):
        parser.add_argument(f"--{field}", type=float, default=getattr(d, field), help=f"arm mean {field}")
    for field in ("T", "seeds", "base_seed"):
        parser.add_argument(clikit.flag_of(field), type=int, default=getattr(d, field), help=field)
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")


def run(args: argparse.Namespace) -> int:
    """Run the toy settings and print one row per policy."""
    settings = ToySettings(policies=NAMES if args.policy == "all" else (args.policy,), p0=args.p0, p1=args.p1,
                           T=args.T, seeds=args.seeds, base_seed=args.base_seed).validate()
    start = time.perf_counter()
    result = M.run(FAMILY, settings)
    clikit.emit(clikit.run_document(result, time.perf_counter() - start, ("p0", "p1")), args.json)
    return 0
