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


JARGON = ("clairvoyant", "regret", "seed", "polic", "κ_c", "κ_r", "b_δ", "X_t", "cpu:0", "float64")
"""The papers' words and symbols a visitor should not need: on the model pages they sit in the help, in the
*In symbols* boxes and in the *Details* box, one click away."""
MODEL_PAGES = ("pages/dose.py", "pages/nonlinear.py", "pages/conservative.py", "pages/meanvar.py")


def page_texts(node, hidden: bool = False) -> tuple[list[str], list[str], set[str]]:
    """Under ``node``: the texts shown by default, those behind a collapsed box or a help, and the keys of the charts
    shown by default (a box's own title is shown)."""
    shown: list[str] = []
    behind: list[str] = []
    charts_shown: set[str] = set()
    kind = getattr(node, "type", "")
    box = kind in ("expander", "popover")
    proto = getattr(node, "proto", None)
    if kind in ("bidi_component", "plotly_chart") and not hidden and getattr(node, "key", None):
        charts_shown.add(node.key)
    if kind == "table" or kind == "arrow_data_frame":
        shown.extend(str(c) for c in node.value.columns)
    for attr in ("value", "label", "body", "placeholder"):
        value = getattr(node, attr, None) if kind not in ("block", "table", "arrow_data_frame") else None
        if isinstance(value, str) and value:
            (behind if hidden else shown).append(value)
            break
    for option in (getattr(proto, "options", None) or []) if proto is not None and kind != "block" else []:
        (behind if hidden else shown).append(str(option))
    if proto is not None and kind != "block" and getattr(proto, "help", ""):
        behind.append(proto.help)
    if box and proto is not None and getattr(proto, "label", ""):
        shown.append(proto.label)
    children = getattr(node, "children", {})
    for child in children.values() if isinstance(children, dict) else children:
        more, less, seen = page_texts(child, hidden or box)
        shown += more
        behind += less
        charts_shown |= seen
    return shown, behind, charts_shown


def chart_words(fig: dict) -> list[str]:
    """What a chart shows by default: its title, axis titles, subplot titles and legend entries."""
    layout = fig.get("layout", {})
    out = [(layout.get("title") or {}).get("text") or ""]
    out += [((v.get("title") or {}).get("text") or "") for k, v in layout.items() if re.match(r"[xy]axis\d*$", k)]
    out += [a.get("text", "") for a in layout.get("annotations", [])]
    out += [t.get("name", "") for t in fig.get("data", []) if t.get("showlegend") is not False]
    return [w for w in out if w]


def jargon(texts: list[str]) -> list[tuple[str, str]]:
    """Each (word, text) where a text holds a word of :data:`JARGON` (a word in any case, a symbol as it is)."""
    return [(w, t[:120]) for t in texts for w in JARGON
            if (w.lower() in t.lower() if w.isalpha() else re.search(rf"(?<![A-Za-z]){re.escape(w)}", t))]


@pytest.mark.usefixtures("fresh_caches", "inline_scrub")
@pytest.mark.parametrize("page", MODEL_PAGES, ids=[p.split("/")[1][:-3] for p in MODEL_PAGES])
def test_a_model_page_speaks_plainly_by_default_with_the_symbols_one_click_away(page):
    from tests.ui.helpers import charts

    at = open_page(page)
    shown, behind, shown_charts = page_texts(at.main)
    figures = charts(at)
    assert shown_charts and shown_charts <= set(figures)
    words = shown + [w for key in shown_charts for w in chart_words(figures[key])]
    found = jargon(words)
    assert found == [], "\n".join(f"{w!r} in {t!r}" for w, t in found)
    # the device, the seeds and the policies are still there for whoever opens the details
    assert any("float64" in t and "seeds" in t and "policies" in t for t in behind)


@pytest.mark.usefixtures("fresh_caches")
def test_presentation_bullets_speak_plainly_and_the_footer_counts_what_is_shown():
    at = open_page("pages/present.py")  # the dose model's first scenario: the new rule against the usual one only
    bullets = next(m.value for m in at.markdown if m.value.startswith("- ") and "over the limit" in m.value)
    lines = bullets.splitlines()
    assert len(lines) == 3, lines  # each shown rule's rounds over the limit, then who lost the least
    assert lines[-1].startswith("- After 4,000 patient-rounds, **") and "lost the least benefit" in lines[-1]
    assert jargon([bullets]) == []
    footer = next(c.value for c in at.caption if c.value.startswith("Model and algorithms"))
    assert "× 2 policies" in footer and "× 3 policies" not in footer


def test_the_model_pages_controls_are_named_plainly_with_the_symbol_in_their_help():
    from safebandit_core import families
    from safebandit_ui import registry

    pages = {registry.entry(f.kind).page: f for f in families.FAMILIES.values()}
    for page in MODEL_PAGES:
        fields = [f for f in pages[page].fields if not f.expert]
        assert jargon([f.label for f in fields] + [f.section for f in fields]) == [], page
    dose = {f.name: f for f in families.get("dose").fields}
    assert (dose["kappa_c"].label, dose["seeds"].label) == ("Side-effect noise", "Runs")
    assert dose["kappa_c"].help.startswith("κ_c:") and "(seeds)" in dose["seeds"].help
