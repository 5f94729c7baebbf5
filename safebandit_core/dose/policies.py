"""HPC-UCB (Safety by Design, Algorithm 1) and its two baselines, as pure init/act/update functions.

All three share one reading (ALGORITHMS.md §1.1–1.3); they differ only in two traced numbers:

- HPC-UCB: ``b_scale = 1`` (the realized-cost margin b_δ = κ_c·sqrt(2 log(1/δ)) is kept), ``eps = 0``;
- On-Expectation (§1.2): ``b_scale = 0`` (b_δ replaced by 0 everywhere in the policy), ``eps = 0``;
- ε-Greedy (§1.3): ``b_scale = 1`` and ``eps > 0`` (play the round-1 safe dose with probability ε).

Round t ≥ 2 (Appendix C closed forms):
  θ̂ = Σ⁻¹ Σ_s (R_s/g(α_s)) X_s,  μ̂ = Σ⁻¹ Σ_s (C_s/g(α_s)) X_s,  w = ‖X_t‖_{Σ⁻¹},
  rad = sqrt(d log((1 + N L²/λ)/δ′))  (d the true dimension, traced),  β^r = κ_r rad + √λ S,  β^c = κ_c rad + √λ S,
  u = ⟨X_t, θ̂⟩ + β^r w,  v = ⟨X_t, μ̂⟩ + β^c w,  B = v + b,
  ẑ = 1 if B ≤ 0 else min(1, τ/B),  α̂max = g⁻¹(ẑ),  α = α̂max if u ≥ 0 else 0.
Round 1: z₁ = min(1, τ/(b + S L)), α₁ = g⁻¹(z₁).
The policy is a :class:`~safebandit_core.model.Policy` (init, act, update over :class:`HPState`).
Σ⁻¹ is kept by Sherman–Morrison rank-one updates; ``refresh`` recomputes it exactly from Σ
(the runner calls it every ``refresh_every`` rounds, see :mod:`safebandit_core.runner`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from .. import linalg
from ..model import Policy
from .curves import Curve


class DoseParams(NamedTuple):
    """Numeric settings of one run (all traced scalars)."""

    tau: jax.Array  # safety threshold τ > 0
    delta: jax.Array  # per-round violation probability δ ∈ (0,1)
    delta_prime: jax.Array  # estimation confidence δ′ ∈ (0,1)
    kappa_r: jax.Array  # reward noise level (sub-Gaussian / Gaussian std)
    kappa_c: jax.Array  # cost noise level
    S: jax.Array  # bound on ‖θ*‖, ‖μ*‖
    L: jax.Array  # bound on ‖X_t‖
    lam: jax.Array  # ridge λ
    eps: jax.Array  # ε of ε-Greedy (0 for the others)
    b_scale: jax.Array  # 1: realized-cost margin kept (HPC-UCB), 0: On-Expectation
    g1: jax.Array  # curve parameter p (power) or EC50 (emax)
    g2: jax.Array  # curve parameter n (emax)
    d: jax.Array  # the true context dimension (the compiled width may be larger: zero coordinates)


class HPState(NamedTuple):
    """Policy state: Σ and its inverse, the transformed-target sums, informative count.

    The last round's rank-one update is kept pending (``pend_x``, ``pend_ax``) and applied at the
    start of the next round: as loop-carried vectors they are materialised, so the d×d update
    reads no scalar work of the round that decided the dose (XLA would otherwise fuse that work
    into every matrix entry), and the update and the next Σ⁻¹x take two passes over Σ⁻¹ in all.
    """

    a_inv: jax.Array  # (d, d) Σ⁻¹ before the pending update
    pend_x: jax.Array  # (d,) last round's context if informative, else 0
    pend_ax: jax.Array  # (d,) Σ⁻¹ pend_x (with the Σ⁻¹ above)
    gram: jax.Array  # (d, d) Σ = λI + Σ X Xᵀ over the informative rounds up to the last refresh
    b_r: jax.Array  # (d,) Σ (R_s/g(α_s)) X_s
    b_c: jax.Array  # (d,) Σ (C_s/g(α_s)) X_s
    n_inf: jax.Array  # () int, informative rounds so far, N(t)


NAMES = ("hpucb", "on_expectation", "eps_greedy")
LABELS = {"hpucb": "HPC-UCB", "on_expectation": "On-Expectation", "eps_greedy": "ε-Greedy"}


def policy_numbers(name: str, eps: float) -> tuple[float, float]:
    """(b_scale, eps) of a named policy."""
    if name == "hpucb":
        return 1.0, 0.0
    if name == "on_expectation":
        return 0.0, 0.0
    if name == "eps_greedy":
        return 1.0, float(eps)
    raise ValueError(f"policy must be one of {', '.join(NAMES)} (got {name!r})")


def margin(p: DoseParams) -> jax.Array:
    """b_δ = κ_c·sqrt(2 log(1/δ)): the realized-cost margin of Lemma 1."""
    return p.kappa_c * jnp.sqrt(2.0 * jnp.log(1.0 / p.delta))


def upper_dose(curve: Curve, p: DoseParams, big_b: jax.Array) -> jax.Array:
    """g⁻¹(ẑ) with ẑ = 1 if B ≤ 0 else min(1, τ/B) (the safe set's upper end)."""
    safe_b = jnp.where(big_b > 0, big_b, 1.0)
    z = jnp.where(big_b <= 0, 1.0, jnp.minimum(1.0, p.tau / safe_b))
    return curve.g_inv(z, p.g1, p.g2)


def first_dose(curve: Curve, p: DoseParams) -> jax.Array:
    """α₁ = g⁻¹(min(1, τ/(b + S L))) with b = b_scale·b_δ."""
    b = p.b_scale * margin(p)
    return curve.g_inv(jnp.minimum(1.0, p.tau / (b + p.S * p.L)), p.g1, p.g2)


def make_policy(curve: Curve, width: int) -> Policy:
    """HPC-UCB / On-Expectation / ε-Greedy for a dose curve and compiled width (which policy: the traced numbers).

    ``width`` ≥ the true d (``p.d``, traced): contexts padded with zeros leave Σ⁻¹'s block of the true
    coordinates, every estimate and ‖x‖_{Σ⁻¹} unchanged, and the radius reads the true d, so a width
    serves every d up to it without a recompile (:mod:`safebandit_core.shapes`).

    ``obs`` is the round's :class:`~safebandit_core.dose.env.Obs` (the policy reads the context
    ``x``, its own coin ``u_eps`` and the round index ``t``), the action is the dose α and the
    feedback is (R_t, C_t). ``update`` rebuilds Σ_t⁻¹x exactly as ``act`` did (XLA computes it once).
    Cost per round: two passes over the d×d inverse (the pending rank-one update and Σ⁻¹x).
    """

    def init(p: DoseParams) -> HPState:
        dtype = p.lam.dtype
        eye = jnp.eye(width, dtype=dtype)
        zeros = jnp.zeros((width,), dtype)
        return HPState(a_inv=eye / p.lam, pend_x=zeros, pend_ax=zeros, gram=eye * p.lam, b_r=zeros, b_c=zeros,
                       n_inf=jnp.zeros((), jnp.int32))

    def current(s: HPState, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        """(Σ_t⁻¹, Σ_t⁻¹x): the pending update applied, then the round's one matrix-vector product."""
        a_inv = linalg.sherman_morrison(s.a_inv, s.pend_x, s.pend_ax)
        return a_inv, a_inv @ x

    def act(p: DoseParams, s: HPState, obs: Any) -> tuple[jax.Array, dict[str, jax.Array]]:
        x = obs.x
        _, ax = current(s, x)
        w = jnp.sqrt(jnp.maximum(x @ ax, 0.0))  # ‖x‖_{Σ⁻¹}
        rad = jnp.sqrt(p.d * jnp.log((1.0 + s.n_inf * p.L**2 / p.lam) / p.delta_prime))
        beta_r = p.kappa_r * rad + jnp.sqrt(p.lam) * p.S
        beta_c = p.kappa_c * rad + jnp.sqrt(p.lam) * p.S
        u = ax @ s.b_r + beta_r * w  # ⟨x, θ̂⟩ + β^r w, with ⟨x, Σ⁻¹b⟩ = ⟨Σ⁻¹x, b⟩
        v = ax @ s.b_c + beta_c * w
        est = upper_dose(curve, p, v + p.b_scale * margin(p))
        alpha1 = first_dose(curve, p)
        greedy = jnp.where(u >= 0, est, 0.0)
        explore = obs.u_eps < p.eps
        alpha = jnp.where(obs.t == 0, alpha1, jnp.where(explore, alpha1, greedy))
        est = jnp.where(obs.t == 0, alpha1, est)
        return alpha.astype(x.dtype), {"est_upper": est.astype(x.dtype)}

    def update(p: DoseParams, s: HPState, obs: Any, alpha: jax.Array, feedback: tuple[jax.Array, jax.Array]
               ) -> HPState:
        x = obs.x
        r, c = feedback
        a_inv, ax = current(s, x)
        gz = curve.g(alpha, p.g1, p.g2)
        informative = gz > 0
        keep = informative.astype(x.dtype)
        safe_gz = jnp.where(informative, gz, 1.0)
        return HPState(
            a_inv=a_inv,
            pend_x=x * keep,  # a zero vector makes the pending update an exact no-op
            pend_ax=ax * keep,
            gram=s.gram,
            b_r=s.b_r + (keep * r / safe_gz) * x,
            b_c=s.b_c + (keep * c / safe_gz) * x,
            n_inf=s.n_inf + informative.astype(jnp.int32),
        )

    def report(p: DoseParams, s: HPState, alpha: jax.Array, info: dict[str, jax.Array]) -> dict[str, jax.Array]:
        return {"est_upper": info["est_upper"]}

    def trace(p: DoseParams, obs: Any, alpha: jax.Array) -> jax.Array:
        """x on informative rounds (g(α) > 0), else 0: the rows that enter Σ at the next refresh."""
        return obs.x * (curve.g(alpha, p.g1, p.g2) > 0).astype(obs.x.dtype)

    def refresh(p: DoseParams, s: HPState, xs: jax.Array) -> HPState:
        """Bring Σ up to date with a block's masked contexts ``xs`` (B×d, zero rows for
        uninformative rounds) in one product, then invert it exactly."""
        gram = s.gram + xs.T @ xs
        zeros = jnp.zeros_like(s.pend_x)
        return s._replace(gram=gram, a_inv=linalg.exact_inverse(gram), pend_x=zeros, pend_ax=zeros)

    return Policy(init=init, act=act, update=update, report=report, trace=trace, refresh=refresh)
