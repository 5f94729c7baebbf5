"""A planted dose log written by the tests: linear θ*, μ* on four raw context columns, known Gaussian noise, doses
in [0, 1] (5 % at 0), and the truth in the coordinates the fit's standardised contexts use."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

CONTEXT = ("x1", "x2", "x3", "x4")
MEANS = np.array([50.0, 2.0, -1.0, 0.0])
SCALES = np.array([10.0, 0.5, 3.0, 1.0])
THETA_Z = np.array([0.4, -0.3, 0.2, 0.3])
"""Benefit per unit dose per standard deviation of each context (the intercept is :data:`THETA_0`)."""
MU_Z = np.array([0.1, 0.15, -0.1, 0.2])
THETA_0, MU_0 = 1.0, 0.6
KAPPA_R, KAPPA_C = 0.3, 0.15


@dataclasses.dataclass(frozen=True)
class Planted:
    frame: pd.DataFrame
    theta_raw: np.ndarray  # (5,) intercept, then per unit of each raw column
    mu_raw: np.ndarray


def planted(n: int = 5000, seed: int = 0) -> Planted:
    """The log: contexts x1..x4, dose, benefit, side_effect, site (a group) and day (the time, shuffled rows)."""
    rng = np.random.default_rng(seed)
    X = MEANS + SCALES * rng.standard_normal((n, 4))
    theta = THETA_Z / SCALES
    mu = MU_Z / SCALES
    theta_0 = THETA_0 - theta @ MEANS
    mu_0 = MU_0 - mu @ MEANS
    dose = rng.uniform(0.0, 1.0, n)
    dose[rng.random(n) < 0.05] = 0.0
    frame = pd.DataFrame(X, columns=list(CONTEXT))
    frame["dose"] = dose
    frame["benefit"] = dose * (theta_0 + X @ theta + KAPPA_R * rng.standard_normal(n))
    frame["side_effect"] = dose * (mu_0 + X @ mu + KAPPA_C * rng.standard_normal(n))
    frame["site"] = rng.choice(["a", "b", "c", "d"], size=n)
    frame["day"] = rng.permutation(n)
    return Planted(frame, np.concatenate([[theta_0], theta]), np.concatenate([[mu_0], mu]))


def csv_bytes(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
