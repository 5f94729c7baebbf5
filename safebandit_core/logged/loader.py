"""A user's logged table → checked arrays: the reader (CSV or Parquet, bytes, path or DataFrame) and the column mapper.

:func:`read_table` reads a file (its size is checked before it is parsed) into a :class:`RawTable` with the
content hash the settings refer to it by; :func:`map_columns` turns it, with a :class:`ColumnMap`, into a
:class:`MappedTable`: numeric contexts (categorical ones one-hot encoded on request), doses in [0, 1],
rewards (benefits) and costs (side effects), in log order (by the time column when there is one).

Every problem is one :class:`~safebandit_core.settings.SettingsError` naming the field (``data`` for the
file itself, ``context``, ``categorical``, ``dose``, ``reward``, ``cost``, ``group``, ``time``) and what is
allowed: missing or duplicate columns, non-numeric values (the column and the first bad row, counted from
1 after the header), missing or infinite values (dropped with a count, or refused), a constant column,
doses outside [0, 1] (min–max scaling on request, reported), too many rows or bytes, an empty file, a
file that is not a table. (A constant context column is refused by the fit when it would be standardised.)

A CSV's text is read in UTF-8, UTF-8 or UTF-16 with a byte-order mark, or Windows-1252/Latin-1 (the encoding used
is in :attr:`RawTable.read_as`); only bytes that are text in none of them are refused, with how to save the file
instead. A name ending ``.parquet``, ``.gz`` or ``.zip`` must match the file's magic bytes (Parquet: ``PAR1`` at
both ends), so a CSV renamed ``.parquet`` is called what it is.
"""

from __future__ import annotations

import base64
import csv
import dataclasses
import gzip
import hashlib
import io
import json
import os
import re
import zlib
from typing import Any, BinaryIO

import numpy as np
import pandas as pd

from .. import uploads
from ..settings import SettingsError, shorten

Source = str | os.PathLike[str] | bytes | BinaryIO | pd.DataFrame

MAX_FILE_BYTES = uploads.MAX_UPLOAD_BYTES
MAX_ROWS = 2_000_000
MAX_LEVELS = 50
MISSING: tuple[str, ...] = ("drop", "refuse")
DATA_MEMBER = "data.json"
"""The member of a zip bundle that holds the data (written by the page when asked)."""
_DELIMITERS = ",;\t|"
PARQUET_MAGIC = b"PAR1"
"""The four bytes a Parquet file starts and ends with."""
GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK"
DECLARED: dict[str, str] = {".parquet": "parquet", ".pq": "parquet", ".gz": "gzip", ".zip": "zip"}
"""File name endings that declare a binary type: the content must be of that type (checked by its magic bytes)."""
ENCODINGS = ("UTF-8", "UTF-8 with BOM", "UTF-16 LE with BOM", "UTF-16 BE with BOM", "cp1252", "Latin-1")
"""The text encodings a CSV is read in, by the names :attr:`RawTable.read_as` gives them: a byte-order mark
decides first, then strict UTF-8, then Windows-1252 (Latin-1 when no byte is one of the 0x80-0x9F that the two
read differently) for 8-bit text."""
RESAVE = "save it as CSV UTF-8 (in Excel: Save As, CSV UTF-8) or as Parquet"
"""The hint every refusal of a file that is not text ends with."""
_CLIP = 160


@dataclasses.dataclass(frozen=True, eq=False)
class RawTable:
    """A table as read: the frame, the file's name, the BLAKE2b-128 hash of its bytes (of the frame's values
    for a DataFrame given in memory), its size in bytes and what it was read as (the text's encoding for a CSV)."""

    frame: pd.DataFrame
    name: str
    digest: str
    n_bytes: int
    read_as: str = ""
    """What the bytes were read as: ``Parquet``, ``CSV text in UTF-8``, ``gzipped CSV text in cp1252``, ...
    (:func:`read_frame`); empty for a DataFrame given in memory."""


