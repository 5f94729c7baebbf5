"""Settings as data: frozen dataclasses per model, validated once, with messages a person can act on.

Every settings class here round-trips through JSON (``to_dict`` / ``from_dict``) so a run can be
exported and re-created, and ``validate()`` raises :class:`SettingsError` naming the field and
its allowed range. The command line and the pages show that message as it is.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any, TypeVar

T = TypeVar("T")
ECHO_CHARS = 60
"""How much of a value a message repeats: a pasted 100 kB list is named by its start and its length, not echoed."""


def shorten(text: str, limit: int = ECHO_CHARS) -> str:
    """``text`` itself when short, else its first ``limit`` characters, "…" and its length (every echo's cut)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def echo(value: Any, limit: int = ECHO_CHARS) -> str:
    """``repr(value)`` as a message repeats user input: cut by :func:`shorten` (an integer too long to print
    is named by its number of digits)."""
    try:
        text = repr(value)
    except ValueError:  # an int past sys.get_int_max_str_digits()
        return f"an integer of about {int(value.bit_length() * math.log10(2)):,} digits"
    return shorten(text, limit)


_RANGE_STARTS = ("in ", ">", "<", "≥", "≤", "between ")


def finite_allowed(allowed: str, value: Any) -> str:
    """``allowed`` for a refused ``value``: a range (``> 0``, ``in (0, 1)``) given an infinite or NaN number reads
    "a finite number > 0", so that ``inf`` is not told it is too small; anything else is unchanged."""
    non_finite = isinstance(value, float) and not math.isfinite(value)
    if non_finite and allowed.startswith(_RANGE_STARTS):
        return f"a finite number {allowed}"
    return allowed


class SettingsError(ValueError):
    """A setting is out of its allowed range; ``field`` names it, ``allowed`` says what is allowed (for an infinite
    or NaN value, that it must be a finite number in that range: :func:`finite_allowed`)."""

    def __init__(self, field: str, allowed: str, value: Any = None) -> None:
        allowed = finite_allowed(allowed, value)
        self.field = field
        self.allowed = allowed
        self.value = value
        shown = "" if value is None else f" (got {echo(value)})"
        super().__init__(f"{field} must be {allowed}{shown}")


def check_open_unit(field: str, value: float) -> None:
    """Require ``0 < value < 1``."""
    if not (isinstance(value, (int, float)) and math.isfinite(value) and 0.0 < value < 1.0):
        raise SettingsError(field, "in (0, 1)", value)


def check_positive(field: str, value: float) -> None:
    """Require a finite ``value > 0``."""
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0.0):
        raise SettingsError(field, "> 0", value)


def check_nonnegative(field: str, value: float) -> None:
    """Require a finite ``value >= 0``."""
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0.0):
        raise SettingsError(field, ">= 0", value)


def check_int_range(field: str, value: int, lo: int, hi: int | None = None) -> None:
    """Require an integer in ``[lo, hi]`` (``hi`` None: no upper end)."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= lo
    if ok and hi is not None:
        ok = value <= hi
    if not ok:
        allowed = f"an integer >= {lo}" if hi is None else f"an integer in [{lo}, {hi}]"
        raise SettingsError(field, allowed, value)


def check_choice(field: str, value: Any, choices: tuple[Any, ...]) -> None:
    """Require ``value`` to be one of ``choices``."""
    if value not in choices:
        raise SettingsError(field, "one of " + ", ".join(map(str, choices)), value)


def to_dict(settings: Any) -> dict[str, Any]:
    """A JSON-ready dict of a settings dataclass (tuples become lists), tagged with its kind."""
    out = {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(settings).items()}
    out["kind"] = getattr(settings, "KIND", type(settings).__name__)
    return out


def from_dict(cls: type[T], data: dict[str, Any]) -> T:
    """Build and validate ``cls`` from a dict made by :func:`to_dict`; unknown keys are an error."""
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    data = {k: v for k, v in data.items() if k != "kind"}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise SettingsError(shorten(unknown[0]), "a known setting of " + cls.__name__ + " (" + ", ".join(fields) + ")")
    kwargs = {}
    for k, v in data.items():
        kwargs[k] = tuple(v) if isinstance(v, list) else v
    obj = cls(**kwargs)
    validate = getattr(obj, "validate", None)
    if validate is not None:
        validate()
    return obj


def to_json(settings: Any) -> str:
    """Settings as a pretty JSON string (what the pages and the command line export)."""
    return json.dumps(to_dict(settings), indent=2, sort_keys=True)
