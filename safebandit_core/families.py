"""The registry of model families, and the generic entry points over any of them.

``simulate(settings)``, ``run(settings)``, ``tidy(run)`` and ``summary(run)`` work for every
family: the family is looked up from the settings' class (its ``KIND``). Sweeps, presets,
export, the command line and the pages ask this registry instead of switching on a kind.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pandas as pd

from . import model as M
from .battery.family import FAMILY as BATTERY
from .conservative.family import FAMILY as CONSERVATIVE
from .dose.family import FAMILY as DOSE
from .dose.nonlinear.family import FAMILY as NONLINEAR
from .logged.family import FAMILY as LOGGED
from .meanvar.family import FAMILY as MEANVAR
from .settings import SettingsError

FAMILIES: dict[str, M.Family] = {f.kind: f for f in (DOSE, NONLINEAR, CONSERVATIVE, MEANVAR, BATTERY, LOGGED)}


def get(kind: str) -> M.Family:
    """The family of ``kind``; a :class:`~safebandit_core.settings.SettingsError` names the known ones."""
    if kind not in FAMILIES:
        raise SettingsError("kind", "one of " + ", ".join(FAMILIES), kind)
    return FAMILIES[kind]


def of(settings: Any) -> M.Family:
    """The family whose settings class ``settings`` is an instance of."""
    for f in FAMILIES.values():
        if isinstance(settings, f.settings_cls):
            return f
    raise TypeError(f"no model family takes {type(settings).__name__}")


def simulate(settings: Any, device: str | None = None, chunk: int | None = None,
             cells: Sequence[Mapping[str, Any]] | None = None, mesh: Any = None, pad_tail: bool = False
             ) -> Iterator[M.Run]:
    """Run ``settings`` (of any family) chunk by chunk; see :func:`safebandit_core.model.simulate`."""
    return M.simulate(of(settings), settings, device, chunk, cells=cells, mesh=mesh, pad_tail=pad_tail)


def run(settings: Any, device: str | None = None, **kw: Any) -> M.Run:
    """:func:`simulate` to the end."""
    return M.run(of(settings), settings, device, **kw)


def tidy(run_: M.Run, fields: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per (cell,) policy, seed and round (see :func:`safebandit_core.model.tidy`)."""
    return M.tidy(run_, fields)


def summary(run_: M.Run) -> pd.DataFrame:
    """One row per (cell,) policy with the shared columns (see :func:`safebandit_core.model.summary`)."""
    return M.summary(run_)
