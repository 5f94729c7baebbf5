"""The one JSON schema every ``--json`` prints, built from the summary frames of :mod:`safebandit_core.results`.

Every command prints exactly one JSON object::

    {"kind": str,          # what ran: a model's kind, "sweep" or "preset"
     "T": int, "seeds": int,
     "device": str, "precision": str, "seconds": float,
     "rows": [             # one per (cell,) policy
         {"policy": str, "label": str,
          "cum_regret_mean": float, "cum_regret_std": float,       # final regret over seeds, std with ddof = 1
          "cum_regret_ci95": [float, float],                       # 95 % interval of the mean (null: one seed)
          ...}],           # the family's own figures (violation_rate with violation_rate_ci95, min_slack, ...)
     ...}                  # the command's own keys (settings, fit, claims, files, ...)

A summary frame's ``<name>_lo`` and ``<name>_hi`` columns become one ``<name>_ci95`` pair; NaN becomes null. With
one seed nothing measures a spread: every ``<name>_std`` and ``<name>_ci95`` of ``rows`` is null (:func:`document`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

ENVELOPE: dict[str, tuple[type, ...]] = {"kind": (str,), "T": (int,), "seeds": (int,), "device": (str,),
                                         "precision": (str,), "seconds": (int, float), "rows": (list,)}
"""The keys every ``--json`` object has, with their JSON types."""
ROW: dict[str, tuple[type, ...]] = {"policy": (str,), "label": (str,), "cum_regret_mean": (int, float),
                                    "cum_regret_std": (int, float), "cum_regret_ci95": (list,)}
"""The keys every object of ``rows`` has, with their JSON types."""
HELP = ("print one JSON object: kind, T, seeds, device, precision, seconds, rows (one per policy: policy, label, "
        "cum_regret_mean, cum_regret_std, cum_regret_ci95, then the model's own figures) and this command's own keys")
"""What ``--json`` prints, as every command's ``--help`` says it."""
SPREAD_ENDS = ("_std", "_ci95")
"""How the names of spreads end: a sample std across seeds and a 95 % interval of the mean across seeds."""
OLD_NAMES = ("regret_mean", "regret_std", "final_regret", "regret_lo", "regret_hi", "by_policy")
"""Keys of earlier releases that no ``--json`` prints any more."""


def help_for(own: Iterable[str], note: str = "") -> str:
    """A command's ``--json`` help: :data:`HELP`, then the command's own keys by name (and a ``note``)."""
    return f"{HELP}: {', '.join(own)}" + (f"; {note}" if note else "")


def is_spread(key: str) -> bool:
    """Whether a row's key is a spread across seeds (:data:`SPREAD_ENDS`), null for a run of one seed."""
    return key.endswith(SPREAD_ENDS)


def without_spread(row: Mapping[str, Any]) -> dict[str, Any]:
    """``row`` with every spread (:func:`is_spread`) null: one seed measures none (its std would read 0 and its
    interval zero-wide, as if measured)."""
    return {k: (None if is_spread(k) else v) for k, v in row.items()}


def plain(value: Any) -> Any:
    """A JSON-ready value: numpy scalars as Python numbers, NaN as None."""
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def json_row(row: Mapping[str, Any], drop: Iterable[str] = ()) -> dict[str, Any]:
    """One summary row as a JSON row: ``<name>_lo``/``<name>_hi`` pairs as ``<name>_ci95``, columns in ``drop``
    left out."""
    skip = set(drop)
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key in skip or (key.endswith("_hi") and f"{key[:-3]}_lo" in row):
            continue
        if key.endswith("_lo") and f"{key[:-3]}_hi" in row:
            out[f"{key[:-3]}_ci95"] = [plain(value), plain(row[f"{key[:-3]}_hi"])]
        else:
            out[key] = plain(value)
    return out


def rows_of(summary: pd.DataFrame, drop: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Every row of a summary frame as a JSON row (:func:`json_row`)."""
    drop = tuple(drop)
    return [json_row(r, drop) for r in summary.to_dict(orient="records")]


def document(kind: str, T: int, seeds: int, device: str, precision: str, seconds: float,
             rows: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """The JSON object of a command: the shared keys, ``rows`` (their spreads null for one seed:
    :func:`without_spread`), then the command's own keys."""
    if int(seeds) < 2:
        rows = [without_spread(r) for r in rows]
    doc = {"kind": kind, "T": int(T), "seeds": int(seeds), "device": device, "precision": precision,
           "seconds": float(seconds), "rows": rows}
    doc.update(extra)
    return doc


def problems(doc: Any) -> list[str]:
    """What in ``doc`` breaks the schema (empty when nothing does)."""
    if not isinstance(doc, dict):
        return [f"not a JSON object but {type(doc).__name__}"]
    out = [f"{key}: missing or not {'/'.join(t.__name__ for t in types)}" for key, types in ENVELOPE.items()
           if not isinstance(doc.get(key), types) or isinstance(doc.get(key), bool)]
    for i, row in enumerate(doc.get("rows") or []):
        if not isinstance(row, dict):
            out.append(f"rows[{i}]: not an object")
            continue
        one_seed = doc.get("seeds") == 1
        out += [f"rows[{i}].{key}: missing or not {'/'.join(t.__name__ for t in types)}"
                for key, types in ROW.items() if not (one_seed and is_spread(key)) and not isinstance(row.get(key),
                                                                                                     types)]
        for key, value in row.items():
            if one_seed and is_spread(key):
                if value is not None:
                    out.append(f"rows[{i}].{key}: a spread of one seed, not null")
            elif key.endswith("_ci95") and not (isinstance(value, list) and len(value) == 2):
                out.append(f"rows[{i}].{key}: not a [low, high] pair")
        out += [f"rows[{i}].{key}: a key of an earlier release" for key in OLD_NAMES if key in row]
    out += [f"{key}: a key of an earlier release" for key in OLD_NAMES if key in doc]
    if isinstance(doc.get("rows"), list) and not doc["rows"]:
        out.append("rows: empty")
    return out