def digest_of(data: bytes) -> str:
    """The content hash settings refer to data by: BLAKE2b with a 16-byte digest, as hex."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def frame_digest(frame: pd.DataFrame) -> str:
    """The content hash of a DataFrame held in memory (its values, index and column names)."""
    digest = hashlib.blake2b(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes(), digest_size=16)
    digest.update(json.dumps([str(c) for c in frame.columns]).encode())
    return digest.hexdigest()


def _too_big(size: int, max_bytes: int, name: str = "the data file") -> SettingsError:
    return uploads.too_big("data", name, size, max_bytes, "a data file")


def read_bytes(source: str | os.PathLike[str] | bytes | BinaryIO, max_bytes: int = MAX_FILE_BYTES,
               name: str = "the data file") -> bytes:
    """The bytes of a path, a file object or bytes, refusing a missing, empty or oversized file (called ``name``
    in messages) before reading it."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise SettingsError("data", "an existing CSV or Parquet file", path)
        size = os.path.getsize(path)
        if size > max_bytes:
            raise _too_big(size, max_bytes, name)
        with open(path, "rb") as handle:
            data = handle.read()
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        if source.seekable():
            source.seek(0, io.SEEK_END)
            size = source.tell()
            if size > max_bytes:
                raise _too_big(size, max_bytes, name)
            source.seek(0)
        data = source.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _too_big(len(data), max_bytes, name)
    if not data:
        raise SettingsError("data", "a CSV or Parquet file with a header and rows", "an empty file")
    return data


def read_table(source: Source, name: str | None = None, max_bytes: int = MAX_FILE_BYTES) -> RawTable:
    """Read a CSV (plain or gzipped; comma, semicolon, tab or bar separated) or Parquet table, or the original file
    inside a zip bundle's ``data.json``; a DataFrame is taken as it is. ``name`` labels it (default: the file name).
    The hash is that of the file's bytes (of the original file for a bundle)."""
    if isinstance(source, pd.DataFrame):
        size = int(source.memory_usage(index=True, deep=True).sum())
        if size > max_bytes:
            raise _too_big(size, max_bytes, name)
        return RawTable(_check_shape(source.rename(columns=str), name or "a table"), name or "a table",
                        frame_digest(source), size)
    if name is None:
        name = os.path.basename(os.fspath(source)) if isinstance(source, (str, os.PathLike)) else \
            os.path.basename(str(getattr(source, "name", "") or "")) or "an uploaded file"
    data = read_bytes(source, max_bytes, name)
    check_declared(data, name)
    if data[:2] == ZIP_MAGIC:
        name, data = unbundle(data, max_bytes, name)
    frame, read_as = read_frame(data, max_bytes, name)
    return RawTable(frame, name, digest_of(data), len(data), read_as)


def declared_type(name: str) -> str:
    """The binary type a file's name declares (``parquet``, ``gzip``, ``zip``; :data:`DECLARED`), or "" for a name
    that declares text (``.csv``) or nothing."""
    lower = name.lower()
    return next((kind for end, kind in DECLARED.items() if lower.endswith(end)), "")


def _content_type(data: bytes) -> str:
    """What ``data`` is by its magic bytes: ``parquet`` (``PAR1`` at both ends), ``gzip``, ``zip`` or "" (text, or
    something this reader does not know)."""
    if data[:4] == PARQUET_MAGIC and data[-4:] == PARQUET_MAGIC and len(data) >= 8:
        return "parquet"
    if data[:2] == GZIP_MAGIC:
        return "gzip"
    if data[:2] == ZIP_MAGIC:
        return "zip"
    return ""


def check_declared(data: bytes, name: str) -> None:
    """Refuse a file whose name declares Parquet, gzip or zip while its bytes are something else (a CSV renamed
    ``.parquet`` is not read as CSV and then refused for its columns)."""
    declared = declared_type(name)
    if not declared:
        return
    found = _content_type(data)
    if found == declared:
        return
    words = {"parquet": "a Parquet file", "gzip": "a gzip file", "zip": "a zip file"}
    if declared == "parquet" and data[:4] == PARQUET_MAGIC:
        why = "it starts with PAR1 but does not end with it: cut short or damaged; upload the whole file"
    elif declared == "parquet":
        why = "a Parquet file starts and ends with the bytes PAR1"
    else:
        why = "its first bytes are not a " + ("gzip" if declared == "gzip" else "zip") + " file's"
    if found:
        why += f"; it is {words[found]}: rename it to match"
    elif _is_text_start(data):
        why += "; it looks like text: if it is a CSV, name it .csv"
    raise uploads.UploadError("data", f"{shorten(name)} is not {words[declared]} ({why})")


def _is_text_start(data: bytes) -> bool:
    """Whether the first bytes of ``data`` read as text in one of :data:`ENCODINGS` (a hint for a renamed file)."""
    try:
        _decode(data[:4096], "")
    except SettingsError:
        return False
    return True


