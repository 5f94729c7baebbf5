"""Your own logged data: a table of contexts, doses, outcomes and side effects → a fitted environment → a replay.

The semi-synthetic replay of Safety by Design §7 for any log (the battery experiment is one instance of it):

- :mod:`safebandit_core.data.replay` (here as ``replay``): the fitted environment (:class:`FittedEnv`) and the
  one replay family over it, shared with the battery experiment;
- :mod:`safebandit_core.data.ridge` (here as ``ridge``): the one fit (ridge fits of R/g(α) and C/g(α), λ from a
  grid on a held-out half);
- :mod:`.loader`: CSV/Parquet/DataFrame → a checked, mapped table (every bad input one :class:`SettingsError`);
- :mod:`.fit`: contexts for the replay, the fit report and its realizability checks;
- :mod:`.settings`: :class:`LoggedSettings` (kind ``logged``);
- :mod:`.family`: :data:`FAMILY`, :func:`prepare` and the built-in synthetic dose log.
"""

from .. import exports

_EXPORTS = {
    "replay": "..data.replay:", "ridge": "..data.ridge:", "FittedEnv": "..data.replay",
    "dose_settings": "..data.replay", "make_family": "..data.replay", "replay_rows": "..data.replay",
    "FitPlan": "..data.ridge", "FitResult": "..data.ridge", "Fitted": "..data.ridge", "LAMS": "..data.ridge",
    "fit_arrays": "..data.ridge", "fit_linear": "..data.ridge", "FAMILY": ".family", "LoggedRun": ".family",
    "example_bytes": ".family", "example_truth": ".family", "fitted": ".family", "load": ".family",
    "policy_rows": ".family", "prepare": ".family", "read": ".family", "run_replay": ".family",
    "simulate": ".family", "LoggedFit": ".fit", "NOISE_NOTE": ".fit", "R2_POOR": ".fit", "fit_table": ".fit",
    "ColumnMap": ".loader", "MAX_FILE_BYTES": ".loader", "MappedTable": ".loader", "RawTable": ".loader",
    "map_columns": ".loader", "read_table": ".loader", "EXAMPLE_FILE": ".settings", "LoggedSettings": ".settings",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = exports(__name__, _EXPORTS)
