"""The server's memory budget: one run's estimate is capped, and the store keeps a bounded number of bytes.

A link such as ``/dose?T=100000&seeds=50`` once took a classroom's server from 1.5 GB to 5 GB. The app caps every run
a visitor sizes (``SAFEBANDIT_RUN_MB``, :data:`safebandit_ui.store.RUN_DEFAULT_MB` by default) and the page answers a
link or a control that asks for more with one message naming the setting and the largest value that fits.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from streamlit.testing.v1 import AppTest

from safebandit_core import device, families
from safebandit_core.settings import SettingsError
from safebandit_ui import store
from tests.ui.helpers import app, errors

MB = 2**20


CAP = store.RUN_DEFAULT_MB * MB


def test_the_run_budget_is_read_from_its_variable_and_a_bad_value_is_named(capsys):
    """``SAFEBANDIT_RUN_MB`` gives the cap in MB; unset or bad (named on stderr with its range), the default."""
    assert store.run_budget_bytes({store.RUN_ENV: "64"}) == 64 * MB
    assert store.run_budget_bytes({}) == store.RUN_DEFAULT_MB * MB
    for bad in ("0", "-3", "lots", "1e3", "9" * 30):
        capsys.readouterr()
        assert store.run_budget_bytes({store.RUN_ENV: bad}) == store.RUN_DEFAULT_MB * MB
        err = capsys.readouterr().err
        assert err.startswith(f"{store.RUN_ENV}=") and "whole number of MB from 1 to" in err


def test_the_default_store_budget_keeps_a_classroom_server_small():
    """Without its variable the store keeps at most 512 MB, whatever the machine."""
    assert store.BUDGET_FLOOR_MB * MB <= store.budget_bytes({}) <= 512 * MB


def test_a_capped_run_names_the_largest_t_that_fits_and_that_size_runs_the_check():
    """Over the cap the error names T and the largest T allowed with these seeds; that T passes the check, one
    step more of the same size does not."""
    fam = families.FAMILIES["dose"]
    big = dataclasses.replace(fam.settings_cls(), T=100_000, seeds=50).validate()
    with pytest.raises(SettingsError) as err:
        fam.check_fits(big, limit=CAP)
    text = str(err.value)
    assert "T" in text and f"this server's limit of {store.RUN_DEFAULT_MB} MB per run" in text, text
    largest = int(re.search(r"at most about ([\d,]+)", text).group(1).replace(",", ""))
    assert 1_000 < largest < 100_000
    fam.check_fits(dataclasses.replace(big, T=largest), limit=CAP)
    assert fam.memory_bytes(dataclasses.replace(big, T=largest)) <= CAP
    with pytest.raises(SettingsError):
        fam.check_fits(dataclasses.replace(big, T=int(largest * 1.1) + 10), limit=CAP)


def test_without_a_limit_the_command_line_keeps_half_the_device():
    """The core's own bound is untouched when no limit is given: the same run is checked against half the device."""
    fam = families.FAMILIES["dose"]
    big = dataclasses.replace(fam.settings_cls(), T=100_000, seeds=50).validate()
    if fam.memory_bytes(big) * 2 < device.available_bytes():
        fam.check_fits(big)
    else:
        with pytest.raises(SettingsError, match="on this device"):
            fam.check_fits(big)


def test_the_pages_cap_is_the_environments():
    """The pages read their cap once per process, from ``SAFEBANDIT_RUN_MB`` or the default."""
    assert store.run_limit() == store.run_budget_bytes()


