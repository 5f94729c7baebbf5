"""The "Your data" page through AppTest, reached from app.py: the built-in example, an uploaded log, names and units,
every kind of bad upload as an error (no traceback, no state left), and a settings restore.

Runs use d = 5, T = 2000 and 3 seeds, the shape tests/logged/test_replay.py compiles too.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from safebandit_core import logged
from safebandit_core.settings import to_json
from tests.core.test_uploads import lying, patch, zipped
from tests.logged.planted import csv_bytes, planted
from tests.ui.helpers import charts, download_labels, errors, open_page, uploader

PAGE = "pages/logged.py"
TIMEOUT = 180
FIT_CHARTS = {"fit_plot", "residuals"}
REPLAY_CHARTS = {"regret", "violations", "cost", "safe"}
SHELL_KEYS = {"device", "precision", "base_seed", "expert", "present"}
PLAIN = (str, int, float, bool, list, tuple, type(None))
pytestmark = pytest.mark.usefixtures("fresh_module_caches")


def page(**state) -> AppTest:
    return open_page(PAGE, {"yd_T": 2000, **state}, TIMEOUT)


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    uploader(at, "yd_upload").upload(name, data, "text/csv").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [w.value for w in at.warning])


def test_the_built_in_example_is_fitted_and_replayed() -> None:
    at = page()
    assert not errors(at), errors(at)
    assert FIT_CHARTS | REPLAY_CHARTS <= set(charts(at))
    labels = {m.label: m.value for m in at.metric}
    assert labels["Context dimension d"] == "5"
    words = texts(at)
    # the metric, the caption and the note give the same counts: rows below min_g are read, not fitted
    left = next(w.value for w in at.warning if "left out of the fit" in w.value).split()[0]
    fitted = 3000 - int(left.replace(",", ""))
    assert labels["Rows fitted"] == f"{fitted:,}"
    assert (f"3,000 rows in the file: 0 dropped for missing or infinite values, {left} left out of the fit "
            f"(g(dose) below 0.05), {fitted:,} fitted; 3,000 replayed.") in words
    assert "SYNTHETIC" in words and "of the logged rounds had a side effect above τ" in words
    assert at.markdown[0].value.startswith("Bring a log"), "a stray string was drawn before the page's text"
    assert "Ran on" in words and "2,000 rounds × 3 seeds × 3 policies" in words and logged.NOISE_NOTE in words
    assert {"Per-round CSV", "Settings JSON", "Everything (zip)"} <= download_labels(at)
    at.run()
    assert any("already computed on this server" in c.value for c in at.caption)


def test_an_uploaded_log_is_mapped_named_and_replayed() -> None:
    at = upload(page(yd_source="upload"), "planted.csv", csv_bytes(planted(2000).frame))
    assert not errors(at), errors(at)
    assert at.multiselect(key="yd_context").value == ["x1", "x2", "x3", "x4"]
    assert (at.selectbox(key="yd_dose").value, at.selectbox(key="yd_cost").value) == ("dose", "side_effect")
    assert FIT_CHARTS | REPLAY_CHARTS <= set(charts(at))
    assert "2,000 rows in the file: 0 dropped" in texts(at)
    at.text_input(key="yd_cost_name").input("toxicity").run()
    at.text_input(key="yd_cost_unit").input("grade").run()
    assert not at.exception and "had a toxicity (grade) above τ" in texts(at)
    shown = charts(at)
    assert shown["cost"]["layout"]["yaxis"]["title"]["text"] == "toxicity (grade)"
    assert any("already computed" in c.value for c in at.caption), "a new name recomputed the replay"


@pytest.mark.parametrize(("name", "data", "state", "words"), [
    ("binary.csv", bytes(range(256)) * 8, {}, "binary data"),
    ("empty.csv", b"", {}, "an empty file"),
    ("settings.csv", to_json(logged.LoggedSettings()).encode(), {}, "looks like a JSON file; upload CSV or Parquet"),
    ("mg.csv", csv_bytes(planted(400).frame.assign(dose=lambda f: 500 * f["dose"])), {}, "min–max scaling"),
    ("holes.csv", csv_bytes(planted(400).frame.assign(x1="n/a")), {}, "every mapped column has a value"),
    ("text.csv", csv_bytes(planted(400).frame.astype({"side_effect": object}).assign(
        side_effect=lambda f: f["side_effect"].where(f.index != 5, "mild"))), {"yd_cost": "side_effect"},
     "**Side-effect column** must be numbers: column 'side_effect' has 'mild' in row 6"),
])
def test_a_bad_upload_is_an_error_and_leaves_nothing_behind(name, data, state, words) -> None:
    at = upload(page(yd_source="upload", **state), name, data)
    assert any(words in e for e in errors(at)), errors(at)
    assert not REPLAY_CHARTS & set(charts(at))
    for key, value in at.session_state.items():
        assert key.startswith("yd_") or key in SHELL_KEYS or key.startswith("$$"), key
        assert key == "yd_upload" or isinstance(value, PLAIN), (key, type(value))
    at = upload(at, "planted.csv", csv_bytes(planted(2000).frame))
    assert not errors(at) and REPLAY_CHARTS <= set(charts(at))


def test_the_mapping_can_be_wrong_and_put_right() -> None:
    at = upload(page(yd_source="upload"), "planted.csv", csv_bytes(planted(2000).frame))
    at.selectbox(key="yd_reward").select("dose").run()
    assert not at.exception and any("**Benefit column** must be a column not used twice" in e for e in errors(at))
    at.selectbox(key="yd_reward").select("benefit").run()
    assert not errors(at) and REPLAY_CHARTS <= set(charts(at))


def test_a_settings_file_restores_the_mapping_rule_and_names() -> None:
    at = page()
    saved = logged.LoggedSettings(T=2000, tau=0.3, cost_name="toxicity", context=("age", "weight", "severity", "day"),
                                  fit_lam=0.1)
    uploader(at, "yd_restore").upload("settings.json", to_json(saved).encode(), "application/json").run()
    assert not at.exception and not errors(at), errors(at)
    assert at.slider(key="yd_tau").value == pytest.approx(0.3)
    assert at.multiselect(key="yd_context").value == ["age", "weight", "severity", "day"]
    assert at.text_input(key="yd_cost_name").value == "toxicity" and "had a toxicity above τ" in texts(at)
    assert "At τ = 0.3," in texts(at) and REPLAY_CHARTS <= set(charts(at))
    assert "Ridge λ = 0.1 (benefit) and 0.1 (side effect)" in texts(at), "a setting without a widget was lost"


HOSTILE = [
    ("lying.zip", lambda: lying("data.json", 3 * 10**6), "yd_upload", "its headers say 200 bytes, it holds 3 MB"),
    ("crc.zip", lambda: patch(zipped("data.json", b"{}"), 14, 16, "<I", 0xDEADBEEF), "yd_upload",
     "is damaged (CRC mismatch)"),
    ("locked.zip", lambda: patch(zipped("data.json", b"{}"), 6, 8, "<H", 1), "yd_upload", "is encrypted"),
    ("odd.zip", lambda: patch(zipped("data.json", b"{}"), 8, 10, "<H", 99), "yd_upload", "compression method 99"),
    ("cut.zip", lambda: bytes(zipped("data.json", b"{}"))[:40], "yd_upload", "cannot be read as a zip"),
    ("run.zip", lambda: lying("settings.json", 3 * 10**6), "yd_restore", "inflates to more than 1 MB"),
    ("run.zip", lambda: patch(zipped("settings.json", b"{}"), 14, 16, "<H", 1), "yd_restore", "is damaged"),
    ("big.json", lambda: b'{"kind": "logged", "T": ' + b"9" * 5000 + b"}", "yd_restore",
     'a number with more than 4,300 digits (in "T")'),
]


@pytest.mark.parametrize(("name", "make", "key", "words"), HOSTILE, ids=[f"{c[2]}-{c[0]}-{c[3][:12]}" for c in HOSTILE])
def test_a_hostile_upload_is_one_message_naming_the_file(name, make, key, words) -> None:
    at = page(yd_source="upload")
    uploader(at, key).upload(name, make(), "application/zip").run()
    assert not at.exception, [e.message for e in at.exception]
    (error,) = errors(at)
    assert error.startswith(name) and words in error and len(error) < 300, error


def test_a_latin1_log_is_read_and_the_page_says_in_which_encoding() -> None:
    frame = planted(2000).frame.rename(columns={"side_effect": "toxicité"})
    at = upload(page(yd_source="upload"), "excel.csv", frame.to_csv(index=False).encode("latin-1"))
    assert not errors(at), errors(at)
    caption = next(c.value for c in at.caption if c.value.startswith("excel.csv: 2,000 rows"))
    assert ", read as CSV text in Latin-1, content hash" in caption
    assert "toxicité" in at.selectbox(key="yd_cost").options