def read_frame(data: bytes, max_bytes: int = MAX_FILE_BYTES, name: str = "the data file") -> tuple[pd.DataFrame, str]:
    """The table in ``data`` and what it was read as: Parquet (``PAR1`` at both ends), gzipped CSV or CSV text in
    one of :data:`ENCODINGS`. A name ending ``.parquet``, ``.gz`` or ``.zip`` must match the bytes
    (:func:`declared_type`); ``name`` labels the file in messages."""
    check_declared(data, name)
    if data[:4] == PARQUET_MAGIC:
        if data[-4:] != PARQUET_MAGIC or len(data) < 8:
            raise uploads.UploadError("data", f"{shorten(name)} is a damaged Parquet file (it starts with PAR1 but "
                                              "does not end with it: cut short?); upload the whole file")
        _check_parquet_sizes(data, max_bytes, name)
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as err:  # pyarrow raises its own error types for damaged files
            raise _damaged_parquet(name, err) from None
        return _check_shape(frame, name), "Parquet"
    gzipped = data[:2] == GZIP_MAGIC
    if gzipped:
        data = _gunzip(data, max_bytes, name)
    frame, encoding = _parse_csv(data, name)
    return _check_shape(frame, name), ("gzipped " if gzipped else "") + f"CSV text in {encoding}"


def clip(text: str, limit: int = _CLIP) -> str:
    """``text`` whole when short, else cut at the last word boundary before ``limit`` characters, with "…" (never
    mid-word)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return f"{cut} …"


def _damaged_parquet(name: str, err: Exception) -> uploads.UploadError:
    return uploads.UploadError("data", f"{shorten(name)} is a damaged Parquet file ({clip(str(err))})")


def _check_parquet_sizes(data: bytes, max_bytes: int, name: str = "the data file") -> None:
    """Refuse a Parquet file whose footer states more than :data:`MAX_ROWS` rows or more than ``max_bytes`` × 16
    uncompressed before anything is decompressed (a few kB of run-length code can stand for gigabytes)."""
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(io.BytesIO(data)).metadata
        size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    except Exception as err:  # pyarrow raises its own error types for damaged files
        raise _damaged_parquet(name, err) from None
    if meta.num_rows > MAX_ROWS:
        raise SettingsError("data", f"a table of at most {MAX_ROWS:,} rows", f"{meta.num_rows:,} rows")
    if size > 16 * max_bytes:
        raise SettingsError("data", f"a Parquet file of at most {uploads.format_size(16 * max_bytes)} uncompressed",
                            f"{uploads.format_size(size)} uncompressed")


def bundle_member(raw_bytes: bytes, name: str) -> dict[str, Any]:
    """The ``data.json`` a bundle carries when asked to: the original file (base64), its name and its hash (a bundle
    given again carries the file it holds)."""
    if raw_bytes[:2] == b"PK":
        name, raw_bytes = unbundle(raw_bytes)
    return {"name": name, "digest": digest_of(raw_bytes), "base64": base64.b64encode(raw_bytes).decode("ascii")}


def unbundle(data: bytes, max_bytes: int = MAX_FILE_BYTES, name: str = "the bundle") -> tuple[str, bytes]:
    """The file name and original bytes kept in a bundle's ``data.json`` (see :func:`bundle_member`); the member is
    inflated under a cap (base64 takes 4 bytes for 3, plus the JSON around it), whatever the zip's headers say."""
    with uploads.open_zip(data, name, "data") as zf:
        if DATA_MEMBER not in zf.namelist():
            raise uploads.UploadError("data", f"{shorten(name)} holds no {DATA_MEMBER}: save the bundle "
                                              "with the data included")
        text = uploads.read_member(zf, DATA_MEMBER, name, _member_cap(max_bytes), "data")
    try:
        payload = json.loads(text)
        raw = base64.b64decode(payload["base64"], validate=True)
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError) as err:
        why = "a number too long to read" if "digits" in str(err) else shorten(str(err))
        raise uploads.UploadError("data", f"{shorten(name)}: member {DATA_MEMBER} is damaged ({why})") from None
    if len(raw) > max_bytes:
        raise _too_big(len(raw), max_bytes, f"{shorten(name)}: the file in {DATA_MEMBER}")
    if not raw:
        raise SettingsError("data", "a CSV or Parquet file with a header and rows", "an empty file")
    return str(payload.get("name") or "a bundled file"), raw


