"""Every model page is the one renderer over its family's two entries (the core's and the app's): the page file is
one call, the spec resolves, every declared control has a place in the sidebar, and each control starts inside its
own range."""

from __future__ import annotations

import pytest

from safebandit_core import families
from safebandit_ui import model_page, registry
from safebandit_ui.registry import ROOT

MODEL_PAGES = [f for f in families.FAMILIES.values() if registry.entry(f.kind).spec]


def test_the_four_model_families_have_a_page_spec():
    assert {f.kind for f in MODEL_PAGES} == {"dose", "nonlinear", "conservative", "meanvar"}


@pytest.mark.parametrize("family", MODEL_PAGES, ids=lambda f: f.kind)
def test_a_model_page_is_one_call_of_the_renderer(family):
    source = (ROOT / registry.entry(family.kind).page).read_text()
    assert source.count("model_page.render(") == 1 and f'model_page.render(\n    "{family.kind}",' in source


@pytest.mark.parametrize("family", MODEL_PAGES, ids=lambda f: f.kind)
def test_every_control_has_a_section_and_starts_inside_its_range(family):
    spec = model_page.spec_of(family)
    assert isinstance(spec, model_page.Spec)
    assert set(spec.extras) <= set(spec.sidebar) and set(spec.collapsed) <= set(spec.sidebar)
    assert {f.section for f in family.fields if not f.expert} <= set(spec.sidebar)
    form = model_page.settings_form(family, spec)
    assert set(form.controls) == {f.name for f in family.fields}
    for name, control in form.controls.items():
        assert control.lo <= control.default <= control.hi, name
    assert form.int_fields == {f.name for f in family.fields if f.widget == "integer"}


def test_a_family_without_a_page_spec_is_named():
    with pytest.raises(ValueError, match="'battery' family has no page spec"):
        model_page.spec_of(families.get("battery"))
