"""A replay of a user's logged data as a :class:`~safebandit_core.model.Family` (kind ``logged``): a table →
the column mapping → the fit → HPC-UCB, On-Expectation and ε-Greedy replayed on the fitted model.

:func:`prepare` reads the data (the built-in synthetic dose log, a file, its bytes, or a DataFrame), maps its
columns (:func:`.loader.map_columns`), fits (:func:`.fit.fit_table`) and returns a :class:`LoggedRun`, all
memoised per content hash in :data:`safebandit_core.data.cache.MEMO`. The replay is the one both this and
the battery experiment use (:func:`safebandit_core.data.replay.make_family`): the dose model's ``contexts``
stream source, the fitted θ*, μ* as the truth, Gaussian noise at the fitted κ_r, κ_c (no bootstrap of
residuals).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Hashable, Iterator
from importlib import resources
from typing import Any, BinaryIO

import pandas as pd

from .. import jsondoc, runner
from .. import model as M
from ..data import replay
from ..data.cache import MEMO
from ..dose.settings import DoseSettings, first_safe_dose
from ..settings import SettingsError
from .fields import FIELDS
from .fit import LoggedFit, fit_table
from .loader import (
    RawTable,
    check_declared,
    digest_of,
    frame_digest,
    map_columns,
    read_bytes,
    read_frame,
    read_table,
    unbundle,
)
from .settings import EXAMPLE_FILE, LoggedSettings

Data = str | os.PathLike[str] | BinaryIO | bytes | pd.DataFrame | None

EXAMPLE_TRUTH = "dose_log.json"


def example_bytes() -> bytes:
    """The built-in synthetic dose log (gzipped CSV, written by ``scripts/make_dose_log.py``)."""
    return resources.files(__package__).joinpath("examples", EXAMPLE_FILE).read_bytes()


def example_truth() -> dict[str, Any]:
    """How the built-in log was generated: θ*, μ* per column, the noise, the curve and the seed."""
    return json.loads(resources.files(__package__).joinpath("examples", EXAMPLE_TRUTH).read_text())


def read(data: bytes, name: str) -> RawTable:
    """The table in a file's bytes (or in a bundle's ``data.json``), memoised by content hash."""
    data = read_bytes(data, name=name)
    check_declared(data, name)
    if data[:2] == b"PK":
        name, data = unbundle(data, name=name)
    digest = digest_of(data)

    def parse() -> RawTable:
        frame, read_as = read_frame(data, name=name)
        return RawTable(frame, name, digest, len(data), read_as)

    return MEMO.get(("logged-raw", digest), parse)


def _path_key(path: str) -> tuple[Hashable, ...]:
    if not os.path.isfile(path):
        raise SettingsError("data", "an existing CSV or Parquet file", path)
    stat = os.stat(path)
    return "logged-path", os.path.abspath(path), stat.st_size, stat.st_mtime_ns


def load(settings: LoggedSettings, data: Data = None) -> RawTable:
    """The table of ``settings`` (from ``data`` when given), memoised by content; a ``data_hash`` in the settings
    must match the data's."""
    if data is None and settings.source == "example":
        raw = read(example_bytes(), EXAMPLE_FILE)
    elif data is None and settings.source == "path":
        path = os.fspath(settings.path or "")
        raw = MEMO.get(_path_key(path), lambda: read(read_bytes(path, name=os.path.basename(path)),
                                                             os.path.basename(path)))  # size checked first
    elif data is None:
        def unseen() -> RawTable:
            raise SettingsError("data", f"given again: these settings replay {settings.file or 'an uploaded file'} "
                                        f"(hash {str(settings.data_hash)[:12]}…), which this process has not read; "
                                        "upload it on the Your data page, or pass it to safebandit_core.logged.prepare")

        raw = MEMO.get(("logged-raw", settings.data_hash), unseen)
    elif isinstance(data, pd.DataFrame):
        digest = frame_digest(data)
        raw = MEMO.get(("logged-raw", digest), lambda: read_table(data, settings.file))
    else:
        name = settings.file or os.path.basename(str(getattr(data, "name", "") or "")) or "an uploaded file"
        raw = read(data if isinstance(data, bytes) else read_bytes(data, name=name), name)
    if settings.data_hash is not None and settings.data_hash != raw.digest:
        raise SettingsError("data", f"the data these settings were made with ({settings.file or 'a file'}, hash "
                                    f"{settings.data_hash[:12]}…)", f"{raw.name}, hash {raw.digest[:12]}…")
    return raw


