"""Dose-model benchmarks: the core against a per-round-Cholesky reference, the seed-000 sweep,
and the cost of one round at d = 2048 in float32.

(a) compares, side by side in this run, the core's HPC-UCB (Sherman–Morrison, O(d²) a round)
with the same algorithm computed the way seed 000 §7 describes (a Cholesky factorisation of Σ_t
every round, O(d³)), both jitted JAX on the same device and stream.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from safebandit_core import device, families
from safebandit_core.dose import DoseSettings, run_on_stream


class _RefState(NamedTuple):
    gram: jax.Array
    b_r: jax.Array
    b_c: jax.Array
    n: jax.Array


def cholesky_reference(X, xi_r, xi_c, theta, mu, tau, delta, delta_prime, kappa, lam=1.0, S=1.0, L=1.0):
    """HPC-UCB (linear g) with a fresh Cholesky factorisation of Σ_t every round (seed 000 §7)."""
    d = X.shape[1]
    b = kappa * jnp.sqrt(2 * jnp.log(1 / delta))
    a1 = jnp.minimum(1.0, tau / (b + S * L))

    def step(s: _RefState, inp):
        t, x, xr, xc = inp
        chol = jax.scipy.linalg.cho_factor(s.gram, lower=True)
        th = jax.scipy.linalg.cho_solve(chol, s.b_r)
        mh = jax.scipy.linalg.cho_solve(chol, s.b_c)
        w = jnp.sqrt(x @ jax.scipy.linalg.cho_solve(chol, x))
        rad = jnp.sqrt(d * jnp.log((1 + s.n * L**2 / lam) / delta_prime))
        u = x @ th + (kappa * rad + jnp.sqrt(lam) * S) * w
        big_b = x @ mh + (kappa * rad + jnp.sqrt(lam) * S) * w + b
        z = jnp.where(big_b <= 0, 1.0, jnp.minimum(1.0, tau / jnp.where(big_b > 0, big_b, 1.0)))
        a = jnp.where(t == 0, a1, jnp.where(u >= 0, z, 0.0))
        r, c = a * (x @ theta + xr), a * (x @ mu + xc)
        keep = (a > 0).astype(x.dtype)
        safe = jnp.where(a > 0, a, 1.0)
        new = _RefState(s.gram + keep * jnp.outer(x, x), s.b_r + keep * r / safe * x, s.b_c + keep * c / safe * x,
                        s.n + keep)
        return new, a

    init = _RefState(lam * jnp.eye(d, dtype=X.dtype), jnp.zeros(d, X.dtype), jnp.zeros(d, X.dtype),
                     jnp.zeros((), X.dtype))
    return jax.lax.scan(step, init, (jnp.arange(X.shape[0]), X, xi_r, xi_c))[1]


_reference = jax.jit(cholesky_reference)


def _stream(d: int, T: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    th, mu = rng.normal(size=d), rng.normal(size=d)
    return (jnp.asarray(X), jnp.asarray(0.3 * rng.normal(size=T)), jnp.asarray(0.3 * rng.normal(size=T)),
            jnp.asarray(th / np.linalg.norm(th)), jnp.asarray(mu / np.linalg.norm(mu)))


def _timed(fn, repeat: int = 3) -> float:
    fn()  # compile and warm
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _core_vs_reference(d: int, T: int, refresh_every: int | None = None) -> dict:
    X, xr, xc, th, mu = _stream(d, T)
    refresh = DoseSettings.refresh_every if refresh_every is None else refresh_every
    kw = dict(tau=0.5, delta=0.05, delta_prime=0.05, kappa_r=0.3, kappa_c=0.3, S=1.0, L=1.0, refresh_every=refresh)
    t_core = _timed(lambda: run_on_stream("hpucb", X, xr, xc, th, mu, **kw), repeat=2)
    t_ref = _timed(lambda: jax.block_until_ready(_reference(X, xr, xc, th, mu, 0.5, 0.05, 0.05, 0.3)), repeat=2)
    a_core = run_on_stream("hpucb", X, xr, xc, th, mu, **kw)["alpha"]
    a_ref = np.asarray(_reference(X, xr, xc, th, mu, 0.5, 0.05, 0.05, 0.3))
    agree = float(np.mean(np.abs(a_core - a_ref) < 1e-8))
    shown = "none in the run" if refresh >= T else f"every {refresh} rounds"
    return {"benchmark": "core vs per-round Cholesky",
            "setting": f"d={d}, T={T}, float64, 1 run, exact refresh {shown}",
            "seconds": t_core, "reference_seconds": t_ref, "ratio": t_ref / t_core,
            "note": f"target >= 20x at d=256; doses agree on {agree:.1%} of rounds"}


def _sweep(quick: bool) -> dict:
    T = 1000 if quick else 10_000
    start = time.perf_counter()
    for d in (5, 10):
        base = DoseSettings(d=d, T=T, seeds=5, kappa_r=0.3, kappa_c=0.3, precision="float64")
        families.run(base, "cpu", cells=[{"tau": tau} for tau in (0.1, 0.2, 0.5, 1.0)])
    seconds = time.perf_counter() - start
    return {"benchmark": "Safety by Design synthetic sweep (cold, incl. compile)",
            "setting": f"d in {{5,10}} x tau in {{0.1,0.2,0.5,1}} x 3 policies x 5 seeds x T={T}, CPU float64",
            "seconds": seconds, "note": "target < 10 s on a 2-core CPU"}


def _big_d(quick: bool, dev: str) -> dict:
    d, T = (512, 200) if quick else (2048, 400)
    s = DoseSettings(policies=("hpucb",), d=d, T=T, seeds=1, precision="float32")
    families.run(s, dev)  # compile
    start = time.perf_counter()
    families.run(s, dev)
    seconds = time.perf_counter() - start
    return {"benchmark": "time per round, large d", "setting": f"d={d}, float32, 1 run, {dev}",
            "seconds": seconds, "per_round_ms": 1000 * seconds / T, "note": f"{T} rounds"}


def bench(quick: bool) -> list[dict]:
    """Rows for ``make bench``."""
    d_big, t_big = (64, 300) if quick else (256, 2000)
    rows = [_core_vs_reference(10, 500 if quick else 4000), _core_vs_reference(d_big, t_big),
            _core_vs_reference(d_big, t_big, refresh_every=t_big)]
    rows.append(_sweep(quick))
    devices = ["cpu"] + (["gpu"] if device.has_gpu() else [])
    rows.extend(_big_d(quick, dev) for dev in devices)
    return rows
