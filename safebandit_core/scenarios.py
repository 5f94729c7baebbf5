"""Audience scenarios for presentation mode as data, and the sentences each model's screen shows.

A :class:`Scenario` is a named set of settings of one model family, picked so a point of its paper
shows at the horizon it runs to: a safety board's strict limit, a noisy side effect, a hospital
that tolerates little or more loss, ρ on either side of MV-CUCB's condition. It states settings,
never results. Everything that compares policies is computed here from the run's summary (through
:mod:`.captions`), so it flips when the numbers flip. :class:`Names` holds what the audience calls
a round, the dose unit, the side effect, the limit, the default and the policies (by their role: the
new rule, the usual rule, any other); the sentences and the charts use them. A scenario whose story
is two-way hides the third policy. Pure: no Streamlit, no I/O.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from . import captions, families
from .conservative import BASELINE, UNCONSTRAINED
from .meanvar import RISK_BOUND, assumption_ok, assumption_text


@dataclasses.dataclass(frozen=True)
class Names:
    """What the audience calls things: a round, the dose unit and full dose, the side effect, its limit, the default,
    and each policy by its role (``new_rule``, ``usual_rule``, ``other_rule``; shown with the paper's name)."""

    round: str = "patient-round"
    dose_unit: str = "mg"
    full_dose: float = 100.0
    effect: str = "toxicity grade"
    limit: str = "safety limit"
    default: str = "standard treatment"
    new_rule: str = "new rule"
    usual_rule: str = "usual rule"
    other_rule: str = "other rule"

    def cleaned(self) -> Names:
        """Blank names (and a full dose that is not a positive number) replaced by the defaults."""
        base = Names()
        text = {f.name: (getattr(self, f.name).strip() or getattr(base, f.name))
                for f in dataclasses.fields(self) if f.type == "str"}
        ok = isinstance(self.full_dose, (int, float)) and math.isfinite(self.full_dose) and self.full_dose > 0
        return dataclasses.replace(self, **text, full_dose=float(self.full_dose) if ok else base.full_dose)

    def policy(self, role: str, paper_name: str) -> str:
        """A policy as the audience sees it: its role's word, then the paper's name in brackets (kept for anyone
        who reads the paper; left out when the word already holds it)."""
        word = getattr(self, role)
        return word if paper_name in word else f"{word} ({paper_name})"


@dataclasses.dataclass(frozen=True)
class Scenario:
    """One audience's settings for a model: ``fields`` of the family's settings class; ``about`` describes
    them in words (``{name}`` placeholders take :class:`Names` fields and the settings' fields)."""

    key: str
    kind: str
    title: str
    about: str
    fields: Mapping[str, Any]
    hide: tuple[str, ...] = ()
    """Policy ids run but not shown (a two-way story: the new rule against the usual one)."""

    def settings(self, base_seed: int = 0, precision: str | None = None) -> Any:
        """The validated settings of this scenario (raises :class:`~safebandit_core.settings.SettingsError`)."""
        extra: dict[str, Any] = {"base_seed": base_seed}
        if precision is not None:
            extra["precision"] = precision
        return families.get(self.kind).settings_cls(**self.fields, **extra).validate()

    def describe(self, names: Names) -> str:
        """:attr:`about` with the audience's names and the settings' numbers filled in."""
        s = self.settings()
        values = {**dataclasses.asdict(names), **{f.name: getattr(s, f.name) for f in dataclasses.fields(s)}}
        return self.about.format_map(values)


def audience(tidy: pd.DataFrame, summary: pd.DataFrame, model: Model, scenario: Scenario, names: Names
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tidy frame and summary as the audience sees them: the scenario's hidden policies dropped, every ``label``
    the audience's name of the policy's role (:meth:`Names.policy`); policies without a role keep their label."""
    keep_t = ~tidy["policy"].astype(str).isin(scenario.hide)
    keep_s = ~summary["policy"].astype(str).isin(scenario.hide)
    tidy, summary = tidy[keep_t].copy(), summary[keep_s].reset_index(drop=True)

    def label(policy: str, old: str) -> str:
        role = model.roles.get(policy)
        return names.policy(role, old) if role else old

    new = {str(p): label(str(p), str(lab)) for p, lab in zip(summary["policy"], summary["label"], strict=True)}
    summary["label"] = [new[str(p)] for p in summary["policy"]]
    policy = tidy["policy"].astype(str)
    shown = policy.map(new).fillna(tidy["label"].astype(str))
    tidy["label"] = pd.Categorical(shown, categories=list(dict.fromkeys([*summary["label"], *shown.unique()])))
    return tidy, summary


def _join(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def dose_headline(s: Any, summary: pd.DataFrame, names: Names) -> str:
    """Rounds over the limit per policy (runs × rounds, as the charts count them) against what δ allowed, and who kept
    to the rule (Safety by Design)."""
    total = s.seeds * s.T
    counts = ", ".join(f"{r['label']} {int(r['violations']):,} time{'s' if int(r['violations']) != 1 else ''}"
                       for _, r in summary.iterrows())
    groups: dict[str, list[str]] = {"kept to it": [], "kept to it on average only": [], "did not": []}
    for _, r in summary.iterrows():
        rate, hi = float(r["violation_rate"]), float(r["violation_rate_hi"])
        verdict = "kept to it" if hi <= s.delta else "kept to it on average only" if rate <= s.delta else "did not"
        groups[verdict].append(str(r["label"]))
    verdicts = ", ".join(f"{_join(who)} {what}" for what, who in groups.items() if who)
    runs = f"{s.seeds} run{'s' if s.seeds != 1 else ''} × {s.T:,} {names.round}s"
    return (f"{names.effect[:1].upper()}{names.effect[1:]} above the {names.limit} ({captions.number(s.tau)}) in "
            f"{runs}: {counts}; the rule allows about {s.delta * total:,.0f} of the "
            f"{total:,} (δ = {captions.percent(s.delta)}): {verdicts}.")


def _held(summary: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Labels whose slack stayed ≥ 0 in every round of every run, and the others."""
    ok = summary["min_slack"] >= -captions.ROUND_OFF
    return [str(x) for x in summary.loc[ok, "label"]], [str(x) for x in summary.loc[~ok, "label"]]


def conservative_headline(s: Any, summary: pd.DataFrame, names: Names) -> str:
    """Regret, default pulls and who kept to the sample-path rule at this horizon (One-size-fits-all, AAAI 2021)."""
    regret = ", ".join(f"{r['label']} {captions.number(r['cum_regret_mean'])}" for _, r in summary.iterrows())
    pulls = ", ".join(f"{r['label']} {captions.number(r['default_pulls_mean'])}" for _, r in summary.iterrows())
    held, broke = _held(summary)
    rule = f"{_join(held)} kept to the rule in every run" if held else "no policy kept to the rule in every run"
    if broke:
        worst = captions.number(float(summary["min_slack"].min()))
        rule += f", {_join(broke)} broke it (smallest slack {worst})"
    return (f"After {s.T:,} {names.round}s ({captions.SEEDS_NOTE}): reward lost {regret}; {names.default} chosen "
            f"{pulls} times per run; {rule}.")


def mv_headline(s: Any, summary: pd.DataFrame, names: Names) -> str:
    """Which side of 2/(α·μ₀) ρ is on, and whether each slack stayed ≥ 0 in this run (AAAI 2021, Theorem 5)."""
    need = captions.number(RISK_BOUND / (s.alpha * s.mu0))
    side = ("is above 2/(α·μ₀) = {}, the condition of MV-CUCB's guarantee" if assumption_ok(s.alpha, s.mu0, s.rho)
            else "is not above 2/(α·μ₀) = {}, so MV-CUCB's guarantee does not apply").format(need)
    parts = []
    for _, r in summary.iterrows():
        m = float(r["min_slack"])
        state = "never went below 0" if m >= -captions.ROUND_OFF else "went below 0"
        parts.append(f"{r['label']}'s slack {state} (smallest {captions.number(m)})")
    return (f"ρ = {captions.number(s.rho)} {side}; in this run ({s.T:,} {names.round}s × {s.seeds} runs) "
            f"{', '.join(parts)}.")


def dose_notes(s: Any, summary: pd.DataFrame, frame: pd.DataFrame, names: Names) -> list[str]:
    """Each policy's rounds over the limit against δ, then the regret order at this horizon."""
    return [*captions.violations(summary, s.delta, s.seeds, unit=names.round), captions.regret_order(summary, s.T)]


def conservative_notes(s: Any, summary: pd.DataFrame, frame: pd.DataFrame, names: Names) -> list[str]:
    """The regret order, where GenCB overtakes its baseline in this run, and each policy's slack."""
    out = [captions.regret_order(summary, s.T), captions.overtake(frame, "gencb", BASELINE[s.problem], s.T)]
    return [x for x in out if x] + [captions.slack_sentence(summary, p) for p in summary["policy"]]


def mv_notes(s: Any, summary: pd.DataFrame, frame: pd.DataFrame, names: Names) -> list[str]:
    """The guarantee's condition, the regret order at this horizon and each policy's slack."""
    return [assumption_text(s.alpha, s.mu0, s.rho), captions.regret_order(summary, s.T),
            *(captions.slack_sentence(summary, p) for p in summary["policy"])]


@dataclasses.dataclass(frozen=True)
class Model:
    """A model as presentation mode shows it: its title, its question, its paper and its sentences."""

    kind: str
    title: str
    question: str
    paper: str
    headline: Callable[[Any, pd.DataFrame, Names], str]
    notes: Callable[[Any, pd.DataFrame, pd.DataFrame, Names], list[str]]
    roles: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Policy id -> the :class:`Names` field that names its role (``new_rule``, ``usual_rule``, ``other_rule``)."""


SAFETY_BY_DESIGN = "Safety by Design (2026)"
ONE_SIZE = "One-size-fits-all conservative bandits (AAAI 2021)"
DOSE_MODEL = Model(
    "dose", "Dose model", "Choose each patient's dose; the side effect must stay under its limit in every round, "
    "noise included.", SAFETY_BY_DESIGN, dose_headline, dose_notes,
    {"hpucb": "new_rule", "on_expectation": "usual_rule", "eps_greedy": "other_rule"})
CONSERVATIVE_MODEL = Model(
    "conservative", "Conservative bandits", "Try new treatments, but never fall more than a share α behind what the "
    "standard treatment would have earned.", ONE_SIZE, conservative_headline, conservative_notes,
    {"gencb": "new_rule", **dict.fromkeys(BASELINE.values(), "usual_rule"),
     **dict.fromkeys(UNCONSTRAINED.values(), "other_rule")})
MV_MODEL = Model(
    "mv", "Mean-variance bandits", "Reward and risk together (ρ·mean − variance), never far behind a riskless "
    "default.", ONE_SIZE, mv_headline, mv_notes, {"mvcucb": "new_rule", "mvucb": "usual_rule"})
"""How presentation mode shows each model; a family's registry entry names its own (``audience``)."""


def models() -> dict[str, Model]:
    """Presentation mode's models by kind: each registered family's ``audience``, in the registry's order."""
    return {f.kind: families.resolve(f.audience) for f in families.FAMILIES.values() if f.audience}


DOSE = {"T": 4000, "seeds": 5}
CONSERVATIVE = {"problem": "cmab", "K": 10, "T": 20_000, "seeds": 5}
MV = {"K": 24, "alpha": 0.1, "mu0": 0.7, "T": 5000, "seeds": 20}
SCENARIOS: tuple[Scenario, ...] = (
    Scenario("strict-board", "dose", "Strict safety board",
             "At most {delta:.0%} of {round}s may have a {effect} above the {limit} τ = {tau:g}; the {effect} is "
             "noisy (κ_c = {kappa_c:g}): the {new_rule} against the {usual_rule}.",
             {**DOSE, "delta": 0.01, "kappa_c": 0.5, "tau": 0.3}, hide=("eps_greedy",)),
    Scenario("noisy-effect", "dose", "Noisy side effect",
             "A very noisy {effect} (κ_c = {kappa_c:g}); {limit} τ = {tau:g}, at most {delta:.0%} of {round}s "
             "above it.", {**DOSE, "delta": 0.05, "kappa_c": 0.8, "tau": 0.5}),
    Scenario("generous-limit", "dose", "Generous limit",
             "A generous {limit} τ = {tau:g} on a calm {effect} (κ_c = {kappa_c:g}); at most {delta:.0%} of "
             "{round}s above it.", {**DOSE, "delta": 0.05, "kappa_c": 0.3, "tau": 1.5}),
    Scenario("cautious-hospital", "conservative", "Cautious hospital",
             "May fall at most α = {alpha:.0%} behind what the {default} would have earned so far; {K} treatments, "
             "{T:,} {round}s.", {**CONSERVATIVE, "alpha": 0.01}),
    Scenario("tolerant-hospital", "conservative", "Tolerant hospital",
             "May fall up to α = {alpha:.0%} behind what the {default} would have earned so far; {K} treatments, "
             "{T:,} {round}s.", {**CONSERVATIVE, "alpha": 0.1}),
    Scenario("guarantee-on", "mv", "ρ above 2/(α·μ₀)",
             "Score ρ·mean − variance with ρ = {rho:g}; may fall α = {alpha:g} behind a riskless {default} paying "
             "μ₀ = {mu0:g}; {T:,} {round}s.", {**MV, "rho": 40.0}),
    Scenario("guarantee-off", "mv", "ρ below 2/(α·μ₀)",
             "Score ρ·mean − variance with ρ = {rho:g}; may fall α = {alpha:g} behind a riskless {default} paying "
             "μ₀ = {mu0:g}; {T:,} {round}s.", {**MV, "rho": 15.0}),
)


def of_kind(kind: str) -> tuple[Scenario, ...]:
    """The scenarios of a model, in order."""
    return tuple(sc for sc in SCENARIOS if sc.kind == kind)


def find(kind: str, key: str | None) -> Scenario:
    """The scenario ``key`` of ``kind``, or the model's first one when there is no such key."""
    options = of_kind(kind)
    return next((sc for sc in options if sc.key == key), options[0])
