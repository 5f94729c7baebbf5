"""Eight first visits at once on a fresh plain ``streamlit run app.py`` (no warm-up): every page is drawn whole.

Each session's script runs in a thread of its own, so these visits import the library from eight threads at
once, each page its own modules; none may fail on a module another thread is importing (a deadlock between two
imports, a half-imported module: tests/core/test_import_race.py races the imports alone). Every visit must
finish its run without an exception element, and the server's log must hold no traceback.
"""

from __future__ import annotations

import pytest

from tests.ui import wsclient
from tests.ui.browserkit import serve

PAGES = ["dose", "nonlinear", "conservative", "meanvar", "logged", "present", "theory", "presets"]
FAILED = ("Traceback", "Error", "deadlock", "Exception")


@pytest.mark.slow
def test_eight_first_visits_at_once_on_a_fresh_plain_server(tmp_path):
    log = tmp_path / "server.log"
    with serve(log, {"SAFEBANDIT_WARMUP": "0"}, script="app.py") as url:  # safebandit_ui.warmup.OFF_ENV
        answers = wsclient.sessions(url, PAGES, timeout_s=240)
    text = log.read_text()
    assert [(a.page, a.exceptions) for a in answers if a.exceptions] == [], text[-6000:]
    assert [a.page for a in answers if not a.finished] == [], text[-3000:]
    assert all(a.elements >= 5 for a in answers), {a.page: a.elements for a in answers}
    assert not [w for w in FAILED if w in text], text[-3000:]
    print({a.page: (a.elements, round(a.seconds, 1)) for a in answers})