def fitted(settings: LoggedSettings, data: Data = None) -> tuple[LoggedFit, RawTable]:
    """The fit of ``settings`` (from ``data`` when given) and its table, memoised by content hash and mapping.

    ``settings`` are taken as validated (:func:`prepare` validates them; a run validates before it asks)."""
    raw = load(settings, data)

    def make() -> LoggedFit:
        table = map_columns(raw.frame, settings.column_map(), scale_dose=settings.scale_dose, missing=settings.missing)
        return fit_table(table, contexts=settings.contexts, hash_dim=settings.hash_dim,
                         intercept=settings.intercept, plan=settings.plan())

    return MEMO.get(("logged-fit", raw.digest, settings.fit_key()), make), raw


def _order(s: LoggedSettings) -> tuple[str, int]:
    return s.order, s.order_seed


@dataclasses.dataclass(frozen=True, eq=False)
class LoggedRun:
    """A log's prepared data: the fit, the settings of its replay (``data_hash`` and ``file`` filled in, so that the
    generic :func:`safebandit_core.families.simulate` finds the fit in :data:`safebandit_core.data.cache.MEMO`)
    and the table read."""

    fit: LoggedFit
    settings: LoggedSettings
    raw: RawTable

    @property
    def family(self) -> M.Family:
        return FAMILY

    @property
    def dose(self) -> DoseSettings:
        """The dose-model settings the replay runs (d, κ, S, L, g from the fit)."""
        return replay.dose_settings(self.settings, self.fit.env, self.settings.T)

    @property
    def first_safe_dose(self) -> float:
        """HPC-UCB's round-1 dose g⁻¹(min(1, τ/(b_δ + S·L))) for these settings."""
        return first_safe_dose(self.dose)

    def report(self) -> dict[str, Any]:
        """The fit report at the settings' τ (see :meth:`.fit.LoggedFit.report`)."""
        return {"file": self.raw.name, "data_hash": self.raw.digest, **self.fit.report(self.settings.tau)}


def prepare(settings: LoggedSettings, data: Data = None) -> LoggedRun:
    """Validate, read the data (``data``, e.g. an uploaded file, or the settings' source), map and fit it (memoised).

    Every bad input raises :class:`SettingsError` naming its field (see :mod:`.loader`).
    """
    fit, raw = fitted(settings.validate(), data)
    s = dataclasses.replace(settings, data_hash=raw.digest, file=settings.file or raw.name)
    replay.check_context_bytes(s.T, fit.d, "float64")
    return LoggedRun(fit=fit, settings=s.validate(), raw=raw)


def opening(precision: str) -> LoggedSettings:
    """The settings a first look at logged data starts from: the built-in example log, fitted, replayed with the
    default settings from base seed 0 (prepared data: the settings name the fitted log by its hash)."""
    return prepare(LoggedSettings(base_seed=0, precision=precision, file=EXAMPLE_FILE)).settings.unlabelled()


FAMILY = dataclasses.replace(replay.make_family(LoggedSettings, lambda s: fitted(s)[0].env, order_of=_order),
                             command="logged", cli="safebandit_core.logged.cli", command_aliases=("data",),
                             prepare=prepare, fields=FIELDS,
                             example=LoggedSettings(T=2400, seeds=2))
"""The replay family of logged data: each settings' data is read, mapped and fitted once and memoised (an
uploaded file is found by its hash once this process has read it: see :func:`prepare`)."""


def simulate(run: LoggedRun, device: str | None = None, chunk: int | None = None,
             settings: LoggedSettings | None = None) -> Iterator[M.Run]:
    """Every policy × seed on the fitted model, chunk by chunk (``settings``: another τ, δ, … of the same fit)."""
    yield from M.simulate(FAMILY, settings or run.settings, device, chunk)


def run_replay(run: LoggedRun, device: str | None = None) -> M.Run:
    """:func:`simulate` to the end."""
    return runner.final(simulate(run, device))


def policy_rows(result: M.Run) -> list[dict[str, Any]]:
    """Per policy: violation rate and regret (mean, std) with their 95 % intervals over seeds, slack and final dose."""
    return jsondoc.rows_of(M.summary(result)[list(replay.POLICY_COLUMNS)])
