"""Settings of a replay of logged data as data: one frozen dataclass (kind ``logged``), validated once.

:class:`LoggedSettings` is what the page's *Settings JSON* and the zip export hold and what the
:data:`~safebandit_core.logged.family.FAMILY` runs. The data is named, never stored: ``source``, ``file``
(its name), ``path`` (for a file on this machine) and ``data_hash`` (the BLAKE2b-128 hash of its bytes, so
a restore can tell the same file from another one). Then the column mapping (``context``,
``categorical``, ``dose``, ``reward``, ``cost``, ``group``, ``time``) and its options, the fit (context
transform, dose curve g, ridge, split), the replay (order, horizon, seeds, policies, τ, δ, δ′, λ, ε) and
the names and units the page shows (they change no number).
"""

from __future__ import annotations

import dataclasses
import re
from typing import ClassVar

from .. import device as dev
from ..data.replay import ORDERS
from ..data.ridge import SPLITS, FitPlan
from ..dose import curves
from ..dose.policies import NAMES
from ..dose.settings import MAX_D, check_replay_numbers
from ..settings import SettingsError, check_choice, check_int_range, check_open_unit
from .fit import CONTEXTS, DEFAULT_HASH_DIM
from .loader import MISSING, ColumnMap, check_map

SOURCES: tuple[str, ...] = ("example", "upload", "path")
EXAMPLE_FILE = "dose_log.csv.gz"
EXAMPLE_CONTEXT: tuple[str, ...] = ("age", "weight", "biomarker", "severity")
POLICIES: tuple[str, ...] = NAMES
MAX_REPLAY_T = 200_000
MAX_REPLAY_SEEDS = 100
MAX_BASE_SEED = 2**31 - 1 - MAX_REPLAY_SEEDS
MAX_LABEL = 40
LABEL_FIELDS: tuple[str, ...] = ("dose_name", "dose_unit", "reward_name", "reward_unit", "cost_name", "cost_unit")
_HASH = re.compile(r"[0-9a-f]{32}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class LoggedSettings:
    """Everything that re-creates a replay of logged data (kind ``logged``).

    - data: ``source`` ``example`` (the built-in synthetic dose log), ``upload`` (a file given to
      :func:`~safebandit_core.logged.family.prepare`) or ``path`` (``path`` on this machine); ``file`` its
      name and ``data_hash`` its content hash (None: filled in by ``prepare``);
    - mapping: ``context`` columns (``categorical`` ones one-hot encoded), ``dose``, ``reward`` (benefit),
      ``cost`` (side effect), optional ``group`` (the held-out half keeps groups whole) and ``time`` (the log
      order); ``scale_dose`` maps doses onto [0, 1] by min–max; ``missing`` ``drop`` or ``refuse`` rows with
      missing values;
    - fit: ``contexts`` ``auto``/``standardise``/``hash`` (``hash_dim``)/``raw``, ``intercept``; the dose
      curve ``g`` (``g_power``, ``g_ec50``, ``g_hill``); ``fit_lam`` (None: chosen from a grid on a held-out
      half); ``split`` ``alternate`` (fit and replay every row) or ``first_half`` (fit the first half,
      replay the rest); ``min_g``: rows with g(dose) below it stay out of the fit;
    - replay: ``order`` ``log`` (the rows in order, again from the start past the end) or ``resample`` (rows
      drawn with replacement from ``order_seed``), ``T``, ``seeds``, ``policies``, ``base_seed``,
      ``precision`` (None or ``auto``: the device's), ``tau``, ``delta``, ``delta_prime``, ``lam`` (the
      learner's ridge), ``eps``;
    - display: ``dose_name``, ``dose_unit``, ``reward_name``, ``reward_unit``, ``cost_name``, ``cost_unit``.
    """

    KIND: ClassVar[str] = "logged"

    source: str = "example"
    file: str | None = None
    path: str | None = None
    data_hash: str | None = None
    context: tuple[str, ...] = EXAMPLE_CONTEXT
    categorical: tuple[str, ...] = ()
    dose: str = "dose"
    reward: str = "benefit"
    cost: str = "side_effect"
    group: str | None = None
    time: str | None = None
    scale_dose: bool = False
    missing: str = "drop"
    contexts: str = "auto"
    hash_dim: int = DEFAULT_HASH_DIM
    intercept: bool = True
    g: str = "linear"
    g_power: float = 2.0
    g_ec50: float = 0.5
    g_hill: float = 2.0
    fit_lam: float | None = None
    split: str = "alternate"
    min_g: float = 0.05
    order: str = "log"
    order_seed: int = 0
    T: int = 3000
    seeds: int = 3
    policies: tuple[str, ...] = POLICIES
    base_seed: int = 0
    precision: str | None = None
    tau: float = 0.5
    delta: float = 0.05
    delta_prime: float = 0.05
    lam: float = 1.0
    eps: float = 0.5
    dose_name: str = "dose"
    dose_unit: str = ""
    reward_name: str = "benefit"
    reward_unit: str = ""
    cost_name: str = "side effect"
    cost_unit: str = ""

    def validate(self) -> LoggedSettings:
        """Raise :class:`SettingsError` naming the first field out of range; return self."""
        check_choice("source", self.source, SOURCES)
        for name in ("file", "path", "group", "time"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, str) and value):
                raise SettingsError(name, "a name or null", value)
        if self.source == "path" and not (self.path and self.path.strip()):
            raise SettingsError("path", "the path of a CSV or Parquet file", self.path)
        if self.data_hash is not None and not (isinstance(self.data_hash, str) and _HASH.fullmatch(self.data_hash)):
            raise SettingsError("data_hash", "32 hexadecimal digits (BLAKE2b-128) or null", self.data_hash)
        if not isinstance(self.context, tuple) or not isinstance(self.categorical, tuple):
            raise SettingsError("context", "a list of column names", self.context)
        check_map(self.column_map())
        for name in ("scale_dose", "intercept"):
            if not isinstance(getattr(self, name), bool):
                raise SettingsError(name, "true or false", getattr(self, name))
        check_choice("missing", self.missing, MISSING)
        check_choice("contexts", self.contexts, CONTEXTS)
        check_int_range("hash_dim", self.hash_dim, 2, MAX_D - 1)
        curves.validate(self.g, self.g_power, self.g_ec50, self.g_hill)
        if self.fit_lam is not None and not (isinstance(self.fit_lam, (int, float)) and 1e-6 <= self.fit_lam <= 1e3):
            raise SettingsError("fit_lam", "in [1e-06, 1000], or null to choose it on a held-out half", self.fit_lam)
        check_choice("split", self.split, SPLITS)
        check_open_unit("min_g", self.min_g)
        check_choice("order", self.order, ORDERS)
        check_int_range("order_seed", self.order_seed, 0, 2**32 - 1)
        check_int_range("T", self.T, 1, MAX_REPLAY_T)
        check_int_range("seeds", self.seeds, 1, MAX_REPLAY_SEEDS)
        check_int_range("base_seed", self.base_seed, 0, MAX_BASE_SEED)
        if not isinstance(self.policies, tuple) or not self.policies or any(p not in NAMES for p in self.policies) \
                or len(set(self.policies)) != len(self.policies):
            raise SettingsError("policies", "a list without repeats of " + ", ".join(NAMES), self.policies)
        if self.precision not in (None, "auto"):
            check_choice("precision", self.precision, dev.PRECISIONS)
        check_replay_numbers(self.tau, self.delta, self.delta_prime, self.lam, self.eps)
        for name in LABEL_FIELDS:
            value = getattr(self, name)
            if not (isinstance(value, str) and len(value) <= MAX_LABEL):
                raise SettingsError(name, f"a text of at most {MAX_LABEL} characters", value)
        return self

    def column_map(self) -> ColumnMap:
        """The column mapping these settings name."""
        return ColumnMap(context=self.context, dose=self.dose, reward=self.reward, cost=self.cost,
                         categorical=self.categorical, group=self.group, time=self.time)

    def plan(self) -> FitPlan:
        """The fit plan these settings name."""
        return FitPlan(split=self.split, lam=self.fit_lam, min_g=self.min_g, g=self.g, g_power=self.g_power,
                       g_ec50=self.g_ec50, g_hill=self.g_hill)

    def fit_key(self) -> tuple:
        """What the fit depends on besides the data (the memo's key)."""
        return (self.column_map(), self.scale_dose, self.missing, self.contexts, self.hash_dim, self.intercept,
                self.plan())

    def unlabelled(self) -> LoggedSettings:
        """The same replay without its display names and units (they change no number: one stored run for all)."""
        return dataclasses.replace(self, **{f: getattr(LoggedSettings, f) for f in LABEL_FIELDS})

    def label(self, role: str) -> str:
        """How the page names the dose, reward or cost: its name, with its unit in brackets when there is one."""
        name, unit = getattr(self, f"{role}_name"), getattr(self, f"{role}_unit")
        return f"{name} ({unit})" if unit else name
