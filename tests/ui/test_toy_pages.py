"""The toy family of the tests, registered, appears on the pages that iterate over the registry (the sweeps page)
with no other edit, and gets a model page from the one renderer (``tests/toy/page.py``: a title, a text, one call)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.toy import registered
from tests.ui.helpers import ROOT, TIMEOUT, array, charts, download_labels, errors, open_page

pytestmark = pytest.mark.usefixtures("fresh_caches")
TOY_SWEEP = {"sweep_kind": "toy", "sweep_T": 50, "sweep_seeds": 2, "sweep_toy_p0": "0.3, 0.4",
             "sweep_toy_p1": "0.6, 0.7"}


def test_the_sweeps_page_sweeps_a_registered_family():
    with registered():
        at = open_page("pages/sweeps.py", TOY_SWEEP)
        assert "Toy bandit (tests)" in at.selectbox(key="sweep_kind").options
        assert not errors(at)
        assert {"sweep_regret", "sweep_slack"} <= set(charts(at))
        assert len(at.table[0].value) == 4 * 2  # cells × policies


def test_the_toy_family_gets_a_model_page_from_the_one_renderer():
    with registered():
        at = AppTest.from_file(str(ROOT / "tests/toy/page.py"), default_timeout=TIMEOUT)
        at.session_state["T"], at.session_state["seeds"] = 60, 2
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        assert not errors(at)
        assert at.title[0].value == "Toy bandit"
        assert at.number_input(key="T").value == 60 and at.slider(key="p0").value == 0.4
        assert at.multiselect(key="policies").value == ["greedy", "first"]
        shown = charts(at)
        assert {"regret", "slack"} <= set(shown)
        assert [trace["name"] for trace in shown["regret"]["data"]] == ["Greedy", "Arm 0 only"]
        assert [array(trace["x"]).tolist() for trace in shown["slack"]["data"]] == [list(range(1, 61))] * 2
        assert any(m.value.startswith("Greedy: ") and "; Arm 0 only: " in m.value for m in at.markdown)
        assert {"Per-round CSV", "Everything (zip)"} <= download_labels(at)

        at.slider(key="p1").set_value(0.9).run()
        assert not at.exception and charts(at)["regret"] != shown["regret"]


def test_the_toy_family_gets_a_presentation_screen():
    """Its ``audience`` and its entry's ``panels``, both in its own folder: presentation mode offers it, with the
    headline its model computes and four panels."""
    with registered():
        at = open_page("pages/present.py", {"present_model": "toy"})
        assert not errors(at)
        headline = at.get_by_key("present_headline").markdown[0].value
        assert headline.startswith("In this run (150 patient-rounds × 3 runs) new rule (Greedy) lost the least")
        assert sorted(k for k in charts(at) if k.startswith("present_toy_")) == [
            "present_toy_loss", "present_toy_regret", "present_toy_reward", "present_toy_slack"]
        notes = " ".join(m.value for m in at.get_by_key("present_notes").markdown)
        assert "Greedy or staying on the default arm? In this run:" in notes and "its slack went as low as" in notes
