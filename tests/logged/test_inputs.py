"""Every bad input of a logged table is one SettingsError naming its field (and, on the command line, exit 2 with
one line naming the flag); nothing crashes and no fit is left behind."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from safebandit_core import cli, export, logged
from safebandit_core.data.cache import MEMO
from safebandit_core.logged.loader import digest_of
from safebandit_core.settings import SettingsError, to_dict
from tests.logged.planted import CONTEXT, csv_bytes, planted
from tests.support import only_command

BASE = planted(200, seed=7).frame
CLI_BASE = ["--context", ",".join(CONTEXT), "--dose", "dose", "--reward", "benefit", "--cost", "side_effect"]


def table(**columns) -> bytes:
    """The base table as CSV with some columns replaced (a value per row, or a function of the column)."""
    frame = BASE.copy().astype({c: object for c in columns})
    for name, change in columns.items():
        frame[name] = change(frame[name]) if callable(change) else change
    return csv_bytes(frame)


def at(row: int, value, column: str):
    """Set one value (0-based position) of a column."""
    def change(col):
        col = col.copy()
        col.iloc[row] = value
        return col
    return {column: change}


CASES = [
    # (id, data, settings overrides, extra CLI flags, field, flag, words)
    ("missing column", table(), {"dose": "nope"}, ["--dose", "nope"], "dose", "--dose", "a column of the table"),
    ("duplicate header", b"x1,x1,dose,benefit,side_effect\n" + b"1,2,0.5,1,1\n" * 30, {}, [], "data", "--file",
     "'x1' appears twice"),
    ("a column twice", table(), {"reward": "dose"}, ["--reward", "dose"], "reward", "--reward",
     "already the dose column"),
    ("a context twice", table(), {"context": ("x1", "x1")}, ["--context", "x1,x1"], "context", "--context",
     "listed twice"),
    ("text in the dose", table(**at(6, "high", "dose")), {}, [], "dose", "--dose", "'high' in row 7"),
    ("text in a context", table(**at(2, "abc", "x2")), {}, [], "context", "--context", "categorical"),
    ("missing value refused", table(**at(3, "", "side_effect")), {"missing": "refuse"}, ["--missing", "refuse"],
     "cost", "--cost", "missing or infinite in row 4"),
    ("infinite value refused", table(**at(1, "inf", "benefit")), {"missing": "refuse"}, ["--missing", "refuse"],
     "reward", "--reward", "row 2"),
    ("too few rows", csv_bytes(BASE.head(15)), {}, [], "data", "--file", "at least 20 usable rows for d = 5"),
    ("constant context", table(x3=1.5), {}, [], "context", "--context", "'x3' is 1.5 in every used row"),
    ("constant dose", table(dose=0.5), {}, [], "dose", "--dose", "a column that varies"),
    ("dose outside [0, 1]", table(dose=lambda c: c * 100), {}, [], "dose", "--dose", "turn on min–max scaling"),
    ("empty file", b"", {}, [], "data", "--file", "an empty file"),
    ("binary file", bytes(range(256)) * 8, {}, [], "data", "--file", "binary data"),
    ("one column", b"a\n1\n2\n", {}, [], "data", "--file", "1 column"),
    ("header only", b"x1,x2,x3,x4,dose,benefit,side_effect\n", {}, [], "data", "--file", "a header only"),
    ("a JSON object", b'  {"kind": "logged", "T": 100}\n', {}, [], "data", "--file",
     "this looks like a JSON file; upload CSV or Parquet"),
    ("a JSON array", b'[{"dose": 0.5, "benefit": 1, "side_effect": 0}]', {}, [], "data", "--file",
     "this looks like a JSON file"),
    ("damaged parquet", b"PAR1" + b"\x00junk" * 40, {}, [], "data", "--file", "damaged Parquet"),
    ("damaged gzip", b"\x1f\x8b" + b"junk" * 40, {}, [], "data", "--file", "damaged gzip"),
    ("not a zip", b"PK\x03\x04" + b"junk" * 40, {}, [], "data", "--file", "log.csv cannot be read as a zip"),
    ("a time that is no time", table(day=lambda c: c.astype(str) + "th"), {"time": "day"}, ["--time", "day"], "time",
     "--time", "numbers or dates"),
    ("one-hot of a non-context", table(), {"categorical": ("site",)}, ["--categorical", "site"], "categorical",
     "--categorical", "context columns"),
]


@pytest.fixture
def data_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command-line router with the data command only."""
    monkeypatch.setattr(cli, "commands", only_command("logged"))


