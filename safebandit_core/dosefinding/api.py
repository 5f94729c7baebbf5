"""The Python entry point: :func:`simulate` runs R trials of the chosen designs on common random numbers and
returns their operating characteristics, with every trial's path kept for a figure (:meth:`DoseFindingResult.path`).

Inputs are checked first; a bad one raises :class:`safebandit_core.settings.SettingsError` naming the field
and its allowed range (the command line turns it into one line and exit code 2).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from .. import device
from ..settings import SettingsError, check_choice, check_int_range, check_open_unit
from . import oc, rules, scenarios
from .designs import DESIGNS, Options, boin_tables, crm_tables, patients_needed, simulate_all, tolerances

MAX_COHORT = 12
MAX_COHORTS = 100
MAX_TRIALS = 100_000
MAX_DRAWS = 10_000_000
"""At most this many tolerances (trials × patients per trial): 80 MB of float64, and their doses beside them."""
PEAK_FACTOR = 2.5
"""A run's peak memory over what its result keeps (the device's arrays and their host copies while it computes;
measured 1.2× for the designs and 2.1× with HPC-UCB at the largest sizes)."""
ESTIMATES = ("plugin", "mean")
"""The CRM's estimate of ``p_j``: dfcrm's plug-in ``s_j^{exp(â)}`` (default) or the posterior mean."""


def _check_probabilities(field: str, values: Sequence[float], open_ends: bool) -> np.ndarray:
    """A strictly increasing vector of probabilities (in [0, 1], or (0, 1) with ``open_ends``) as float64."""
    allowed = "in (0, 1)" if open_ends else "in [0, 1]"
    if len(values) < 1 or len(values) > scenarios.MAX_DOSES:
        raise SettingsError(field, f"1 to {scenarios.MAX_DOSES} probabilities {allowed}", list(values))
    for v in values:
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        if not ok or not ((0.0 < v < 1.0) if open_ends else (0.0 <= v <= 1.0)):
            raise SettingsError(field, f"probabilities {allowed}", v)
    arr = np.asarray(values, dtype=np.float64)
    if np.any(np.diff(arr) <= 0):
        raise SettingsError(field, "strictly increasing from the lowest dose to the highest", list(values))
    return arr


def check_inputs(truth: Sequence[float], target: float, cohort: int, cohorts: int, trials: int, seed: int,
                 chosen: Sequence[str], skeleton: Sequence[float] | None = None, crm_halfwidth: float | None = None,
                 crm_prior_mtd: int | None = None, crm_start: int = 1, crm_estimate: str = "plugin",
                 boin_stop_at: int | None = None) -> np.ndarray:
    """Check every input of :func:`simulate` (the first out of range raises :class:`SettingsError`); returns the
    truth as float64."""
    p = _check_probabilities("truth", list(truth), open_ends=False)
    check_open_unit("target", target)
    check_int_range("cohort", cohort, 1, MAX_COHORT)
    check_int_range("cohorts", cohorts, 1, MAX_COHORTS)
    check_int_range("trials", trials, 1, MAX_TRIALS)
    check_int_range("seed", seed, 0, 2**31 - 1)
    if not chosen or len(set(chosen)) != len(chosen):
        raise SettingsError("designs", "one or more of " + ", ".join(DESIGNS) + " without repeats",
                            list(chosen))
    for name in chosen:
        check_choice("designs", name, DESIGNS)
    K = p.size
    per_trial = patients_needed(K, cohort, cohorts)
    if trials * per_trial > MAX_DRAWS:
        raise SettingsError("trials", f"at most {MAX_DRAWS // per_trial:,} with {per_trial} patients per trial",
                            trials)
    if skeleton is not None:
        s = _check_probabilities("skeleton", list(skeleton), open_ends=True)
        if s.size != K:
            raise SettingsError("skeleton", f"{K} probabilities, one per dose", list(skeleton))
    elif crm_halfwidth is not None:
        top = min(target, 1.0 - target)
        if not (isinstance(crm_halfwidth, (int, float)) and 0.0 < crm_halfwidth < top):
            raise SettingsError("crm_halfwidth", f"in (0, {top:g}) (min of the target and 1 − target)",
                                crm_halfwidth)
    if skeleton is None and crm_prior_mtd is not None:
        check_int_range("crm_prior_mtd", crm_prior_mtd, 1, K)
    check_int_range("crm_start", crm_start, 1, K)
    check_choice("crm_estimate", crm_estimate, ESTIMATES)
    if boin_stop_at is not None:
        check_int_range("boin_stop_at", boin_stop_at, 1)
    return p


def kept_bytes(K: int, cohort: int, cohorts: int, trials: int, designs: int = len(DESIGNS)) -> int:
    """What a result of :func:`simulate` keeps, in bytes: every patient's tolerance (float64) and each design's
    doses per patient (int32), patients and DLTs per dose and its MTD per trial."""
    U = patients_needed(K, cohort, cohorts)
    return trials * U * 8 + designs * (trials * U * 4 + trials * K * 16 + trials * 8)


def memory_bytes(K: int, cohort: int, cohorts: int, trials: int, designs: int = len(DESIGNS)) -> int:
    """The estimate of a run's peak memory (:data:`PEAK_FACTOR` times :func:`kept_bytes`), which a server checks
    against its cap on one run."""
    return int(PEAK_FACTOR * kept_bytes(K, cohort, cohorts, trials, designs))


def check_fits(K: int, cohort: int, cohorts: int, trials: int, designs: int = len(DESIGNS), extra: int = 0,
               device_id: str | None = None, limit: int | None = None) -> None:
    """Raise :class:`SettingsError` naming ``trials`` (with the largest number that fits) when the run, plus
    ``extra`` bytes per trial, would need more than half the device's memory or more than ``limit`` bytes."""
    need = memory_bytes(K, cohort, cohorts, trials, designs) + trials * extra
    U = patients_needed(K, cohort, cohorts)
    device.check_fits(need, 0, device_id, "trials", trials, f"{U} patients per trial", limit)


