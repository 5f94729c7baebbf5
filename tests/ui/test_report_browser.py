"""The HTML report opens offline: with every request outside the file refused, the tables and figures render."""

from __future__ import annotations

from pathlib import Path

import pytest

from safebandit_core import export, presets, report
from tests.ui.browserkit import charts_drawn

pytestmark = pytest.mark.browser


def test_report_renders_with_the_network_blocked(page, tmp_path: Path) -> None:
    result = presets.run_preset(presets.PresetRun("s001-fig1b-clb", seeds=2, T=100))
    n_figures = len(export.preset_figures(result))
    target = tmp_path / "report.html"
    target.write_text(report.preset_report(result, "float64"), encoding="utf-8")

    refused: list[str] = []

    def only_the_file(route) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_file)
    page.goto(target.as_uri())
    page.wait_for_function(charts_drawn(n_figures, within="body"), timeout=30_000)
    assert refused == []
    assert page.locator(".js-plotly-plot").count() == n_figures
    assert page.locator(".js-plotly-plot .scatterlayer .trace").count() > 0  # the curves were drawn
    claims = page.locator("#claims + p + table")
    assert claims.locator("tbody tr").count() == len(result.preset.claims)
    assert claims.locator("td.ok, td.bad, td.open").count() == len(result.preset.claims)
    assert "--preset s001-fig1b-clb --seeds 2 --T 100" in page.locator("#command + pre").inner_text()
