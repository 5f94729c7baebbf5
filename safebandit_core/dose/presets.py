"""*Safety by Design*'s experiments as presets (§7), its claims C1–C3 and the checks that give their verdicts.

θ*, μ*, X_t standard normal then normalised, T = 10⁴, 5 seeds. Its Table 1 lists violation ratios "across
different values of τ" but the τ values are not legible in the text we have; we use τ ∈ {0.1, 0.2, 0.5, 1.0}.
The paper gives no noise levels, δ, δ′ or g: we use standard Gaussian noise (κ_r = κ_c = 1), δ = 0.01,
δ′ = 0.05, λ = 1, S = L = 1 and g(α) = α. With these, On-Expectation violates in 14–25 % of rounds and HPC-UCB
in 0.02–0.04 %, the paper's picture; with a smaller noise (κ = 0.3) On-Expectation's rate falls to 2–14 %,
below the paper's. :mod:`safebandit_core.presets` collects these with every other family's.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pandas as pd

from .. import sweep
from ..presets import (
    CONSISTENT,
    INCONSISTENT,
    NOT_SHOWN,
    Claim,
    PaperNumber,
    Preset,
    PresetResult,
    Verdict,
    by_policy,
    format_range,
    pct,
)
from ..scenarios import SAFETY_BY_DESIGN
from .settings import S000_BASE

S000_TAUS = (0.1, 0.2, 0.5, 1.0)
S000_CHOICES = (
    "Noise: standard Gaussian, κ_r = κ_c = 1; the paper does not give its noise levels. With κ = 0.3 "
    "On-Expectation would violate in only 2–14 % of rounds, below the paper's 12–23 %.",
    "δ = 0.01 and δ′ = 0.05; the paper does not give them.",
    "Horizon T = 10⁴ and 5 seeds, as in the paper. On-Expectation's violation rate grows with T, so a "
    "shorter run understates it: the quick size is the paper's size.",
    "Dose curve g(α) = α, λ = 1, S = L = 1 (θ*, μ* and X_t have unit norm as in the paper).",
)
TABLE1_TAU_CHOICE = ("τ ∈ {0.1, 0.2, 0.5, 1.0}: Table 1 spans 'different values of τ', but its values are not "
                     "legible in the text we have.")
C1 = Claim("C1", "HPC-UCB almost never crosses the line; On-Expectation, which only bounds the expected cost, "
           "crosses it in a large share of rounds.", "HPC-UCB 0.02 %; On-Expectation 12 %–23 % (Table 1)",
           "violation_rates")
C2 = Claim("C2", "HPC-UCB's regret grows like √T up to log factors (slope ≈ ½ in log–log).",
           "Theorem 2: Õ(d√T) regret", "regret_slope")
C3 = Claim("C3", "ε-Greedy (ε = 0.5) reaches a regret comparable to HPC-UCB's.",
           "Figure 2: comparable learning curves", "eps_comparable")

HPUCB_ACCEPTS = (0.0, 0.001)
"""What C1's verdict accepts for HPC-UCB: at most 0.1 % of rounds (and its 95 % upper end at most δ). The paper's
noise levels and τ values are not given, so its numbers are a picture to match, not a target."""
ON_EXPECTATION_ACCEPTS = (0.10, 0.30)
"""What C1's verdict accepts for On-Expectation: 10 %–30 %, the paper's 12 %–23 % widened on both sides."""


def _table1() -> Preset:
    sweeps = tuple(sweep.SweepSpec("dose", dataclasses.replace(S000_BASE, d=d), S000_TAUS, ()) for d in (5, 10))
    numbers = (
        PaperNumber("hpucb", "violation_rate", "0.02 %", 0.0002, 0.0002, "§7 text and Table 1", HPUCB_ACCEPTS),
        PaperNumber("on_expectation", "violation_rate", "12 % – 23 % (range over τ)", 0.12, 0.23,
                    "§7 text and Table 1", ON_EXPECTATION_ACCEPTS),
    )
    return Preset("s000-table1", SAFETY_BY_DESIGN, "Table 1",
                  "HPC-UCB vs On-Expectation: violation ratio over τ, d ∈ {5, 10}", "dose", "violation_table",
                  sweeps, ("d", "tau"), ("violation_rate", "cum_regret"), 5, 10_000, numbers, (C1,),
                  (TABLE1_TAU_CHOICE, *S000_CHOICES))


def _fig2() -> Preset:
    base = dataclasses.replace(S000_BASE, policies=("hpucb", "eps_greedy"))
    sweeps = tuple(sweep.SweepSpec("dose", dataclasses.replace(base, d=d), (0.5,), ()) for d in (5, 10))
    return Preset("s000-fig2", SAFETY_BY_DESIGN, "Figure 2", "Learning curves, HPC-UCB vs ε-Greedy (ε = 0.5), "
                  "τ = 0.5, d ∈ {5, 10}", "dose", "learning_curves", sweeps, ("d", "tau"),
                  ("cum_regret", "violation_rate"), 5, 10_000, (), (C2, C3), S000_CHOICES)


def _band_count(number: PaperNumber, values: pd.Series) -> str:
    """How many rows lie within, above and below the paper's range, in words."""
    where = [number.position(float(v)) for v in values]
    return ", ".join(f"{where.count(w)} {w}" for w in ("within", "above", "below") if where.count(w))


