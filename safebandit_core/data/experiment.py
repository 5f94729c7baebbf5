"""The battery experiment of seed 000 §7 end to end: a NASA file → a fitted truth → the replay.

``load_source`` reads the steps (the shipped RW26 table by default), :func:`fit_problem` embeds
the JSON windows and fits θ*, μ* on the first half of the random-walk discharges
(:func:`safebandit_core.data.fit.build_battery_problem`), :func:`settings_for` turns the fit
into the dose model's settings, and :func:`replay` runs every policy × seed on the replay
contexts with rewards and costs drawn from the fit (:func:`safebandit_core.dose.sim.simulate_on_contexts`).

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

import collections
import dataclasses
import functools
import hashlib
import math
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, BinaryIO, ClassVar

import numpy as np
import pandas as pd

from .. import device as dev
from .. import runner
from ..dose import sim
from ..settings import SettingsError, check_choice, check_int_range, check_positive, from_dict
from .battery import BatteryDataError, load_embedded, load_steps
from .embed import HASH_EMBEDDER, SENTENCE_EMBEDDER, Embedder, make_embedder
from .fit import BatteryProblem, build_battery_problem

Source = str | os.PathLike[str] | BinaryIO | None

POLICIES: tuple[str, ...] = ("hpucb", "eps_greedy", "on_expectation")
TAUS: tuple[float, ...] = (0.1, 0.2)
DEFAULT_DIM = 2048
DEFAULT_FIT_LAM = 0.1
EMBEDDED_LABEL = "NASA RW26 (embedded per-step table)"
MAX_CONTEXT_BYTES = 2 * 2**30
EMBED_CACHE_BYTES = 512 * 2**20
FINAL_SHARE = 0.1
SOURCES: tuple[str, ...] = ("embedded", "upload", "path")
MAX_REPLAY_T = 100_000
MAX_REPLAY_SEEDS = 50
MAX_BASE_SEED = 2**31 - 1 - sim.MAX_SEEDS


@dataclasses.dataclass(frozen=True, kw_only=True)
class BatteryReplaySettings:
    """Everything that re-creates a battery replay (the page's *Settings JSON*, kind ``battery``).

    ``source``: ``embedded`` (the shipped RW26 table), ``upload`` or ``path`` (a user's NASA .mat
    file, named by ``file``; ``path`` is its path on the machine, required for ``path``: a file is
    named, never stored). ``dim``: the embedding size; ``embedder``: ``hash`` or
    ``sentence-transformers:<model>``; ``fit_lam``: the fit's ridge; ``taus``: the cost limits
    replayed (a subset of :data:`TAUS`); ``T`` None: every replay round once; ``precision`` None or
    ``auto``: the device's default. ``dim`` and ``base_seed`` have no default: the page's default
    ``dim`` depends on the device, so a file must say which one it ran.
    """

    KIND: ClassVar[str] = "battery"

    source: str = "embedded"
    file: str | None = None
    path: str | None = None
    dim: int
    embedder: str = HASH_EMBEDDER
    fit_lam: float = DEFAULT_FIT_LAM
    taus: tuple[float, ...] = TAUS
    T: int | None = None
    seeds: int = 3
    policies: tuple[str, ...] = POLICIES
    base_seed: int
    precision: str | None = None

    def validate(self) -> BatteryReplaySettings:
        """Raise :class:`SettingsError` naming the first field out of range; return self."""
        check_choice("source", self.source, SOURCES)
        if self.file is not None and not isinstance(self.file, str):
            raise SettingsError("file", "a file name or null", self.file)
        if self.source == "path" and not (isinstance(self.path, str) and self.path.strip()):
            raise SettingsError("path", "the path of a .mat file", self.path)
        check_int_range("dim", self.dim, 1, sim.MAX_D)
        check_int_range("seeds", self.seeds, 1, MAX_REPLAY_SEEDS)
        check_int_range("base_seed", self.base_seed, 0, MAX_BASE_SEED)
        lam = self.fit_lam
        if not (isinstance(lam, (int, float)) and not isinstance(lam, bool) and 1e-6 <= lam <= 1e3):
            raise SettingsError("fit_lam", "in [1e-06, 1000]", lam)
        if not isinstance(self.taus, (tuple, list)) or any(t not in TAUS for t in self.taus):
            raise SettingsError("taus", "a list of " + ", ".join(f"{t:g}" for t in TAUS), self.taus)
        if self.T is not None:
            check_int_range("T", self.T, 1, MAX_REPLAY_T)
        if not isinstance(self.policies, (tuple, list)) or any(p not in POLICIES for p in self.policies):
            raise SettingsError("policies", "a list of " + ", ".join(POLICIES), self.policies)
        family, _, model = self.embedder.partition(":") if isinstance(self.embedder, str) else ("", "", "")
        if self.embedder != HASH_EMBEDDER and not (family == SENTENCE_EMBEDDER and model):
            raise SettingsError("embedder", f"'{HASH_EMBEDDER}' or '{SENTENCE_EMBEDDER}:<model>'", self.embedder)
        if self.precision not in (None, "auto"):
            check_choice("precision", self.precision, dev.PRECISIONS)
        return self


BATTERY_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(BatteryReplaySettings))


def battery_settings(data: Mapping[str, Any]) -> BatteryReplaySettings:
    """:func:`~safebandit_core.settings.from_dict` for :class:`BatteryReplaySettings` (validated), naming an
    unknown field or a missing ``dim`` / ``base_seed`` as a :class:`SettingsError` rather than a TypeError."""
    unknown = sorted(set(data) - set(BATTERY_FIELDS) - {"kind"})
    if unknown:
        raise SettingsError(unknown[0], "a known setting of the battery replay (" + ", ".join(BATTERY_FIELDS) + ")")
    for name in ("dim", "base_seed"):
        if name not in data:
            raise SettingsError(name, "given in the file")
    return from_dict(BatteryReplaySettings, dict(data))


@dataclasses.dataclass(frozen=True, eq=False)
class BatteryRun:
    """A fitted battery problem and the dose-model settings of one replay of it."""

    problem: BatteryProblem
    settings: sim.DoseSettings
    source: str
    fit_lam: float

    @property
    def passes(self) -> float:
        """How many times the replay goes through the replay half's contexts (T / n_replay)."""
        return self.settings.T / self.problem.n_replay

    @property
    def first_safe_dose(self) -> float:
        """HPC-UCB's round-1 dose τ/(b_δ + S·L) for these settings."""
        return sim.first_safe_dose(self.settings)

    def contexts(self, dtype: Any = np.float64) -> np.ndarray:
        """The T × d contexts of the replay: replay round t uses replay context t mod n_replay."""
        X = self.problem.X_replay
        rows = np.arange(self.settings.T) % X.shape[0]
        return np.asarray(X[rows], dtype=dtype)


def check_request(*, tau: float, T: int | None, dim: int, seeds: int) -> None:
    """Reject impossible requests before any data is read (raises :class:`SettingsError`)."""
    check_positive("tau", tau)
    if T is not None:
        check_int_range("T", T, 1, sim.MAX_T)
    check_int_range("d", dim, 1, sim.MAX_D)
    check_int_range("seeds", seeds, 1, sim.MAX_SEEDS)


def load_source(source: Source | pd.DataFrame = None) -> tuple[pd.DataFrame, str]:
    """The per-step table and a label: the embedded RW26 table (None), a ``.mat`` path or file object,
    or a table already loaded. A missing or malformed file raises :class:`BatteryDataError`."""
    if source is None:
        return _embedded_steps().copy(), EMBEDDED_LABEL
    if isinstance(source, pd.DataFrame):
        return source, "a per-step table"
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise BatteryDataError(f"no such file: {path!r}")
        return load_steps(path), os.path.basename(path)
    return load_steps(source), getattr(source, "name", "an uploaded file")


@functools.lru_cache(maxsize=1)
def _embedded_steps() -> pd.DataFrame:
    return load_embedded()


def fit_problem(steps: pd.DataFrame, *, dim: int = DEFAULT_DIM, embedder: str | Embedder = "hash",
                fit_lam: float = DEFAULT_FIT_LAM) -> BatteryProblem:
    """Embed the JSON windows (memoised, see :class:`CachedEmbedder`) and fit θ*, μ* on the first half.

    ``dim`` applies to the hash embedder; a sentence-transformers model keeps its own size.
    """
    check_int_range("d", dim, 1, sim.MAX_D)
    check_positive("fit_lam", fit_lam)
    model = CachedEmbedder(make_embedder(embedder, dim=dim))
    return build_battery_problem(steps, dim=dim, embedder=model, lam=fit_lam)


def settings_for(problem: BatteryProblem, *, tau: float, T: int | None = None, seeds: int = 1,
                 precision: str = "auto", policies: Sequence[str] = POLICIES, base_seed: int = 0,
                 delta: float = 0.05, delta_prime: float = 0.05, lam: float = 1.0, eps: float = 0.5,
                 refresh_every: int = sim.DoseSettings.refresh_every) -> sim.DoseSettings:
    """The dose-model settings of a replay: d = the embedding size, T = the replay half unless given,
    κ = the fit's residual RMS, S = the fit's norm bound, L = the largest context norm (1)."""
    norms = np.linalg.norm(problem.X_replay, axis=1)
    settings = sim.DoseSettings(
        policies=tuple(policies), d=problem.dim, T=problem.n_replay if T is None else T, tau=tau, delta=delta,
        delta_prime=delta_prime, kappa_r=problem.kappa_r, kappa_c=problem.kappa_c, S=problem.norm_bound,
        L=float(norms.max()) if norms.size and norms.max() > 0 else 1.0, lam=lam, g="linear", eps=eps,
        seeds=seeds, base_seed=base_seed, precision=precision, refresh_every=refresh_every,
    )
    return settings.validate()


def prepare(source: Source | pd.DataFrame = None, *, dim: int = DEFAULT_DIM, embedder: str | Embedder = "hash",
            tau: float = TAUS[0], T: int | None = None, seeds: int = 1, precision: str = "auto",
            policies: Sequence[str] = POLICIES, fit_lam: float = DEFAULT_FIT_LAM, **options: Any) -> BatteryRun:
    """Steps → fit → settings in one call (``options``: any other :func:`settings_for` keyword)."""
    check_request(tau=tau, T=T, dim=dim, seeds=seeds)
    steps, label = load_source(source)
    problem = fit_problem(steps, dim=dim, embedder=embedder, fit_lam=fit_lam)
    settings = settings_for(problem, tau=tau, T=T, seeds=seeds, precision=precision, policies=policies, **options)
    return BatteryRun(problem=problem, settings=settings, source=label, fit_lam=fit_lam)


def with_tau(run: BatteryRun, tau: float) -> BatteryRun:
    """The same replay at another τ (τ is a traced number: no recompilation)."""
    return dataclasses.replace(run, settings=dataclasses.replace(run.settings, tau=tau).validate())


def check_contexts_fit(run: BatteryRun, device: str | None = None) -> None:
    """Raise :class:`SettingsError` when the T × d context table would be too large to hand to the device."""
    item = np.dtype(dev.dtype_of(run.settings.resolved_precision(device))).itemsize
    need = run.settings.T * run.settings.d * item
    if need > MAX_CONTEXT_BYTES:
        most = MAX_CONTEXT_BYTES // (run.settings.d * item)
        raise SettingsError("T", f"at most {most:,} with d = {run.settings.d} (the contexts would take "
                                 f"{need / 2**30:.1f} GiB)", run.settings.T)
    sim.check_fits(run.settings, device)


def replay(run: BatteryRun, device: str | None = None, chunk: int | None = None) -> Iterator[runner.Chunk]:
    """Every policy × seed on the replay contexts; chunks with outputs shaped (policy, seed, t)."""
    check_contexts_fit(run, device)
    dtype = dev.dtype_of(run.settings.resolved_precision(device))
    X = run.contexts(np.dtype(dtype))
    yield from sim.simulate_on_contexts(run.settings, X, run.problem.theta, run.problem.mu, device=device,
                                        chunk=chunk)


def run_replay(run: BatteryRun, device: str | None = None) -> tuple[dict[str, np.ndarray], float]:
    """:func:`replay` to the end: the outputs and the seconds it took."""
    start = time.perf_counter()
    outputs: dict[str, np.ndarray] = {}
    for chunk in replay(run, device):
        outputs = chunk.outputs
    return outputs, time.perf_counter() - start


def first_dose_regret(run: BatteryRun, outputs: dict[str, np.ndarray]) -> float:
    """The regret of playing HPC-UCB's round-1 dose every round: what it pays if it never learns."""
    rows = np.arange(run.settings.T) % run.problem.n_replay
    reward_rate = (run.problem.X_replay @ run.problem.theta)[rows]
    best = outputs["true_upper"][0, 0]
    return float(((best - run.first_safe_dose) * reward_rate).sum())


def policy_rows(run: BatteryRun, outputs: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """Per policy: violation rate (95 % interval over seeds), regret, and its dose over the last 10 % of rounds."""
    table = sim.summary(run.settings, outputs)
    tail = max(1, int(math.ceil(FINAL_SHARE * outputs["alpha"].shape[-1])))
    rows = []
    for i, row in enumerate(table.to_dict("records")):
        rows.append({
            "policy": row["policy"], "label": row["label"],
            "violation_rate": row["violation_rate"],
            "violation_rate_ci95": [row["violation_rate_lo"], row["violation_rate_hi"]],
            "violations": row["violations"],
            "cum_regret_mean": row["cum_regret_mean"], "cum_regret_std": row["cum_regret_std"],
            "min_slack": row["min_slack"],
            "final_dose_mean": float(outputs["alpha"][i, :, -tail:].mean()),
            "final_safe_dose_mean": float(outputs["true_upper"][i, :, -tail:].mean()),
        })
    return rows


def summary_row(run: BatteryRun, outputs: dict[str, np.ndarray], *, seconds: float,
                device: str | None = None) -> dict[str, Any]:
    """ONE JSON-ready object: the replay's shared figures, the first policy's (HPC-UCB's by default)
    figures at the top level, and every policy's under ``by_policy``."""
    s, p = run.settings, run.problem
    rows = policy_rows(run, outputs)
    head = rows[0]
    return {
        "policy": head["policy"], "tau": s.tau, "T": s.T, "dim": s.d, "seeds": s.seeds,
        "violation_rate": head["violation_rate"], "cum_regret_mean": head["cum_regret_mean"],
        "fit_r2_reward": p.fit_r2_reward, "fit_r2_cost": p.fit_r2_cost,
        "replay_r2_reward": p.replay_r2_reward, "replay_r2_cost": p.replay_r2_cost,
        "kappa_r": p.kappa_r, "kappa_c": p.kappa_c, "S": s.S, "L": s.L, "lam": s.lam, "fit_lam": run.fit_lam,
        "delta": s.delta, "delta_prime": s.delta_prime, "eps": s.eps,
        "first_safe_dose": run.first_safe_dose, "first_dose_regret": first_dose_regret(run, outputs),
        "n_fit": p.n_fit, "n_replay": p.n_replay, "passes": run.passes, "embedder": p.embedder,
        "source": run.source, "device": dev.describe(device), "precision": s.resolved_precision(device),
        "seconds": seconds, "by_policy": rows,
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


class CachedEmbedder:
    """An embedder whose results are memoised per process (embeddings are deterministic).

    The key is the inner embedder's name, size and seed with a BLAKE2b digest of the texts, so a
    refit with another ridge, or a second page visit, reuses the vectors of the same table. The
    memo keeps at most ``EMBED_CACHE_BYTES`` of read-only arrays, least recently used first out.
    """

    _memo: collections.OrderedDict[tuple[Any, ...], np.ndarray] = collections.OrderedDict()
    _lock = threading.Lock()

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The inner embedder's ``(len(texts), dim)`` array, computed once per distinct input."""
        digest = hashlib.blake2b(digest_size=16)
        for text in texts:
            digest.update(text.encode())
            digest.update(b"\0")
        key = (self.name, self.dim, getattr(self.inner, "seed", None), len(texts), digest.hexdigest())
        with self._lock:
            hit = self._memo.get(key)
            if hit is not None:
                self._memo.move_to_end(key)
                return hit
        vectors = np.asarray(self.inner.embed(texts), dtype=np.float64)
        vectors.setflags(write=False)
        with self._lock:
            self._memo[key] = vectors
            while sum(v.nbytes for v in self._memo.values()) > EMBED_CACHE_BYTES and len(self._memo) > 1:
                self._memo.popitem(last=False)
        return vectors

    @classmethod
    def clear(cls) -> None:
        """Forget every memoised embedding."""
        with cls._lock:
            cls._memo.clear()

    @classmethod
    def cached_keys(cls) -> list[tuple[Any, ...]]:
        """The keys held now, oldest first."""
        with cls._lock:
            return list(cls._memo)
