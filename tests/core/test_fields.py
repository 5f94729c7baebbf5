"""Each family's control metadata (``Family.fields``) agrees with its validation: the defaults validate, every
range lies inside what ``validate()`` accepts, widget keys are unique, and the page's URL keys are the fields'."""

from __future__ import annotations

import dataclasses

import pytest

from safebandit_core import families
from safebandit_core.dose import DoseSettings
from safebandit_core.fields import Field, problems
from safebandit_ui import registry

WITH_FIELDS = [f for f in families.FAMILIES.values() if f.fields]


def start(family):
    """The settings a family's page and sweeps start from."""
    return family.sweep_base() if family.sweep_base is not None else family.settings_cls()


def test_every_family_declares_its_controls():
    assert set(families.FAMILIES) == {f.kind for f in WITH_FIELDS}


@pytest.mark.parametrize("family", WITH_FIELDS, ids=lambda f: f.kind)
def test_every_declared_range_validates_at_both_ends(family):
    assert problems(family.fields, start(family)) == []


@pytest.mark.parametrize("family", WITH_FIELDS, ids=lambda f: f.kind)
def test_fields_set_settings_fields_with_unique_keys_that_links_use(family):
    names = {f.name for f in dataclasses.fields(family.settings_cls)}
    assert {f.target for f in family.fields} <= names
    keys = [f.key for f in family.fields]
    assert len(set(keys)) == len(keys) and len({f.name for f in family.fields}) == len(keys)
    by_name = {f.name: f.key for f in family.fields}
    assert all(by_name[name] == key for name, key in registry.entry(family.kind).link_keys.items() if name in by_name)


@pytest.mark.parametrize("g", ["power", "emax"])
def test_the_dose_curve_ranges_validate_for_their_own_curve(g):
    curve = [f for f in families.get("dose").fields if f.name.startswith("g_")]
    assert problems(curve, DoseSettings(g=g)) == []


def test_a_range_outside_validation_is_named():
    wide = Field("tau", "tau", "Cost limit τ", 0.0, 2.0, 0.05)
    (problem,) = problems([wide], DoseSettings())
    assert problem.startswith("tau = 0 (an end of its control's range) does not validate") and "tau must be" in problem


def test_defaults_that_do_not_validate_are_named():
    assert problems([], DoseSettings(T=0))[0].startswith("the defaults do not validate: T must be")


def test_a_field_checks_its_own_declaration():
    with pytest.raises(ValueError, match="widget"):
        Field("T", "T", "Rounds T", 1, 10, 1, widget="dial")
    with pytest.raises(ValueError, match="empty"):
        Field("T", "T", "Rounds T", 10, 1, 1)
    assert Field("T", "T", "Horizon", 1, 10, 1, unit="rounds").shown_label == "Horizon (rounds)"


def test_the_toy_familys_fields_agree_with_its_validation():
    from tests.toy import FAMILY, ToySettings

    assert FAMILY.fields and problems(FAMILY.fields, ToySettings()) == []


def test_given_settings_unset_values_and_a_second_control_of_one_field():
    from safebandit_core.conservative import ConservativeSettings

    L = Field("L", "L", "Bound L on ‖x‖", 0.1, 10.0, 0.1)
    (problem,) = problems([L], ConservativeSettings())
    assert problem.startswith("L = 10 ") and "lam must be >= max(1, L²) = 100" in problem
    assert problems([dataclasses.replace(L, given={"lam": 100.0})], ConservativeSettings()) == []
    S = Field("S", "S", "Bound S", 0.0, 100.0, 0.1, unset=0.0)
    assert S.value(0.0) is None and S.value(0.5) == 0.5 and problems([S], ConservativeSettings()) == []
    K_lin = Field("K_lin", "K_lin", "K (arms)", 2, 62, 1, widget="integer", setting="K", given={"problem": "clb"})
    assert K_lin.target == "K" and problems([K_lin], ConservativeSettings()) == []