def settings(**kw) -> logged.LoggedSettings:
    base = {"source": "upload", "file": "log.csv", "context": CONTEXT, "dose": "dose", "reward": "benefit",
            "cost": "side_effect", "T": 100, "seeds": 1}
    return logged.LoggedSettings(**{**base, **kw})


def _no_fit_left(data: bytes) -> None:
    digest = digest_of(data) if data else None
    assert not [k for k in MEMO.keys() if k[0] == "logged-fit" and k[1] == digest]


@pytest.mark.parametrize(("name", "data", "overrides", "flags", "field", "flag", "words"), CASES,
                         ids=[c[0] for c in CASES])
def test_each_bad_input_is_one_named_error(name, data, overrides, flags, field, flag, words, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str], data_only: None) -> None:
    with pytest.raises(SettingsError) as err:
        logged.prepare(settings(**overrides), data)
    assert err.value.field == field and words in str(err.value), str(err.value)
    _no_fit_left(data)
    path = tmp_path / "log.csv"
    path.write_bytes(data)
    args = dict(zip(CLI_BASE[::2], CLI_BASE[1::2], strict=True))
    args.update(dict(zip(flags[::2], flags[1::2], strict=True)))
    argv = ["logged", "--file", str(path), *[x for kv in args.items() for x in kv], "--T", "100", "--seeds", "1"]
    assert cli.main(argv) == 2
    out, errors = capsys.readouterr()
    lines = errors.strip().splitlines()
    assert out == "" and len(lines) == 1, lines
    assert lines[0].startswith((f"error: {flag} must be ", f"error: {flag}: log.csv ")), lines
    assert words in lines[0]


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path, capsys, data_only) -> None:
    big = tmp_path / "big.csv"
    with open(big, "wb") as handle:
        handle.truncate(logged.MAX_FILE_BYTES + 1)  # sparse: nothing is written, nothing would parse
    with pytest.raises(SettingsError, match="at most 64 MB") as err:
        logged.prepare(settings(source="path", path=str(big)))
    assert err.value.field == "data"
    assert cli.main(["logged", "--file", str(big), *CLI_BASE]) == 2
    assert capsys.readouterr().err.strip() == ("error: --file: big.csv is 64,000,001 bytes; a data file may be at "
                                               "most 64 MB")
    with pytest.raises(SettingsError, match="existing CSV"):
        logged.prepare(settings(source="path", path=str(tmp_path / "none.csv")))
    with pytest.raises(SettingsError, match="is 1,000,001 bytes; a data file may be at most 1 MB"):
        logged.read_table(b"x" * (10**6 + 1), max_bytes=10**6)


def test_dropped_rows_are_counted_and_doses_can_be_scaled() -> None:
    holes = table(**at(3, "", "side_effect"), **at(8, "nan", "x1"))
    run = logged.prepare(settings(), holes)
    assert run.fit.table.rows_dropped == 2 and run.fit.table.dropped_by == {"x1": 1, "side_effect": 1}
    assert any(n.startswith("2 of 200 rows were dropped") for n in run.fit.notes())
    scaled = logged.prepare(settings(scale_dose=True, dose_unit="mg"), table(dose=lambda c: 10 + 490 * c))
    lo, hi = scaled.fit.table.dose_scale
    assert scaled.fit.table.dose.min() == 0 and scaled.fit.table.dose.max() == 1
    assert scaled.fit.table.dose_mapping("mg").startswith(f"dose 0 = {lo:g} mg")
    assert scaled.report()["dose_scale"] == [lo, hi]


