"""The suite compiles with LLVM's optimisation off and keeps every compile on disk (tests/conftest.py); the app compiles
at XLA's default level and keeps compiles over 0.2 s. Every family's small run must come out the same at both levels,
so what the suite checks is what the app computes."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import numpy as np
import pytest

from safebandit_core import device, families, runner
from tests.conftest import ROOT
from tests.support import assert_close_sum
from tests.xlaflags import TEST_XLA_FLAGS

AT_DEFAULT = r"""
import sys
import numpy as np
from safebandit_core import device, families
out = {}
for kind, fam in sorted(families.FAMILIES.items()):
    for name, values in families.run(fam.example).outputs.items():
        out[f"{kind}/{name}"] = np.asarray(values)
np.savez(sys.argv[1], **out)
"""
WIDEST = 64
"""The most terms any round's own sums add (the logged example's 64 hashed features; the others have 16 or fewer)."""


def test_every_family_agrees_at_the_default_compile_level(tmp_path):
    assert TEST_XLA_FLAGS in os.environ["XLA_FLAGS"], "the suite's flags are set before any test runs"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu",
           "XLA_FLAGS": os.environ["XLA_FLAGS"].replace(TEST_XLA_FLAGS, "").strip()}
    path = tmp_path / "default.npz"
    done = subprocess.run([sys.executable, "-c", AT_DEFAULT, str(path)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    default = np.load(path)
    seen = set()
    for kind, fam in sorted(families.FAMILIES.items()):
        for name, values in families.run(fam.example).outputs.items():
            key = f"{kind}/{name}"
            seen.add(key)
            # each round's value reads sums over every earlier round of sums over at most WIDEST terms
            assert_close_sum(np.asarray(values), default[key], n_terms=fam.example.T * WIDEST, err_msg=key)
    assert seen == set(default.files)


def test_the_app_keeps_compiles_over_a_fifth_of_a_second_unless_jaxs_own_variable_says(tmp_path):
    assert os.environ[device.MIN_COMPILE_ENV] == "0", "the suite keeps every compile"
    show = ("import jax\nfrom safebandit_core import device\n"
            "print(jax.config.jax_persistent_cache_min_compile_time_secs)")
    base = {k: v for k, v in os.environ.items() if k != device.MIN_COMPILE_ENV}
    seen = []
    for extra in ({}, {device.MIN_COMPILE_ENV: "1.5"}):
        env = {**base, **extra, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu", device.CACHE_ENV: str(tmp_path)}
        done = subprocess.run([sys.executable, "-c", show], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        seen.append(float(done.stdout.split()[-1]))
    assert seen == [0.2, 1.5]


def test_a_run_of_many_rounds_compiles_at_the_full_level_and_agrees_with_level_0(monkeypatch):
    """The switch ``SAFEBANDIT_FULL_OPT_ROUNDS`` (off in the app and the suite): a run whose chunks play at least
    that many rounds in all (runs × chunk length) takes the full-level program, every chunk of it (the short last
    one too), a smaller run the level-0 one; both give the same numbers to the rounding of a reordered sum."""
    assert runner.FULL_OPT_ROUNDS is None, "off unless set: the suite and the app compile as XLA_FLAGS say"
    assert runner._full_opt_rounds({}) is None and runner._full_opt_rounds({runner.FULL_OPT_ENV: " 7 "}) == 7
    with pytest.raises(ValueError, match=runner.FULL_OPT_ENV):
        runner._full_opt_rounds({runner.FULL_OPT_ENV: "lots"})
    fam = families.get("dose")
    s = dataclasses.replace(fam.example, T=130, seeds=3, refresh_every=40)  # chunks of 80 and 50: 3 × 80 = 240
    sizes = lambda: (runner._advance_batched._cache_size(), runner._advance_optimised._cache_size())
    monkeypatch.setattr(runner, "FULL_OPT_ROUNDS", 241)
    before = sizes()
    low = families.run(s, chunk=80).outputs
    after_low = sizes()
    assert after_low[1] == before[1] and after_low[0] > before[0], "240 rounds a chunk stay at level 0"
    monkeypatch.setattr(runner, "FULL_OPT_ROUNDS", 240)
    full = families.run(s, chunk=80).outputs
    assert sizes()[0] == after_low[0] and sizes()[1] == before[1] + 2, "a middle and a last chunk, both at full level"
    for name, values in low.items():
        assert_close_sum(np.asarray(full[name]), np.asarray(values), n_terms=s.T * WIDEST, err_msg=name)


def test_a_wide_linear_policys_rounds_weigh_more(monkeypatch):
    """A linear policy's round is quadratic in its width: the battery replay's 256 features weigh (256/8)² = 1024
    rounds each, so with the switch at 50,000 its page run (6 runs × 1000 rounds a chunk) compiles at the full level,
    where the dose model's 8 (a weight of 1) stays at level 0."""
    from safebandit_core.dose import family as dose_family

    cost = lambda width: dose_family.make_model(width, "linear", 40, "float64", "contexts", 1).round_cost
    assert (cost(8), cost(16), cost(256)) == (1, 4, 1024)
    monkeypatch.setattr(runner, "FULL_OPT_ROUNDS", 50_000)
    assert runner._advance_for(6 * 1000 * cost(256)) is runner._advance_optimised
    assert runner._advance_for(5 * 1000 * cost(8)) is runner._advance_batched
