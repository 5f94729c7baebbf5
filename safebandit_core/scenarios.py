"""Audience scenarios for presentation mode: the pieces every model's screen is made of.

A :class:`Scenario` is a named set of settings of one model family, picked so a point of its paper
shows at the horizon it runs to: a safety board's strict limit, a noisy side effect, a hospital
that tolerates little or more loss, ρ on either side of MV-CUCB's condition. It states settings,
never results. A :class:`Model` is how presentation mode shows one family: its question, paper, scenarios
and sentences, which compare policies from the run's summary (through :mod:`.captions`) so they flip
when the numbers flip. Each family declares its own in its folder (``audience.py``, named by the
family's registry entry); this module holds only what they share. :class:`Names` holds what the audience calls
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

from . import families


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


def join_labels(labels: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


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
    scenarios: tuple[Scenario, ...] = ()
    """Its audience scenarios, the first the default."""


SAFETY_BY_DESIGN = "Safety by Design (2026)"
ONE_SIZE = "One-size-fits-all conservative bandits (AAAI 2021)"
"""The papers a :class:`Model` names."""


def models() -> dict[str, Model]:
    """Presentation mode's models by kind: each registered family's ``audience``, in the registry's order."""
    return {f.kind: families.resolve(f.audience) for f in families.FAMILIES.values() if f.audience}


def every() -> tuple[Scenario, ...]:
    """Every registered model's scenarios, in the registry's order."""
    return tuple(sc for model in models().values() for sc in model.scenarios)


def of_kind(kind: str) -> tuple[Scenario, ...]:
    """The scenarios of a model, in order (none for a kind presentation mode leaves out)."""
    model = models().get(kind)
    return model.scenarios if model is not None else ()


def find(kind: str, key: str | None) -> Scenario:
    """The scenario ``key`` of ``kind``, or the model's first one when there is no such key."""
    options = of_kind(kind)
    return next((sc for sc in options if sc.key == key), options[0])
