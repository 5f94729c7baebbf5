"""Export and share a run: one zip bundle, and settings files recognised and validated on the way back in.

A bundle (:func:`bundle`) holds

- ``rounds/<name>.parquet``: the per-round tidy frames;
- ``summary.csv``: the summary rows;
- ``settings.json``: the settings that re-create the run (:func:`load_settings` reads them back);
- ``figures/<name>.html`` with one shared ``figures/plotly.min.js`` beside them (plotly's
  ``include_plotlyjs="directory"``): the figures open offline, and plotly.js (4.8 MB, 1.5 MB
  compressed) is stored once, not inlined into every figure (``include_plotlyjs=True``) nor fetched
  from a CDN (``"cdn"``, which needs a network to view);
- ``README.txt``: what each file is.

Settings files carry a ``kind``: ``dose``, ``conservative`` and ``mv`` (one model's settings),
``preset`` (:class:`~safebandit_core.presets.PresetRun`), ``sweep``
(:class:`~safebandit_core.sweep.SweepSpec`) or ``battery``
(:class:`~safebandit_core.data.experiment.BatteryReplaySettings`). A file without one is recognised by
its fields (one model's settings only).
"""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from collections.abc import Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from . import presets, sweep
from .conservative.mv_sim import MVSettings
from .conservative.sim import ConservativeSettings
from .data.experiment import BatteryReplaySettings, battery_settings
from .dose.sim import DoseSettings
from .settings import SettingsError, from_dict, to_dict

SETTINGS_FILE = "settings.json"
SUMMARY_FILE = "summary.csv"
KINDS: dict[str, type] = {
    "dose": DoseSettings,
    "conservative": ConservativeSettings,
    "mv": MVSettings,
    "preset": presets.PresetRun,
    "sweep": sweep.SweepSpec,
    "battery": BatteryReplaySettings,
}
# The app page that takes each kind back (its title in safebandit_ui/registry.py; the core never
# imports the UI, tests/test_export.py checks that the two agree).
PAGE_OF_KIND: dict[str, str] = {
    "dose": "Dose model",
    "conservative": "Conservative bandits",
    "mv": "Mean-variance bandits",
    "preset": "Synthetic experiments",
    "sweep": "Synthetic experiments",
    "battery": "Battery replay",
}


def settings_dict(settings: Any) -> dict[str, Any]:
    """The JSON-ready dict of any settings object of :data:`KINDS` (tagged with its ``kind``)."""
    if isinstance(settings, sweep.SweepSpec):
        return settings.to_dict()
    return to_dict(settings)


def _readme(frames: Mapping[str, pd.DataFrame], figures: Mapping[str, go.Figure], settings: Mapping[str, Any]) -> str:
    kind = settings.get("kind", "?")
    page = f"\"{PAGE_OF_KIND[kind]}\" page" if isinstance(kind, str) and kind in PAGE_OF_KIND else "page of this model"
    lines = [
        "safebandit export bundle",
        "",
        f"settings.json   the settings of this run (kind: {kind}); upload it on the app's {page},",
        "                or pass it to safebandit_core.export.load_settings, to re-create the run",
        "summary.csv     one row per policy, setting and metric (value, 95 % interval, the paper's value)",
    ]
    lines += [f"rounds/{name}.parquet   per-round tidy frame" for name in frames]
    lines += [f"figures/{name}.html   interactive figure (needs figures/plotly.min.js beside it)" for name in figures]
    return "\n".join(lines) + "\n"


def bundle(frames: Mapping[str, pd.DataFrame], summary: pd.DataFrame, settings: Mapping[str, Any],
           figures: Mapping[str, go.Figure]) -> bytes:
    """A zip of per-round Parquet frames, the summary CSV, the settings JSON and the figures as HTML."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(SETTINGS_FILE, json.dumps(dict(settings), indent=2, sort_keys=True))
        zf.writestr(SUMMARY_FILE, summary.to_csv(index=False))
        for name, frame in frames.items():
            out = io.BytesIO()
            frame.to_parquet(out, index=False)
            zf.writestr(f"rounds/{name}.parquet", out.getvalue())
        if figures:
            zf.writestr("figures/plotly.min.js", get_plotlyjs())
        for name, fig in figures.items():
            zf.writestr(f"figures/{name}.html", fig.to_html(include_plotlyjs="directory", full_html=True))
        zf.writestr("README.txt", _readme(frames, figures, settings))
    return buf.getvalue()


@dataclasses.dataclass
class Bundle:
    """A bundle read back: its settings dict, summary and per-round frames, and the names of its figures."""

    settings: dict[str, Any]
    summary: pd.DataFrame
    frames: dict[str, pd.DataFrame]
    figures: list[str]


def read_bundle(data: bytes) -> Bundle:
    """Open a bundle made by :func:`bundle`."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = zf.namelist()
        settings = json.loads(zf.read(SETTINGS_FILE).decode("utf-8"))
        summary = pd.read_csv(io.BytesIO(zf.read(SUMMARY_FILE)))
        frames = {n[len("rounds/"):-len(".parquet")]: pd.read_parquet(io.BytesIO(zf.read(n)))
                  for n in names if n.startswith("rounds/") and n.endswith(".parquet")}
        figures = [n[len("figures/"):-len(".html")] for n in names if n.startswith("figures/") and n.endswith(".html")]
    return Bundle(settings=settings, summary=summary, frames=frames, figures=figures)


