"""Shared test set-up: the repository root on sys.path, XLA's compiler flags, and hypothesis profiles."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("SAFEBANDIT_WARMUP", "0")

TEST_XLA_FLAGS = "--xla_backend_optimization_level=0"
"""The suite compiles with LLVM's optimisation passes off: a test runs a small shape once or twice, so compiling is
most of its cost, and this halves XLA's CPU compile time (the compiled code runs 2.5–4.5 times slower, which only the
few long runs feel). Results agree with the default level to the rounding of a
reordered reduction (tests/core/test_compile_level.py checks every family); the app and ``make bench`` keep
XLA's default. Set before any backend starts, and inherited by every process a test starts but the app servers
(:data:`SERVER_XLA_FLAGS`)."""


def with_test_flags(flags: str = "") -> str:
    """``flags`` with the suite's XLA flags added (once)."""
    return flags if TEST_XLA_FLAGS in flags else f"{flags} {TEST_XLA_FLAGS}".strip()


SERVER_XLA_FLAGS = "--xla_backend_optimization_level=1"
"""What the app servers the tests start (tests/ui/browserkit.py) compile with instead: a server opens whole pages at
their default sizes (the scrub grids, the battery replay), where level 0's slow code costs more than its quicker
compile saves. Opening the dose, non-linear, conservative, mean-variance and battery pages at their defaults in one
process took 113 s at level 0 and 70 s at level 1 from an empty compile cache (83 s and 35 s with it warm; XLA's
default level: 83 s and 42 s). The whole suite at level 1 gained nothing (20 min 10 s against 20 min 50 s cold, within
this machine's drift): its many small shapes compile dearer there (four compile-heavy core files: 290 s → 313 s)."""


def with_server_flags(flags: str = "") -> str:
    """``flags`` with the suite's XLA flags replaced by the test servers' (added when absent)."""
    return f"{flags.replace(TEST_XLA_FLAGS, '')} {SERVER_XLA_FLAGS}".strip()


os.environ["XLA_FLAGS"] = with_test_flags(os.environ.get("XLA_FLAGS", ""))
# Every compile is kept in the persistent cache, not only those over 0.2 s as the app keeps: with optimisation off
# most compiles are quicker than that, and the suite's processes (two workers, the servers and commands the tests
# start) and its next run read them back instead of compiling them again.
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")

settings.register_profile("ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

