"""The battery experiment of Safety by Design §7 as a :class:`~safebandit_core.model.Family`: a NASA file → a fitted
truth → the dose model's policies replayed on the data's contexts.

:func:`prepare` reads the steps (the shipped RW26 table by default), embeds the JSON windows and fits
θ*, μ* on the first half of the random-walk discharges
(:func:`safebandit_core.battery.fit.build_battery_problem`), all memoised in
:mod:`safebandit_core.data.cache`, and resolves the settings (``T``; ``data_hash`` for data given as bytes),
so the generic :func:`safebandit_core.families.simulate` runs them like any family's. The battery is one
instance of the data pipeline a user's log goes through too (:mod:`safebandit_core.data`): the fit is
:func:`safebandit_core.data.ridge.fit_arrays` and the :data:`FAMILY` is the logged-data replay
(:func:`safebandit_core.data.replay.make_family`), the dose model with the ``contexts`` stream source:
the contexts and the truth are the fit's, the rewards and costs get Gaussian noise drawn per seed. A grid
(over τ, say) shares the T × d context table across its cells (:data:`GRID_AXES`).

How the constants of the algorithm are set (shown on the page as well):

- ``L`` = the largest context norm, which is 1: every embedding row has unit norm.
- ``S`` = max(‖θ*‖, ‖μ*‖) of the fit itself, so Assumption 2.2 holds exactly for the replayed truth.
- ``κ_r``, ``κ_c`` = the residual RMS of the two fits; the replay draws Gaussian noise with these stds.
- The fit's ridge ``fit_lam`` = 0.1. The embedded contexts are nearly collinear (95 % of their
  energy lies in one direction), so an almost unregularised fit (1e-3) needs ‖μ*‖ ≈ 33. Then the
  round-1 safe dose τ/(b_δ + S·L) is 0.003 at τ = 0.1, and the bias term √λ·S·‖x‖_{Σ⁻¹} of the
  confidence width keeps HPC-UCB far below the safe dose for the whole replay. With 0.1, S falls
  to about 11 and fit R² falls only from 0.63/0.68 to 0.55/0.66 (reward/cost, RW26, d = 2048).
  Over the full RW26 replay at d = 256, HPC-UCB then saves 43 % of the regret of staying at its
  round-1 dose, against 29 % with 1e-3.
- The learner's own ridge ``lam`` = 1 (ALGORITHMS.md's default); δ = δ′ = 0.05; ε = 0.5.

Rewards and costs keep the fit's scaling (voltage drop over the largest drop, temperature rise
over the largest rise), so τ = 0.1 allows a rise of a tenth of the largest one seen in the data.
A horizon ``T`` longer than the replay half goes through its contexts again, in order, with
fresh noise: RW26 has 3,636 replay rounds, the RW9–RW12 files of the paper about 10⁵.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any, BinaryIO

import numpy as np
import pandas as pd

from .. import jsondoc, runner
from .. import model as M
from ..data import cache
from ..data import replay as replay_core
from ..data.embed import CachedEmbedder, Embedder, make_embedder
from ..data.replay import FINAL_SHARE, GRID_AXES, MAX_CONTEXT_BYTES, REFRESH_EVERY, TRACED, check_context_bytes
from ..dose.settings import DoseSettings, first_safe_dose
from ..settings import SettingsError
from .fields import FIELDS, start
from .fit import BatteryProblem, build_battery_problem
from .loader import BatteryDataError, load_embedded, load_steps
from .settings import MAX_REPLAY_T, BatteryReplaySettings

Data = str | os.PathLike[str] | BinaryIO | bytes | pd.DataFrame | None

EMBEDDED_LABEL = "NASA RW26 (embedded per-step table)"
__all__ = ["EMBEDDED_LABEL", "FACT_KEYS", "FAMILY", "FINAL_SHARE", "GRID_AXES", "MAX_CONTEXT_BYTES", "REFRESH_EVERY",
           "TRACED", "BatteryRun", "check_context_bytes", "check_contexts_fit", "contexts", "dose_settings", "facts",
           "first_dose_regret", "fit_frame", "fitted", "load_source", "policy_rows", "prepare", "replay",
           "run_replay", "with_tau"]


# ---------------------------------------------------------------- data → fitted problem (memoised)


def _file_key(path: str) -> tuple[Hashable, ...]:
    if not os.path.isfile(path):
        raise BatteryDataError(f"no such file: {path!r}")
    stat = os.stat(path)
    return "path", os.path.abspath(path), stat.st_size, stat.st_mtime_ns


def _table_digest(steps: pd.DataFrame) -> str:
    return hashlib.blake2b(pd.util.hash_pandas_object(steps, index=True).to_numpy().tobytes(),
                           digest_size=16).hexdigest()


def _unseen(settings: BatteryReplaySettings) -> pd.DataFrame:
    raise SettingsError("data", f"given again: these settings replay {settings.file or 'an uploaded file'} (hash "
                                f"{str(settings.data_hash)[:12]}…), which this process has not read; upload it on the "
                                "battery page, or pass it to safebandit_core.battery.prepare", settings.source)


def _steps_of(settings: BatteryReplaySettings | None, data: Data) -> tuple[pd.DataFrame, str, tuple[Hashable, ...]]:
    """The per-step table to fit, its label and its memo key: ``data`` when given, else the data the settings'
    ``data_hash`` names (read before by :func:`prepare`), else the settings' source. Data given as bytes, a file
    object or a table is keyed ``("data", its hash)``."""
    if data is None:
        if settings is not None and settings.data_hash is not None:
            key = ("data", settings.data_hash)
            return cache.MEMO.get(key, lambda: _unseen(settings)), settings.file or "an uploaded file", key
        source = "embedded" if settings is None else settings.source
        if source == "embedded":
            key = ("embedded",)
            return cache.MEMO.get(key, load_embedded), EMBEDDED_LABEL, key
        if source == "upload":
            raise SettingsError("source", "'embedded' or 'path' without a file: give the uploaded file to "
                                          "safebandit_core.battery.prepare(settings, file)", source)
        data = settings.path
    if isinstance(data, pd.DataFrame):
        key = ("data", _table_digest(data))
        _check_hash(settings, key[1], "a per-step table")
        return data, "a per-step table", key
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        key = _file_key(path)
        return cache.MEMO.get(key, lambda: load_steps(path)), os.path.basename(path), key
    label = os.path.basename(str(getattr(data, "name", None) or "an uploaded file"))
    raw = data if isinstance(data, bytes) else _read_all(data)
    key = ("data", hashlib.blake2b(raw, digest_size=16).hexdigest())
    _check_hash(settings, key[1], label)
    return cache.MEMO.get(key, lambda: load_steps(io.BytesIO(raw))), label, key


def _check_hash(settings: BatteryReplaySettings | None, digest: str, label: str) -> None:
    """Refuse data other than the data the settings were made with (their ``data_hash``), before reading it."""
    if settings is not None and settings.data_hash is not None and digest != settings.data_hash:
        raise SettingsError("data", f"the data these settings were made with ({settings.file or 'a file'}, hash "
                                    f"{settings.data_hash[:12]}…)", f"{label}, hash {digest[:12]}…")


def _read_all(handle: BinaryIO) -> bytes:
    if handle.seekable():
        handle.seek(0)
    return handle.read()


def load_source(source: Data = None) -> tuple[pd.DataFrame, str]:
    """The per-step table and a label: the embedded RW26 table (None), a ``.mat`` path, file object or its
    bytes, or a table already loaded. A missing or malformed file raises :class:`BatteryDataError`."""
    steps, label, _ = _steps_of(None, source)
    return steps.copy(), label


def _fit(steps: pd.DataFrame, key: tuple[Hashable, ...], dim: int, embedder: str | Embedder,
         fit_lam: float) -> BatteryProblem:
    name = embedder if isinstance(embedder, str) else (embedder.name, embedder.dim, getattr(embedder, "seed", None))
    return cache.MEMO.get(("problem", key, name, dim, float(fit_lam)), lambda: build_battery_problem(
        steps, dim=dim, embedder=CachedEmbedder(make_embedder(embedder, dim=dim)), lam=fit_lam))


def fitted(settings: BatteryReplaySettings, data: Data = None) -> tuple[BatteryProblem, str]:
    """The fitted problem of ``settings`` (from ``data`` when given) and its data's label, memoised."""
    steps, label, key = _steps_of(settings, data)
    return _fit(steps, key, settings.dim, settings.embedder, settings.fit_lam), label


