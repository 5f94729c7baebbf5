"""``python -m benchmarks [--quick] [--only NAME]``: run every benchmark module, print one table."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import time

import pandas as pd


def main() -> int:
    """Collect rows from each ``benchmarks.bench_*`` module and print them as one table."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--only", default=None, help="run only modules whose name contains this")
    parser.add_argument("--gpu", action="store_true", help="only the GPU rows, each beside the CPU (benchmarks/gpu.py)")
    args = parser.parse_args()
    import benchmarks

    rows = []
    if args.gpu:
        from benchmarks import gpu

        rows = gpu.bench(args.quick)
    for info in [] if args.gpu else sorted(pkgutil.iter_modules(benchmarks.__path__), key=lambda i: i.name):
        if not info.name.startswith("bench_") or (args.only and args.only not in info.name):
            continue
        mod = importlib.import_module(f"benchmarks.{info.name}")
        start = time.perf_counter()
        got = mod.bench(args.quick)
        print(f"[{info.name}: {time.perf_counter() - start:.1f} s]", file=sys.stderr, flush=True)
        rows.extend(got)
    frame = pd.DataFrame(rows)
    with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 200,
                           "display.max_colwidth", 80):
        print(frame.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
