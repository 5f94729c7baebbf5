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

Settings files carry a ``kind``: a family's (one model's settings, :data:`safebandit_core.families.FAMILIES`:
``dose``, ``nonlinear``, ``conservative``, ``meanvar``, ``battery``, ``logged``), ``preset``
(:class:`~safebandit_core.presets.PresetRun`) or ``sweep`` (:class:`~safebandit_core.sweep.SweepSpec`). A file
without one is recognised by its fields (one model's settings only); an older name of a family's kind (its
``aliases``: ``mv`` for ``meanvar``, ``gencb`` for ``conservative``) loads as that family's.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
import sys
import zipfile
from collections.abc import Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from . import families, presets, sweep, uploads
from .settings import SettingsError, from_dict, shorten, to_dict

SETTINGS_FILE = "settings.json"
SUMMARY_FILE = "summary.csv"
MAX_SETTINGS_BYTES = 1 * uploads.MB
MAX_BUNDLE_BYTES = 500 * uploads.MB
"""The most a bundle may inflate to, all members together (counted as they are read)."""
MAX_MEMBERS = uploads.MAX_MEMBERS
MAX_JSON_DEPTH = 20


def kinds() -> tuple[str, ...]:
    """Every settings kind a file may carry: each family's, then each tool's (``preset`` and ``sweep``)."""
    return (*families.FAMILIES, *families.TOOLS)


def settings_dict(settings: Any) -> dict[str, Any]:
    """The JSON-ready dict of any settings object (a family's, a preset run or a sweep), tagged with its ``kind``."""
    if isinstance(settings, sweep.SweepSpec):
        return settings.to_dict()
    return to_dict(settings)


def rerun_command(settings: Mapping[str, Any]) -> str | None:
    """The command line that runs a settings dict again (:func:`safebandit_core.cli.command_for`); None when the
    settings do not load or no command takes their kind."""
    from . import cli

    try:
        _, obj = load_settings(json.dumps(dict(settings), default=str))
    except SettingsError:
        return None
    return cli.command_for(obj, SETTINGS_FILE)


def _readme(frames: Mapping[str, pd.DataFrame], figures: Mapping[str, go.Figure], settings: Mapping[str, Any],
            page: str) -> str:
    kind = settings.get("kind", "?")
    command = rerun_command(settings)
    lines = [
        "safebandit export bundle",
        "",
        f"settings.json   the settings of this run (kind: {kind}); upload it on the app's {page} page",
        "                (under Restore a run) or pass it to safebandit_core.export.load_settings to re-create",
        "                the run" + (", or run it again with" if command else "")
        + (" (in the folder holding settings.json)" if command and SETTINGS_FILE in command else ""),
    ]
    if command:
        lines.append(f"                {command}")
    lines.append("summary.csv     one row per policy, setting and metric (value, 95 % interval, the paper's value)")
    lines += [f"rounds/{name}.parquet   per-round tidy frame" for name in frames]
    lines += [f"figures/{name}.html   interactive figure (needs figures/plotly.min.js beside it)" for name in figures]
    return "\n".join(lines) + "\n"


def provenance(device: str = "", precision: str = "") -> dict[str, Any]:
    """What produced a run: package and library versions, the commit when known, the device and precision."""
    import importlib.metadata as md
    import platform
    import subprocess
    from pathlib import Path

    from . import __version__

    versions = {}
    for name in ("jax", "jaxlib", "numpy", "pandas", "plotly", "streamlit", "scipy", "pyarrow"):
        try:
            versions[name] = md.version(name)
        except md.PackageNotFoundError:
            continue
    commit = None
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True,
                             text=True, timeout=2)
        commit = out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        commit = None
    return {"safebandit": __version__, "commit": commit, "python": platform.python_version(), "libraries": versions,
            "device": device, "precision": precision}


def bundle(frames: Mapping[str, pd.DataFrame], summary: pd.DataFrame, settings: Mapping[str, Any],
           figures: Mapping[str, go.Figure], page: str = "matching", extra: Mapping[str, Any] | None = None,
           device: str = "", precision: str = "") -> bytes:
    """A zip of per-round Parquet frames, the summary CSV, the settings JSON, the figures as HTML and
    ``provenance.json`` (versions, commit, device); ``extra`` adds more JSON files (e.g. pinned runs)."""
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
        zf.writestr("provenance.json", json.dumps(provenance(device, precision), indent=2, sort_keys=True))
        for name, obj in (extra or {}).items():
            zf.writestr(f"{name}.json", json.dumps(obj, indent=2, sort_keys=True, default=str))
        zf.writestr("README.txt", _readme(frames, figures, settings, page))
    return buf.getvalue()


