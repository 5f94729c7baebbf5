"""Links: every URL-bound widget, with the link's value for it checked first.

Every control is bound to the URL (``bind="query-params"``), so a shared link re-creates a view.
Streamlit parses a bound widget's parameter when the widget is created, and some values break it
(``?T=inf`` or ``?seeds=1e309`` on an integer input raise ``OverflowError``) while others are reset
or clamped without a word. :func:`bound` creates a widget bound to the URL after checking its
parameter with the widget's own type and range (whole numbers and finite numbers within the range,
one of the options, each of the options, true/false, a text within its length). A value that fails
is taken out of the link and named in one warning at the top of the page (:func:`notes_slot`);
the valid parts of a multi-valued parameter stay. Options may be given by their label (as the
widget writes them) or by their plain value (``?policies=hpucb``).

Nothing in a link is dropped or corrected without a word: a parameter given more than once to a single-valued control
(the last value counts) is named with the value used, and at the end of the run (:func:`unread`) each parameter
nothing on the page read is taken out and named: as not a setting of this page, or, for one the page reads under
other settings (:func:`may_read`), as unused with the current ones. A page reads a parameter through :func:`bound`,
or itself through :func:`read` (a model, a scene), or lets :func:`reads` count one that another part of it handles.
A value that a control of another page left in the session under the same key is forgotten when the control about
to be drawn cannot take it (:func:`bound`), so it starts as on a first visit.
"""

from __future__ import annotations

import inspect
import math
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import streamlit as st

from . import stprivate

T = TypeVar("T")
ECHO = 24
"""Characters of a rejected value echoed in a note (the rest is cut)."""
SHOWN_OPTIONS = 8
"""Options listed in a note before "…"."""
TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")
STREAMLIT_PARAMS = ("embed", "embed_options")
"""Parameters Streamlit itself reads (an embedded app's frame), never named in a note."""
_RUN = threading.local()
"""This script run's notes slot (a script thread runs one session's runs one after another)."""


class Rule:
    """What a widget takes from the URL: ``accept(values)`` returns (kept values, rejected values)."""

    def __init__(self, what: str, accept: Callable[[list[str]], tuple[list[str], list[str]]],
                 count: int | None = None) -> None:
        self.what = what
        self.accept = accept
        self.count = count
        """How many values the control takes (a range slider: 2); None: any number (a multi-select)."""


def _number(text: str, whole: bool, lo: float | None, hi: float | None) -> str | None:
    """``text`` as a canonical number if it is finite (whole if asked) and within [lo, hi], else None."""
    try:
        v = float(text)
    except (ValueError, OverflowError):
        return None
    if not math.isfinite(v) or (whole and not v.is_integer()):
        return None
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        return None
    return str(int(v)) if whole else repr(v)


def _range_words(whole: bool, lo: float | None, hi: float | None) -> str:
    """"a whole number from 100 to 100,000", "a number from 0.001 to 0.5"."""
    kind = "a whole number" if whole else "a number"
    fmt = (lambda v: f"{int(v):,}") if whole else (lambda v: f"{v:,g}")
    if lo is not None and hi is not None:
        return f"{kind} from {fmt(lo)} to {fmt(hi)}"
    if lo is not None:
        return f"{kind} of at least {fmt(lo)}"
    if hi is not None:
        return f"{kind} of at most {fmt(hi)}"
    return f"a finite {kind[2:]}"


def numbers(whole: bool, lo: float | None, hi: float | None, count: int = 1) -> Rule:
    """A number input or slider: ``count`` numbers (whole if ``whole``) within [lo, hi]."""

    def accept(values: list[str]) -> tuple[list[str], list[str]]:
        shown = values[-count:]
        parsed = [_number(v, whole, lo, hi) for v in shown]
        bad = [v for v, p in zip(shown, parsed, strict=True) if p is None]
        if bad or len(shown) != count:
            return [], bad or values
        return [p for p in parsed if p is not None], []

    what = _range_words(whole, lo, hi) if count == 1 else f"{count} values, each {_range_words(whole, lo, hi)}"
    return Rule(what, accept, count)


def choices(options: Sequence[Any], format_func: Callable[[Any], Any] = str, many: bool = False,
            count: int = 1, limit: int | None = None) -> Rule:
    """A select widget: one option (``many``: any of them, at most ``limit``), by its label or its plain value."""
    labels = [str(format_func(o)) for o in options]
    by_text = {str(o): lab for o, lab in zip(options, labels, strict=True)} | {lab: lab for lab in labels}

    def accept(values: list[str]) -> tuple[list[str], list[str]]:
        if not many:
            values = values[-count:]
        kept = [by_text[v] for v in values if v in by_text]
        bad = [v for v in values if v not in by_text]
        if limit is not None and len(kept) > limit:
            bad, kept = bad + kept[limit:], kept[:limit]
        if not many and (bad or len(kept) != count):
            return [], bad or values
        return kept, bad

    listed = ", ".join(labels[:SHOWN_OPTIONS]) + (", …" if len(labels) > SHOWN_OPTIONS else "")
    what = (f"any of {listed}" if many else f"one of {listed}") if labels else "empty here"
    return Rule(what if count == 1 else f"{count} values, each one of {listed}", accept, None if many else count)


