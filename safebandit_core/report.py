"""One self-contained HTML report of a preset run: what a reader attaches to a review.

:func:`build_html` is pure (data in, one HTML string out): the paper-vs-run table of claims with
each verdict and its reasoning, the paper's numbers beside ours, the figures, the choices the paper
leaves open, the settings, the provenance (commit, versions, device, precision, seconds) and the
command that re-creates the run. Every text is escaped; plotly's JavaScript is inlined once (with
the first figure) and no ``src`` or ``href`` points outside the file, so it opens offline in any
browser. :func:`preset_report` gathers those pieces from a
:class:`~safebandit_core.presets.PresetResult`.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from . import presets

VERDICT_CLASS = {presets.CONSISTENT: "ok", presets.INCONSISTENT: "bad", presets.NOT_SHOWN: "open"}
CLAIM_COLUMNS = ("claim", "statement", "paper", "ours", "verdict", "why")
STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#1b1b1b;line-height:1.45}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%;font-size:.92em}th,td{border:1px solid #ddd;padding:.35em .5em;
vertical-align:top;text-align:left}th{background:#f4f4f4}
td.ok{background:#e6f4ea}td.bad{background:#fce8e6}td.open{background:#fef7e0}
pre{background:#f6f8fa;padding:.8em;overflow-x:auto;font-size:.88em}.figure{margin:1em 0}
"""


def command_line(run: presets.PresetRun, default_precision: str, extra: str = "") -> str:
    """``python -m safebandit_core preset ...`` that re-creates ``run`` (``--full`` at the paper's size)."""
    p = presets.get(run.preset)
    size = "--full" if (run.seeds, run.T) == (p.full_seeds, p.full_T) else f"--seeds {run.seeds} --T {run.T}"
    seed = f" --base-seed {run.base_seed}" if run.base_seed else ""
    precision = "" if run.precision in ("auto", default_precision) else f" --precision {run.precision}"
    return f"python -m safebandit_core preset --preset {run.preset} {size}{seed}{precision}{extra}"


def _text(value: Any) -> str:
    """Text for an element body (never an attribute): &, < and > escaped."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return html.escape(str(value), quote=False)


def table_html(frame: pd.DataFrame, verdict_column: str | None = None) -> str:
    """A frame as an escaped HTML table (the verdict cells coloured by :data:`VERDICT_CLASS`)."""
    head = "".join(f"<th>{_text(c)}</th>" for c in frame.columns)
    rows = []
    for record in frame.itertuples(index=False):
        cells = []
        for col, value in zip(frame.columns, record, strict=True):
            cls = VERDICT_CLASS.get(str(value), "") if col == verdict_column else ""
            cells.append(f'<td class="{cls}">{_text(value)}</td>' if cls else f"<td>{_text(value)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def markdown_cell(value: object) -> str:
    """A value for a Markdown table cell: ``|`` escaped, line breaks as spaces."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def table_markdown(frame: pd.DataFrame) -> list[str]:
    """A frame as the lines of a Markdown table (the reproduction document's tables, the bench's)."""
    lines = ["| " + " | ".join(markdown_cell(c) for c in frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(markdown_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return lines


def figures_html(figures: Mapping[str, go.Figure]) -> str:
    """Every figure as an inline plotly div; plotly's JavaScript goes inline with the first one only."""
    parts = []
    for n, (name, fig) in enumerate(figures.items()):
        div = fig.to_html(include_plotlyjs=n == 0, full_html=False, div_id=f"fig-{n}",
                          config={"displaylogo": False})
        parts.append(f'<div class="figure" id="{html.escape(name, quote=True)}">{div}</div>')
    return "\n".join(parts)


def build_html(*, title: str, subtitle: str, claims: pd.DataFrame, paper_numbers: pd.DataFrame,
               figures: Mapping[str, go.Figure], choices: Sequence[str], settings: Mapping[str, Any],
               provenance: Mapping[str, Any], command: str, size: str) -> str:
    """The report as one HTML document (see the module docstring)."""
    claims_part = (table_html(claims[[c for c in CLAIM_COLUMNS if c in claims.columns]], "verdict")
                   if len(claims) else "<p>This experiment states no claim we check.</p>")
    numbers_part = (table_html(paper_numbers) if len(paper_numbers)
                    else "<p>The paper prints no numbers for this experiment (only figures).</p>")
    choice_items = "".join(f"<li>{_text(c)}</li>" for c in choices)
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_text(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{_text(title)}</h1>",
        f"<p>{_text(subtitle)}</p>",
        f"<p><strong>Size:</strong> {_text(size)}</p>",
        '<h2 id="claims">Paper vs this run: the claims</h2>',
        "<p>Each verdict is computed from this run: <em>consistent</em> (the run agrees with the claim), "
        "<em>inconsistent</em> (it contradicts it) or <em>not shown at this size</em> (too few rounds or runs to "
        "tell; <em>why</em> says what to raise).</p>",
        claims_part,
        '<h2 id="numbers">The paper\'s numbers and ours</h2>',
        numbers_part,
        '<h2 id="figures">Figures</h2>',
        figures_html(figures) if figures else "<p>No figures.</p>",
        '<h2 id="choices">What the paper leaves open, and what we chose</h2>',
        f"<ul>{choice_items}</ul>",
        '<h2 id="command">Re-create this run</h2>',
        f"<pre>{_text(command)}</pre>",
        '<h2 id="settings">Settings</h2>',
        f"<pre>{_text(json.dumps(dict(settings), indent=2, sort_keys=True))}</pre>",
        '<h2 id="provenance">Provenance</h2>',
        f"<pre>{_text(json.dumps(dict(provenance), indent=2, sort_keys=True, default=str))}</pre>",
        "</body></html>",
    ])


def preset_report(result: presets.PresetResult, default_precision: str) -> str:
    """The report of a finished preset run (figures as :func:`export.preset_figures` draws them)."""
    from . import export

    p, run = result.preset, result.run
    seconds = float(getattr(result, "compute_seconds", result.seconds))
    prov = {**export.provenance(result.device, result.precision), "seconds": round(seconds, 2)}
    size = (f"{p.n_cells} setting{'s' if p.n_cells > 1 else ''} × {len(p.sweeps[0].policies)} policies × "
            f"{run.seeds} seeds × T = {run.T:,}, base seed {run.base_seed}, on {result.device} in "
            f"{result.precision}: {seconds:,.1f} s")
    return build_html(title=f"{p.paper}, {p.artefact}", subtitle=p.title, claims=presets.claim_table(result),
                      paper_numbers=presets.paper_table(result.summary()), figures=export.preset_figures(result),
                      choices=p.choices, settings=export.settings_dict(run), provenance=prov,
                      command=command_line(run, default_precision), size=size)


__all__ = ["build_html", "command_line", "figures_html", "preset_report", "table_html"]