def _member_cap(max_bytes: int) -> int:
    """The most a ``data.json`` holding a file of ``max_bytes`` may take: base64 (4 bytes for 3) and 64 kB of JSON."""
    return 4 * (max_bytes // 3 + 1) + 65536


def _not_a_table(name: str, why: str) -> uploads.UploadError:
    """The error for a file that is no table: one sentence naming it and why, whole (never cut mid-word)."""
    return uploads.UploadError("data", f"{shorten(name)} is not a CSV or Parquet table: {why}")


def _gunzip(data: bytes, max_bytes: int, name: str = "the data file") -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
            out = handle.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as err:
        raise uploads.UploadError("data", f"{shorten(name)} is a damaged gzip file ({clip(str(err))}); upload "
                                          "the whole file") from None
    if len(out) > max_bytes:
        raise SettingsError("data", f"a file of at most {uploads.format_size(max_bytes)} uncompressed",
                            f"a gzip file that inflates to more than {uploads.format_size(max_bytes)}")
    if not out:
        raise SettingsError("data", "a CSV or Parquet file with a header and rows", "an empty file")
    return out


def _looks_like_json(text: str) -> bool:
    """A JSON document (an object, or an array that parses), not a table: a CSV header never opens with a brace."""
    start = text.lstrip()[:1]
    if start == "{":
        return True
    if start != "[":
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


_BOMS = ((b"\xef\xbb\xbf", "utf-8", "UTF-8 with BOM"), (b"\xff\xfe", "utf-16-le", "UTF-16 LE with BOM"),
         (b"\xfe\xff", "utf-16-be", "UTF-16 BE with BOM"))
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f]")
"""Control characters no CSV holds (tab, line breaks, vertical tab and form feed are allowed)."""
_WINDOWS_ONLY = re.compile(b"[\x80-\x9f]")
"""Bytes that Windows-1252 reads as printable characters and Latin-1 as control characters."""


def _decode(data: bytes, name: str) -> tuple[str, str]:
    """``data`` as text and the name of its encoding (:data:`ENCODINGS`), or an error naming the file for bytes
    that are not text in any of them (binary data, UTF-16 without a byte-order mark, another encoding)."""
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec), label
            except UnicodeDecodeError as err:
                raise _not_text(name, f"it starts with a {label.split(' with')[0]} byte-order mark but byte "
                                      f"{err.start:,} after it does not decode") from None
    if b"\x00" in data[:4096]:
        raise _not_text(name, "binary data with NUL bytes, or UTF-16 text without a byte-order mark")
    try:
        text, label = data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError as err:
            raise _not_text(name, f"byte 0x{data[err.start]:02X} at offset {err.start:,} is text in none of "
                                  "UTF-8, UTF-16 with a byte-order mark and Windows-1252/Latin-1") from None
        label = "cp1252" if _WINDOWS_ONLY.search(data) else "Latin-1"
    bad = _CONTROLS.search(text, 0, 65536)
    if bad is not None:
        raise _not_text(name, f"binary data: control character {ord(bad.group()):#04x} at character "
                              f"{bad.start():,}")
    return text, label


def _not_text(name: str, why: str) -> uploads.UploadError:
    return uploads.UploadError("data", f"{shorten(name)} is not text ({why}); {RESAVE}")


def _parse_csv(data: bytes, name: str = "the data file") -> tuple[pd.DataFrame, str]:
    """The CSV table in ``data`` and the name of the encoding its text was read in (:func:`_decode`)."""
    text, encoding = _decode(data, name)
    if _looks_like_json(text):
        raise SettingsError("data", "a CSV or Parquet table: this looks like a JSON file; upload CSV or Parquet")
    head = text[:65536]
    lines = head.splitlines()
    if not lines or not lines[0].strip():
        raise _not_a_table(name, "its first line is empty (a CSV starts with a header line naming the columns)")
    try:
        delimiter = csv.Sniffer().sniff("\n".join(lines[:20]), delimiters=_DELIMITERS).delimiter
    except csv.Error:
        delimiter = ","
    header = next(csv.reader([lines[0]], delimiter=delimiter))
    names = [h.strip() for h in header]
    seen: set[str] = set()
    for h in names:
        if not h:
            raise SettingsError("data", "a table whose columns all have names (the header has an empty one)")
        if h in seen:
            raise SettingsError("data", f"a table whose columns have distinct names ('{h}' appears twice)")
        seen.add(h)
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delimiter, skipinitialspace=True, low_memory=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as err:
        raise _not_a_table(name, clip(str(err).strip().splitlines()[0])) from None
    frame.columns = names[: frame.shape[1]] if len(names) >= frame.shape[1] else list(frame.columns)
    return frame, encoding


