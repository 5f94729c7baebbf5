"""Settings forms: URL-bound widgets for settings fields, one restore path, one error message.

A page describes its settings once as a :class:`SettingsForm`: which settings kinds it takes
(a family's, or a preset run or sweep), the widgets' :class:`Control` entries, the upload key
and the names used in messages. :func:`restore_section` takes back a settings JSON or a zip
bundle (any kind the form accepts) through :func:`safebandit_core.export.load_settings`, the
only reader of settings files; :func:`error_text` is the one way a :class:`SettingsError`
is put into words on a page.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

import streamlit as st

from safebandit_core import export, uploads
from safebandit_core.fields import Field
from safebandit_core.settings import SettingsError, echo

from . import links, shell

S = TypeVar("S")


@dataclasses.dataclass(frozen=True)
class Control:
    """A settings field's widget: its key (also its URL parameter), label, range, default and slider format.

    An empty ``fmt`` lets :func:`slider` choose: three decimals for steps below 0.01, else two. ``help`` is the
    tooltip when a page gives none.
    """

    key: str
    label: str
    lo: float
    hi: float
    step: float
    default: float = 0.0
    fmt: str = ""
    help: str = ""


def controls_of(fields: Iterable[Field], defaults: object) -> dict[str, Control]:
    """The controls of a family's declared fields (``Family.fields``), by field name: each starts at its ``start``,
    else the same-named attribute of ``defaults`` (a settings object; None shows as the field's ``unset`` value)."""

    def start(f: Field) -> float:
        value = getattr(defaults, f.target) if f.start is None else f.start
        return f.unset if value is None else value

    return {f.name: Control(f.key, f.shown_label, f.lo, f.hi, f.step, start(f), f.fmt, f.help) for f in fields}


def slider(controls: Mapping[str, Control], field: str, help: str | None = None) -> float:
    """A float slider for a settings field, bound to the URL."""
    c = controls[field]
    fmt = c.fmt or ("%.3f" if c.step < 0.01 else "%.2f")
    return links.bound(st.slider, c.label, float(c.lo), float(c.hi), float(c.default), float(c.step),
                       key=c.key, help=c.help if help is None else help, format=fmt)


def integer(controls: Mapping[str, Control], field: str, help: str | None = None) -> int:
    """An integer input for a settings field, bound to the URL."""
    c = controls[field]
    return int(links.bound(st.number_input, c.label, int(c.lo), int(c.hi), int(c.default), int(c.step),
                           key=c.key, help=c.help if help is None else help))


def number(controls: Mapping[str, Control], field: str, help: str | None = None) -> float:
    """A float input for a settings field, bound to the URL."""
    c = controls[field]
    return float(links.bound(st.number_input, c.label, float(c.lo), float(c.hi), float(c.default), float(c.step),
                             key=c.key, help=c.help if help is None else help, format=c.fmt or None))


@dataclasses.dataclass(frozen=True)
class SettingsForm(Generic[S]):
    """How a page's widgets map to its settings class.

    - ``kinds``: the settings kinds a restore accepts (``dose``, ``preset``, ...);
    - ``model``: how messages name the model ("the dose model");
    - ``upload_key``: the settings uploader's key; its message lives under ``upload_key + "_message"``;
    - ``int_fields``: controls whose widget holds an int;
    - ``field_names``: labels for settings fields without a control of the same name (they override
      the controls' labels);
    - ``values_of``: the control values a restored settings object sets (default: every control's field);
    - ``restore_extra``: further widget keys to set from a restored settings object (policies, …).
    """

    kinds: tuple[str, ...]
    model: str
    controls: dict[str, Control]
    upload_key: str
    int_fields: frozenset[str] = frozenset()
    field_names: dict[str, str] = dataclasses.field(default_factory=dict)
    values_of: Callable[[S], dict[str, float]] | None = None
    restore_extra: Callable[[S], None] | None = None

    @property
    def message_key(self) -> str:
        """Where the uploader's last error or success message is kept."""
        return f"{self.upload_key}_message"

    def label(self, field: str) -> str:
        """How messages name a settings field or control."""
        if field in self.field_names:
            return self.field_names[field]
        return self.controls[field].label if field in self.controls else field


def _control_values(form: SettingsForm[S], s: S) -> dict[str, float]:
    """The control values a settings object sets, each checked against its widget's range."""
    values = form.values_of(s) if form.values_of else {f: getattr(s, f) for f in form.controls}
    for field, value in values.items():
        c = form.controls[field]
        if not (c.lo <= value <= c.hi):
            raise SettingsError(field, f"in [{c.lo:g}, {c.hi:g}] on this page", value)
    return values


def restore_from_upload(form: SettingsForm[Any]) -> None:
    """Callback of the uploader: validate the JSON and put its values into the widgets (or say what is wrong)."""
    file = st.session_state.get(form.upload_key)
    if file is None:
        st.session_state.pop(form.message_key, None)
        return
    if file.size > uploads.MAX_UPLOAD_BYTES:
        message = str(uploads.too_big("file", file.name, file.size, uploads.MAX_UPLOAD_BYTES, "a settings file or zip"))
        st.session_state[form.message_key] = ("error", message + ".")
        return
    try:
        kind, s = export.load_settings(file.getvalue(), file.name)
        if kind not in form.kinds:
            raise ValueError(f"these are settings of the {kind!r} kind, not of {form.model}")
        values = _control_values(form, s)
    except uploads.UploadError as err:  # names the file itself
        st.session_state[form.message_key] = ("error", error_text(err, form.label))
        return
    except SettingsError as err:
        st.session_state[form.message_key] = ("error", f"{file.name}: {error_text(err, form.label)}")
        return
    except (ValueError, TypeError) as err:
        st.session_state[form.message_key] = ("error", f"{file.name}: {err}.")
        return
    for field, value in values.items():
        st.session_state[form.controls[field].key] = int(value) if field in form.int_fields else float(value)
    if form.restore_extra:
        form.restore_extra(s)
    if hasattr(s, "base_seed"):
        st.session_state[shell.SEED_KEY] = s.base_seed
    if getattr(s, "precision", None) not in (None, "auto"):
        st.session_state[shell.PRECISION_KEY] = s.precision
    st.session_state[form.message_key] = ("success", f"Restored the settings of {file.name}.")


RESTORE_BOX = "{}_box"
"""The key of a page's *Restore a run* box (its uploader's key in it); Streamlit keeps it open across reruns."""


def restore_section(form: SettingsForm[Any]) -> None:
    """The *Restore a run* box: the uploader and the message its last upload left, drawn only while the box is open
    (a collapsed box is one element on a page load; the uploader is two more and its own code for the browser)."""
    from . import pagekit  # imported here: pagekit imports this module

    box = pagekit.lazy("Restore a run", RESTORE_BOX.format(form.upload_key), icon=":material/upload_file:")
    if not box.open:
        return
    with box:
        st.file_uploader("Settings JSON or zip saved by this page", type=["json", "zip"], key=form.upload_key,
                         on_change=restore_from_upload, args=(form,), max_upload_size=uploads.MAX_UPLOAD_MB,
                         help="Restores every control (and the base seed) from the file, or from the settings in a "
                              "zip made by *Everything (zip)*.")
        message = st.session_state.get(form.message_key)
        if message:
            (st.error if message[0] == "error" else st.success)(message[1])


def error_text(err: SettingsError, label: Callable[[str], str] = str) -> str:
    """A settings error in words: the field by its label, what is allowed, and what it is now."""
    if isinstance(err, uploads.UploadError):
        return f"{err}."
    if err.field == "file":
        return f"must be {err.allowed}. Upload a settings file or a zip saved by this app."
    shown = "" if err.value is None else f" (now {echo(err.value)})"
    return f"**{label(err.field)}** must be {err.allowed}{shown}."


def settings_or_error(form: SettingsForm[S] | None, build: Callable[[], S]) -> S | None:
    """The settings ``build`` makes and checks; on a :class:`SettingsError` show what to change and return None."""
    try:
        return build()
    except SettingsError as err:
        st.error(error_text(err, form.label if form else str) + " Change it to run.", icon=":material/error:")
        return None


