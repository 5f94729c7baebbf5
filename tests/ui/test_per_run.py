"""What a page derives from a finished run (its tidy frame, its figures) is built once per run and shared: a reload
rebuilds nothing and shows the same charts; pins are drawn on copies, so the shared figures stay clean."""

from __future__ import annotations

import pytest

from safebandit_core.memo import Memo
from safebandit_ui import pagekit
from tests.ui.helpers import charts, open_page


@pytest.fixture(autouse=True)
def _fresh(fresh_caches):
    yield


class Run:
    """A stand-in for a finished run (only its identity matters)."""


def test_a_value_is_built_once_per_run_and_name_and_the_oldest_is_dropped(monkeypatch):
    memo = Memo(float("inf"), 2, measure=lambda entry: 0)
    monkeypatch.setattr(pagekit, "_per_run", lambda: memo)
    calls: list[str] = []

    def build(tag: str):
        calls.append(tag)
        return object()

    a, b, c = Run(), Run(), Run()
    first = pagekit.per_run(a, "figures", lambda: build("a"))
    assert pagekit.per_run(a, "figures", lambda: build("again")) is first
    assert pagekit.per_run(a, ("figures", "minmax"), lambda: build("a-minmax")) is not first
    pagekit.per_run(b, "figures", lambda: build("b"))
    assert calls == ["a", "a-minmax", "b"] and memo.made == 3
    pagekit.per_run(c, "figures", lambda: build("c"))  # three entries in a memo of two: the least recent goes
    pagekit.per_run(a, "figures", lambda: build("a, dropped"))
    assert calls[-1] == "a, dropped" and len(memo.keys()) == 2


def test_a_reload_rebuilds_no_figure_and_shows_the_same_charts():
    at = open_page("pages/dose.py")
    shown, built = charts(at), pagekit._per_run().made
    assert built >= 3  # the tidy frame, the main charts, the slack chart
    at.run()
    assert not at.exception
    assert pagekit._per_run().made == built, "a reload of the same run rebuilt what it shows"
    assert charts(at) == shown
    at.radio(key="band").set_value("minmax").run()
    assert pagekit._per_run().made == built + 1, "another band: the main charts once more, nothing else"
    assert charts(at)["regret"] != shown["regret"]