def dose_settings(s: BatteryReplaySettings, problem: BatteryProblem) -> DoseSettings:
    """The dose-model settings of a replay: d = the embedding size, κ = the fit's residual RMS, S = the fit's
    norm bound, L = the largest context norm (1); the rest from ``s``. ``T`` must be resolved (see :func:`prepare`)."""
    return replay_core.dose_settings(s, problem.env, _rounds(s))


def _rounds(s: BatteryReplaySettings) -> int:
    if s.T is None:
        raise SettingsError("T", f"an integer in [1, {MAX_REPLAY_T}] for a run (None, every replay round once, "
                                 "is resolved by safebandit_core.battery.prepare)")
    return s.T


def contexts(problem: BatteryProblem, T: int, dtype: Any = np.float64) -> np.ndarray:
    """The T × d contexts of the replay: replay round t uses replay context t mod n_replay."""
    return replay_core.contexts(problem.env, replay_core.replay_rows(problem.n_replay, T), dtype)


def first_dose_regret(problem: BatteryProblem, first_dose: float, true_upper: np.ndarray) -> float:
    """The regret of playing HPC-UCB's round-1 dose every round: what it pays if it never learns.

    ``true_upper`` is one seed's true safe dose per round (the same for every policy and seed).
    """
    rows = replay_core.replay_rows(problem.n_replay, true_upper.shape[-1])
    return replay_core.first_dose_regret(problem.env, rows, first_dose, true_upper)


