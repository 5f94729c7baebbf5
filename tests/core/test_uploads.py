"""Hostile uploads: zips whose headers understate a member's size, damaged, encrypted or oddly compressed zips, files
that are no zip or are cut short, a JSON number too long to read and over-long values; each is one message naming
the file (and member), through both readers of zips (``export.load_settings``, ``logged`` bundles) and the command
line, and no reader inflates more than its cap. The limits the app, the uploader and the command line state agree."""

from __future__ import annotations

import io
import json
import re
import struct
import tracemalloc
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from safebandit_core import cli, export, logged, uploads
from safebandit_core.dose.settings import DoseSettings
from safebandit_core.logged import loader
from safebandit_core.settings import SettingsError, echo, to_json
from tests.logged.test_inputs import CLI_BASE

ROOT = Path(__file__).resolve().parents[2]


def zipped(member: str, payload: bytes) -> bytearray:
    """A well-formed deflated zip holding ``member``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member, payload)
    return bytearray(buf.getvalue())


def patch(data: bytearray, local: int, central: int, fmt: str, value: int) -> bytes:
    """``data`` with one field set in the (single) local header and in the central directory entry."""
    assert data[:4] == b"PK\x03\x04"
    struct.pack_into(fmt, data, local, value)
    struct.pack_into(fmt, data, data.rfind(b"PK\x01\x02") + central, value)
    return bytes(data)


def lying(member: str, size: int) -> bytes:
    """A zip whose member inflates to ``size`` bytes while both headers say 200."""
    return patch(zipped(member, b"0" * size), 22, 24, "<I", 200)


def flipped(member: str, payload: bytes) -> bytes:
    """A zip with one byte of its member's compressed data flipped."""
    data = zipped(member, payload)
    data[30 + len(member) + 5] ^= 0xFF
    return bytes(data)


def settings_bytes() -> bytes:
    return to_json(DoseSettings()).encode()


def data_json() -> bytes:
    return json.dumps(loader.bundle_member(logged.example_bytes(), "log.csv")).encode()


