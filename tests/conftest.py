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
# With the persistent cache turned on (below), every compile is kept, not only those over 0.2 s as the app keeps: with
# optimisation off most compiles are quicker than that.
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
# The suite compiles in memory only (safebandit_core.device.CACHE_ENV "off"), it and every process it starts: reading
# an entry of JAX's persistent cache back took a test process down inside XLA's deserialize_executable in two of four
# whole runs on this 2-core machine (an abort, a segmentation fault), and pytest-xdist cannot go on after a worker's
# crash. SAFEBANDIT_CACHE_DIR set to a folder turns it back on.
os.environ.setdefault("SAFEBANDIT_CACHE_DIR", "off")

settings.register_profile("ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

