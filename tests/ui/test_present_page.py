"""Presentation mode through AppTest: each model's headline from its run, the audience's names, ?present=1 on any
page, and the expert switch that hides and shows the compute settings."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from safebandit_core import device, families, scenarios
from safebandit_core.scenarios import Names
from safebandit_ui import shell, store
from tests.ui.helpers import app, charts

pytestmark = pytest.mark.usefixtures("fresh_module_caches")
PAGE = shell.PRESENT_PAGE


def present(state: dict | None = None, params: dict | None = None) -> AppTest:
    """The presentation page through the entry point, with widget values ``state`` and URL ``params``."""
    at = app(state)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page(PAGE).run()  # as the page's address opens it
    assert not at.exception, [e.message for e in at.exception]
    return at


def headline(at: AppTest) -> str:
    return at.get_by_key("present_headline").markdown[0].value


def expected(kind: str, names: Names = Names()) -> str:
    """The headline of the model's first scenario, computed from the run the page stored."""
    scenario = scenarios.of_kind(kind)[0]
    s = scenario.settings(0, device.default_precision(device.default_device_id()))
    hit = store.store().peek(store.key_of(s, device.default_device_id()))
    assert hit is not None, "the page's run is in the shared store"
    model = scenarios.models()[kind]
    _, summary = scenarios.audience(families.tidy(hit.value), families.summary(hit.value), model, scenario, names)
    return model.headline(s, summary, names)


def test_each_model_shows_its_headline_and_four_panels():
    at = present()
    assert at.query_params["model"] in ("dose", ["dose"])
    for kind in scenarios.models():
        at.segmented_control(key="present_model").set_value(kind).run()
        assert not at.exception, [e.message for e in at.exception]
        assert headline(at) == expected(kind)
        assert len([k for k in charts(at) if k.startswith(f"present_{kind}_")]) == 4
        notes = " ".join(m.value for m in at.get_by_key("present_notes").markdown)
        assert "In this run:" in notes
        assert scenarios.models()[kind].paper in at.get_by_key("present_notes").caption[0].value


def test_the_audiences_names_reach_the_headline_and_the_axes():
    names = {"name_round": "visit", "name_effect": "nausea score", "name_limit": "ceiling", "name_dose_unit": "ml"}
    at = present(names)
    want = Names(round="visit", effect="nausea score", limit="ceiling", dose_unit="ml")
    assert headline(at) == expected("dose", want)
    assert headline(at).startswith("Nausea score above the ceiling") and "5 runs × 4,000 visits" in headline(at)
    assert "new rule (HPC-UCB)" in headline(at) and "ε-Greedy" not in headline(at), "a two-way story"
    at.text_input(key="name_new_rule").input("Dr Lee's rule").run()
    assert "Dr Lee's rule (HPC-UCB) " in headline(at)
    legend = [t["name"] for t in charts(at)["present_dose_regret"]["data"] if t.get("showlegend") is not False]
    assert legend == ["Dr Lee's rule (HPC-UCB)", "usual rule (On-Expectation)"]
    regret = charts(at)["present_dose_regret"]["layout"]
    assert any("not a better rule" in a["text"] for a in regret["annotations"]), "the negative regret is explained"
    bars = charts(at)["present_dose_violations"]["data"][0]["x"]
    assert all("(" in b.split("<br>")[1] for b in bars), bars
    dose = charts(at)["present_dose_dose"]["layout"]
    assert dose["yaxis"]["title"]["text"] == "dose (ml)" and dose["xaxis"]["title"]["text"] == "visit t"
    assert "nausea score" in charts(at)["present_dose_spread"]["layout"]["xaxis"]["title"]["text"]
    at.segmented_control(key="present_scenario_dose").set_value("generous-limit").run()
    assert at.query_params["scenario"] in ("generous-limit", ["generous-limit"])
    assert headline(at).startswith("Nausea score above the ceiling (1.5)")


def notes(at: AppTest) -> str:
    return "\n".join(w.value for w in at.warning)


def test_an_unknown_model_in_the_link_is_named_with_the_model_shown():
    at = present(params={"model": "no_such_model"})
    first = next(iter(scenarios.models().values()))
    assert ("Ignored `model=no_such_model` from the link: presentation mode has no such model; showing "
            f"**{first.title}**.") in notes(at)
    assert at.query_params["model"] in (first.kind, [first.kind])


def test_an_unknown_scenario_in_the_link_is_named_with_the_scenario_shown():
    at = present(params={"model": "dose", "scenario": "no-such-scenario"})
    shown = scenarios.of_kind("dose")[0]
    model = scenarios.models()["dose"]
    assert (f"Ignored `scenario=no-such-scenario` from the link: {model.title} has no such scenario; showing "
            f"**{shown.title}**.") in notes(at)
    assert at.segmented_control(key="present_scenario_dose").value == shown.key
    at.run()
    assert "no-such-scenario" not in notes(at)  # the page wrote the scenario it shows into the link: named once


def test_present_on_any_page_switches_to_its_model_and_exit_returns():
    """?present=1 on the dose page opens the dose model's screen (even after another model was on it)."""
    at = app({"T": 1000, "present_model": "meanvar"}).run()
    at.query_params[shell.PRESENT_KEY] = "1"
    at.switch_page("pages/dose.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert headline(at) == expected("dose")
    next(b for b in at.button if b.label == "Exit").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.toggle(key=shell.PRESENT_KEY).value is False
    assert at.title[0].value == "Dose model: safe by design" and "regret" in charts(at)


def test_present_on_a_page_carries_the_link_and_names_what_the_screen_does_not_use():
    """?present=1 with a model page's settings: the presentation screen keeps the link's scenario and names the
    setting it has no control for, instead of dropping both without a word."""
    at = app().run()
    scenario = scenarios.of_kind("dose")[1]
    for key, value in ((shell.PRESENT_KEY, "1"), ("scenario", scenario.key), ("tau", "0.3")):
        at.query_params[key] = value
    at.switch_page("pages/dose.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert (at.query_params["model"], at.query_params["scenario"]) == ("dose", scenario.key)
    assert "Ignored `tau=0.3` from the link: it is not a setting of this page." in notes(at)
    assert headline(at)


def test_expert_switch_hides_and_shows_the_compute_settings():
    """Hidden, the compute widgets are still drawn (keys, values and URL binding as before) but not shown."""
    at = app().run()
    hidden = lambda: any(shell.HIDE_COMPUTE in h.proto.body for h in at.get("html"))
    assert hidden()
    at.toggle(key=shell.EXPERT_KEY).set_value(True).run()
    assert not hidden()
    at.number_input(key=shell.SEED_KEY).set_value(4).run()
    at.toggle(key=shell.EXPERT_KEY).set_value(False).run()
    assert hidden() and at.number_input(key=shell.SEED_KEY).value == 4
    assert "base seed 4" in " ".join(c.value for c in at.sidebar.caption)
    at.switch_page(PAGE).run()
    assert not at.exception, [e.message for e in at.exception]
    s = scenarios.of_kind("dose")[0].settings(4, device.default_precision(device.default_device_id()))
    assert store.store().peek(store.key_of(s, device.default_device_id())) is not None, "the hidden seed was used"