def test_settings_name_the_data_they_were_made_with(tmp_path: Path) -> None:
    data = table()
    run = logged.prepare(settings(), data)
    again = logged.prepare(run.settings)  # this process has read it: found by its hash
    np.testing.assert_array_equal(again.fit.env.theta, run.fit.env.theta)
    with pytest.raises(SettingsError, match="the data these settings were made with") as err:
        logged.prepare(run.settings, table(**at(0, 0.99, "dose")))
    assert err.value.field == "data"
    with pytest.raises(SettingsError, match="given again"):
        logged.prepare(settings(data_hash="0" * 32))
    with pytest.raises(SettingsError) as bad:
        settings(data_hash="xyz").validate()
    assert bad.value.field == "data_hash"
    member = logged.loader.bundle_member(data, "log.csv")
    zipped = export.bundle({}, pd.DataFrame(), to_dict(run.settings), {}, extra={"data": member})
    assert logged.read_table(zipped).digest == run.raw.digest and logged.loader.bundle_member(zipped, "x") == member
    np.testing.assert_array_equal(logged.prepare(run.settings, zipped).fit.env.mu, run.fit.env.mu)
    path = tmp_path / "log.csv"
    path.write_bytes(data)
    from_path = logged.prepare(settings(source="path", path=str(path), file=None))
    assert from_path.raw.digest == run.raw.digest and from_path.settings.file == "log.csv"
    assert os.path.basename(str(path)) == from_path.raw.name


ACCENTED = "site,dose,bénéfice,side_effect\nSão Paulo,0.25,1.5,0.125\nZürich,0.5,2.25,0.375\nKöln,0.75,-1,0.5\n"
"""A log whose names and values need more than ASCII (every character is in Latin-1 and in Windows-1252)."""
EURO = ACCENTED.replace("Köln", "Köln €")
"""The same with a euro sign: Windows-1252 has it (byte 0x80), Latin-1 does not."""
ENCODED = [
    # (id, text, bytes, what RawTable.read_as says)
    ("utf-8", ACCENTED, ACCENTED.encode("utf-8"), "CSV text in UTF-8"),
    ("utf-8 bom", ACCENTED, ACCENTED.encode("utf-8-sig"), "CSV text in UTF-8 with BOM"),
    ("utf-16 le bom", ACCENTED, b"\xff\xfe" + ACCENTED.encode("utf-16-le"), "CSV text in UTF-16 LE with BOM"),
    ("utf-16 be bom", ACCENTED, b"\xfe\xff" + ACCENTED.encode("utf-16-be"), "CSV text in UTF-16 BE with BOM"),
    ("latin-1", ACCENTED, ACCENTED.encode("latin-1"), "CSV text in Latin-1"),
    ("cp1252", EURO, EURO.encode("cp1252"), "CSV text in cp1252"),
    ("cp1252 crlf", EURO, EURO.replace("\n", "\r\n").encode("cp1252"), "CSV text in cp1252"),
]


@pytest.mark.parametrize(("text", "data", "read_as"), [c[1:] for c in ENCODED], ids=[c[0] for c in ENCODED])
def test_each_encoding_reads_to_the_frame_of_the_utf8_original(text: str, data: bytes, read_as: str) -> None:
    original = logged.read_table(text.encode("utf-8"), "log.csv").frame
    assert original.columns.tolist() == ["site", "dose", "bénéfice", "side_effect"]
    for raw in (logged.read_table(data, "log.csv"), logged.read(data, "log.csv")):
        pd.testing.assert_frame_equal(raw.frame, original)
        assert raw.read_as == read_as
    zipped = logged.read_table(gzip.compress(data), "log.csv.gz")
    pd.testing.assert_frame_equal(zipped.frame, original)
    assert zipped.read_as == "gzipped " + read_as


