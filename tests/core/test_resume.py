"""Resumable preset runs: an interrupted run continues where it stopped and ends equal to an uninterrupted one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from safebandit_core import cli, export, presets, resume
from safebandit_core.settings import SettingsError

RUN = presets.PresetRun("s000-table1", seeds=2, T=100)  # 8 cells: d ∈ {5, 10} × 4 values of τ


class Interrupt(Exception):
    """Stands in for Ctrl-C or a killed process."""


def test_interrupted_run_resumes_and_equals_an_uninterrupted_one(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    def stop_at_second_cell(fraction: float, text: str) -> None:
        if text.startswith("Cell 2 of"):
            raise Interrupt

    with pytest.raises(Interrupt):
        resume.run_resumable(RUN, tmp_path / "a", progress=stop_at_second_cell)
    assert resume.finished_cells(RUN, tmp_path / "a") == 1
    assert resume.load(RUN, tmp_path / "a") is None  # unfinished: nothing to show yet

    seen: list[str] = []
    resumed = resume.run_resumable(RUN, tmp_path / "a", progress=lambda f, text: seen.append(text))
    assert resumed.resumed == 1
    assert not any(t.startswith("Cell 1 of 8: Round") for t in seen)  # the finished cell was not run again
    assert any(t.startswith("Cell 2 of 8: Round") for t in seen)
    assert resume.finished_cells(RUN, tmp_path / "a") == 8

    loaded = resume.load(RUN, tmp_path / "a")
    assert loaded is not None
    pd.testing.assert_frame_equal(loaded.summary(), resumed.summary())
    whole = resume.run_resumable(RUN, tmp_path / "b")
    assert whole.resumed == 0
    pd.testing.assert_frame_equal(resumed.summary(), whole.summary())
    pd.testing.assert_frame_equal(presets.claim_table(resumed), presets.claim_table(whole))
    pd.testing.assert_frame_equal(resumed.curves("cum_regret", 200, "log"), whole.curves("cum_regret", 200, "log"))

    # Cell by cell draws the same keys as the grid in one scan: the same numbers up to summation order.
    in_memory = presets.run_preset(RUN)
    a, b = resumed.summary(), in_memory.summary()
    assert a[["cell", "policy", "metric", "settings"]].equals(b[["cell", "policy", "metric", "settings"]])
    np.testing.assert_allclose(a["value"], b["value"], rtol=1e-9, atol=1e-12)
    assert presets.claim_table(resumed)["verdict"].tolist() == presets.claim_table(in_memory)["verdict"].tolist()
    assert set(export.preset_figures(resumed)) == set(export.preset_figures(in_memory))

    # The command line on the finished folder loads every cell and prints the same rows.
    assert cli.main(["replay", "--preset", RUN.preset, "--seeds", "2", "--T", "100", "--resume",
                     str(tmp_path / "a"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["paper"] == presets.summary_rows(resumed.summary())
    assert doc["compute_seconds"] == pytest.approx(resumed.compute_seconds)


def test_a_folder_of_another_run_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    resume._pin(RUN, tmp_path)
    other = presets.PresetRun("s000-table1", seeds=3, T=100)
    with pytest.raises(SettingsError, match="resume"):
        resume.run_resumable(other, tmp_path)
    assert cli.main(["replay", "--preset", "s000-table1", "--seeds", "3", "--T", "100", "--resume",
                     str(tmp_path)]) == 2
    assert "--resume" in capsys.readouterr().err
