"""Batched MV-CBP simulation (seed 001 §5): MV-CUCB and MV-UCB on the paper's Bernoulli arms.

The K arm means are seed 001's arithmetic sequence from 0.8 down to 0.2, rewards are Bernoulli
with variance ``μ(1 − μ)``, and the default arm pays ``μ_0``. Every round's outcomes of all
arms are drawn by the runner's ``draw`` from ``fold_in(key, t)``, and every selected policy
plays that same stream in one scan, so the policies of a seed face identical outcomes.

``K`` and the set of policies fix the compiled code; ``alpha``, ``mu0``, ``rho`` and ``T`` are
traced, so :func:`grid_params` with ``runner.run(..., grid=True)`` sweeps them without
recompiling.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from .. import device as _device
from ..runner import Chunk, final, run_chunks, seed_keys
from ..settings import SettingsError, check_choice, check_int_range, check_open_unit, check_positive
from .mv import OUTPUT_FIELDS, POLICIES, MVParams, assumption_ok, make_model, make_params

# Memory per policy, seed and round: the outputs plus the tidy frame built from them (generous).
BYTES_PER_ROUND = 160
MAX_K = 1000
MAX_T = 10_000_000
MAX_SEEDS = 10_000
MAX_RHO = 1e6
MAX_SEED_VALUE = 2**31 - 1


@dataclasses.dataclass(frozen=True)
class MVSettings:
    """One MV-CBP experiment: policies, arms, constraint, horizon, seeds and precision.

    ``precision`` None means the device's default (float64 on the CPU, float32 on a GPU).
    """

    KIND: ClassVar[str] = "mv"

    policies: tuple[str, ...] = POLICIES
    K: int = 24
    alpha: float = 0.1
    mu0: float = 0.7
    rho: float = 30.0
    T: int = 10_000
    seeds: int = 20
    base_seed: int = 0
    precision: str | None = None

    def validate(self) -> MVSettings:
        """Raise :class:`SettingsError` naming the first field out of its allowed range."""
        if not (isinstance(self.policies, tuple) and self.policies
                and len(set(self.policies)) == len(self.policies)):
            raise SettingsError("policies", "a non-empty tuple of distinct names from " + ", ".join(POLICIES),
                                self.policies)
        for p in self.policies:
            check_choice("policies", p, POLICIES)
        check_int_range("K", self.K, 1, MAX_K)
        check_open_unit("alpha", self.alpha)
        check_positive("mu0", self.mu0)
        if self.mu0 > 1.0:
            raise SettingsError("mu0", "in (0, 1]", self.mu0)
        check_positive("rho", self.rho)
        if self.rho > MAX_RHO:
            raise SettingsError("rho", f"in (0, {MAX_RHO:g}]", self.rho)
        check_int_range("T", self.T, 1, MAX_T)
        check_int_range("seeds", self.seeds, 1, MAX_SEEDS)
        check_int_range("base_seed", self.base_seed, 0, MAX_SEED_VALUE - self.seeds)
        if self.precision is not None:
            check_choice("precision", self.precision, _device.PRECISIONS)
        return self

    @property
    def mv0(self) -> float:
        """The default arm's mean-variance ``MV_0 = ρ μ_0``."""
        return self.rho * self.mu0


def arm_means(K: int) -> np.ndarray:
    """Seed 001's arm means: an arithmetic sequence from 0.8 down to 0.2 (0.8 alone when K = 1)."""
    return np.linspace(0.8, 0.2, K)


def arm_variances(K: int) -> np.ndarray:
    """Bernoulli variances ``μ(1 − μ)`` of :func:`arm_means`."""
    mu = arm_means(K)
    return mu * (1.0 - mu)


def precision_of(settings: MVSettings, device: str | None = None) -> str:
    """The precision a run uses: the setting, else the device's default."""
    return settings.precision or _device.default_precision(device)


def sim_params(settings: MVSettings, device: str | None = None) -> MVParams:
    """Traced parameters of one experiment in its precision."""
    dtype = _device.dtype_of(precision_of(settings, device))
    return make_params(settings.alpha, settings.mu0, settings.rho, settings.T, arm_means(settings.K),
                       arm_variances(settings.K), dtype)


def grid_params(settings: MVSettings, pairs: Sequence[tuple[float, float]], device: str | None = None) -> MVParams:
    """Parameters for a sweep over ``(alpha, rho)`` pairs, stacked on axis 0 (for ``grid=True``).

    Each pair is validated as a setting; the other fields come from ``settings``.
    """
    if not pairs:
        raise SettingsError("pairs", "at least one (alpha, rho) pair")
    rows = [sim_params(dataclasses.replace(settings, alpha=a, rho=r).validate(), device) for a, r in pairs]
    return jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *rows)