def _guess_kind(data: Mapping[str, Any]) -> str:
    """The kind whose fields hold every key of ``data`` (exactly one must fit)."""
    if "preset" in data:
        return "preset"
    if "model" in data and "base" in data:
        return "sweep"
    keys = set(data)
    fits = [k for k in ("dose", "conservative", "mv")
            if keys <= {f.name for f in dataclasses.fields(KINDS[k])}]
    if len(fits) != 1:
        raise SettingsError("kind", "given: these settings could belong to "
                            + (" or ".join(fits) if fits else "no model") + "; add \"kind\": one of "
                            + ", ".join(KINDS))
    return fits[0]


def load_settings(data: bytes | str) -> tuple[str, Any]:
    """Recognise and validate a settings file: returns ``(kind, settings)``.

    ``data`` is the JSON text of a settings file, or a whole bundle (zip), whose ``settings.json``
    is read. Raises :class:`SettingsError` naming what is wrong (a malformed file included).
    """
    if isinstance(data, bytes) and data[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                data = zf.read(SETTINGS_FILE)
        except (zipfile.BadZipFile, KeyError):
            raise SettingsError("file", f"a bundle holding {SETTINGS_FILE}") from None
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        obj = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise SettingsError("file", f"a JSON settings file ({err})") from None
    if not isinstance(obj, dict):
        raise SettingsError("file", "one JSON object of settings")
    kind = obj.get("kind") or _guess_kind(obj)
    if kind not in KINDS:
        raise SettingsError("kind", "one of " + ", ".join(KINDS), kind)
    cls = KINDS[kind]
    try:
        if kind == "sweep":
            settings = cls.from_dict(obj)
        elif kind == "battery":
            settings = battery_settings(obj)
        else:
            settings = from_dict(cls, obj)
    except TypeError as err:
        raise SettingsError("file", f"valid {kind} settings ({err})") from None
    return kind, settings


MAX_BUNDLE_ROWS = 3_000_000


def preset_figures(result: presets.PresetResult) -> dict[str, go.Figure]:
    """The figures of a preset run in its paper's style (one per cell for seed 001's regret plots,
    plus a phase diagram of the final regret over a grid)."""
    from .viz import replay as vr

    preset = result.preset
    figs: dict[str, go.Figure] = {}
    if preset.figure == "violation_table":
        per_cell = result.cell_summary()
        paper = [(sweep.policy_label(preset.model, n.policy), n.low, n.high, n.text) for n in preset.paper_numbers
                 if n.metric == "violation_rate"]
        figs["violation_rates"] = vr.violation_table_figure(per_cell, float(per_cell["delta"].iloc[0]), paper=paper)
    elif preset.figure == "learning_curves":
        figs["learning_curves"] = vr.learning_curves_figure(result.curves())
    else:
        curves = result.curves()
        cells = result.cells()
        y_title = "T·R̃ (cumulative MV regret)" if preset.model == "mv" else "cumulative regret"
        base_name = "baseline (1 − α)·MV₀" if preset.model == "mv" else "baseline (1 − α)·μ₀"
        for _, row in cells.iterrows():
            figs[f"regret_{presets.slug(row['name'])}"] = vr.minmax_figure(
                curves, int(row["cell"]), row["baseline_slope"], y_title=y_title, baseline_name=base_name)
        if len(cells) > 1:
            figs.update(grid_figures(result))
    return figs


def grid_figures(result: presets.PresetResult) -> dict[str, go.Figure]:
    """Phase diagrams of a grid preset: final regret over its two main fields (one figure per ρ for MV-CBP)."""
    from .viz import replay as vr

    per_cell = result.cell_summary()
    fields = result.preset.cell_fields
    y, x = fields[0], fields[1]
    if len(fields) == 2:
        groups = [("grid_regret", "", per_cell)]
    else:
        third = fields[2]
        groups = [(f"grid_regret_{third}{v:g}", f", {sweep.SYMBOLS.get(third, third)} = {v:g}",
                   per_cell[per_cell[third] == v]) for v in sorted(per_cell[third].unique())]
    return {name: vr.heatmap_figure(part, x, y, "regret_mean", title=f"Cumulative regret at T over the grid{extra} "
                                    "(✗: the slack went below 0)", z_title="regret", x_title=sweep.SYMBOLS.get(x, x),
                                    y_title=sweep.SYMBOLS.get(y, y), fmt=".4g")
            for name, extra, part in groups}


def preset_bundle(result: presets.PresetResult, max_rows: int = MAX_BUNDLE_ROWS) -> bytes:
    """The bundle of a preset run. Above ``max_rows`` per-round rows, the per-round frames are replaced by
    the per-round mean, std, min and max over seeds (``rounds/curves.parquet``)."""
    frames = result.frames() if result.rows() <= max_rows else {"curves": result.curves(max_points=2000)}
    return bundle(frames, result.summary(), settings_dict(result.run), preset_figures(result))
