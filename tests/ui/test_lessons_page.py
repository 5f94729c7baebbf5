"""The Lessons page through AppTest: every scene loads, draws its charts and its *what to notice* box, both steps.

The module shares one result store (module-scoped caches), so each scene's runs are computed once;
run with ``tests/core/test_lessons.py`` the compiled shapes are shared too.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from safebandit_core import lessons
from safebandit_ui import registry
from tests.ui.helpers import app, charts, open_page

PAGE = "pages/lessons.py"
pytestmark = pytest.mark.usefixtures("fresh_module_caches")


def notice(at) -> list[str]:
    """The lines of the *What to notice* box (the markdown element that follows its heading)."""
    texts = [m.value for m in at.markdown]
    i = texts.index("#### What to notice")
    return texts[i + 1].split("\n")


def test_the_page_is_registered_under_teach_before_about():
    spec = next(p for p in registry.PAGES if p.path == PAGE)
    assert (spec.title, spec.icon, spec.section) == ("Lessons", ":material/school:", "Teach")
    assert registry.SECTIONS.index("Teach") == registry.SECTIONS.index("About") - 1


@pytest.mark.parametrize("scene", lessons.scenes(), ids=lambda s: s.slug)
def test_each_scene_loads_with_its_charts_and_notice_box(scene):
    at = open_page(PAGE, {"scene": scene.slug})
    assert at.header[0].value == scene.title
    assert any(scene.paper in c.value for c in at.caption)
    assert any("The one control" in i.value for i in at.info)
    for step in (0, 1):
        if step:
            at.radio(key="step").set_value("moved").run()
            assert not at.exception, [e.message for e in at.exception]
        keys = set(charts(at))
        assert keys and all(k.startswith(f"{scene.slug}-") and k.endswith(f"-{step}") for k in keys)
        lines = notice(at)
        assert lines and all(line.startswith("- ") for line in lines)
        assert not any("Not on this run" in line for line in lines), lines


def test_the_address_opens_a_scene_at_a_step():
    at = app()
    at.query_params["scene"], at.query_params["step"] = "alpha", "moved"
    at.switch_page(PAGE).run()  # as the address opens the page
    assert not at.exception, [e.message for e in at.exception]
    assert at.header[0].value == lessons.by_slug()["alpha"].title
    assert at.radio(key="step").value == "moved"
    assert set(charts(at)) == {"alpha-pulls-1"}


def test_an_unknown_scene_in_the_address_is_named_with_the_scene_shown():
    at = app()
    at.query_params["scene"] = "no-such-scene"
    at.switch_page(PAGE).run()
    assert not at.exception, [e.message for e in at.exception]
    first = lessons.scenes()[0]
    assert ("Ignored `scene=no-such-scene` from the link: there is no such scene; showing "
            f"**1. {first.title}**.") in [w.value for w in at.warning][0]
    assert at.header[0].value == first.title


def test_the_dose_link_carries_the_scene_settings_under_the_dose_pages_keys():
    at = open_page(PAGE, {"scene": "delta"})
    link = at.get("page_link")[-1].proto
    assert link.page == "dose"
    params = parse_qsl(link.query_string)
    assert ("delta", "0.01") in params and ("tau", "0.3") in params and ("kappa_c", "0.5") in params
    assert [v for k, v in params if k == "policies"] == ["HPC-UCB", "On-Expectation"]


def test_the_non_linear_scene_links_to_the_non_linear_page_with_its_settings():
    at = open_page(PAGE, {"scene": "nonlinear-set"})
    link = at.get("page_link")[-1].proto
    assert link.page == "nonlinear"
    params = dict(parse_qsl(link.query_string))
    assert params["size"] == "64" and "kappa_c" in params