@dataclasses.dataclass
class Bundle:
    """A bundle read back: its settings dict, summary and per-round frames, and the names of its figures."""

    settings: dict[str, Any]
    summary: pd.DataFrame
    frames: dict[str, pd.DataFrame]
    figures: list[str]


def _open(data: bytes, name: str) -> zipfile.ZipFile:
    """Open a zip after checking its members' count and the sizes they state (the sizes are checked again, by
    counting, as each member is read: :func:`~safebandit_core.uploads.read_member`)."""
    zf = uploads.open_zip(data, name, "file", MAX_MEMBERS)
    total = sum(i.file_size for i in zf.infolist())
    if total > MAX_BUNDLE_BYTES:
        zf.close()
        raise uploads.UploadError("file", f"{shorten(name)} inflates to {uploads.format_size(total)}; a bundle may "
                                          f"hold at most {uploads.format_size(MAX_BUNDLE_BYTES)}")
    return zf


def read_bundle(data: bytes, name: str = "the bundle") -> Bundle:
    """Open a bundle made by :func:`bundle`: every member inflated under a cap, at most :data:`MAX_BUNDLE_BYTES` in
    all, whatever the headers say."""
    left = MAX_BUNDLE_BYTES

    def read(member: str, cap: int) -> bytes:
        nonlocal left
        out = uploads.read_member(zf, member, name, min(cap, left))
        left -= len(out)
        return out

    with _open(data, name) as zf:
        names = zf.namelist()
        settings = parse_json(read(SETTINGS_FILE, MAX_SETTINGS_BYTES), f"{name}: {SETTINGS_FILE}")
        summary = pd.read_csv(io.BytesIO(read(SUMMARY_FILE, left)))
        frames = {n[len("rounds/"):-len(".parquet")]: pd.read_parquet(io.BytesIO(read(n, left)))
                  for n in names if n.startswith("rounds/") and n.endswith(".parquet")}
        figures = [n[len("figures/"):-len(".html")] for n in names if n.startswith("figures/") and n.endswith(".html")]
    return Bundle(settings=settings, summary=summary, frames=frames, figures=figures)


def _depth(obj: Any, limit: int) -> int:
    """Nesting depth of a parsed JSON value, stopping once past ``limit``."""
    stack, deepest = [(obj, 1)], 0
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((c, d + 1) for c in children)
    return deepest


def _long_number(text: str, name: str) -> uploads.UploadError:
    """The error for a JSON integer longer than Python converts, naming the setting that holds it when it can."""
    limit = sys.get_int_max_str_digits()
    found = re.search(rf'"((?:[^"\\]|\\.){{1,200}})"\s*:\s*\[?\s*-?\d{{{limit + 1}}}', text)
    where = f" (in \"{shorten(found.group(1))}\")" if found else ""
    return uploads.UploadError("file", f"{shorten(name)}: a number with more than {limit:,} digits{where}; "
                                       "no setting takes one that long")


