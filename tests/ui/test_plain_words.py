"""What every visitor sees reads without the papers: Material icons (no emoji, which a browser without an emoji
font shows as empty boxes), and on the model pages plain words by default, the symbols one click away."""

from __future__ import annotations

import re

import pytest

from safebandit_ui import registry
from tests.ui.helpers import open_page

MATERIAL = re.compile(r"^:material/[a-z0-9_]+:$")
EMOJI = re.compile("[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F]")
"""Pictographs, dingbats and the emoji presentation selector (the marks a text font draws, ✗ ☆ ◇, are left)."""


def test_every_page_has_a_material_icon_and_the_tab_an_emoji_set_before_the_navigation():
    assert all(MATERIAL.match(p.icon) for p in registry.PAGES), [p.icon for p in registry.PAGES]
    assert len({p.icon for p in registry.PAGES}) == len(registry.PAGES), "two pages share an icon"
    assert EMOJI.search(registry.FAVICON)


def visible(node, hidden: bool = False) -> tuple[list[str], list[str]]:
    """The texts under ``node``: those shown by default, and those behind an expander, a popover or a help."""
    shown: list[str] = []
    behind: list[str] = []
    kind = getattr(node, "type", "")
    inner = hidden or kind in ("expander", "popover")
    proto = getattr(node, "proto", None)
    for attr in ("value", "label", "body", "placeholder"):
        value = getattr(proto, attr, None) if proto is not None and kind != "block" else None
        if isinstance(value, str) and value:
            (behind if inner and not (kind in ("expander", "popover") and attr == "label") else shown).append(value)
    for attr in ("options",):
        for value in getattr(proto, attr, []) if proto is not None else []:
            (behind if inner else shown).append(str(value))
    if proto is not None and getattr(proto, "help", ""):
        behind.append(proto.help)
    children = getattr(node, "children", {})
    for child in children.values() if isinstance(children, dict) else children:
        more, less = visible(child, inner)
        shown += more
        behind += less
    return shown, behind


@pytest.mark.usefixtures("fresh_caches")
def test_the_pin_button_and_the_lessons_use_material_icons():
    at = open_page("pages/dose.py")
    pin = at.button(key="dose_pin")
    assert pin.label == "Pin this run" and pin.proto.icon == ":material/push_pin:"
    shown, _ = visible(at.main)
    assert not [t for t in shown if EMOJI.search(t)]
