"""Fixtures of the AppTest tests: st caches emptied per test, or per module where a module shares its data."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.ui.browserkit import browser, page, served, server  # noqa: F401  (the browser tests' fixtures)
from tests.ui.helpers import cleared_caches


@pytest.fixture
def fresh_caches() -> Iterator[None]:
    """Isolate tests: AppTest shares st.cache_data / st.cache_resource across instances in one process."""
    yield from cleared_caches()


@pytest.fixture(scope="module")
def fresh_module_caches() -> Iterator[None]:
    """Start and leave a module with empty st caches, sharing them between its tests."""
    yield from cleared_caches()