# ---------------------------------------------------------------- one replay: prepare, run, report


@dataclasses.dataclass(frozen=True, eq=False)
class BatteryRun:
    """The battery's prepared data: a fitted problem and the settings of a replay of it (``T`` resolved, and
    ``data_hash`` naming data given as bytes or a table, so that the generic
    :func:`safebandit_core.families.simulate` finds the fit in :data:`safebandit_core.data.cache.MEMO`)."""

    problem: BatteryProblem
    settings: BatteryReplaySettings
    source: str

    @property
    def family(self) -> M.Family:
        return FAMILY

    @property
    def dose(self) -> DoseSettings:
        """The dose-model settings the replay runs (d, κ, S, L from the fit)."""
        return dose_settings(self.settings, self.problem)

    @property
    def fit_lam(self) -> float:
        return self.settings.fit_lam

    @property
    def passes(self) -> float:
        """How many times the replay goes through the replay half's contexts (T / n_replay)."""
        return _rounds(self.settings) / self.problem.n_replay

    @property
    def first_safe_dose(self) -> float:
        """HPC-UCB's round-1 dose τ/(b_δ + S·L) for these settings."""
        return first_safe_dose(self.dose)

    def contexts(self, dtype: Any = np.float64) -> np.ndarray:
        """The T × d contexts of the replay: replay round t uses replay context t mod n_replay."""
        return contexts(self.problem, _rounds(self.settings), dtype)


def prepare(settings: BatteryReplaySettings, data: Data = None) -> BatteryRun:
    """Validate, read the data (``data``, e.g. an uploaded file, or the settings' source), embed and fit it
    (memoised by content in :data:`safebandit_core.data.cache.MEMO`), resolve ``T`` None to the replay half and
    name the data in the settings: a path as the ``path`` source, bytes or a table by ``data_hash``. Bad data
    raises :class:`BatteryDataError`; data whose hash differs from the settings' ``data_hash``, a
    :class:`SettingsError` naming ``data``."""
    settings = settings.validate()
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        settings, data = dataclasses.replace(settings, source="path", path=path, data_hash=None,
                                             file=settings.file or os.path.basename(path)), None
    steps, label, key = _steps_of(settings, data)
    digest = key[1] if key[0] == "data" else None
    problem = _fit(steps, key, settings.dim, settings.embedder, settings.fit_lam)
    settings = dataclasses.replace(settings, data_hash=digest,
                                   T=problem.n_replay if settings.T is None else settings.T)
    return BatteryRun(problem=problem, settings=settings, source=label)


FAMILY = dataclasses.replace(
    replay_core.make_family(BatteryReplaySettings, lambda s: fitted(s)[0].env, rounds=_rounds), command="battery",
    cli="safebandit_core.battery.cli", prepare=prepare,
    fields=FIELDS, sweep_base=start,
    example=BatteryReplaySettings(dim=16, T=2400, seeds=2, base_seed=0))  # 3 refresh blocks of 1000
"""The battery family: the logged-data replay (:func:`safebandit_core.data.replay.make_family`) of each settings'
fitted problem, found in the data memo by the settings' source or ``data_hash`` (:func:`prepare` puts it there)."""


