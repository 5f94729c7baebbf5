"""Control metadata of a family's settings: each number a page lets a person set, declared once.

A family lists its :class:`Field` entries next to its settings dataclass and names them in its
registry entry (``Family.fields``). The pages build their forms from them (label, unit, range,
step, help, section, expert or not), so a control's range is written in one place, and
:func:`problems` checks that every range lies inside what the settings' ``validate()`` accepts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
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
      presentation mode hides; ``beside``: drawn in two columns with the next field;
    - ``setting``: the settings field it sets when that is not ``name`` (two controls of one field, each shown for
      some problems); ``unset``: the value that stands for None (the model then derives the field itself);
    - ``given``: the other settings under which the range applies (a range for one problem, or one that needs a
      larger λ); :func:`problems` checks the range with them; ``start``: where the control starts when that is not
      the settings' default (a control for another problem, or a default of None).
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
    setting: str = ""
    unset: float | None = None
    given: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    start: float | None = None

    def __post_init__(self) -> None:
        if self.widget not in WIDGETS:
            raise ValueError(f"{self.name}: widget must be one of {WIDGETS}, not {self.widget!r}")
        if not self.lo < self.hi:
            raise ValueError(f"{self.name}: the range [{self.lo:g}, {self.hi:g}] is empty")

    @property
    def target(self) -> str:
        """The settings field this control sets."""
        return self.setting or self.name

    def value(self, shown: float) -> Any:
        """The settings value of what the control shows (None at ``unset``)."""
        return None if self.unset is not None and shown == self.unset else shown

    @property
    def shown_label(self) -> str:
        """The label with its unit."""
        return f"{self.label} ({self.unit})" if self.unit else self.label


def problems(fields: Iterable[Field], defaults: Any) -> list[str]:
    """Each way ``fields`` disagree with the validation of ``defaults`` (a settings object): the defaults must
    validate, and so must the defaults with any one field at either end of its range (and its ``given``
    settings). Empty when they agree."""
    out = []
    try:
        defaults.validate()
    except SettingsError as err:
        out.append(f"the defaults do not validate: {err}")
    for f in fields:
        for end in (f.lo, f.hi):
            value = int(end) if f.widget == "integer" else float(end)
            try:
                dataclasses.replace(defaults, **{**f.given, f.target: f.value(value)}).validate()
            except SettingsError as err:
                out.append(f"{f.name} = {value:g} (an end of its control's range) does not validate: {err}")
    return out