def _check_shape(frame: pd.DataFrame, name: str = "the table") -> pd.DataFrame:
    if frame.shape[1] < 3:
        raise uploads.UploadError("data", f"{shorten(name)} has {frame.shape[1]} column"
                                          f"{'s' if frame.shape[1] != 1 else ''}; a log needs at least 3 (a dose, "
                                          "a benefit and a side effect)")
    if frame.shape[0] == 0:
        raise SettingsError("data", "a table with at least one row", "a header only")
    if frame.shape[0] > MAX_ROWS:
        raise SettingsError("data", f"a table of at most {MAX_ROWS:,} rows", f"{frame.shape[0]:,} rows")
    names = [str(c) for c in frame.columns]
    dup = next((c for i, c in enumerate(names) if c in names[:i]), None)
    if dup is not None:
        raise SettingsError("data", f"a table whose columns have distinct names ('{dup}' appears twice)")
    frame.columns = names
    return frame


@dataclasses.dataclass(frozen=True)
class ColumnMap:
    """Which column plays which role: ``context`` (one or more), ``dose``, ``reward`` (the benefit), ``cost`` (the
    side effect); optional ``categorical`` (context columns to one-hot encode), ``group`` and ``time``."""

    context: tuple[str, ...]
    dose: str
    reward: str
    cost: str
    categorical: tuple[str, ...] = ()
    group: str | None = None
    time: str | None = None

    def roles(self) -> list[tuple[str, str]]:
        """(role, column) pairs, contexts first, in the order they are checked."""
        out = [("context", c) for c in self.context]
        out += [(r, getattr(self, r)) for r in ("dose", "reward", "cost", "group", "time") if getattr(self, r)]
        return out


@dataclasses.dataclass(frozen=True, eq=False)
class MappedTable:
    """The mapped log: ``X`` (n, p) numeric contexts named ``features``; ``dose`` in [0, 1]; ``reward``, ``cost``;
    ``groups`` (codes) or None; ``rows`` the 0-based row of each in the file; rows dropped (and by which
    column); ``dose_scale`` = (lowest, highest) logged dose when it was min–max scaled."""

    X: np.ndarray  # (n, p) float64
    features: tuple[str, ...]
    dose: np.ndarray  # (n,) float64 in [0, 1]
    reward: np.ndarray  # (n,) float64
    cost: np.ndarray  # (n,) float64
    groups: np.ndarray | None  # (n,) int64 codes
    rows: np.ndarray  # (n,) int64
    rows_dropped: int
    dropped_by: dict[str, int]
    dose_scale: tuple[float, float] | None
    n_file_rows: int

    @property
    def rows_used(self) -> int:
        return int(self.dose.size)

    def dose_mapping(self, unit: str = "") -> str:
        """The dose scaling in words ("" when the doses were used as logged)."""
        if self.dose_scale is None:
            return ""
        lo, hi = self.dose_scale
        u = f" {unit}" if unit else ""
        return f"dose 0 = {lo:g}{u} (the lowest logged), dose 1 = {hi:g}{u} (the highest); α = (x − {lo:g}) / " \
               f"{hi - lo:g}"


def _count(k: int) -> str:
    """``k`` rows in words ("1 row", "2,000 rows")."""
    return f"{k:,} row" + ("" if k == 1 else "s")


def _row(index: int) -> int:
    """A 0-based position as the 1-based data row people count (the header not counted)."""
    return int(index) + 1


def check_map(cmap: ColumnMap) -> None:
    """Refuse a mapping that uses a column twice, has no context, or one-hot encodes a column that is no context."""
    if not cmap.context:
        raise SettingsError("context", "at least one column")
    used: dict[str, str] = {}
    for role, col in cmap.roles():
        if not isinstance(col, str) or not col:
            raise SettingsError(role, "a column name", col)
        if col in used:
            other = used[col]
            what = "listed twice among the contexts" if other == role == "context" else f"already the {other} column"
            raise SettingsError(role, f"a column not used twice ('{col}' is {what})", col)
        used[col] = role
    for col in cmap.categorical:
        if col not in cmap.context:
            raise SettingsError("categorical", "context columns (" + ", ".join(cmap.context) + ")", col)


