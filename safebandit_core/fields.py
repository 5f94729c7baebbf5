"""Control metadata of a family's settings: each number a page lets a person set, declared once.

A family lists its :class:`Field` entries next to its settings dataclass and names them in its
registry entry (``Family.fields``). The pages build their forms from them (label, unit, range,
step, help, section, expert or not), so a control's range is written in one place, and
:func:`problems` checks that every range lies inside what the settings' ``validate()`` accepts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from .settings import SettingsError

WIDGETS = ("slider", "integer", "number")


@dataclasses.dataclass(frozen=True)
class Field:
    """One settings field as a control.

    - ``name``: the settings field it sets; ``key``: the widget's key, which is also its URL parameter;
    - ``label`` and ``unit`` (shown after the label in brackets when set); ``lo``, ``hi``, ``step``: the range
      a person can choose from, inside what ``validate()`` accepts;
    - ``help``: the tooltip; ``widget``: ``slider`` (a float), ``integer`` or ``number`` (a float typed in);
      ``fmt``: the slider's printf format (empty: three decimals for steps below 0.01, else two);
    - ``section``: the group of controls it sits in; ``expert``: drawn in the collapsed expert part, which
      presentation mode hides; ``beside``: drawn in two columns with the next field.
    """

    name: str
    key: str
    label: str
    lo: float
    hi: float
    step: float
    help: str = ""
    widget: str = "slider"
    section: str = ""
    expert: bool = False
    unit: str = ""
    fmt: str = ""
    beside: bool = False

    def __post_init__(self) -> None:
        if self.widget not in WIDGETS:
            raise ValueError(f"{self.name}: widget must be one of {WIDGETS}, not {self.widget!r}")
        if not self.lo < self.hi:
            raise ValueError(f"{self.name}: the range [{self.lo:g}, {self.hi:g}] is empty")

    @property
    def shown_label(self) -> str:
        """The label with its unit."""
        return f"{self.label} ({self.unit})" if self.unit else self.label


def problems(fields: Iterable[Field], defaults: Any) -> list[str]:
    """Each way ``fields`` disagree with the validation of ``defaults`` (a settings object): the defaults must
    validate, and so must the defaults with any one field at either end of its range. Empty when they agree."""
    out = []
    try:
        defaults.validate()
    except SettingsError as err:
        out.append(f"the defaults do not validate: {err}")
    for f in fields:
        for end in (f.lo, f.hi):
            value = int(end) if f.widget == "integer" else float(end)
            try:
                dataclasses.replace(defaults, **{f.name: value}).validate()
            except SettingsError as err:
                out.append(f"{f.name} = {value:g} (an end of its control's range) does not validate: {err}")
    return out
