"""Build the per-step RW26 table shipped in the package (``safebandit_core/battery/rw26_steps.csv.gz``).

Reads NASA's ``RW26.mat`` with :func:`safebandit_core.battery.loader.load_steps` and writes the
table as gzipped CSV, with floats rounded to what the instruments resolve (time 10 ms,
voltage 0.1 mV, current 0.1 mA, temperature 1 mK) so the file stays small.

    python scripts/build_battery_table.py [path/to/RW26.mat] [--out path.csv.gz]
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from safebandit_core.battery.loader import EMBEDDED_TABLE, load_steps  # noqa: E402

DECIMALS = {
    "time_start": 2,
    "duration": 2,
    "current_mean": 4,
    "current_max": 4,
    "voltage_start": 4,
    "voltage_end": 4,
    "temperature_mean": 3,
    "temperature_max": 3,
}


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, build the table, report its size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mat", nargs="?", default=str(REPO / ".." / "shared" / "data" / "nasa" / "RW26.mat"))
    parser.add_argument("--out", default=str(REPO / "safebandit_core" / "battery" / EMBEDDED_TABLE))
    args = parser.parse_args(argv)
    steps = load_steps(args.mat).round(DECIMALS)
    steps["date"] = steps["date"].dt.strftime("%Y-%m-%d %H:%M:%S")
    text = steps.to_csv(index=False, lineterminator="\n")
    out = Path(args.out)
    with out.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as handle:
        handle.write(text.encode())
    print(f"{len(steps)} steps -> {out} ({out.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