def _check_names(frame: pd.DataFrame, cmap: ColumnMap) -> None:
    columns = [str(c) for c in frame.columns]
    shown = ", ".join(columns[:12]) + (", …" if len(columns) > 12 else "")
    for role, col in cmap.roles():
        if col not in columns:
            raise SettingsError(role, f"a column of the table ({shown})", col)
    check_map(cmap)


def _numeric(values: pd.Series, role: str, col: str, hint: str = "") -> np.ndarray:
    """The column as float64 (blank, ``nan`` and ``NA`` are missing); a value that is not a number names the column
    and its first row."""
    if pd.api.types.is_bool_dtype(values) or pd.api.types.is_numeric_dtype(values):
        return values.to_numpy(dtype=np.float64, na_value=np.nan)
    number = pd.to_numeric(values, errors="coerce")
    blank = values.isna() | values.astype(str).str.strip().str.lower().isin(["", "nan", "na", "n/a", "null"])
    bad = (number.isna() & ~blank).to_numpy()
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise SettingsError(role, f"numbers: column '{col}' has {str(values.iloc[first])[:30]!r} in row "
                                  f"{_row(first)} ({_count(int(bad.sum()))} in all){hint}")
    return number.to_numpy(dtype=np.float64, na_value=np.nan)


def _times(values: pd.Series) -> np.ndarray:
    """A time column as float64 (numbers as they are, dates as nanoseconds)."""
    if pd.api.types.is_numeric_dtype(values):
        return values.to_numpy(dtype=np.float64, na_value=np.nan)
    dates = pd.to_datetime(values, errors="coerce", format="mixed")
    bad = dates.isna() & values.notna()
    if bad.any():
        first = int(np.flatnonzero(bad.to_numpy())[0])
        raise SettingsError("time", f"numbers or dates: column '{values.name}' has {str(values.iloc[first])[:30]!r} "
                                    f"in row {_row(first)}")
    out = dates.astype("int64").to_numpy(dtype=np.float64)
    out[dates.isna().to_numpy()] = np.nan
    return out


def map_columns(frame: pd.DataFrame, cmap: ColumnMap, *, scale_dose: bool = False,
                missing: str = "drop") -> MappedTable:
    """Check and convert the mapped columns of ``frame`` (see the module docstring for every refusal).

    ``missing="drop"`` drops rows with a missing or infinite value in a mapped column (counted in
    ``rows_dropped``); ``"refuse"`` names the first such row. ``scale_dose`` maps the doses onto [0, 1]
    by min–max; without it a dose outside [0, 1] is refused.
    """
    if missing not in MISSING:
        raise SettingsError("missing", "one of " + ", ".join(MISSING), missing)
    _check_names(frame, cmap)
    hint = " — or mark it categorical to one-hot encode it"
    columns: dict[str, np.ndarray] = {}
    for role, col in cmap.roles():
        if col in cmap.categorical or role == "group":
            continue
        columns[col] = _times(frame[col]) if role == "time" else \
            _numeric(frame[col], role, col, hint if role == "context" else "")
    bad = np.zeros(frame.shape[0], dtype=bool)
    dropped_by: dict[str, int] = {}
    role_of = {col: role for role, col in cmap.roles()}
    for col in [c for _, c in cmap.roles()]:
        if col in columns:
            miss = ~np.isfinite(columns[col])
        else:
            miss = frame[col].isna().to_numpy()
        if miss.any():
            if missing == "refuse":
                first = int(np.flatnonzero(miss)[0])
                raise SettingsError(role_of[col], f"a value in every row: column '{col}' is missing or infinite in "
                                                  f"row {_row(first)} ({_count(int(miss.sum()))} in all); drop such "
                                                  "rows (missing: drop) or fill them in")
            dropped_by[col] = int(miss.sum())
            bad |= miss
    keep = np.flatnonzero(~bad)
    order = keep
    if cmap.time:
        order = keep[np.argsort(columns[cmap.time][keep], kind="stable")]
    n = order.size
    if n == 0:
        raise SettingsError("data", "a table with at least one row where every mapped column has a value",
                            f"all {frame.shape[0]:,} rows have a missing value")
    features, blocks = [], []
    for col in cmap.context:
        if col in cmap.categorical:
            names, block = _one_hot(frame[col].iloc[order], col)
        else:
            names, block = [col], columns[col][order][:, None]
        features += names
        blocks.append(block)
    dose_raw = columns[cmap.dose][order]
    check_varies(dose_raw, "dose", cmap.dose)
    scale = None
    if scale_dose:
        lo, hi = float(dose_raw.min()), float(dose_raw.max())
        dose, scale = (dose_raw - lo) / (hi - lo), (lo, hi)
    else:
        outside = np.flatnonzero((dose_raw < 0) | (dose_raw > 1))
        if outside.size:
            first = outside[0]
            raise SettingsError("dose", f"in [0, 1]: row {_row(order[first])} has {dose_raw[first]:g} and the column "
                                        f"spans {dose_raw.min():g} – {dose_raw.max():g}; turn on min–max scaling "
                                        "of the dose to map it onto [0, 1]")
        dose = dose_raw
    reward, cost = columns[cmap.reward][order], columns[cmap.cost][order]
    check_varies(reward, "reward", cmap.reward)
    check_varies(cost, "cost", cmap.cost)
    groups = None
    if cmap.group:
        groups = pd.factorize(frame[cmap.group].iloc[order].astype(str))[0].astype(np.int64)
    return MappedTable(X=np.ascontiguousarray(np.hstack(blocks)), features=tuple(features), dose=dose, reward=reward,
                       cost=cost, groups=groups, rows=order.astype(np.int64), rows_dropped=int(bad.sum()),
                       dropped_by=dropped_by, dose_scale=scale, n_file_rows=int(frame.shape[0]))


