"""The one download path: per-round CSV and Parquet, the settings JSON, and everything as one zip.

They sit in a collapsed *Save this run* box whose buttons are drawn only while it is open (a page load then costs
the browser ten elements fewer), and files are made only when their button is clicked. The zip is
:func:`safebandit_core.export.bundle`: per-round Parquet, the summary as CSV, the settings JSON, the figures as HTML
(they open offline), ``provenance.json`` (package and library versions, commit, device) and any extra JSON (pinned
runs).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import export

from . import pagekit, registry

ZIP_LABEL = "Everything (zip)"
SAVE_LABEL = "Save this run: per-round CSV or Parquet, the settings, everything as a zip"
SAVE_BOX = "{}save_box"
"""The key of a page's *Save this run* box (the page's key prefix in it); Streamlit keeps it open across reruns."""
ROUNDS_NAME = "per_round"


def zip_button(make: Callable[[], bytes], stem: str, key: str, container: Any = st) -> None:
    """The *Everything (zip)* button: ``make`` builds the bundle only when it is clicked."""
    container.download_button(ZIP_LABEL, make, f"{stem}.zip", "application/zip", on_click="ignore",
                              icon=":material/folder_zip:", key=key,
                              help="Per-round Parquet, the summary as CSV, the settings JSON, the figures as HTML "
                                   "(they open offline) and the versions and device that made them.")


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    """A frame as Parquet bytes."""
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


def downloads(settings: Any, frame: pd.DataFrame | Callable[[], pd.DataFrame], stem: str, key_prefix: str = "",
              summary: pd.DataFrame | None = None, figures: Callable[[], Mapping[str, go.Figure]] | None = None,
              extra: Callable[[], Mapping[str, Any]] | None = None, device: str = "", precision: str = "") -> None:
    """The *Save this run* box: per-round CSV and Parquet, settings JSON and the zip, saved as ``stem`` + extension;
    its buttons are drawn while it is open (:func:`.pagekit.lazy`)."""
    box = pagekit.lazy(SAVE_LABEL, SAVE_BOX.format(key_prefix), icon=":material/download:")
    if not box.open:
        return
    with box:
        rows = frame if callable(frame) else (lambda: frame)
        as_dict = export.settings_dict(settings)
        settings_json = json.dumps(as_dict, indent=2, sort_keys=True)
        page = registry.title_of_kind(as_dict.get("kind", ""))

        def everything() -> bytes:
            return export.bundle({ROUNDS_NAME: rows()}, summary if summary is not None else pd.DataFrame(),
                                 as_dict, dict(figures()) if figures else {}, page=page,
                                 extra=dict(extra()) if extra else None, device=device, precision=precision)

        cols = st.columns(4)
        cols[0].download_button("Per-round CSV", lambda: rows().to_csv(index=False), f"{stem}.csv", "text/csv",
                                on_click="ignore", icon=":material/table:", key=f"{key_prefix}dl_csv")
        cols[1].download_button("Per-round Parquet", lambda: parquet_bytes(rows()), f"{stem}.parquet",
                                "application/vnd.apache.parquet", on_click="ignore", icon=":material/dataset:",
                                key=f"{key_prefix}dl_parquet")
        cols[2].download_button("Settings JSON", settings_json, f"{stem}.json", "application/json",
                                on_click="ignore", icon=":material/settings:", key=f"{key_prefix}dl_json")
        zip_button(everything, stem, f"{key_prefix}dl_zip", cols[3])
        st.caption("Upload the settings JSON (or the zip) under *Restore a run* to recreate this run exactly (same "
                   "base seed).")
