"""Write the per-preset part of docs/reproduction.md from a folder of paper-size runs.

Usage: ``python scripts/reproduction_doc.py RUNS [PNG_DIR] > part.md``, where ``RUNS/<preset>/cells`` is the
``--resume`` folder of ``preset --preset <preset> --full`` and ``RUNS/<preset>/log.txt`` its log
(lines ``... end <preset> rc=0 wall_s=N``). A preset whose cells have all finished gets its claims
(the paper's statement and number, ours, the verdict and why), the paper's numbers beside ours, every
cell's numbers with 95 % intervals, its runtime and device; the others say how far they got and the
command that continues them. Nothing is run: finished cells are only read. With ``PNG_DIR``, the
first figure of each ``RUNS/<preset>/report.html`` (``preset --report``) is also saved there as a PNG
(drawn by headless Chromium through playwright, the browser tests' tools) and shown in its section.
The output starts with an overview table, one row per preset. A folder ``RUNS/<preset>-T<T>`` (the paper's
seeds at another horizon) gets a section after the presets.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

from safebandit_core import presets, resume, sweep
from safebandit_core.report import table_markdown


def folder_name(run: presets.PresetRun) -> str:
    """A run's folder under RUNS: the preset's name at paper size, ``<preset>-T<T>`` at another horizon."""
    return run.preset if run == presets.PresetRun.full(run.preset) else f"{run.preset}-T{run.T}"


def command(run: presets.PresetRun) -> str:
    """The command that runs (or continues) a run and writes its report."""
    name = folder_name(run)
    size = "--full" if name == run.preset else f"--seeds {run.seeds} --T {run.T}"
    return (f"python -m safebandit_core preset --preset {run.preset} {size} --resume repro-runs/{name}/cells "
            f"--report {name}.html")


def number(v: float) -> str:
    """Whole numbers from 1,000 up, three significant digits below."""
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def interval(value: float, lo: float, hi: float, scale: float = 1.0, unit: str = "") -> str:
    """``value [lo, hi]``, scaled (100 for percent) and with a unit."""
    return f"{number(value * scale)}{unit} [{number(lo * scale)}, {number(hi * scale)}]"


def cells_table(per_cell: pd.DataFrame) -> pd.DataFrame:
    """Every cell and policy of a cell summary (with ``name``): the final regret, N₀ or the violation rate with
    95 % intervals, and the min slack."""
    out = pd.DataFrame({"setting": per_cell["name"], "policy": per_cell["label"]})
    out["regret at T [95 %]"] = [interval(r.cum_regret_mean, r.cum_regret_lo, r.cum_regret_hi)
                                  for r in per_cell.itertuples()]
    if "violation_rate" in per_cell:
        out["violation rate [95 %]"] = [interval(r.violation_rate, r.violation_rate_lo, r.violation_rate_hi, 100, " %")
                                        for r in per_cell.itertuples()]
    if "default_pulls_mean" in per_cell:
        out["N₀(T) [95 %]"] = [interval(r.default_pulls_mean, r.default_pulls_lo, r.default_pulls_hi)
                               for r in per_cell.itertuples()]
        out["min slack"] = [f"{v:.3g}" for v in per_cell["min_slack"]]
    return out


def finished_so_far(run: presets.PresetRun, folder: Path) -> pd.DataFrame:
    """The settings of an unfinished run that have finished, as :func:`cells_table` rows (empty if none)."""
    specs = run.specs()
    index = [(k, i) for k, spec in enumerate(specs) for i in range(len(spec.cells()))]
    parts = []
    for c, (k, i) in enumerate(index):
        record = resume.load_cell(folder, c)
        if record is None:
            continue
        spec = specs[k]
        settings = spec.family.resolved(spec.cell_settings(i))
        part = sweep.summarise_seeds(record.per_seed.assign(cell=0), [spec.cells()[i]], spec.base)
        part["name"] = presets.cell_name({f: getattr(settings, f) for f in presets.get(run.preset).cell_fields})
        parts.append(part)
    return cells_table(pd.concat(parts, ignore_index=True)) if parts else pd.DataFrame()


def wall_seconds(log: Path) -> int | None:
    """The wall time of the last successful run in a preset's log."""
    if not log.exists():
        return None
    found = re.findall(r"rc=0 wall_s=(\d+)", log.read_text())
    return int(found[-1]) if found else None