def simulate(settings: MVSettings, device: str | None = None, chunk: int | None = None) -> Iterator[Chunk]:
    """Run every policy of ``settings`` on ``seeds`` Bernoulli streams, chunk by chunk.

    Each yielded :class:`~safebandit_core.runner.Chunk` has outputs ``"<policy>/<field>"`` of
    shape ``(seeds, t_done)`` (fields as in :func:`~safebandit_core.conservative.mv.run_mv_on_stream`).
    """
    settings.validate()
    n = len(settings.policies)
    _device.check_fits(n * settings.seeds * settings.T * BYTES_PER_ROUND, 0, device, "T", settings.T,
                       f"{settings.seeds} seeds and {n} polic{'y' if n == 1 else 'ies'}")
    model = make_model(tuple(settings.policies), settings.K, "bernoulli")
    params = sim_params(settings, device)
    keys = seed_keys(settings.base_seed, settings.seeds)
    yield from run_chunks(model, params, keys, settings.T, chunk=chunk, device=device)


def run_all(settings: MVSettings, device: str | None = None) -> dict[str, np.ndarray]:
    """Run :func:`simulate` to the end and return its outputs."""
    return final(simulate(settings, device=device)).outputs


def split_outputs(outputs: dict[str, np.ndarray]) -> dict[str, dict[str, np.ndarray]]:
    """``{"<policy>/<field>": a}`` -> ``{policy: {field: a}}``."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for key, value in outputs.items():
        policy, _, field = key.partition("/")
        out.setdefault(policy, {})[field] = value
    return out


def tidy_frame(settings: MVSettings, outputs: dict[str, np.ndarray]) -> pd.DataFrame:
    """One row per (policy, seed, round) of the rounds done so far.

    Columns: policy, seed, t, action, default, reward, slack, mv_path, regret, cum_regret,
    default_pulls (default pulls up to t), baseline (``(1 − α)·MV_0·t``).
    """
    frames = []
    for policy, fields in split_outputs(outputs).items():
        S, n = fields["action"].shape
        t = np.arange(1, n + 1)
        cols: dict[str, Any] = {
            "policy": policy,
            "seed": np.repeat(np.arange(settings.base_seed, settings.base_seed + S), n),
            "t": np.tile(t, S),
        }
        for f in OUTPUT_FIELDS:
            cols[f] = fields[f].reshape(-1)
        cols["default_pulls"] = np.cumsum(fields["default"], axis=1).reshape(-1)
        cols["baseline"] = np.tile((1.0 - settings.alpha) * settings.mv0 * t, S)
        frames.append(pd.DataFrame(cols))
    columns = ["policy", "seed", "t", *OUTPUT_FIELDS, "default_pulls", "baseline"]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)[columns]


def summary(settings: MVSettings, outputs: dict[str, np.ndarray]) -> pd.DataFrame:
    """One row per policy over the rounds done so far.

    ``default_pulls_mean``: default pulls per run; ``regret_mean``/``regret_std``: mean and
    standard deviation over seeds of ``T·R̃_T`` (eq. (4)) at the last round done; ``min_slack``:
    the smallest slack over every seed and round; ``assumption_ok``: ``ρ > 2/(α μ_0)``.
    """
    ok = assumption_ok(settings.alpha, settings.mu0, settings.rho)
    rows = []
    for policy, fields in split_outputs(outputs).items():
        final = fields["cum_regret"][:, -1].astype(np.float64)
        rows.append({
            "policy": policy,
            "t_done": int(fields["action"].shape[1]),
            "default_pulls_mean": float(fields["default"].sum(axis=1).mean()),
            "regret_mean": float(final.mean()),
            "regret_std": float(final.std()),
            "regret_min": float(final.min()),
            "regret_max": float(final.max()),
            "min_slack": float(fields["slack"].min()),
            "assumption_ok": ok,
        })
    return pd.DataFrame(rows)


def arm_table(settings: MVSettings, outputs: dict[str, np.ndarray]) -> pd.DataFrame:
    """Every arm on the mean-variance plane, with its mean pulls per run for each policy.

    Rows: the default arm (``arm = −1``, mean ``μ_0``, variance 0) then arms 0..K−1. Columns:
    arm, kind (default/regular), mean, variance, mv (``ρ μ − σ²``), best (the regular arm with the
    highest MV), then ``pulls_<policy>`` for each policy.
    """
    mu = arm_means(settings.K)
    var = arm_variances(settings.K)
    mv = settings.rho * mu - var
    table = pd.DataFrame({
        "arm": np.arange(-1, settings.K),
        "kind": ["default"] + ["regular"] * settings.K,
        "mean": np.concatenate([[settings.mu0], mu]),
        "variance": np.concatenate([[0.0], var]),
        "mv": np.concatenate([[settings.mv0], mv]),
        "best": np.concatenate([[False], np.arange(settings.K) == int(np.argmax(mv))]),
    })
    for policy, fields in split_outputs(outputs).items():
        actions = fields["action"]
        counts = np.bincount(actions.reshape(-1) + 1, minlength=settings.K + 1)
        table[f"pulls_{policy}"] = counts / max(actions.shape[0], 1)
    return table
