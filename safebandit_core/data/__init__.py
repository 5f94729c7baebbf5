"""Real data for the battery experiment: NASA's .mat loader, context embeddings, the realizability fit."""

from safebandit_core.data.battery import (
    BatteryDataError,
    load_embedded,
    load_steps,
    random_walk_discharges,
    raw_samples,
)
from safebandit_core.data.embed import (
    EmbedderUnavailable,
    HashEmbedder,
    SentenceEmbedder,
    available_embedders,
    embed_windows,
    make_embedder,
    window_json,
)
from safebandit_core.data.fit import BatteryProblem, FitResult, build_battery_problem, fit_linear

__all__ = [
    "BatteryDataError",
    "BatteryProblem",
    "EmbedderUnavailable",
    "FitResult",
    "HashEmbedder",
    "SentenceEmbedder",
    "available_embedders",
    "build_battery_problem",
    "embed_windows",
    "fit_linear",
    "load_embedded",
    "load_steps",
    "make_embedder",
    "random_walk_discharges",
    "raw_samples",
    "window_json",
]
