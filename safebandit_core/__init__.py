"""safebandit_core: safe bandit algorithms of two papers, in JAX, for a Python API, a CLI and the app.

The shape: every model kind is a :class:`~safebandit_core.model.Family` (settings, policies,
one composed scan), every run is a :class:`~safebandit_core.model.Run` with outputs shaped
(policy, seed, t); :mod:`safebandit_core.families` is the registry, and ``simulate``, ``run``,
``tidy`` and ``summary`` (re-exported here) work on any family's settings.

- :mod:`.dose`: heteroscedastic dose model (HPC-UCB, On-Expectation, ε-Greedy);
- :mod:`.conservative`: GenCB (CMAB, CLB, CCCB) and its baselines;
- :mod:`.meanvar`: MV-CUCB and MV-UCB;
- :mod:`.battery`: the NASA battery experiment (logged data → fitted environment → dose replay);
- :mod:`.logged`: a user's own log of contexts, doses, benefits and side effects, fitted and replayed;
- :mod:`.sweep`, :mod:`.presets`: grids over any family, sharded across devices; the papers' experiments;
- :mod:`.export`, :mod:`.cli`: bundles and settings files, the command line; :mod:`.viz`: figures;
- :mod:`.device`, :mod:`.runner`, :mod:`.settings`, :mod:`.results`, :mod:`.linalg`: the plumbing.

No package ``__init__`` of the library imports a module of the library when it runs: a package's
re-exported names (``from safebandit_core.dose import DoseSettings``) are looked up in its ``_EXPORTS`` table and
imported from their module on first use (:func:`exports`). Importing a module then never runs its package's
other modules first, so two threads importing two modules of one package at once cannot wait on each other
(tests/core/test_boundaries.py checks that the library's imports form no cycle).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__version__ = "0.1.0"


def exports(package: str, table: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` for the names of ``table``, each imported on first use.

    ``table`` maps a name to the module that defines it, relative to ``package`` (``".settings"``), with
    ``":attribute"`` when the name differs there (``".curves:KINDS"``); a module alone is the module itself
    (``".device:"``).
    """
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        where, _, attribute = table[name].partition(":")
        module = importlib.import_module(where, package)
        value = module if table[name].endswith(":") else getattr(module, attribute or name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *table})

    return __getattr__, __dir__


_EXPORTS = {"device": ".device:", "families": ".families:", "model": ".model:", "run": ".families",
            "simulate": ".families", "summary": ".families", "tidy": ".families"}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = exports(__name__, _EXPORTS)