@dataclasses.dataclass(frozen=True)
class TrialPath:
    """One trial of one design: the dose (1..K) and DLT of each treated patient in enrolment order, its MTD."""

    design: str
    trial: int
    doses: np.ndarray  # (patients,) int, 1-based
    dlt: np.ndarray  # (patients,) bool
    mtd: int  # 1..K, 0 = none


@dataclasses.dataclass(frozen=True)
class DoseFindingResult:
    """R trials of each design on common random numbers: the inputs, the operating characteristics per design
    (:data:`.oc.FIGURES` and ``cum_regret_*``), and every trial's counts and patients' doses."""

    truth: np.ndarray  # (K,)
    target: float
    cohort: int
    cohorts: int
    trials: int
    seed: int
    designs: tuple[str, ...]
    true_mtd: int  # 1..K, 0 = none acceptable
    skeleton: np.ndarray  # (K,) the CRM's skeleton
    boin: rules.BoinBoundaries
    characteristics: dict[str, dict[str, Any]]
    mtd: dict[str, np.ndarray]  # design -> (R,)
    n: dict[str, np.ndarray]  # design -> (R, K)
    y: dict[str, np.ndarray]  # design -> (R, K)
    doses: dict[str, np.ndarray]  # design -> (R, U), 0 = not enrolled
    tolerances: np.ndarray  # (R, U)
    seconds: float
    device: str

    @property
    def N(self) -> int:
        """The sample size ``c·M`` of BOIN and the CRM."""
        return self.cohort * self.cohorts

    def path(self, design: str, trial: int = 0) -> TrialPath:
        """Trial ``trial`` of ``design``: each treated patient's dose and whether it had a DLT (``u_i < p_dose``)."""
        check_choice("design", design, self.designs)
        check_int_range("trial", trial, 0, self.trials - 1)
        row = self.doses[design][trial]
        treated = row > 0
        doses = row[treated]
        dlt = self.tolerances[trial][treated] < self.truth[doses - 1]
        return TrialPath(design, trial, doses, dlt, int(self.mtd[design][trial]))


def simulate(truth: Sequence[float], target: float, cohort: int = 3, cohorts: int = 10, trials: int = 10_000,
             seed: int = 0, designs: Sequence[str] = DESIGNS, skeleton: Sequence[float] | None = None,
             crm_halfwidth: float | None = None, crm_prior_mtd: int | None = None, crm_start: int = 1,
             crm_overdose_stop: bool = False, crm_estimate: str = "plugin",
             boin_stop_at: int | None = None) -> DoseFindingResult:
    """Run ``trials`` trials of each design in ``designs`` for the truth ``p`` and target φ (CLINICAL.md).

    One jitted call on the default device, float64; every design of a trial sees the same tolerances. The CRM's
    skeleton is dfcrm's ``getprior(δ, φ, crm_prior_mtd or ⌈K/2⌉, K)`` unless given, with δ = ``crm_halfwidth``
    or :func:`.rules.default_halfwidth`; BOIN's per-dose
    early stop ``boin_stop_at`` and the CRM's overdose stop are off by default.
    """
    chosen = tuple(designs)
    p = check_inputs(truth, target, cohort, cohorts, trials, seed, chosen, skeleton, crm_halfwidth, crm_prior_mtd,
                     crm_start, crm_estimate, boin_stop_at)
    K = p.size
    if skeleton is None:
        halfwidth = rules.default_halfwidth(target) if crm_halfwidth is None else crm_halfwidth
        s = rules.getprior(halfwidth, target, crm_prior_mtd or rules.default_prior_mtd(K), K)
    else:
        s = np.asarray(skeleton, dtype=np.float64)
    options = Options(cohort, cohorts, chosen, boin_stop_at, crm_start, bool(crm_overdose_stop),
                                     crm_estimate == "mean")
    N = cohort * cohorts
    start = time.perf_counter()
    u = tolerances(seed, trials, patients_needed(K, cohort, cohorts))
    out = simulate_all(u, jnp.asarray(p), jnp.float64(target), boin_tables(target, N),
                                      crm_tables(s, target, cohort), options)
    host = {name: {f: np.asarray(getattr(t, f)) for f in ("mtd", "n", "y", "doses")} for name, t in out.items()}
    seconds = time.perf_counter() - start
    true = scenarios.true_mtd(p, target)
    figures = {name: oc.characteristics(h["mtd"], h["n"], h["y"], p, target, true) for name, h in host.items()}
    return DoseFindingResult(
        truth=p, target=float(target), cohort=cohort, cohorts=cohorts, trials=trials, seed=seed, designs=chosen,
        true_mtd=true, skeleton=s, boin=rules.boin_boundaries(target, N), characteristics=figures,
        mtd={k: h["mtd"] for k, h in host.items()}, n={k: h["n"] for k, h in host.items()},
        y={k: h["y"] for k, h in host.items()}, doses={k: h["doses"] for k, h in host.items()},
        tolerances=np.asarray(u), seconds=seconds, device=device.describe(None))
