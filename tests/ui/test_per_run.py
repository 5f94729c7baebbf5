"""What a page derives from a finished run (its tidy frame, its figures) is built once per run and shared: a reload
rebuilds nothing and shows the same charts; pins are drawn on copies, so the shared figures stay clean."""

from __future__ import annotations

import pytest

from safebandit_core.memo import Memo
from safebandit_core.viz.common import NARROW_FROM
from safebandit_ui import model_page, pagekit
from tests.ui.helpers import array, charts, open_page, sent


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


OPEN = {"dose_slack_box": True, "dose_round_box": True}
"""The dose page's secondary sections, open, so that every chart it can show is drawn."""


def test_a_reload_rebuilds_no_figure_and_shows_the_same_charts():
    at = open_page("pages/dose.py", OPEN)
    shown, built = charts(at), pagekit._per_run().made
    assert built >= 3  # the tidy frame, the main charts, the slack chart
    at.run()
    assert not at.exception
    assert pagekit._per_run().made == built, "a reload of the same run rebuilt what it shows"
    assert charts(at) == shown
    at.radio(key="band").set_value("minmax").run()
    assert pagekit._per_run().made == built + 1, "another band: the main charts once more, nothing else"
    assert charts(at)["regret"] != shown["regret"]


PAGE_BYTES = 480_000
"""The dose page's charts together, default settings (float64 arrays sent them as about 710 kB)."""


@pytest.mark.usefixtures("inline_scrub")
def test_a_chart_is_encoded_once_and_sent_as_float32():
    at = open_page("pages/dose.py", OPEN)
    encoded = pagekit._serialised().made
    specs = sent(at)
    at.run()
    assert not at.exception
    assert pagekit._serialised().made == encoded, "a reload encoded a shared chart again"
    assert sent(at) == specs
    arrays: list[tuple[str, str, int]] = []

    def walk(key, v):
        if isinstance(v, dict) and "bdata" in v:
            arrays.append((key, v["dtype"], array(v).size))
        elif isinstance(v, dict | list):
            for x in v.values() if isinstance(v, dict) else v:
                walk(key, x)

    drawn = {k: v for k, v in charts(at).items() if k != "g_curve"}  # the sidebar's small curve: the page's own call
    assert {"regret", "violations", "cost", "safe", "slack", "cost_distribution", "scrub"} <= set(drawn)
    for key, spec in drawn.items():
        walk(key, spec)
    assert not [a for a in arrays if a[1] == "f8" and a[2] >= NARROW_FROM]
    assert {key for key, dtype, _ in arrays if dtype == "f4"} >= {"regret", "cost", "safe", "slack", "scrub"}
    assert sum(len(s) for s in specs.values()) < PAGE_BYTES


def test_a_serialised_figure_is_the_figure_as_compact_writes_it():
    import numpy as np
    import plotly.graph_objects as go

    from safebandit_core.viz.common import compact

    fig = go.Figure(go.Scatter(x=np.arange(5), y=np.linspace(0.0, 1.0, 5)))
    sent = pagekit.serialised(fig, keep=False)
    assert sent.to_dict() == compact(fig.to_dict()) and pagekit.serialised(sent) is sent


def test_a_figure_set_builds_each_chart_once_and_only_when_asked():
    import plotly.graph_objects as go

    calls: list[str] = []
    figs = model_page.Figures(a=lambda: calls.append("a") or go.Figure(), b=lambda: calls.append("b") or go.Figure())
    assert list(figs) == ["a", "b"] and len(figs) == 2 and calls == []
    drawn = model_page.shown({"a": None}, figs)
    assert list(drawn) == ["a"] and calls == ["a"], "a chart without a slot is not built"
    assert figs["a"] is drawn["a"] and calls == ["a"]
    assert set(dict(figs)) == {"a", "b"} and calls == ["a", "b"], "the downloads still get every chart"


def test_a_chart_asked_for_by_two_threads_at_once_is_built_once():
    """Computing ahead and the page that shows its run ask for the same chart at about the same moment: the second
    waits for the first's chart instead of building its own beside it."""
    import threading

    import plotly.graph_objects as go

    started, release, calls = threading.Event(), threading.Event(), []

    def build() -> go.Figure:
        calls.append(threading.get_ident())
        started.set()
        assert release.wait(10)
        return go.Figure()

    figs = model_page.Figures(a=build)
    got: list[go.Figure] = []
    first = threading.Thread(target=lambda: got.append(figs["a"]))
    first.start()
    assert started.wait(10)
    second = threading.Thread(target=lambda: got.append(figs["a"]))
    second.start()
    second.join(0.2)
    assert second.is_alive(), "the second asker waits while the first builds"
    release.set()
    first.join(10)
    second.join(10)
    assert len(calls) == 1 and len(got) == 2 and got[0] is got[1]


def test_a_charts_json_asked_for_by_two_threads_at_once_is_encoded_once(monkeypatch):
    """The JSON the chart element sends, asked for by computing ahead and by a page at once: encoded once."""
    import threading

    import plotly.graph_objects as go

    started, release, calls = threading.Event(), threading.Event(), []

    def encode(spec: dict) -> str:
        calls.append(1)
        started.set()
        assert release.wait(10)
        return "{}"

    monkeypatch.setattr(pagekit.plot, "encode", encode)
    made = pagekit.serialised(go.Figure(), keep=False)
    got: list[str] = []
    threads = [threading.Thread(target=lambda: got.append(made.text())) for _ in range(2)]
    threads[0].start()
    assert started.wait(10)
    threads[1].start()
    threads[1].join(0.2)
    assert threads[1].is_alive(), "the second asker waits while the first encodes"
    release.set()
    for t in threads:
        t.join(10)
    assert calls == [1] and got == ["{}", "{}"]
