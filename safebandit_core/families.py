"""The registry of model families, and the generic entry points over any of them.

``simulate(settings)``, ``run(settings)``, ``tidy(run)`` and ``summary(run)`` work for every
family: the family is looked up from the settings' class (its ``KIND``). Sweeps, presets,
export, the command line and the pages ask this registry instead of switching on a kind: each family's entry
(:class:`~safebandit_core.model.Family`) carries its command, sweep base and the rest, and
:data:`TOOLS` holds the settings kinds that are not one model's (a preset run, a sweep). What the app shows of
each (its page, title and presentation) is the app's own registry (:mod:`safebandit_ui.registry`).
:func:`register` adds a family (and :func:`unregister` removes it again), so a family defined anywhere gets
the command line, sweeps, export and the warm-up with no other edit.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from collections.abc import Iterator, Mapping, Sequence
from types import ModuleType
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


@dataclasses.dataclass(frozen=True)
class Tool:
    """A settings kind that is no model's: where its class lives (``module:Class``) and its command.

    ``by_file``: its command takes the settings file itself (``--settings FILE``), not one flag per field;
    ``command_aliases``: older names the command still answers to.
    """

    kind: str
    settings: str
    command: str
    cli: str
    by_file: bool = False
    command_aliases: tuple[str, ...] = ()

    @property
    def settings_cls(self) -> type:
        """The settings class (imported on first use: these modules import the registry)."""
        return resolve(self.settings)


def resolve(path: str) -> Any:
    """The object a registry entry names as ``module:name`` (imported on first use)."""
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


TOOLS: dict[str, Tool] = {t.kind: t for t in (
    Tool("preset", "safebandit_core.presets:PresetRun", "preset", "safebandit_core.preset_cli",
         command_aliases=("replay",)),
    Tool("sweep", "safebandit_core.sweep:SweepSpec", "sweep", "safebandit_core.sweep_cli", by_file=True),
)}


def modules(name: str) -> list[ModuleType]:
    """Each registered family's module ``name`` beside its settings (its ``presets``, its ``lessons``), in registry
    order, for the families that have one: what a family's folder adds to the app's generic loops."""
    out = []
    for family in FAMILIES.values():
        full = family.settings_cls.__module__.rsplit(".", 1)[0] + "." + name
        if importlib.util.find_spec(full) is not None:
            out.append(importlib.import_module(full))
    return out


def register(family: M.Family) -> None:
    """Add ``family`` to the registry (its kind must be new). Call it at import time, before a server starts: every
    session shares the registry."""
    if family.kind in FAMILIES or family.kind in TOOLS:
        raise ValueError(f"the kind {family.kind!r} is taken")
    FAMILIES[family.kind] = family


def unregister(kind: str) -> None:
    """Remove the family of ``kind`` from the registry (what :func:`register` added)."""
    FAMILIES.pop(kind, None)


def canonical(kind: str) -> str:
    """The kind a saved file's name for a family stands for (an older name in a family's ``aliases``)."""
    return next((f.kind for f in FAMILIES.values() if kind in f.aliases), kind)


def command_of(kind: str) -> str:
    """The command that runs a settings kind (a family's or a tool's); empty when none."""
    entry = FAMILIES.get(canonical(kind)) or TOOLS.get(kind)
    return entry.command if entry is not None else ""


def get(kind: str) -> M.Family:
    """The family of ``kind`` (or of an older name of it); a :class:`~safebandit_core.settings.SettingsError` names
    the known ones."""
    kind = canonical(kind)
    if kind not in FAMILIES:
        raise SettingsError("kind", "one of " + ", ".join(FAMILIES), kind)
    return FAMILIES[kind]


def of(settings: Any) -> M.Family:
    """The family whose settings class ``settings`` is an instance of."""
    for f in FAMILIES.values():
        if isinstance(settings, f.settings_cls):
            return f
    raise TypeError(f"no model family takes {type(settings).__name__}")


def prepare(settings: Any, data: Any = None) -> Any:
    """The prepared data of a data family's ``settings`` (read, embedded and fitted once, held by content hash):
    its ``settings`` then run through :func:`simulate` like any family's."""
    family = of(settings)
    if family.prepare is None:
        raise SettingsError("kind", "a family that prepares data (" + ", ".join(
            f.kind for f in FAMILIES.values() if f.prepare is not None) + ")", family.kind)
    return family.prepare(settings, data)


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
