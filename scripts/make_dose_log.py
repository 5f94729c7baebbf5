"""Write the built-in synthetic dose-finding log: safebandit_core/logged/examples/dose_log.csv.gz and dose_log.json.

SYNTHETIC DATA: no patient is real. Each row is one treated patient: four contexts (age in years, weight
in kg, a biomarker level, a severity score 0-4), the site and the day (for the group and time columns),
the dose in [0, 1] that a cautious logging policy chose (uniform, with 5 % placebo at dose 0), and the
outcomes of seed 000's model with the identity dose curve g(a) = a:

    benefit     = dose * (theta_0 + <x, theta> + xi_r),   xi_r ~ N(0, kappa_r^2)
    side_effect = dose * (mu_0    + <x, mu>    + xi_c),   xi_c ~ N(0, kappa_c^2)

with x the raw context columns (the coefficients below are per unit of each column). The generating
numbers are printed and stored beside the table (dose_log.json), so a fit can be checked against them.
Usage: python scripts/make_dose_log.py [--rows 3000] [--seed 2026]
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parents[1] / "safebandit_core" / "logged" / "examples"
THETA = {"(intercept)": 0.2, "age": 0.01, "weight": -0.004, "biomarker": 0.45, "severity": 0.08}
MU = {"(intercept)": 0.1, "age": 0.006, "weight": -0.003, "biomarker": 0.1, "severity": 0.12}
KAPPA_R, KAPPA_C = 0.3, 0.15
UNITS = {"age": "years", "weight": "kg", "biomarker": "ng/mL", "severity": "score 0-4", "dose": "share of the "
         "maximum dose", "benefit": "symptom score improvement", "side_effect": "toxicity score"}


def make_log(rows: int, seed: int) -> pd.DataFrame:
    """The synthetic log: contexts, site, day, dose and the two outcomes of the model above."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "patient": np.arange(1, rows + 1),
        "day": np.sort(rng.integers(1, 366, size=rows)),
        "site": rng.choice(["north", "south", "east"], size=rows),
        "age": np.clip(rng.normal(55, 12, rows), 18, 90).round(0),
        "weight": np.clip(rng.normal(75, 14, rows), 40, 150).round(1),
        "biomarker": np.clip(rng.normal(1.0, 0.4, rows), 0.05, None).round(3),
        "severity": rng.integers(0, 5, size=rows).astype(float),
    })
    dose = rng.uniform(0.0, 1.0, rows).round(2)
    dose[rng.random(rows) < 0.05] = 0.0
    contexts = frame[list(THETA)[1:]].to_numpy()
    rate_r = THETA["(intercept)"] + contexts @ np.array(list(THETA.values())[1:])
    rate_c = MU["(intercept)"] + contexts @ np.array(list(MU.values())[1:])
    frame["dose"] = dose
    frame["benefit"] = (dose * (rate_r + KAPPA_R * rng.standard_normal(rows))).round(4)
    frame["side_effect"] = (dose * (rate_c + KAPPA_C * rng.standard_normal(rows))).round(4)
    return frame


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=3000)
    p.add_argument("--seed", type=int, default=2026)
    args = p.parse_args()
    frame = make_log(args.rows, args.seed)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "dose_log.csv.gz").write_bytes(gzip.compress(frame.to_csv(index=False).encode(), mtime=0))
    truth = {
        "description": "SYNTHETIC dose-finding log (no real patients), written by scripts/make_dose_log.py",
        "model": "benefit = g(dose)*(theta_0 + <x, theta> + xi_r), side_effect = g(dose)*(mu_0 + <x, mu> + xi_c), "
                 "xi ~ N(0, kappa^2), g(a) = a, x the raw context columns",
        "rows": args.rows, "seed": args.seed, "curve": "linear", "theta": THETA, "mu": MU,
        "kappa_r": KAPPA_R, "kappa_c": KAPPA_C, "contexts": list(THETA)[1:], "dose": "dose",
        "reward": "benefit", "cost": "side_effect", "group": "site", "time": "day", "units": UNITS,
    }
    (OUT / "dose_log.json").write_text(json.dumps(truth, indent=2) + "\n")
    print(f"wrote {args.rows} synthetic rows to {OUT / 'dose_log.csv.gz'}")
    print("theta* (benefit per unit dose):", json.dumps(THETA))
    print("mu*    (side effect per unit dose):", json.dumps(MU))
    print(f"kappa_r = {KAPPA_R}, kappa_c = {KAPPA_C}, g = linear")


if __name__ == "__main__":
    main()
