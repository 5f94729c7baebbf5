"""``python -m benchmarks [--quick] [--only NAME] [--markdown]``: run every benchmark module, print one table (as
Markdown rows with ``--markdown``, the form of the README's table)."""

from __future__ import annotations

import argparse
import importlib
import math
import pkgutil
import sys
import time
from typing import Any

import pandas as pd


def _shown(value: Any) -> str:
    """A bench value as the table shows it: a number with two decimals (``inf`` for a row that failed), "-" for
    nothing (a column the row lacks)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:.2f}"
    return str(value)


def markdown(rows: list[dict[str, Any]]) -> str:
    """``rows`` as a Markdown table (:func:`safebandit_core.report.table_markdown`): every column any row has, in
    the order they first come; "-" where a row has none."""
    from safebandit_core import report

    return "\n".join(report.table_markdown(pd.DataFrame(rows).astype(object).map(_shown)))


def main() -> int:
    """Collect rows from each ``benchmarks.bench_*`` module and print them as one table."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--only", default=None, help="run only modules whose name contains this")
    parser.add_argument("--gpu", action="store_true", help="only the GPU rows, each beside the CPU (benchmarks/gpu.py)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown (the README's form)")
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
    if args.markdown:
        print(markdown(rows))
        return 0
    frame = pd.DataFrame(rows)
    with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 200,
                           "display.max_colwidth", 80):
        print(frame.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