DAMAGED: list[tuple[str, Callable[[str, bytes], bytes], str]] = [
    ("bad CRC", lambda m, p: patch(zipped(m, p), 14, 16, "<I", 0xDEADBEEF), "is damaged (CRC mismatch)"),
    ("flipped data", flipped, "is damaged ("),
    ("encrypted", lambda m, p: patch(zipped(m, p), 6, 8, "<H", 1), "is encrypted; upload an unencrypted zip"),
    ("method 99", lambda m, p: patch(zipped(m, p), 8, 10, "<H", 99), "uses compression method 99; use deflate or "
                                                                        "stored"),
    ("lying size", lambda m, p: patch(zipped(m, p), 22, 24, "<I", 200), "is damaged (its headers say 200 bytes"),
]
NOT_ZIPS: list[tuple[str, Callable[[bytes], bytes]]] = [
    ("not a zip", lambda good: b"PK" + b"no zip at all " * 20),
    ("truncated", lambda good: good[: len(good) // 2]),
]


@pytest.mark.parametrize(("case", "make", "words"), DAMAGED, ids=[c[0] for c in DAMAGED])
def test_a_damaged_member_is_one_message_naming_file_and_member(case, make, words) -> None:
    with pytest.raises(uploads.UploadError) as err:
        export.load_settings(make("settings.json", settings_bytes()), "run.zip")
    assert str(err.value).startswith("run.zip: member settings.json ") and words in str(err.value), str(err.value)
    with pytest.raises(uploads.UploadError) as err:
        logged.read(make("data.json", data_json()), "log.zip")
    assert str(err.value).startswith("log.zip: member data.json ") and words in str(err.value), str(err.value)
    assert err.value.field == "data"


@pytest.mark.parametrize(("case", "make"), NOT_ZIPS, ids=[c[0] for c in NOT_ZIPS])
def test_a_file_that_is_no_whole_zip_is_one_message(case, make) -> None:
    for read, member, payload, name in ((export.load_settings, "settings.json", settings_bytes(), "run.zip"),
                                        (logged.read, "data.json", data_json(), "log.zip")):
        with pytest.raises(uploads.UploadError, match=f"^{name} cannot be read as a zip .*upload the whole file"):
            read(make(bytes(zipped(member, payload))), name)


def test_a_zip_without_the_member_says_which() -> None:
    with pytest.raises(uploads.UploadError, match="^run.zip holds no settings.json$"):
        export.load_settings(bytes(zipped("other.txt", b"x")), "run.zip")
    with pytest.raises(uploads.UploadError, match="^log.zip holds no data.json: save the bundle with the data"):
        logged.read(bytes(zipped("other.txt", b"x")), "log.zip")


def peak_while(read: Callable[[], object]) -> int:
    """The peak of Python allocations (bytes) while ``read`` runs and raises."""
    tracemalloc.start()
    try:
        with pytest.raises(uploads.UploadError) as err:
            read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        assert "inflates to more than" in str(err.value) and "headers understate" in str(err.value), str(err.value)


def test_a_member_whose_headers_understate_its_size_is_stopped_at_the_cap() -> None:
    settings_zip = lying("settings.json", 8 * export.MAX_SETTINGS_BYTES)
    peak = peak_while(lambda: export.load_settings(settings_zip, "run.zip"))
    assert peak < export.MAX_SETTINGS_BYTES + 4 * uploads.CHUNK_BYTES + 2 * len(settings_zip), peak
    cap = 200_000
    data_zip = lying("data.json", 40 * cap)
    member_cap = loader._member_cap(cap)
    peak = peak_while(lambda: loader.unbundle(data_zip, cap, "log.zip"))
    assert peak < member_cap + 4 * uploads.CHUNK_BYTES + 2 * len(data_zip), (peak, member_cap)


def test_read_member_counts_what_it_inflates_not_what_headers_say() -> None:
    with uploads.open_zip(lying("m.bin", 50_000), "z.zip") as zf:
        with pytest.raises(uploads.UploadError, match=r"^z.zip: member m.bin inflates to more than 10 kB"):
            uploads.read_member(zf, "m.bin", "z.zip", 10_000)
    with uploads.open_zip(bytes(zipped("m.bin", b"1" * 50_000)), "z.zip") as zf:
        with pytest.raises(uploads.UploadError, match=r"^z.zip: member m.bin is 50 kB; it may be at most 10 kB$"):
            uploads.read_member(zf, "m.bin", "z.zip", 10_000)
        assert uploads.read_member(zf, "m.bin", "z.zip", 50_000) == b"1" * 50_000


def test_a_bundle_is_capped_in_members_and_in_total(monkeypatch: pytest.MonkeyPatch) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(12):
            zf.writestr(f"rounds/{i}.parquet", b"0" * 1000)
    monkeypatch.setattr(export, "MAX_MEMBERS", 10)
    with pytest.raises(uploads.UploadError, match="^b.zip lists 12 members; a zip may hold at most 10$"):
        export.read_bundle(buf.getvalue(), "b.zip")
    monkeypatch.setattr(export, "MAX_MEMBERS", 100)
    monkeypatch.setattr(export, "MAX_BUNDLE_BYTES", 5000)
    with pytest.raises(uploads.UploadError, match="^b.zip inflates to 12 kB; a bundle may hold at most 5 kB$"):
        export.read_bundle(buf.getvalue(), "b.zip")


def test_the_command_line_gives_one_line_for_a_damaged_bundle(tmp_path: Path, capsys) -> None:
    path = tmp_path / "log.zip"
    path.write_bytes(patch(zipped("data.json", data_json()), 14, 16, "<I", 0xDEADBEEF))
    assert cli.main(["logged", "--file", str(path), *CLI_BASE, "--T", "100", "--seeds", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == "error: --file: log.zip: member data.json is damaged (CRC mismatch)", err


def test_a_number_too_long_to_read_names_the_setting() -> None:
    text = '{"kind": "dose", "T": ' + "9" * 5000 + "}"
    with pytest.raises(uploads.UploadError) as err:
        export.load_settings(text.encode(), "settings.json")
    message = str(err.value)
    assert message.startswith('settings.json: a number with more than 4,300 digits (in "T")'), message
    assert "set_int_max_str_digits" not in message
    with pytest.raises(uploads.UploadError, match=r'^run.zip: settings.json: a number with more than 4,300 digits'):
        export.load_settings(bytes(zipped("settings.json", text.encode())), "run.zip")


@pytest.mark.parametrize("text", [
    '{"kind": "dose", "policies": ["' + "x" * 100_000 + '"]}',
    '{"kind": "dose", "' + "k" * 100_000 + '": 1}',
    '{"kind": "dose", "T": ' + "9" * 4000 + "}",
])
def test_an_over_long_value_is_echoed_as_a_short_prefix(text: str) -> None:
    with pytest.raises(SettingsError) as err:
        export.load_settings(text.encode(), "settings.json")
    assert len(str(err.value)) < 400 and "characters)" in str(err.value), str(err.value)


def test_echo_cuts_to_a_prefix_and_names_the_length() -> None:
    assert echo("short") == "'short'"
    assert echo("x" * 1000) == "'" + "x" * 59 + "… (1,002 characters)"
    assert echo(10 ** 5000) == "an integer of about 5,000 digits"


@pytest.mark.parametrize(("n", "text"), [
    (0, "0 bytes"), (1, "1 byte"), (200, "200 bytes"), (12_345, "12.3 kB"), (64 * uploads.MB, "64 MB"),
    (1_500_000, "1.5 MB"), (64 * uploads.MB + 1, "64,000,001 bytes"), (1_000 * uploads.MB, "1,000 MB"),
])
def test_sizes_are_written_one_way(n: int, text: str) -> None:
    assert uploads.format_size(n) == text


def test_the_server_the_uploaders_and_the_command_line_share_one_limit() -> None:
    config = (ROOT / ".streamlit" / "config.toml").read_text()  # tomllib needs Python 3.11
    server = config.split("[server]", 1)[1].split("\n[", 1)[0]
    assert re.findall(r"^maxUploadSize\s*=\s*(\d+)\s*$", server, re.M) == [str(uploads.MAX_UPLOAD_MB)]
    assert logged.MAX_FILE_BYTES == uploads.MAX_UPLOAD_BYTES == uploads.MAX_UPLOAD_MB * 1_000_000
    for page in ("pages/logged.py", "pages/battery.py", "safebandit_ui/forms.py"):
        source = (ROOT / page).read_text()
        assert "max_upload_size=" in source and "2**20" not in source, page


def test_a_mat_file_is_inflated_in_chunks_and_counted_exactly(tmp_path: Path) -> None:
    import numpy as np
    import scipy.io

    path = tmp_path / "real.mat"
    scipy.io.savemat(path, {"a": np.arange(50_000.0), "b": np.ones((300, 40)), "c": "text"}, do_compression=True)
    data = path.read_bytes()
    expected, pos = 0, 128  # each top-level element: an 8-byte tag (type 15: compressed) and its bytes
    while pos < len(data):
        kind, size = struct.unpack("<II", data[pos:pos + 8])
        assert kind == 15
        expected += len(zlib.decompress(data[pos + 8:pos + 8 + size]))
        pos += 8 + size
    stream = io.BytesIO(data)
    assert uploads.mat_inflated_size(stream, 10 ** 9) == expected > 400_000
    assert stream.tell() == 0
    assert uploads.mat_inflated_size(stream, expected - 1) is None and stream.tell() == 0
    assert uploads.mat_inflated_size(io.BytesIO(b"not a MAT file" * 20), 10) == 0
    plain = tmp_path / "plain.mat"
    scipy.io.savemat(plain, {"a": np.arange(1000.0)})
    with open(plain, "rb") as handle:
        assert uploads.mat_inflated_size(handle, 10) == 0  # nothing compressed: its parser reads what it states


def test_a_mat_file_crafted_to_inflate_is_stopped_at_the_cap_without_taking_memory() -> None:
    from tests.support import inflating_mat

    cap = uploads.MAX_MAT_INFLATED_BYTES
    crafted = inflating_mat(cap + (1 << 20))
    assert len(crafted) < cap // 500
    stream = io.BytesIO(crafted)
    tracemalloc.start()
    try:
        assert uploads.mat_inflated_size(stream, cap) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * uploads.CHUNK_BYTES, peak  # a few chunks and zlib's own state, against the 520 MB inflated
    whole = inflating_mat(3 << 20)
    assert uploads.mat_inflated_size(io.BytesIO(whole), cap) == 3 << 20
    assert 0 < uploads.mat_inflated_size(io.BytesIO(whole[:-2000]), cap) < 3 << 20  # cut short: counted as it reads
    garbled = io.BytesIO(whole[:136] + b"\xff" * 16 + whole[152:])  # not a zlib stream: its parser says so
    assert uploads.mat_inflated_size(garbled, cap) == 0 and garbled.tell() == 0


MAT_HEAD = "not a readable MAT file (MATLAB v5/v7): it does not start with the text MATLAB that every .mat file of " \
           "MATLAB v5/v7 starts with; it is "


@pytest.mark.parametrize(("content", "what"), [
    (b"step,voltage\n0,4.1\n", "text (a CSV log is read by the Your data page and the logged command)"),
    (b"PAR1" + b"\x00" * 40 + b"PAR1", "a Parquet file"),
    (b"\x1f\x8b\x08" + b"\x00" * 40, "a gzip file"),
    (bytes(range(128, 256)) * 2, "binary data of another kind"),
], ids=["text", "parquet", "gzip", "binary"])
def test_a_file_named_mat_that_is_no_matlab_file_says_what_it_is(content: bytes, what: str, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from safebandit_core.battery.loader import BatteryDataError, load_steps

    path = tmp_path / "RW9.mat"
    path.write_bytes(content)
    for source in (path, io.BytesIO(content)):
        with pytest.raises(BatteryDataError) as err:
            load_steps(source)
        assert str(err.value) == MAT_HEAD + what
    assert cli.main(["battery", "--data", str(path), "--T", "5"]) == 2
    assert capsys.readouterr().err.strip() == f"error: {MAT_HEAD}{what}"
