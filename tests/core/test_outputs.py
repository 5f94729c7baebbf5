"""Files the command line writes and reads: checked before computing, written atomically, bounded reads.

A bad target exits 2 with one line before any run; an I/O failure while writing exits 1 with one
line and leaves an existing file byte for byte as it was; a settings file is read at most 1 MB + 1
byte (``/dev/zero`` is refused, not read until the memory runs out).
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
from pathlib import Path

import pandas as pd
import pytest

from safebandit_core import cli, clikit, export, outputs, preset_cli, sweep
from safebandit_core.conservative import cli as conservative_cli
from safebandit_core.dose.settings import S000_BASE
from safebandit_core.meanvar import cli as meanvar_cli

TINY = ["--T", "50", "--seeds", "1", "--device", "cpu"]


def sweep_file(tmp_path: Path) -> Path:
    """A valid two-cell sweep settings file (never run by the tests that refuse the target)."""
    spec = sweep.SweepSpec("dose", dataclasses.replace(S000_BASE, T=100, seeds=1), xs=(0.1, 0.2))
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(export.settings_dict(spec)))
    return path


def commands(tmp_path: Path, out: str) -> dict[str, list[str]]:
    """Every command that writes files, with ``--out out`` (a file for the model commands, a folder otherwise)."""
    return {"dose": ["dose", *TINY, "--out", f"{out}.csv"],
            "nonlinear": ["nonlinear", *TINY, "--out", f"{out}.csv"],
            "conservative": ["conservative", *TINY, "--out", f"{out}.parquet"],
            "meanvar": ["meanvar", *TINY, "--out", f"{out}.csv"],
            "logged": ["logged", *TINY, "--out", f"{out}.csv"],
            "preset": ["preset", "--preset", "s000-table1", *TINY, "--out", out],
            "sweep": ["sweep", "--settings", str(sweep_file(tmp_path)), "--device", "cpu", "--out", out]}


@pytest.fixture
def no_compute(monkeypatch):
    """Any command that reaches the device check (the step before computing) fails the test."""
    def refuse(*_a, **_k):
        raise AssertionError("the command went on to compute")

    for mod in (clikit, preset_cli, conservative_cli, meanvar_cli):
        monkeypatch.setattr(mod, "check_device", refuse)


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.mark.parametrize("name", ["dose", "nonlinear", "conservative", "meanvar", "logged", "preset", "sweep"])
def test_a_missing_folder_is_refused_before_computing(tmp_path, capsys, no_compute, name):
    missing = tmp_path / "no" / "such" / "folder"
    argv = commands(tmp_path, str(missing / "run"))[name]
    assert cli.main(argv) == 2
    line = one_line(capsys)
    assert line.startswith("error: --out") and "does not exist" in line
    assert not (tmp_path / "no").exists()


def test_a_folder_or_device_as_out_file_is_refused(tmp_path, capsys, no_compute):
    (tmp_path / "dir.csv").mkdir()
    assert cli.main(["dose", *TINY, "--out", str(tmp_path / "dir.csv")]) == 2
    assert "is a folder" in one_line(capsys)
    (tmp_path / "file").write_text("x")
    assert cli.main(["replay", "--preset", "s000-table1", "--out", str(tmp_path / "file")]) == 2
    assert "must be a folder" in one_line(capsys)
    assert cli.main(["dose", *TINY, "--out", str(tmp_path / "run.txt")]) == 2
    assert ".csv or .parquet" in one_line(capsys)


@pytest.mark.skipif(os.name != "posix", reason="folder permissions are POSIX here")
def test_an_unwritable_folder_is_refused_before_computing(tmp_path, capsys, no_compute):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as root: permissions do not stop writes (the ENOSPC test covers failed writes)")
        for argv in commands(tmp_path, str(locked / "run")).values():
            assert cli.main(argv) == 2, argv
            line = one_line(capsys)
            assert "--out" in line and "not writable" in line
    finally:
        locked.chmod(0o700)


def test_a_full_disk_leaves_the_existing_file_intact(tmp_path, capsys, monkeypatch):
    keep = tmp_path / "keep.csv"
    good = b"kind,policy\nthe,good file\n" * 100
    keep.write_bytes(good)
    real = pd.DataFrame.to_csv

    def full_disk(self, fh, **kw):  # half the frame reaches the disk, then the disk is full
        real(self.head(len(self) // 2), fh, **kw)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_csv", full_disk)
    assert cli.main(["dose", *TINY, "--out", str(keep)]) == 1
    line = one_line(capsys)
    assert line.startswith("error: --out") and os.strerror(errno.ENOSPC) in line and "unchanged" in line
    assert keep.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.csv"]


def test_a_successful_write_replaces_the_file_whole(tmp_path, capsys):
    keep = tmp_path / "keep.csv"
    keep.write_text("old\n")
    keep.chmod(0o640)
    assert cli.main(["dose", *TINY, "--out", str(keep), "--json"]) == 0
    frame = pd.read_csv(keep)
    assert len(frame) == 50 and list(frame.columns[:5]) == ["kind", "policy", "label", "seed", "t"]
    assert keep.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.csv"]


def test_write_removes_its_temporary_file_on_any_error(tmp_path):
    target = tmp_path / "a.zip"
    target.write_bytes(b"before")

    def broken(fh):
        fh.write(b"partial")
        raise ValueError("not an I/O error")

    with pytest.raises(ValueError):
        outputs.write(target, broken, "--out")
    assert target.read_bytes() == b"before"
    assert [p.name for p in tmp_path.iterdir()] == ["a.zip"]
    with pytest.raises(outputs.OutputError) as err:
        outputs.write(tmp_path / "gone" / "b.zip", b"data", "--out")
    assert err.value.code == 1 and "nothing was written" in str(err.value)


def test_an_unbounded_settings_file_is_refused(tmp_path, capsys):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (export.MAX_SETTINGS_BYTES + 1))
    sources = [big] + ([Path("/dev/zero")] if Path("/dev/zero").exists() else [])
    for source in sources:
        assert cli.main(["sweep", "--settings", str(source)]) == 2
        line = one_line(capsys)
        assert line.startswith("error: --settings") and "1 MB" in line
    assert cli.main(["sweep", "--settings", str(tmp_path)]) == 2
    assert "--settings" in one_line(capsys)