def violation_verdict(hp: pd.DataFrame, oe: pd.DataFrame, T: int, hp_number: PaperNumber,
                      oe_number: PaperNumber) -> Verdict:
    """C1 on per-cell rows (``violation_rate``, ``violation_rate_hi``, ``delta``) of HPC-UCB and On-Expectation.

    Consistent when every HPC-UCB rate is in its accepted range with its 95 % upper end at most δ, and
    every On-Expectation rate is in its accepted range. The text counts the rows within, above and
    below the paper's own numbers, and names the accepted ranges, so a "consistent" is never a surprise.
    """
    hp_lo, hp_hi = hp_number.accepted
    oe_lo, oe_hi = oe_number.accepted
    ours = (f"HPC-UCB {pct(hp['violation_rate'].min())}–{pct(hp['violation_rate'].max())} "
            f"(95 % upper end ≤ {pct(hp['violation_rate_hi'].max())}); On-Expectation "
            f"{pct(oe['violation_rate'].min())}–{pct(oe['violation_rate'].max())}: against the paper's "
            f"{oe_number.text.split(' (')[0]}, {_band_count(oe_number, oe['violation_rate'])} of {len(oe)} rows")
    accepts = (f"tolerance: HPC-UCB ≤ {pct(hp_hi)} with its 95 % upper end ≤ δ; On-Expectation within "
               f"{format_range('violation_rate', oe_lo, oe_hi)}, the paper's "
               f"{format_range('violation_rate', oe_number.low, oe_number.high)} widened as its noise levels and "
               "τ values are not given")
    hp_ok = bool((hp["violation_rate_hi"] <= hp["delta"]).all()
                 and hp["violation_rate"].between(hp_lo, hp_hi).all())
    oe_in = bool(oe["violation_rate"].between(oe_lo, oe_hi).all())
    if hp_ok and oe_in:
        return Verdict(ours, CONSISTENT, accepts)
    if hp_ok and T < 10_000 and bool((oe["violation_rate"] < oe_lo).any()):
        return Verdict(ours, NOT_SHOWN, f"On-Expectation's rate grows with T and the paper's horizon is T = 10⁴; "
                                        f"{accepts}")
    why = (f"HPC-UCB above {pct(hp_hi)} or above δ" if not hp_ok
           else f"On-Expectation outside {format_range('violation_rate', oe_lo, oe_hi)}")
    return Verdict(ours, INCONSISTENT, f"{why}; {accepts}")


def _check_violation_rates(result: PresetResult) -> Verdict:
    per_cell = result.cell_summary()
    numbers = {n.policy: n for n in result.preset.paper_numbers if n.metric == "violation_rate"}
    return violation_verdict(by_policy(per_cell, "hpucb"), by_policy(per_cell, "on_expectation"), result.run.T,
                             numbers["hpucb"], numbers["on_expectation"])


def _check_regret_slope(result: PresetResult) -> Verdict:
    curves = result.curves("cum_regret", 200, "log")
    part = curves[curves["policy"] == "hpucb"]
    T = result.run.T
    allowed = 0.5 + 2.0 / math.log(T)
    slopes, early, late = [], [], []
    for _, p in part.groupby("cell"):
        t, m = p["t"].to_numpy(), p["mean"].to_numpy()
        slopes.append(sweep.fit_loglog_slope(t, m, 0.1)[0])
        window = (t >= 0.05 * T) & (t <= 0.25 * T)
        early.append(sweep.fit_loglog_slope(t[window], m[window], 0.0)[0])
        late.append(sweep.fit_loglog_slope(t, m, 0.5)[0])
    ours = ("slope " + ", ".join(f"{s:.2f}" for s in slopes) + f" (fitted on t ≥ {T // 10:,}); over the last half "
            + ", ".join(f"{s:.2f}" for s in late))
    if all(0.25 <= s <= allowed for s in slopes):
        return Verdict(ours, CONSISTENT, f"½ plus at most 2/log T = {allowed - 0.5:.2f} for the log factors")
    steep = [i for i, s in enumerate(slopes) if s > allowed]
    if steep and all(late[i] < early[i] for i in steep) and all(s >= 0.25 for s in slopes):
        return Verdict(ours, NOT_SHOWN, f"the steep curves are still bending down (their slope falls from "
                       f"{max(early[i] for i in steep):.2f} early to {max(late[i] for i in steep):.2f} late): larger "
                       "d needs a longer run to reach its √T regime; raise T")
    return Verdict(ours, INCONSISTENT, f"outside [0.25, {allowed:.2f}] (½ plus 2/log T for the log factors)")


def _check_eps_comparable(result: PresetResult) -> Verdict:
    per_cell = result.cell_summary()
    hp, eg = by_policy(per_cell, "hpucb")["cum_regret_mean"], by_policy(per_cell, "eps_greedy")["cum_regret_mean"]
    ratio = eg / hp.where(hp.abs() > 1e-12)
    ours = "ε-Greedy / HPC-UCB regret: " + ", ".join(f"{r:.2f}" for r in ratio)
    ok = bool(((ratio >= 0.5) & (ratio <= 2.0)).all())
    return Verdict(ours, CONSISTENT if ok else INCONSISTENT, "" if ok else "the ratio is outside [0.5, 2]")


PRESETS: tuple[Preset, ...] = (_table1(), _fig2())
CHECKS: dict[str, Callable[[PresetResult], Verdict]] = {
    "violation_rates": _check_violation_rates,
    "regret_slope": _check_regret_slope,
    "eps_comparable": _check_eps_comparable,
}
