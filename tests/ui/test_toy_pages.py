"""The toy family of the tests, registered, appears on the pages that iterate over the registry (the sweeps page)
with no other edit. It has no model page: model pages are still written one per family."""

from __future__ import annotations

import pytest

from tests.toy import registered
from tests.ui.helpers import charts, errors, open_page

pytestmark = pytest.mark.usefixtures("fresh_caches")
TOY_SWEEP = {"sweep_kind": "toy", "sweep_T": 50, "sweep_seeds": 2, "sweep_toy_p0": "0.3, 0.4",
             "sweep_toy_p1": "0.6, 0.7"}


def test_the_sweeps_page_sweeps_a_registered_family():
    with registered():
        at = open_page("pages/sweeps.py", TOY_SWEEP)
        assert "Toy bandit (tests)" in at.selectbox(key="sweep_kind").options
        assert not errors(at)
        assert {"sweep_regret", "sweep_slack"} <= set(charts(at))
        assert len(at.table[0].value) == 4 * 2  # cells × policies
