"""What the AppTest tests share: the entry point, opening a page through it, and reading what a page shows."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.testing.v1 import AppTest

from safebandit_core import export
from safebandit_ui import downloads, forms, plot

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TIMEOUT = 120


def cleared_caches() -> Iterator[None]:
    """Empty st.cache_data / st.cache_resource around a test (AppTest shares them across instances in a process)."""
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


def app(state: Mapping[str, Any] | None = None, timeout: int = TIMEOUT) -> AppTest:
    """``app.py`` under AppTest, not yet run, with the widget values in ``state`` set."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in (state or {}).items():
        at.session_state[key] = value
    return at


def open_page(page: str, state: Mapping[str, Any] | None = None, timeout: int = TIMEOUT) -> AppTest:
    """``page`` reached through the entry point (run first), with the widget values in ``state``; no exception."""
    at = app(state, timeout)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def lazy_boxes(at: AppTest) -> list[str]:
    """The keys of the page's collapsed boxes whose contents are drawn only while open (``pagekit.lazy``)."""
    return [e.proto.id.split("-", 2)[2] for e in at.expander if e.proto.id]


def open_boxes(at: AppTest, *keys: str) -> AppTest:
    """``at`` rerun with the collapsed boxes ``keys`` open (each must be on the page); no exception."""
    missing = set(keys) - set(lazy_boxes(at))
    assert not missing, f"no such box on the page: {sorted(missing)}"
    for key in keys:
        at.session_state[key] = True
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def opened(at: AppTest, *keys: str) -> AppTest:
    """``at`` with the collapsed boxes ``keys`` open: rerun with those still closed (:func:`open_boxes`), if any."""
    closed = [k for k in keys if not (k in at.session_state and at.session_state[k])]
    return open_boxes(at, *closed) if closed else at


def uploader(at: AppTest, key: str) -> Any:
    """The file uploader ``key``, its collapsed box (*Restore a run*: ``forms.RESTORE_BOX``) opened first if it has
    one."""
    opened(at, *[k for k in lazy_boxes(at) if k == forms.RESTORE_BOX.format(key)])
    return at.file_uploader(key=key)


def sent(at: AppTest) -> dict[str, str]:
    """The JSON of every plotly figure on the page, by its key: Streamlit's plotly element (``st.plotly_chart``) and
    the app's own (:mod:`safebandit_ui.plot`, which sends the figure's JSON in its data)."""
    out = {el.key: el.proto.spec for el in at.get("plotly_chart")}
    for el in at.get("bidi_component"):
        if el.proto.component_name == plot.NAME:
            out[el.key] = json.loads(el.proto.json)["spec"]
    return out


def charts(at: AppTest) -> dict[str, dict]:
    """Plotly figures on the page by their key, as JSON (:func:`sent`, parsed)."""
    return {key: json.loads(text) for key, text in sent(at).items()}


def array(value) -> np.ndarray:
    """A plotly JSON array (a list, or plotly's typed ``{"dtype", "bdata"}`` form) as numpy."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value)


def errors(at: AppTest) -> list[str]:
    """Text of every st.error element."""
    return [e.value for e in at.error]


def warnings(at: AppTest) -> list[str]:
    """Text of every st.warning element."""
    return [w.value for w in at.warning]


def download_labels(at: AppTest) -> set[str]:
    """Labels of every download button on the page, its *Save this run* box opened first (its buttons are drawn only
    while it is open)."""
    suffix = downloads.SAVE_BOX.format("")
    opened(at, *[k for k in lazy_boxes(at) if k.endswith(suffix)])
    return {b.proto.label for b in at.get("download_button")}


def bundle_of(s, summary: pd.DataFrame | None = None) -> bytes:
    """A zip as *Everything (zip)* makes it, holding settings ``s`` (a tiny frame stands in for the rounds)."""
    return export.bundle({"per_round": pd.DataFrame({"t": [1]})}, pd.DataFrame() if summary is None else summary,
                         export.settings_dict(s), {})
