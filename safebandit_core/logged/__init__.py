"""Your own logged data: a table of contexts, doses, outcomes and side effects → a fitted environment → a replay.

The semi-synthetic replay of seed 000 §7 for any log (the battery experiment is one instance of it):

- :mod:`safebandit_core.data.replay` (here as ``replay``): the fitted environment (:class:`FittedEnv`) and the
  one replay family over it, shared with the battery experiment;
- :mod:`safebandit_core.data.ridge` (here as ``ridge``): the one fit (ridge fits of R/g(α) and C/g(α), λ from a
  grid on a held-out half);
- :mod:`.loader`: CSV/Parquet/DataFrame → a checked, mapped table (every bad input one :class:`SettingsError`);
- :mod:`.fit`: contexts for the replay, the fit report and its realizability checks;
- :mod:`.settings`: :class:`LoggedSettings` (kind ``logged``);
- :mod:`.family`: :data:`FAMILY`, :func:`prepare` and the built-in synthetic dose log.
"""

from ..data import replay, ridge
from ..data.replay import FittedEnv, dose_settings, make_family, replay_rows
from ..data.ridge import LAMS, FitPlan, FitResult, Fitted, fit_arrays, fit_linear
from .family import (
    FAMILY,
    LoggedRun,
    example_bytes,
    example_truth,
    fitted,
    load,
    policy_rows,
    prepare,
    read,
    run_replay,
    simulate,
)
from .fit import NOISE_NOTE, R2_POOR, LoggedFit, fit_table
from .loader import MAX_FILE_BYTES, ColumnMap, MappedTable, RawTable, map_columns, read_table
from .settings import EXAMPLE_FILE, LoggedSettings

__all__ = [
    "EXAMPLE_FILE", "FAMILY", "LAMS", "MAX_FILE_BYTES", "NOISE_NOTE", "R2_POOR", "ColumnMap",
    "FitPlan", "FitResult", "Fitted", "FittedEnv", "LoggedFit", "LoggedRun", "LoggedSettings", "MappedTable",
    "RawTable", "dose_settings", "example_bytes", "example_truth", "fit_arrays",
    "fit_linear", "fit_table", "fitted", "load", "make_family", "map_columns", "policy_rows", "prepare",
    "read", "read_table", "replay", "replay_rows", "ridge", "run_replay", "simulate",
]
