"""Settings of the battery replay (Safety by Design §7) as data: one frozen dataclass, validated once.

:class:`BatteryReplaySettings` is what the page's *Settings JSON* and the zip export hold (kind
``battery``), and what the :data:`~safebandit_core.battery.family.FAMILY` runs: the data source and
the fit (``source``, ``dim``, ``embedder``, ``fit_lam``) fix the contexts and the truth; ``tau``,
``delta``, ``delta_prime``, ``lam`` and ``eps`` are the traced numbers of one replay, the ones a
grid may vary; ``taus`` are the cost limits the page replays side by side (a grid over ``tau``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from .. import device as dev
from ..data.embed import HASH_EMBEDDER, SENTENCE_EMBEDDER
from ..dose.settings import MAX_D, MAX_SEEDS, check_replay_numbers
from ..settings import SettingsError, check_choice, check_int_range, from_dict

POLICIES: tuple[str, ...] = ("hpucb", "eps_greedy", "on_expectation")
PAPER_TAUS: tuple[float, ...] = (0.1, 0.2)
"""The paper's cost limits (on its cells RW9–RW12), the settings' defaults so older files restore unchanged."""
OPEN_TAUS: tuple[float, ...] = (0.3, 0.5)
"""The cost limits the page opens on and the command line's default ``--tau`` (the first). On the embedded
RW26 cell the fit's norm bound S ≈ 11 makes the round-1 safe dose τ/(b_δ + S·L) 0.009 at τ = 0.1 and 0.017 at
0.2 (a warning that HPC-UCB starts almost at zero), although the true safe dose is about 0.12 and 0.24. At τ = 0.3
and 0.5 the round-1 dose is 0.026 and 0.043, and the true safe dose (median 0.36 and 0.61, below 1 in almost every
round) still binds: the point of the replay, with no warning."""
TAUS: tuple[float, ...] = (*PAPER_TAUS, *OPEN_TAUS)
"""The cost limits the page offers (a grid over them)."""
DEFAULT_DIM = 2048
DEFAULT_FIT_LAM = 0.1
SOURCES: tuple[str, ...] = ("embedded", "upload", "path")
MAX_REPLAY_T = 100_000
MAX_REPLAY_SEEDS = 50
MAX_BASE_SEED = 2**31 - 1 - MAX_SEEDS
_HASH = re.compile(r"[0-9a-f]{32}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class BatteryReplaySettings:
    """Everything that re-creates a battery replay (the page's *Settings JSON*, kind ``battery``).

    ``source``: ``embedded`` (the shipped RW26 table), ``upload`` or ``path`` (a user's NASA .mat
    file, named by ``file``; ``path`` is its path on the machine, required for ``path``: a file is
    named, never stored); ``data_hash``: the BLAKE2b-128 hash of the data given to
    :func:`~safebandit_core.battery.family.prepare` (an upload's bytes or a table), by which a run finds its
    prepared data (None: the source itself is read). ``dim``: the embedding size; ``embedder``: ``hash`` or
    ``sentence-transformers:<model>``; ``fit_lam``: the fit's ridge; ``taus``: the cost limits the
    page replays (a subset of :data:`TAUS`, one grid cell each); ``T`` None: every replay round once
    (:func:`~safebandit_core.battery.family.prepare` resolves it); ``precision`` None or ``auto``:
    the device's default. ``dim`` and ``base_seed`` have no default: the page's default ``dim``
    depends on the device, so a file must say which one it ran.

    ``tau`` (the cost limit of one replay, the command line's ``--tau``), ``delta``,
    ``delta_prime``, ``lam`` (the learner's ridge) and ``eps`` default to the paper's values, so
    files written before these fields existed restore unchanged.
    """

    KIND: ClassVar[str] = "battery"

    source: str = "embedded"
    file: str | None = None
    path: str | None = None
    data_hash: str | None = None
    dim: int
    embedder: str = HASH_EMBEDDER
    fit_lam: float = DEFAULT_FIT_LAM
    taus: tuple[float, ...] = PAPER_TAUS
    T: int | None = None
    seeds: int = 3
    policies: tuple[str, ...] = POLICIES
    base_seed: int
    precision: str | None = None
    tau: float = PAPER_TAUS[0]
    delta: float = 0.05
    delta_prime: float = 0.05
    lam: float = 1.0
    eps: float = 0.5

    def validate(self) -> BatteryReplaySettings:
        """Raise :class:`SettingsError` naming the first field out of range; return self."""
        check_choice("source", self.source, SOURCES)
        if self.file is not None and not isinstance(self.file, str):
            raise SettingsError("file", "a file name or null", self.file)
        if self.source == "path" and not (isinstance(self.path, str) and self.path.strip()):
            raise SettingsError("path", "the path of a .mat file", self.path)
        if self.data_hash is not None and not (isinstance(self.data_hash, str) and _HASH.fullmatch(self.data_hash)):
            raise SettingsError("data_hash", "32 hexadecimal digits (BLAKE2b-128) or null", self.data_hash)
        check_int_range("dim", self.dim, 1, MAX_D)
        check_int_range("seeds", self.seeds, 1, MAX_REPLAY_SEEDS)
        check_int_range("base_seed", self.base_seed, 0, MAX_BASE_SEED)
        lam = self.fit_lam
        if not (isinstance(lam, (int, float)) and not isinstance(lam, bool) and 1e-6 <= lam <= 1e3):
            raise SettingsError("fit_lam", "in [1e-06, 1000]", lam)
        if not isinstance(self.taus, (tuple, list)) or any(t not in TAUS for t in self.taus):
            raise SettingsError("taus", "a list of " + ", ".join(f"{t:g}" for t in TAUS), self.taus)
        if self.T is not None:
            check_int_range("T", self.T, 1, MAX_REPLAY_T)
        if not isinstance(self.policies, (tuple, list)) or any(p not in POLICIES for p in self.policies):
            raise SettingsError("policies", "a list of " + ", ".join(POLICIES), self.policies)
        family, _, model = self.embedder.partition(":") if isinstance(self.embedder, str) else ("", "", "")
        if self.embedder != HASH_EMBEDDER and not (family == SENTENCE_EMBEDDER and model):
            raise SettingsError("embedder", f"'{HASH_EMBEDDER}' or '{SENTENCE_EMBEDDER}:<model>'", self.embedder)
        if self.precision not in (None, "auto"):
            check_choice("precision", self.precision, dev.PRECISIONS)
        check_replay_numbers(self.tau, self.delta, self.delta_prime, self.lam, self.eps)
        return self


BATTERY_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(BatteryReplaySettings))


def battery_settings(data: Mapping[str, Any]) -> BatteryReplaySettings:
    """:func:`~safebandit_core.settings.from_dict` for :class:`BatteryReplaySettings` (validated), naming an
    unknown field or a missing ``dim`` / ``base_seed`` as a :class:`SettingsError` rather than a TypeError."""
    unknown = sorted(set(data) - set(BATTERY_FIELDS) - {"kind"})
    if unknown:
        raise SettingsError(unknown[0], "a known setting of the battery replay (" + ", ".join(BATTERY_FIELDS) + ")")
    for name in ("dim", "base_seed"):
        if name not in data:
            raise SettingsError(name, "given in the file")
    return from_dict(BatteryReplaySettings, dict(data))


def tau_grid(settings: BatteryReplaySettings) -> list[dict[str, float]]:
    """The grid cells of the page's replay: one ``{"tau": τ}`` per value of ``taus``."""
    return [{"tau": float(t)} for t in settings.taus]
