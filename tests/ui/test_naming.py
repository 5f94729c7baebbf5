"""The papers go by their short titles where people read: no "Seed 000" / "Seed 001" on a page or in the README."""

from __future__ import annotations

import re

from tests.conftest import ROOT

SEED_NAME = re.compile(r"seed[ _-]?00[01]", re.IGNORECASE)


def test_no_seed_numbers_name_a_paper_on_pages_the_ui_kit_or_the_readme():
    files = [ROOT / "README.md", ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")),
             *sorted((ROOT / "safebandit_ui").glob("*.py"))]
    found = [f"{p.name}:{i}" for p in files for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if SEED_NAME.search(line)]
    assert found == [], found