def test_a_link_asking_for_a_huge_run_gets_a_message_not_the_memory():
    """``/dose?T=100000&seeds=50``: the page draws, with one error naming Rounds T and the largest T allowed, and no
    run of that size is computed."""
    at: AppTest = app()
    at.query_params["T"] = "100000"
    at.query_params["seeds"] = "50"
    at.switch_page("pages/dose.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    msgs = errors(at)
    assert len(msgs) == 1 and "Rounds T" in msgs[0] and "at most about" in msgs[0], msgs
    assert f"limit of {store.RUN_DEFAULT_MB} MB per run" in msgs[0]
    assert at.number_input(key="T").value == 100_000


def test_a_preset_runs_at_its_quick_size_and_beyond_it_only_within_the_servers_cap(monkeypatch):
    """The presets page runs any preset at its quick size; *Paper size* (or a link's seeds and T) beyond the cap gets
    one error naming the rounds and the largest T that fits, a note with the command line and the variable that
    allows it, and no run button."""
    from safebandit_core import presets
    from tests.ui.helpers import open_page

    name = "s001-grid-mv"
    quick = presets.memory_bytes(presets.PresetRun.quick(name))
    full = presets.memory_bytes(presets.PresetRun.full(name))
    assert CAP < quick < full  # the quick size is let through even above the cap
    monkeypatch.setattr(store, "_RUN_LIMIT", [CAP])
    at = open_page("pages/presets.py", {"preset": name})
    assert errors(at) == [] and at.button(key="preset_run")
    at.checkbox(key="preset_full").check().run()
    msgs = errors(at)
    assert len(msgs) == 1 and "at most about" in msgs[0] and "MB per run" in msgs[0], msgs
    assert f"({full / MB:,.0f} MB needed)" in msgs[0]
    notes = " ".join(c.value for c in at.caption)
    assert f"{store.RUN_ENV}={-(-full // MB)}" in notes and not [b for b in at.button if b.key == "preset_run"]
    with pytest.raises(SettingsError, match="at most about"):
        presets.check_fits(presets.PresetRun.full(name), "cpu", limit=quick)
    presets.check_fits(presets.PresetRun.quick(name), "cpu", limit=quick)


@pytest.mark.parametrize(("link", "patients"), [
    ({"trials": "100000"}, "36 patients"),
    ({"source": "The dose model's patients", "cohort": "12", "cohorts": "100", "trials": "10000"}, "1200 patients"),
])
def test_a_dose_finding_link_beyond_the_cap_gets_a_message_not_the_memory(link, patients):
    """The dose-finding page sizes its runs against the same cap (``/dosefinding?trials=100000`` would keep some
    200 MB per run, HPC-UCB's largest comparison 170 MB and twice that while it computes): one error naming the
    trials and the most allowed (which the core's check lets through, and two more it does not)."""
    from safebandit_core.dosefinding import api, bandit

    at: AppTest = app()
    for key, value in link.items():
        at.query_params[key] = value
    at.switch_page("pages/dosefinding.py").run()
    assert not at.exception, [e.message for e in at.exception]
    msgs = errors(at)
    assert len(msgs) == 1 and "**trials**" in msgs[0] and "at most about" in msgs[0], msgs
    assert f"limit of {store.RUN_DEFAULT_MB} MB per run" in msgs[0] and patients in msgs[0]
    allowed = int(re.search(r"at most about ([\d,]+)", msgs[0]).group(1).replace(",", ""))
    K, c, m = (6, 3, 10) if "source" not in link else (5, 12, 100)
    extra = 0 if "source" not in link else bandit.extra_bytes(K, c, m)
    api.check_fits(K, c, m, allowed, extra=extra, limit=CAP)
    with pytest.raises(SettingsError, match="at most about"):
        api.check_fits(K, c, m, allowed + 2, extra=extra, limit=CAP)


def test_the_dose_finding_estimate_covers_what_a_result_keeps():
    """:func:`api.kept_bytes` is at least what the store measures of a result (designs alone, and with HPC-UCB), and
    not far above it, so the cap is neither dodged nor needlessly tight."""
    from safebandit_core.dosefinding import api, bandit
    from safebandit_core.memo import nbytes

    res = api.simulate((0.05, 0.1, 0.2, 0.3, 0.45, 0.6), 0.3, 3, 10, 400, 0)
    assert nbytes(res) <= api.kept_bytes(6, 3, 10, 400) <= 1.5 * nbytes(res)
    both = bandit.compare(trials=40, cohorts=12)
    kept = api.kept_bytes(5, 3, 12, 40) + 40 * bandit.extra_bytes(5, 3, 12) / api.PEAK_FACTOR
    assert nbytes(both) <= kept <= 1.5 * nbytes(both)
