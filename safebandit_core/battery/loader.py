"""NASA randomized battery usage ``.mat`` files -> one tidy row per step.

The NASA Ames "Randomized Battery Usage" files (RW9-RW12 of Safety by Design, RW25-RW28 here) hold a
top-level struct ``data`` whose field ``step`` is a struct array; each step carries ``comment``,
``type``, ``time``, ``relativeTime``, ``voltage``, ``current`` (positive = discharge),
``temperature`` and ``date``. :func:`load_steps` reduces every step to a few aggregates while it
walks the steps, so even files with 10^5 steps never become one giant per-sample table;
:func:`raw_samples` expands only a small, chosen window back into samples for plotting.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from importlib import resources
from typing import Any, BinaryIO

import numpy as np
import pandas as pd
import scipy.io

from .. import uploads

Source = str | os.PathLike[str] | BinaryIO

REQUIRED_FIELDS: tuple[str, ...] = (
    "comment",
    "type",
    "time",
    "relativeTime",
    "voltage",
    "current",
    "temperature",
    "date",
)
SAMPLE_FIELDS: tuple[str, ...] = ("time", "relativeTime", "voltage", "current", "temperature")
TEXT_FIELDS: tuple[str, ...] = ("comment", "type", "date")

COLUMN_DTYPES: dict[str, str] = {
    "step": "int64",
    "comment": "str",
    "type": "str",
    "date": "datetime64[ns]",
    "time_start": "float64",
    "duration": "float64",
    "n_samples": "int64",
    "current_mean": "float64",
    "current_max": "float64",
    "voltage_start": "float64",
    "voltage_end": "float64",
    "temperature_mean": "float64",
    "temperature_max": "float64",
}
"""Columns of :func:`load_steps`, in order, with their dtypes (``str`` is pandas' text dtype)."""

RANDOM_WALK_DISCHARGE = "discharge (random walk)"
DATE_FORMAT = "%d-%b-%Y %H:%M:%S"
EMBEDDED_TABLE = "rw26_steps.csv.gz"


class BatteryDataError(ValueError):
    """The input is not a NASA randomized-usage file; the message says what is wrong and where."""


def load_steps(path_or_fileobj: Source) -> pd.DataFrame:
    """Read a NASA randomized-usage ``.mat`` file into one row per step (see ``COLUMN_DTYPES``).

    ``step`` is the 0-based position in ``data.step``; ``time_start`` is the first sample's
    ``time`` (s since the experiment began); ``duration`` is the last sample's ``relativeTime``
    (s since the step began); ``voltage_start``/``voltage_end`` are the first and last samples;
    ``date`` is the step's start (NaT if it does not read as ``dd-Mon-yyyy HH:MM:SS``).
    Raises :class:`BatteryDataError` for malformed input.
    """
    steps = _read_step_array(path_or_fileobj)
    n = steps.shape[0]
    floats = {name: np.empty(n) for name, dtype in COLUMN_DTYPES.items() if dtype == "float64"}
    n_samples = np.empty(n, dtype=np.int64)
    texts: dict[str, list[str]] = {name: [] for name in TEXT_FIELDS}
    for i in range(n):
        record = steps[i]
        samples, sums = _step_samples(record, i)
        size = samples["time"].size
        floats["time_start"][i] = samples["time"][0]
        floats["duration"][i] = samples["relativeTime"][-1]
        floats["current_mean"][i] = sums["current"] / size
        floats["current_max"][i] = samples["current"].max()
        floats["voltage_start"][i] = samples["voltage"][0]
        floats["voltage_end"][i] = samples["voltage"][-1]
        floats["temperature_mean"][i] = sums["temperature"] / size
        floats["temperature_max"][i] = samples["temperature"].max()
        n_samples[i] = size
        for name in TEXT_FIELDS:
            texts[name].append(_text(record[name], i, name))
    frame = pd.DataFrame(
        {
            "step": np.arange(n, dtype=np.int64),
            "comment": texts["comment"],
            "type": texts["type"],
            "date": pd.to_datetime(texts["date"], format=DATE_FORMAT, errors="coerce"),
            "n_samples": n_samples,
            **floats,
        }
    )
    return _typed(frame)


def random_walk_discharges(steps: pd.DataFrame) -> pd.DataFrame:
    """The random-walk discharge steps (comment ``discharge (random walk)``), in time order.

    These are the rounds of the battery experiment: each one applied a randomly drawn current
    for up to a minute. The original ``step`` numbers and index are kept.
    """
    comment = steps["comment"].astype(str).str.strip().str.lower()
    chosen = steps.loc[comment == RANDOM_WALK_DISCHARGE]
    return chosen.sort_values(["time_start", "step"], kind="stable")


def load_embedded() -> pd.DataFrame:
    """The per-step table of NASA cell RW26 shipped with the package (same columns as ``load_steps``).

    Built by ``scripts/build_battery_table.py`` from ``RW26.mat``; floats are rounded to the
    precision of the instruments, so values agree with :func:`load_steps` to about 1e-3.
    """
    table = resources.files(__package__).joinpath(EMBEDDED_TABLE)
    with table.open("rb") as handle:
        frame = pd.read_csv(handle, compression="gzip", keep_default_na=False, na_values=[""])
    frame["date"] = pd.to_datetime(frame["date"], format="%Y-%m-%d %H:%M:%S", errors="coerce")
    missing = [c for c in COLUMN_DTYPES if c not in frame.columns]
    if missing:
        raise BatteryDataError(f"embedded table {EMBEDDED_TABLE} lacks columns {missing}")
    return _typed(frame)


def raw_samples(path_or_fileobj: Source, step_indices: Iterable[int]) -> pd.DataFrame:
    """Per-sample rows (step, time, relative_time, voltage, current, temperature) for chosen steps.

    Meant for looking at a small window of a user's file; the steps keep the order given.
    Raises :class:`BatteryDataError` for malformed input or a step index out of range.
    """
    steps = _read_step_array(path_or_fileobj)
    wanted = [int(i) for i in step_indices]
    bad = [i for i in wanted if not 0 <= i < steps.shape[0]]
    if bad:
        raise BatteryDataError(f"step indices {bad} are out of range: the file has steps 0..{steps.shape[0] - 1}")
    parts = []
    for i in wanted:
        samples, _ = _step_samples(steps[i], i)
        parts.append(
            pd.DataFrame(
                {
                    "step": np.full(samples["time"].size, i, dtype=np.int64),
                    "comment": _text(steps[i]["comment"], i, "comment"),
                    "time": samples["time"],
                    "relative_time": samples["relativeTime"],
                    "voltage": samples["voltage"],
                    "current": samples["current"],
                    "temperature": samples["temperature"],
                }
            )
        )
    if not parts:
        raise BatteryDataError("no step indices given: choose at least one step to show")
    return pd.concat(parts, ignore_index=True)


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """Put the columns in canonical order and dtypes, so every loader returns the same frame."""
    out = frame.loc[:, list(COLUMN_DTYPES)].astype(COLUMN_DTYPES)
    return out.reset_index(drop=True)


def _read_step_array(source: Source) -> np.ndarray:
    """Load the MAT file and return ``data.step`` as a 1-D structured array with all fields."""
    contents = _open(source)
    _check_inflation(contents)
    try:
        mat = scipy.io.loadmat(contents, squeeze_me=True, variable_names=["data"])
    except Exception as err:  # scipy raises many types for non-MAT input
        raise BatteryDataError(f"not a readable MAT file (MATLAB v5/v7): {_mat_header_hint(contents) or err}") \
            from err
    if "data" not in mat:
        raise BatteryDataError("no top-level variable 'data' in the MAT file")
    data = np.asarray(mat["data"])
    if data.dtype.names is None:
        raise BatteryDataError("top-level 'data' is not a struct")
    if "step" not in data.dtype.names:
        raise BatteryDataError(f"'data' has no field 'step' (fields: {list(data.dtype.names)})")
    steps = np.atleast_1d(data["step"].ravel()[0]) if data.size else np.empty(0)
    if steps.dtype.names is None:
        if steps.size == 0:
            raise BatteryDataError("data.step is empty: the file holds no steps")
        raise BatteryDataError("data.step is not a struct array")
    steps = steps.ravel()
    if steps.shape[0] == 0:
        raise BatteryDataError("data.step is empty: the file holds no steps")
    for name in REQUIRED_FIELDS:
        if name not in steps.dtype.names:
            raise BatteryDataError(f"step 0: required field '{name}' is missing (data.step has no field '{name}')")
    return steps


def _check_inflation(contents: Source) -> None:
    """Refuse a file whose compressed variables inflate past :data:`~safebandit_core.uploads.MAX_MAT_INFLATED_BYTES`
    before scipy's reader inflates them whole (a few megabytes can be crafted to inflate to gigabytes)."""
    cap = uploads.MAX_MAT_INFLATED_BYTES
    if isinstance(contents, (str, os.PathLike)):
        with open(contents, "rb") as handle:
            size = uploads.mat_inflated_size(handle, cap)
    else:
        size = uploads.mat_inflated_size(contents, cap)
    if size is None:
        raise BatteryDataError(f"the file's compressed variables inflate to more than {uploads.format_size(cap)}, "
                               "the most a .mat file may hold here (NASA's files inflate about 5 times their size)")


def _mat_header_hint(contents: Source) -> str:
    """Why a file scipy cannot read is no MATLAB file at all, when its first bytes say so ("" when they start like
    one: then scipy's own reason is the better one). A MATLAB v5/v7 file starts with the text ``MATLAB``."""
    if isinstance(contents, (str, os.PathLike)):
        with open(contents, "rb") as handle:
            head = handle.read(128)
    else:
        contents.seek(0)  # _open gave it at its start; the parser has read on since
        head = contents.read(128)
        contents.seek(0)
    if head.startswith(b"MATLAB"):
        return ""
    kinds = ((b"PAR1", "a Parquet file"), (b"PK", "a zip file"), (b"\x1f\x8b", "a gzip file"))
    found = next((what for magic, what in kinds if head.startswith(magic)), "")
    if not found:
        try:
            head.decode("utf-8")
            found = "text (a CSV log is read by the Your data page and the logged command)"
        except UnicodeDecodeError:
            found = "binary data of another kind"
    return f"it does not start with the text MATLAB that every .mat file of MATLAB v5/v7 starts with; it is {found}"


def _open(source: Source) -> Source:
    """``source`` ready for ``loadmat`` (a path, or a seekable stream at its start); rejects empty input."""
    if isinstance(source, (str, os.PathLike)):
        if os.path.getsize(source) == 0:
            raise BatteryDataError(f"the file {os.fspath(source)!r} is empty")
        return source
    stream = source if source.seekable() else io.BytesIO(source.read())
    stream.seek(0)
    if not stream.read(1):
        raise BatteryDataError("the file is empty")
    stream.seek(0)
    return stream


def _step_samples(record: Any, i: int) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """The sample vectors of step ``i`` as 1-D float64 arrays and their sums, checked for size and NaN."""
    arrays: dict[str, np.ndarray] = {}
    sums: dict[str, float] = {}
    for name in SAMPLE_FIELDS:
        values = record[name]
        if not (isinstance(values, np.ndarray) and values.dtype == np.float64 and values.ndim == 1):
            try:
                values = np.atleast_1d(np.asarray(values, dtype=np.float64)).ravel()
            except (TypeError, ValueError) as err:
                raise BatteryDataError(f"step {i}: field '{name}' is not numeric") from err
        if values.size == 0:
            raise BatteryDataError(f"step {i}: required field '{name}' is empty")
        total = float(values.sum())
        if np.isnan(total) and np.isnan(values).any():
            raise BatteryDataError(f"step {i}: field '{name}' contains NaN")
        arrays[name] = values
        sums[name] = total
    size = arrays["time"].size
    if any(v.size != size for v in arrays.values()):
        lengths = {name: v.size for name, v in arrays.items()}
        raise BatteryDataError(f"step {i}: sample vectors differ in length {lengths}")
    return arrays, sums


def _text(value: Any, i: int, name: str) -> str:
    """A MATLAB char field as ``str`` (an empty char array becomes ``''``)."""
    if isinstance(value, str):
        return value
    array = np.asarray(value)
    if array.size == 0:
        return ""
    if array.dtype.kind in "US":
        return "".join(str(v) for v in array.ravel())
    raise BatteryDataError(f"step {i}: field '{name}' is not text")