def check_varies(values: np.ndarray, role: str, col: str, what: str = "") -> None:
    """Refuse a column with one value in every used row (nothing to learn from; a standardised one divides by 0)."""
    if values.size and values.min() == values.max():
        raise SettingsError(role, f"a column that varies: '{col}' is {values[0]:g} in every used row{what}")


def _one_hot(values: pd.Series, col: str) -> tuple[list[str], np.ndarray]:
    """Indicator columns ``col=level`` for every level but the first (sorted): the first is the reference."""
    text = values.astype(str).str.strip()
    levels = sorted(text.unique())
    if len(levels) > MAX_LEVELS:
        raise SettingsError("categorical", f"columns with at most {MAX_LEVELS} distinct values ('{col}' has "
                                           f"{len(levels):,}; leave it out or bin it)", col)
    if len(levels) < 2:
        raise SettingsError("context", f"a column that varies: '{col}' is {levels[0]!r} in every used row "
                                       "(leave it out of the contexts)", col)
    block = np.stack([(text == lv).to_numpy(dtype=np.float64) for lv in levels[1:]], axis=1)
    return [f"{col}={lv}" for lv in levels[1:]], block


_ROLE_WORDS: dict[str, tuple[str, ...]] = {
    "dose": ("dose", "dosage", "amount"),
    "cost": ("side", "cost", "tox", "adverse", "harm"),
    "reward": ("benefit", "reward", "efficacy", "response", "outcome", "effect", "gain"),
}
_NOT_CONTEXT = ("id", "patient", "subject", "index", "row", "day", "time", "date")


def guess_map(frame: pd.DataFrame) -> ColumnMap:
    """A first mapping to offer: columns named like a dose, a side effect and a benefit (else the last numeric ones),
    and every other numeric column as a context except identifiers and times."""
    columns = [str(c) for c in frame.columns]
    numeric = [c for c in columns if pd.api.types.is_numeric_dtype(frame[c])] or columns
    chosen: dict[str, str] = {}
    for role, words in _ROLE_WORDS.items():
        named = [c for c in numeric if c not in chosen.values() and any(w in c.lower() for w in words)]
        spare = [c for c in reversed(numeric) if c not in chosen.values()]
        chosen[role] = (named or spare or columns)[0]
    rest = [c for c in numeric if c not in chosen.values()]
    context = [c for c in rest if not any(c.lower() == w or c.lower().endswith(f"_{w}") or c.lower().startswith(w)
                                          for w in _NOT_CONTEXT)] or rest[:1]
    return ColumnMap(context=tuple(context), dose=chosen["dose"], reward=chosen["reward"], cost=chosen["cost"])