def with_tau(run: BatteryRun, tau: float) -> BatteryRun:
    """The same replay at another τ (τ is a traced number: no recompilation)."""
    return dataclasses.replace(run, settings=dataclasses.replace(run.settings, tau=tau).validate())


def check_contexts_fit(run: BatteryRun, device: str | None = None, cells: int = 1) -> None:
    """Raise :class:`SettingsError` naming T when the contexts or the run would not fit on the device."""
    check_context_bytes(_rounds(run.settings), run.problem.dim, run.family.precision_of(run.settings, device))
    run.family.check_fits(run.settings, device, cells=cells)


def replay(run: BatteryRun, device: str | None = None, chunk: int | None = None,
           cells: Sequence[Mapping[str, Any]] | None = None) -> Iterator[M.Run]:
    """Every policy × seed (× cell, e.g. :func:`~.settings.tau_grid`) on the replay contexts, chunk by chunk."""
    yield from M.simulate(run.family, run.settings, device, chunk, cells=cells)


def run_replay(run: BatteryRun, device: str | None = None,
               cells: Sequence[Mapping[str, Any]] | None = None) -> M.Run:
    """:func:`replay` to the end."""
    return runner.final(replay(run, device, cells=cells))


def policy_rows(result: M.Run, cell: int | None = None) -> list[dict[str, Any]]:
    """Per policy: violation rate and regret with their 95 % intervals over seeds, and its dose over the last 10 % of
    rounds (of grid cell ``cell``), as JSON rows of the generic summary."""
    table = M.summary(result)
    if cell is not None:
        table = table[table["cell"] == cell]
    return jsondoc.rows_of(table[list(replay_core.POLICY_COLUMNS)])


FACT_KEYS = ("tau", "dim", "fit_r2_reward", "fit_r2_cost", "replay_r2_reward", "replay_r2_cost", "kappa_r", "kappa_c",
             "S", "L", "lam", "fit_lam", "delta", "delta_prime", "eps", "first_safe_dose", "first_dose_regret", "n_fit",
             "n_replay", "passes", "embedder", "source")
"""The keys of :func:`facts`: what a replay's JSON object adds to the shared keys and the generic summary's rows."""


def facts(run: BatteryRun, result: M.Run, cell: int | None = None) -> dict[str, Any]:
    """The replay's shared figures (of grid cell ``cell``), JSON-ready: the constants the run used, the fit's quality
    and sizes, HPC-UCB's round-1 dose and what staying there loses, and the data's label. The per-policy figures
    are the generic summary's (:func:`safebandit_core.model.summary`, as JSON rows :func:`policy_rows`)."""
    settings = result.settings if cell is None else dataclasses.replace(result.settings, **result.cells[cell])
    s, p = dose_settings(settings, run.problem), run.problem
    table = M.summary(result)
    head = (table if cell is None else table[table["cell"] == cell]).iloc[0]
    return {
        "tau": s.tau, "dim": s.d, "fit_r2_reward": p.fit_r2_reward, "fit_r2_cost": p.fit_r2_cost,
        "replay_r2_reward": p.replay_r2_reward, "replay_r2_cost": p.replay_r2_cost, "kappa_r": p.kappa_r,
        "kappa_c": p.kappa_c, "S": s.S, "L": s.L, "lam": s.lam, "fit_lam": settings.fit_lam, "delta": s.delta,
        "delta_prime": s.delta_prime, "eps": s.eps, "first_safe_dose": float(head["first_safe_dose"]),
        "first_dose_regret": float(head["first_dose_regret"]), "n_fit": p.n_fit, "n_replay": p.n_replay,
        "passes": float(head["passes"]), "embedder": p.embedder, "source": run.source,
    }


def fit_frame(problem: BatteryProblem) -> pd.DataFrame:
    """Replay rounds with dose ≥ the fit's minimum: observed reward/dose and cost/dose beside the fit's
    predictions ⟨x, θ*⟩ and ⟨x, μ*⟩ (the targets the fit was scored on)."""
    keep = problem.dose_replay >= problem.min_dose
    X = problem.X_replay[keep]
    dose = problem.dose_replay[keep]
    return pd.DataFrame({
        "step": problem.steps_replay[keep],
        "dose": dose,
        "reward_observed": problem.reward_replay[keep] / dose,
        "reward_predicted": X @ problem.theta,
        "cost_observed": problem.cost_replay[keep] / dose,
        "cost_predicted": X @ problem.mu,
    })
