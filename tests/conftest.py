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
os.environ.setdefault("SAFEBANDIT_AHEAD", "0")  # safebandit_ui.ahead.OFF_ENV: a test counts only the runs it asks for

from tests.xlaflags import with_test_flags  # noqa: E402

os.environ["XLA_FLAGS"] = with_test_flags(os.environ.get("XLA_FLAGS", ""))  # the suite's level (tests/xlaflags.py)
# Every compile is kept in the persistent cache, not only those over 0.2 s as the app keeps: with optimisation off
# most compiles are quicker than that, and the suite's processes (two workers, the servers and commands the tests
# start) and its next run read them back instead of compiling them again.
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")

settings.register_profile("ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