def test_parquet_and_the_built_in_log_say_what_they_were_read_as() -> None:
    assert logged.read_table(BASE.to_parquet(index=False), "log.parquet").read_as == "Parquet"
    assert logged.read(logged.example_bytes(), logged.EXAMPLE_FILE).read_as == "gzipped CSV text in UTF-8"
    assert logged.read_table(BASE).read_as == ""


RESAVE = "save it as CSV UTF-8 (in Excel: Save As, CSV UTF-8) or as Parquet"
WHOLE = [
    # (id, file name, bytes, the whole message)
    ("two columns", "two.csv", b"a,b\n1,2\n3,4\n",
     "two.csv has 2 columns; a log needs at least 3 (a dose, a benefit and a side effect)"),
    ("a CSV named .parquet", "log.parquet", csv_bytes(BASE),
     "log.parquet is not a Parquet file (a Parquet file starts and ends with the bytes PAR1; it looks like text: if "
     "it is a CSV, name it .csv)"),
    ("a Parquet file cut short", "log.parquet", BASE.to_parquet(index=False)[:-10],
     "log.parquet is not a Parquet file (it starts with PAR1 but does not end with it: cut short or damaged; upload "
     "the whole file)"),
    ("a cut Parquet file named .csv", "log.csv", BASE.to_parquet(index=False)[:-10],
     "log.csv is a damaged Parquet file (it starts with PAR1 but does not end with it: cut short?); upload the whole "
     "file"),
    ("a gzip named .parquet", "log.parquet", gzip.compress(csv_bytes(BASE)),
     "log.parquet is not a Parquet file (a Parquet file starts and ends with the bytes PAR1; it is a gzip file: "
     "rename it to match)"),
    ("a CSV named .gz", "log.csv.gz", csv_bytes(BASE),
     "log.csv.gz is not a gzip file (its first bytes are not a gzip file's; it looks like text: if it is a CSV, name "
     "it .csv)"),
    ("a CSV named .zip", "log.zip", csv_bytes(BASE),
     "log.zip is not a zip file (its first bytes are not a zip file's; it looks like text: if it is a CSV, name it "
     ".csv)"),
    ("NUL bytes", "log.csv", b"dose,benefit,side\x00effect\n1,2,3\n",
     f"log.csv is not text (binary data with NUL bytes, or UTF-16 text without a byte-order mark); {RESAVE}"),
    ("control characters", "log.csv", b"dose,benefit,side_effect\n1,2,\x03\n",
     f"log.csv is not text (binary data: control character 0x03 at character 29); {RESAVE}"),
    ("a byte no 8-bit text has", "log.csv", b"dose,benefit,side_effect\n1,2,\x81\n",
     "log.csv is not text (byte 0x81 at offset 29 is text in none of UTF-8, UTF-16 with a byte-order mark and "
     f"Windows-1252/Latin-1); {RESAVE}"),
    ("a broken UTF-16 file", "log.csv", b"\xff\xfe" + "dose,benefit,side_effect\n".encode("utf-16-le") + b"\x00\xd8",
     "log.csv is not text (it starts with a UTF-16 LE byte-order mark but byte 50 after it does not decode); "
     f"{RESAVE}"),
]


@pytest.mark.parametrize(("name", "data", "message"), [c[1:] for c in WHOLE], ids=[c[0] for c in WHOLE])
def test_a_file_that_is_no_table_is_one_whole_message(name: str, data: bytes, message: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str], data_only: None) -> None:
    for read in (logged.read_table, logged.read):
        with pytest.raises(SettingsError) as err:
            read(data, name)
        assert err.value.field == "data" and str(err.value) == message
    path = tmp_path / name
    path.write_bytes(data)
    assert cli.main(["logged", "--file", str(path), *CLI_BASE]) == 2
    assert capsys.readouterr().err.strip() == f"error: --file: {message}"


def test_a_long_reason_is_cut_at_a_word_boundary() -> None:
    from safebandit_core.logged.loader import clip

    text = "word " * 60
    cut = clip(text, 42)
    assert cut == "word word word word word word word word …" and len(cut) <= 43
    assert clip("a short reason") == "a short reason"
