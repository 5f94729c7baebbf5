"""The NASA Li-ion battery experiment of seed 000 §7: logged data → a fitted environment → the replay.

- :mod:`.loader`: NASA's randomized-usage ``.mat`` files and the embedded RW26 table, one row per step;
- the embedders of the JSON windows (hash, sentence-transformers), from :mod:`safebandit_core.data.embed`;
- :mod:`.fit`: the realizability fit of θ*, μ* on the first half of the rounds;
- :mod:`.settings`: :class:`BatteryReplaySettings` (kind ``battery``), validated once;
- :mod:`.family`: the :class:`~safebandit_core.model.Family` (:data:`FAMILY`), :func:`prepare` and the reports;
- :func:`clear_cache`: forget the one memo of tables, embeddings and fits (:mod:`safebandit_core.data.cache`).
"""

from ..data.cache import clear as clear_cache
from ..data.embed import (
    CachedEmbedder,
    EmbedderUnavailable,
    HashEmbedder,
    SentenceEmbedder,
    available_embedders,
    embed_windows,
    make_embedder,
    window_json,
)
from .family import (
    EMBEDDED_LABEL,
    FACT_KEYS,
    FAMILY,
    BatteryRun,
    check_context_bytes,
    check_contexts_fit,
    dose_settings,
    facts,
    fit_frame,
    fitted,
    load_source,
    policy_rows,
    prepare,
    replay,
    run_replay,
    with_tau,
)
from .fit import BatteryProblem, FitResult, build_battery_problem, fit_linear
from .loader import BatteryDataError, load_embedded, load_steps, random_walk_discharges, raw_samples
from .settings import (
    DEFAULT_DIM,
    DEFAULT_FIT_LAM,
    MAX_REPLAY_SEEDS,
    MAX_REPLAY_T,
    OPEN_TAUS,
    PAPER_TAUS,
    POLICIES,
    SOURCES,
    TAUS,
    BatteryReplaySettings,
    battery_settings,
    tau_grid,
)

__all__ = [
    "DEFAULT_DIM",
    "DEFAULT_FIT_LAM",
    "EMBEDDED_LABEL",
    "FACT_KEYS",
    "FAMILY",
    "MAX_REPLAY_SEEDS",
    "MAX_REPLAY_T",
    "OPEN_TAUS",
    "PAPER_TAUS",
    "POLICIES",
    "SOURCES",
    "TAUS",
    "BatteryDataError",
    "BatteryProblem",
    "BatteryReplaySettings",
    "BatteryRun",
    "CachedEmbedder",
    "EmbedderUnavailable",
    "FitResult",
    "HashEmbedder",
    "SentenceEmbedder",
    "available_embedders",
    "battery_settings",
    "build_battery_problem",
    "check_context_bytes",
    "check_contexts_fit",
    "clear_cache",
    "dose_settings",
    "embed_windows",
    "facts",
    "fit_frame",
    "fit_linear",
    "fitted",
    "load_embedded",
    "load_source",
    "load_steps",
    "make_embedder",
    "policy_rows",
    "prepare",
    "random_walk_discharges",
    "raw_samples",
    "replay",
    "run_replay",
    "tau_grid",
    "window_json",
    "with_tau",
]
