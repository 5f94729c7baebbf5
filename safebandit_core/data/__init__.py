"""Real data for the battery experiment: NASA's .mat loader, context embeddings, the realizability fit."""

from safebandit_core.data.battery import (
    BatteryDataError,
    load_embedded,
    load_steps,
    random_walk_discharges,
    raw_samples,
)

__all__ = [
    "BatteryDataError",
    "load_embedded",
    "load_steps",
    "random_walk_discharges",
    "raw_samples",
]