def switch() -> Rule:
    """A toggle or checkbox: true or false (also 1/0, yes/no, on/off)."""

    def accept(values: list[str]) -> tuple[list[str], list[str]]:
        word = values[-1].strip().lower()
        if word in TRUE_WORDS:
            return ["true"], []
        if word in FALSE_WORDS:
            return ["false"], []
        return [], values[-1:]

    return Rule("true or false", accept, 1)


def text(max_chars: int | None) -> Rule:
    """A text input: any text of at most ``max_chars`` characters."""

    def accept(values: list[str]) -> tuple[list[str], list[str]]:
        if max_chars is not None and len(values[-1]) > max_chars:
            return [], values[-1:]
        return values[-1:], []

    return Rule("any text" if max_chars is None else f"a text of at most {max_chars} characters", accept, 1)


def _is_whole(*values: Any) -> bool:
    """Whether Streamlit makes a number widget of these arguments an integer one (every number given is an int)."""
    given = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    return bool(given) and all(isinstance(v, int) for v in given)


def rule_for(widget: str, a: dict[str, Any]) -> Rule:
    """The rule of a widget kind (``number_input``, ``slider``, …) from its call's arguments ``a``."""
    fmt = a.get("format_func") or str
    if widget == "number_input":
        return numbers(_is_whole(a["min_value"], a["max_value"], a["value"], a["step"]), a["min_value"],
                       a["max_value"])
    if widget == "slider":
        value = a["value"]
        pair = isinstance(value, list | tuple)
        lo, hi = a["min_value"], a["max_value"]
        whole = _is_whole(lo, hi, *(value if pair else (value,)))
        return numbers(whole, lo, hi, 2 if pair else 1)
    if widget == "select_slider":
        return choices(list(a["options"]), fmt, count=2 if isinstance(a["value"], list | tuple) else 1)
    if widget in ("selectbox", "radio"):
        return choices(list(a["options"]), fmt)
    if widget == "multiselect":
        return choices(list(a["options"]), fmt, many=True, limit=a.get("max_selections"))
    if widget in ("pills", "segmented_control"):
        return choices(list(a["options"]), fmt, many=a.get("selection_mode") == "multi")
    if widget in ("toggle", "checkbox"):
        return switch()
    if widget in ("text_input", "text_area"):
        return text(a.get("max_chars"))
    raise TypeError(f"no link rule for st.{widget}")


def echo(key: str, value: str) -> str:
    """``key=value`` for a note: the value cut to :data:`ECHO` characters, shown as code (never as markdown)."""
    return f"`{key}={_plain(value)}`"


def _plain(value: str) -> str:
    """``value`` cut to :data:`ECHO` characters, each unprintable character or backtick shown as ``?``."""
    cut = value if len(value) <= ECHO else value[:ECHO] + "…"
    return "".join(ch if ch.isprintable() and ch != "`" else "?" for ch in cut)


def notes_slot() -> None:
    """Reserve the place at the top of the page where this run's notes on ignored link values appear.

    ``app.py`` calls it on every run, before any widget; without it (a fragment's rerun) a note is
    written where the widget is.
    """
    _RUN.run, _RUN.slot, _RUN.notes = stprivate.run_token(), st.empty(), []
    _RUN.read, _RUN.maybe, _RUN.stems = set(), set(), ()


def _whole_run() -> bool:
    """Whether this is the run of the whole page whose notes slot :func:`notes_slot` reserved (not a fragment's)."""
    token = stprivate.run_token()
    return not stprivate.in_fragment() and token is not None and getattr(_RUN, "run", None) is token


def note(text: str) -> None:
    """Show ``text`` among this run's notes on the link (one warning listing them all)."""
    if not _whole_run():
        st.warning(text, icon=":material/link_off:")
        return
    _RUN.notes.append(text)
    _RUN.slot.warning("\n\n".join(_RUN.notes), icon=":material/link_off:")


def _set_link(key: str, values: list[str]) -> None:
    """Put ``values`` (none: remove it) as the link's ``key``, both in the URL and where the widget will read it.

    Streamlit seeds a bound widget from a snapshot of the URL taken at the start of the run and has no
    public call to amend it (:func:`safebandit_ui.stprivate.set_link`).
    """
    stprivate.set_link(key, values)


def rename(new_name: Callable[[str], str | None], new_values: dict[str, Callable[[str], str]] | None = None) -> None:
    """Give a link shared before a rename its new spelling, before any widget reads it: each parameter whose
    ``new_name(name)`` is another name moves there (unless the link sets that one too), and each value of a
    parameter in ``new_values`` is written as that function spells it. Nothing is named in a note: the link means
    what it meant."""
    for name in stprivate.link_names():
        values = _link_values(name) or []
        target = new_name(name) or name
        spell = (new_values or {}).get(target, str)
        spelled = [spell(v) for v in values]
        if target != name:
            _set_link(name, [])
            if _link_values(target) is None:
                _set_link(target, spelled)
        elif spelled != values:
            _set_link(name, spelled)