def save_png(report: Path, target: Path) -> bool:
    """Screenshot the first figure of a report (the grid's overview for a grid preset); False if none was drawn."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(headless=True, executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1000, "height": 800})
        page.goto(report.resolve().as_uri())
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
        overview = page.locator("[id^='grid_regret'] .js-plotly-plot")
        figure = overview.first if overview.count() else page.locator(".js-plotly-plot").first
        figure.screenshot(path=str(target))
        browser.close()
    return target.exists()


def section(runs: Path, run: presets.PresetRun, png_dir: Path | None = None) -> list[str]:
    """The Markdown section of one run (a preset at paper size, or at the horizon of ``run``)."""
    p = presets.get(run.preset)
    name = folder_name(run)
    folder = runs / name / "cells"
    size = (f"{p.n_cells} setting{'s' if p.n_cells > 1 else ''} × {len(p.sweeps[0].policies)} policies × "
            f"{run.seeds} runs × T = {run.T:,}")
    beyond = "" if name == run.preset else f", at T = {run.T:,} (beyond the paper's size)"
    lines = [f"### {p.paper}, {p.artefact}{beyond}: {p.title}", "", f"`{run.preset}`: {size}.", ""]
    result = resume.load(run, folder) if folder.exists() else None
    if result is None:
        done = resume.finished_cells(run, folder)
        lines += [f"**Paper-size run in progress** ({done} of {p.n_cells} settings finished; resumable with: "
                  f"`{command(run)}`). Its reduced-size verdicts are on the *Paper presets* page and in "
                  f"`preset --preset {run.preset}`.", ""]
        so_far = finished_so_far(run, folder) if folder.exists() else pd.DataFrame()
        if len(so_far):
            lines += ["The settings finished so far (the claims are checked once all have):", ""]
            lines += table_markdown(so_far) + [""]
        return lines
    wall = wall_seconds(runs / name / "log.txt")
    if wall is not None and wall < result.compute_seconds:  # the last run only reloaded finished settings
        wall = None
    lines += [f"Ran on {result.device} in {result.precision}: {result.compute_seconds:,.0f} s of computation"
              + (f" ({wall:,} s wall, one core at the lowest priority beside other work)" if wall else "") + ".",
              "", f"Re-create it (and its self-contained HTML report with the figures): `{command(run)}`", ""]
    report = runs / name / "report.html"
    if png_dir is not None and report.exists() and save_png(report, png_dir / f"{name}.png"):
        lines += [f"![{p.artefact}{beyond or ' at paper size'}]({png_dir.name}/{name}.png)", ""]
    claims = presets.claim_table(result)[["claim", "statement", "paper", "ours", "verdict", "why"]]
    claims.columns = ["claim", "what the paper claims", "the paper's statement or number", "ours",
                      "verdict", "why"]
    lines += table_markdown(claims) + [""]
    paper = presets.paper_table(result.summary())
    if len(paper):
        lines += ["The paper's numbers beside ours:", ""] + table_markdown(paper) + [""]
    lines += ["<details><summary>Every setting, with 95 % intervals over runs</summary>", ""]
    lines += table_markdown(cells_table(result.cell_summary())) + ["", "</details>", ""]
    return lines


def overview(runs: Path) -> list[str]:
    """One row per preset: its artefact, size, each claim's verdict at paper size (or how far the run got) and time."""
    rows = []
    for name in presets.names():
        p, run = presets.get(name), presets.PresetRun.full(name)
        folder = runs / name / "cells"
        result = resume.load(run, folder) if folder.exists() else None
        if result is None:
            verdicts = (f"in progress: {resume.finished_cells(run, folder)} of {p.n_cells} settings finished"
                        if folder.exists() else "queued: the runs go one preset at a time")
            seconds = ""
        else:
            verdicts = "; ".join(f"{c.claim} {c.verdict}" for c in presets.claim_table(result).itertuples())
            seconds = f"{result.compute_seconds:,.0f}"
        rows.append({"preset": f"`{name}`", "artefact": f"{p.paper.split(' (')[0]}, {p.artefact}",
                     "size": f"{p.n_cells} × {run.seeds} runs × T = {run.T:,}", "verdicts at paper size": verdicts,
                     "seconds": seconds})
    return table_markdown(pd.DataFrame(rows)) + [""]


def main(argv: list[str]) -> int:
    """Print the sections of every preset, in the order of ``preset --list``."""
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    runs = Path(argv[0])
    png_dir = Path(argv[1]) if len(argv) == 2 else None
    if png_dir is not None:
        png_dir.mkdir(parents=True, exist_ok=True)
    print("\n".join(overview(runs)))
    for name in presets.names():
        print("\n".join(section(runs, presets.PresetRun.full(name), png_dir)))
    for folder in sorted(runs.glob("*-T*/cells")):
        name, T = folder.parent.name.rsplit("-T", 1)
        if name in presets.every() and T.isdigit():
            run = presets.PresetRun(name, seeds=presets.get(name).full_seeds, T=int(T))
            print("\n".join(section(runs, run, png_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
