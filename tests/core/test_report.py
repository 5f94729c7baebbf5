"""The self-contained HTML report: escaped text, plotly inlined once, nothing fetched from outside the file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import pytest

from safebandit_core import cli, presets, report

EXTERNAL = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//", re.I)


def tiny_report(n_figures: int = 2) -> str:
    figs = {f"f{i}": go.Figure(go.Scatter(x=[1, 2, 3], y=[i, i + 1, i + 3])) for i in range(n_figures)}
    claims = pd.DataFrame([{"claim": "C1", "statement": "a <b>bold</b> claim & more", "paper": "0.02 %",
                            "ours": "0.01 %", "verdict": presets.CONSISTENT, "why": ""}])
    numbers = pd.DataFrame([{"setting": "d=5", "policy": "HPC-UCB", "paper": "0.02 %", "this run": "0.01 %"}])
    return report.build_html(title="T <script>alert(1)</script>", subtitle="s", claims=claims,
                             paper_numbers=numbers, figures=figs, choices=["δ = 0.01"], settings={"T": 10},
                             provenance={"commit": "abc"}, command="python -m safebandit_core replay", size="1 × 1")


def test_no_external_script_or_link_and_plotly_inlined_once() -> None:
    page = tiny_report()
    assert not EXTERNAL.search(page)
    assert EXTERNAL.search('<script src="https://cdn.plot.ly/plotly.min.js"></script>')  # the pattern does match
    assert "cdn.plot.ly/plotly" not in page
    assert page.count("Plotly.newPlot") == 2
    assert page.count("plotly.js v") == 1  # the library's banner: inlined with the first figure only


def test_text_is_escaped() -> None:
    page = tiny_report(0)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert "a &lt;b&gt;bold&lt;/b&gt; claim &amp; more" in page
    assert '<td class="ok">consistent</td>' in page


def test_command_line_names_the_paper_size() -> None:
    full = presets.PresetRun.full("s001-fig1a-cmab")
    assert report.command_line(full, "float64").endswith("--preset s001-fig1a-cmab --full")
    small = presets.PresetRun("s000-table1", seeds=2, T=100, base_seed=3, precision="float32")
    assert report.command_line(small, "float64") == ("python -m safebandit_core preset --preset s000-table1 "
                                                     "--seeds 2 --T 100 --base-seed 3 --precision float32")


def test_replay_report_flag_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "clb.html"
    assert cli.main(["replay", "--preset", "s001-fig1b-clb", "--seeds", "2", "--T", "100", "--report", str(target),
                     "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)  # stdout stays one JSON document
    page = target.read_text()
    for claim in doc["claims"]:
        assert f"<td>{claim['claim']}</td>" in page
    assert "--preset s001-fig1b-clb --seeds 2 --T 100" in page
    assert '"commit"' in page and "float64" in page
    assert not EXTERNAL.search(page)
    assert cli.main(["replay", "--preset", "s001-fig1b-clb", "--report", str(tmp_path / "none" / "x.html")]) == 2