def _link_values(key: str) -> list[str] | None:
    """The values the link gives ``key`` (what the widget would read now), or None if it has none."""
    return stprivate.link_values(key)


def reads(*keys: str) -> None:
    """Count ``keys`` as read in this run (:func:`unread` leaves them alone): a part of the page handles them itself."""
    if _whole_run():
        _RUN.read.update(keys)


def may_read(*keys: str, prefix: str = "") -> None:
    """Declare ``keys`` (and every key starting with ``prefix``) the page's own, read under some settings or while a
    section is open: left unread in this run, each is named as unused now rather than as not a setting of this
    page."""
    if _whole_run():
        _RUN.maybe.update(keys)
        _RUN.stems += (prefix,) if prefix else ()


def _repeated(key: str, values: list[str], used: list[str]) -> None:
    """Name a parameter a single-valued control got more often than it takes, and the value(s) it used."""
    shown = ", ".join(echo(key, v) for v in used)
    note(f"`{key}` is given {len(values)} times; used {shown}." if used else
         f"`{key}` is given {len(values)} times; only the last counts.")


def read(key: str) -> str | None:
    """The value the link gives ``key``, a parameter the page reads itself (no control of this module reads it): the
    last one, with a note when it is given more than once; None when the link has none."""
    values = list(st.query_params.get_all(key))
    reads(key)
    if not values:
        return None
    if len(values) > 1:
        _repeated(key, values, values[-1:])
    return values[-1]


def unread() -> None:
    """Take each parameter of the link that nothing on this page read in this run out of the link, and name it
    (``app.py`` calls this once the page is drawn); nothing in a fragment's rerun, which reads only its own part."""
    if not _whole_run():
        return
    for name in stprivate.link_names():
        if name in _RUN.read or name.lower() in STREAMLIT_PARAMS:
            continue
        values = _link_values(name) or [""]
        _set_link(name, [])
        if name in _RUN.maybe or any(name.startswith(stem) for stem in _RUN.stems):
            note(f"Ignored {echo(name, values[-1])} from the link: its control is not shown with the current "
                 "settings (or its section is closed).")
        else:
            note(f"Ignored {echo(name, values[-1])} from the link: it is not a setting of this page.")


def missing_page(opened: str) -> None:
    """Name the page a link asked for when the app has no such page and navigation opened ``opened`` instead."""
    asked = stprivate.page_not_found()
    if asked is None:
        return
    what = f"There is no page `/{_plain(asked)}` in this app" if asked else "The link's page is not in this app"
    note(f"{what}; opened **{opened}** instead.")


def check(key: str, label: str, rule: Rule, clearable: bool = False) -> None:
    """Check the link's value for ``key`` against ``rule``: drop what fails (with a note), normalise what passes,
    and name a value given more often than the control takes."""
    reads(key)
    values = _link_values(key)
    if values is None:
        return
    if all(v == "" for v in values):
        if not clearable:
            _set_link(key, [])
            note(f"Ignored {echo(key, '')} from the link: **{label}** is {rule.what}.")
        return
    given = [v for v in values if v != ""]
    kept, bad = rule.accept(given)
    if rule.count is not None and len(values) > rule.count:
        _repeated(key, values, given[-rule.count:] if kept else [])
    if kept != values:
        _set_link(key, kept)
    for value in bad:
        note(f"Ignored {echo(key, value)} from the link: **{label}** is {rule.what}.")


def _clearable(widget: str, a: dict[str, Any]) -> bool:
    """Whether the widget takes an empty value (``?key=``): a multi-select, or an input whose default is None."""
    return widget in ("multiselect", "text_input", "text_area") or (
        widget in ("pills", "segmented_control") and a.get("selection_mode") == "multi") or (
        widget in ("number_input", "selectbox", "radio") and a.get("value", a.get("index", 0)) is None)


def _as_texts(value: Any) -> list[str]:
    """A widget's value as the link would spell it (each item of a list; true/false for a flag)."""
    items = list(value) if isinstance(value, list | tuple) else [value]
    return [str(v).lower() if isinstance(v, bool) else str(v) for v in items]


def _drop_foreign(key: str, rule: Rule) -> None:
    """Forget this session's value of ``key`` when the control about to be drawn cannot take it: a control of
    another page under the same key left it (the dose page's ``T`` of 150,000 rounds, beyond the conservative page's
    range), and Streamlit would hand it to this one unchecked. The control then starts as it would on a first
    visit."""
    if key not in st.session_state or st.session_state[key] is None:
        return
    kept, bad = rule.accept(_as_texts(st.session_state[key]))
    if bad or (rule.count is not None and not kept):
        del st.session_state[key]


def bound(widget: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``widget(*args, **kwargs)`` bound to the URL by its ``key``, the link's value checked first (see module doc)."""
    a = inspect.signature(widget).bind(*args, **kwargs)
    a.apply_defaults()
    name = widget.__name__
    key = str(a.arguments["key"])
    rule = rule_for(name, a.arguments)
    _drop_foreign(key, rule)
    check(key, str(a.arguments["label"]), rule, _clearable(name, a.arguments))
    return widget(*args, bind="query-params", **kwargs)