def parse_json(data: bytes | str, name: str = "the settings file") -> dict[str, Any]:
    """One JSON object of settings, at most :data:`MAX_SETTINGS_BYTES` and :data:`MAX_JSON_DEPTH` levels deep;
    ``name`` (the file's) begins the message of a number too long to read."""
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > MAX_SETTINGS_BYTES:
        raise uploads.too_big("file", shorten(name), size, MAX_SETTINGS_BYTES, "a settings file")
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        obj = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise SettingsError("file", f"a JSON settings file ({str(err)[:80]})") from None
    except ValueError:  # an integer past sys.get_int_max_str_digits()
        raise _long_number(text, name) from None
    if not isinstance(obj, dict):
        raise SettingsError("file", "one JSON object of settings")
    if _depth(obj, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise SettingsError("file", f"a settings file nested at most {MAX_JSON_DEPTH} levels deep")
    return obj


def _guess_kind(data: Mapping[str, Any]) -> str:
    """The kind whose fields hold every key of ``data`` (exactly one must fit)."""
    if "preset" in data:
        return "preset"
    if "model" in data and "base" in data:
        return "sweep"
    keys = set(data)
    names = {k: {x.name for x in dataclasses.fields(f.settings_cls)} for k, f in families.FAMILIES.items()}
    fits = [k for k, n in names.items() if keys <= n]
    if len(fits) > 1:  # files without a kind predate the tag: they come from the kinds that existed then
        fits = [k for k in fits if families.FAMILIES[k].untagged] or fits
    if len(fits) != 1:
        raise SettingsError("kind", "given: these settings could belong to "
                            + (" or ".join(fits) if fits else "no model") + "; add \"kind\": one of "
                            + ", ".join(kinds()))
    return fits[0]


def load_settings(data: bytes | str, name: str = "the settings file") -> tuple[str, Any]:
    """Recognise and validate a settings file: returns ``(kind, settings)``.

    ``data`` is the JSON text of a settings file, or a whole bundle (zip), whose ``settings.json``
    is read (inflated under a cap, whatever its headers say). Raises :class:`SettingsError` naming what is
    wrong (a malformed file, an oversized or too deeply nested one, a zip bomb, a damaged zip, included);
    an :class:`~safebandit_core.uploads.UploadError` about the file itself names it by ``name``.
    """
    if isinstance(data, bytes) and data[:2] == b"PK":
        with _open(data, name) as zf:
            data = uploads.read_member(zf, SETTINGS_FILE, name, MAX_SETTINGS_BYTES)
        name = f"{name}: {SETTINGS_FILE}"
    obj = parse_json(data, name)
    kind = families.canonical(obj.get("kind") or _guess_kind(obj))
    if kind not in kinds():
        raise SettingsError("kind", "one of " + ", ".join(kinds()), kind)
    try:
        if kind in families.TOOLS:
            cls = families.TOOLS[kind].settings_cls
            settings = cls.from_dict(obj) if hasattr(cls, "from_dict") else from_dict(cls, obj)
        else:
            settings = families.get(kind).from_dict(obj)
    except TypeError as err:
        raise SettingsError("file", f"valid {kind} settings ({err})") from None
    return kind, settings


MAX_BUNDLE_ROWS = 3_000_000


def preset_figures(result: presets.PresetResult) -> dict[str, go.Figure]:
    """The figures of a preset run in its paper's style (one per cell for One-size-fits-all's regret plots,
    plus a phase diagram of the final regret over a grid)."""
    from .viz import presets as vp

    preset = result.preset
    figs: dict[str, go.Figure] = {}
    if preset.figure == "violation_table":
        per_cell = result.cell_summary()
        fam = families.get(preset.kind)
        paper = [(fam.label(n.policy), n.low, n.high, n.text) for n in preset.paper_numbers
                 if n.metric == "violation_rate"]
        figs["violation_rates"] = vp.violation_table_figure(per_cell, float(per_cell["delta"].iloc[0]), paper=paper)
    elif preset.figure == "learning_curves":
        figs["learning_curves"] = vp.learning_curves_figure(result.curves())
    else:
        curves = result.curves()
        cells = result.cells()
        fam = families.get(preset.kind)
        y_title, base_name = fam.regret_name, fam.baseline_name
        for _, row in cells.iterrows():
            figs[f"regret_{presets.slug(row['name'])}"] = vp.minmax_figure(
                curves, int(row["cell"]), row["baseline_slope"], y_title=y_title, baseline_name=base_name)
        if len(cells) > 1:
            figs.update(grid_figures(result))
    return figs


def grid_figures(result: presets.PresetResult) -> dict[str, go.Figure]:
    """Phase diagrams of a grid preset: final regret over its two main fields (one figure per ρ for MV-CBP)."""
    from .viz import presets as vp

    per_cell = result.cell_summary()
    fields = result.preset.cell_fields
    y, x = fields[0], fields[1]
    if len(fields) == 2:
        groups = [("grid_regret", "", per_cell)]
    else:
        third = fields[2]
        groups = [(f"grid_regret_{third}{v:g}", f", {sweep.symbol(third)} = {v:g}",
                   per_cell[per_cell[third] == v]) for v in sorted(per_cell[third].unique())]
    return {name: vp.heatmap_figure(part, x, y, "cum_regret_mean", title=f"Cumulative regret at T over the grid{extra} "
                                    "(✗: the slack went below 0)", z_title="regret", x_title=sweep.symbol(x),
                                    y_title=sweep.symbol(y), fmt=".4g")
            for name, extra, part in groups}


def preset_bundle(result: presets.PresetResult, max_rows: int = MAX_BUNDLE_ROWS) -> bytes:
    """The bundle of a preset run. Above ``max_rows`` per-round rows, the per-round frames are replaced by
    the per-round mean, std, min and max over seeds (``rounds/curves.parquet``)."""
    frames = result.frames() if result.rows() <= max_rows else {"curves": result.curves(max_points=2000)}
    claims = presets.claim_table(result)
    return bundle(frames, result.summary(), settings_dict(result.run), preset_figures(result), page="Paper presets",
                  extra={"claims": claims.to_dict(orient="records")}, device=result.device,
                  precision=result.precision)
