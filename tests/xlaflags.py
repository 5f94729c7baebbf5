"""The XLA compiler flags of the test suite and of the app servers its tests start.

Kept apart from ``tests/conftest.py``, which applies them to its own process at import: a module that only needs the
flags (the browser kit, which ``make bench`` imports too) must not change the importing process's environment.
"""

from __future__ import annotations

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


FULL_OPT_ENV = "SAFEBANDIT_FULL_OPT_ROUNDS"
"""``safebandit_core.runner.FULL_OPT_ENV``, spelled out so that importing this module imports no JAX."""
LARGE_RUN_ROUNDS = 50_000
"""Rounds (runs × chunk length × round cost, ``safebandit_core.runner``) from which the test servers and the warm-up
test compile a run at XLA's full level, as the app does: the pages' scrub grids (55,000–420,000) and the
mean-variance lesson (576,000), not the pages' single runs (3,000–20,000). Level 0's code ran those four to ten
times slower (the warm-up in a worker: 87 s against 31 s with a warm compile cache, 122 s against 65 s with an empty
one); at the servers' level 1 the warm-up took 41 s and 97 s, against 31 s and 79 s."""
