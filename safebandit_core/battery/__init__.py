"""The NASA Li-ion battery experiment of Safety by Design §7: logged data → a fitted environment → the replay.

- :mod:`.loader`: NASA's randomized-usage ``.mat`` files and the embedded RW26 table, one row per step;
- the embedders of the JSON windows (hash, sentence-transformers), from :mod:`safebandit_core.data.embed`;
- :mod:`.fit`: the realizability fit of θ*, μ* on the first half of the rounds;
- :mod:`.settings`: :class:`BatteryReplaySettings` (kind ``battery``), validated once;
- :mod:`.family`: the :class:`~safebandit_core.model.Family` (:data:`FAMILY`), :func:`prepare` and the reports;
- :func:`clear_cache`: forget the one memo of tables, embeddings and fits (:mod:`safebandit_core.data.cache`).
"""

from .. import exports

_EXPORTS = {
    "clear_cache": "..data.cache:clear", "CachedEmbedder": "..data.embed", "EmbedderUnavailable": "..data.embed",
    "HashEmbedder": "..data.embed", "SentenceEmbedder": "..data.embed", "available_embedders": "..data.embed",
    "embed_windows": "..data.embed", "make_embedder": "..data.embed", "window_json": "..data.embed",
    "BatteryRun": ".family", "EMBEDDED_LABEL": ".family", "FACT_KEYS": ".family", "FAMILY": ".family",
    "check_context_bytes": ".family", "check_contexts_fit": ".family", "dose_settings": ".family",
    "facts": ".family", "fit_frame": ".family", "fitted": ".family", "load_source": ".family",
    "policy_rows": ".family", "prepare": ".family", "replay": ".family", "run_replay": ".family",
    "with_tau": ".family", "BatteryProblem": ".fit", "FitResult": ".fit", "build_battery_problem": ".fit",
    "fit_linear": ".fit", "BatteryDataError": ".loader", "load_embedded": ".loader", "load_steps": ".loader",
    "random_walk_discharges": ".loader", "raw_samples": ".loader", "BatteryReplaySettings": ".settings",
    "DEFAULT_DIM": ".settings", "DEFAULT_FIT_LAM": ".settings", "MAX_REPLAY_SEEDS": ".settings",
    "MAX_REPLAY_T": ".settings", "OPEN_TAUS": ".settings", "PAPER_TAUS": ".settings", "POLICIES": ".settings",
    "SOURCES": ".settings", "TAUS": ".settings", "battery_settings": ".settings", "tau_grid": ".settings"
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = exports(__name__, _EXPORTS)
