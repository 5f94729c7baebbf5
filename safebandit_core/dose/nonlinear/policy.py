"""Non-linear HPC-UCB (Safety by Design, Algorithm 2; ALGORITHMS.md §1.4) over finite classes, as a Policy.

The policy never sees a context: each round's observation carries every class member's value at
that round's context (``fr``: (|F^r|,), ``fc``: (|F^c|,)), so the class is data and one compiled
function serves any class of the same size. On the informative rounds D_t (g(α_s) > 0), with
transformed targets y^r_s = R_s/g(α_s), y^c_s = C_s/g(α_s):

  f̂ = argmin_{f∈F} Σ_{s∈D_t} (f(X_s) − y_s)²            (ties to the lowest index)
  C_t = {f ∈ F : Σ_{s∈D_t} (f(X_s) − f̂(X_s))² ≤ ρ},     ρ^r = 8κ_r² log(|F^r|/δ′), ρ^c = 8κ_c² log(|F^c|/δ′)
  u_t = max_{θ∈C^r_t} θ(X_t),  v_t = max_{μ∈C^c_t} μ(X_t),  B_t = v_t + b,
  ẑ_t = 1 if B_t ≤ 0 else min(1, τ/B_t),  α_t = g⁻¹(ẑ_t) if u_t ≥ 0 else 0.
Round 1: z₁ = min(1, τ/(b + 1)). With D_t empty every member is in the set (all distances are 0).

b = b_scale·b_δ, b_δ = κ_c sqrt(2 log(1/δ)): HPC-UCB has ``b_scale = 1``, On-Expectation
``b_scale = 0``; ε-Greedy plays α₁ at t ≥ 2 when its coin ``u_eps < eps``. The three differ only
in these traced numbers, so they run as one lane.

State, per class of size n (:class:`NLState`): the squared loss of every member, L_i =
Σ_{s∈D} (f_i(X_s) − y_s)², and the pairwise squared distances D_ij = Σ_{s∈D} (f_i(X_s) − f_j(X_s))²
(the Gram form G_ii − 2G_ij + G_jj of the same numbers, kept directly: no cancellation). The
fit can move to any member, so the distances to every possible fit are kept.
Cost per round: O(|F^r|² + |F^c|²) for the distance update (memory the same, per run), O(|F|)
for the losses, the fit, the set and the two maxima.

The action is an :class:`NLAction`: the dose and the two confidence sets as member masks, so the
environment (which alone knows the true members) can say whether they lie in the sets.

The compiled class widths may exceed the true sizes |F^r|, |F^c| (``n_r``, ``n_c``: traced): the
members from the true size on are padding, never the fit (their loss reads +∞ in the argmin) and
never in the set, and the radius reads the true size, so every fit, set, maximum and dose is the
unpadded run's and one compiled width serves every size up to it (:mod:`safebandit_core.shapes`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from ...model import Policy
from ...shapes import within
from ..curves import Curve
from ..policies import LABELS, NAMES, policy_numbers

__all__ = ["LABELS", "NAMES", "NLAction", "NLParams", "NLState", "make_policy", "policy_numbers"]


class NLParams(NamedTuple):
    """Numeric settings of one policy row (all traced scalars)."""

    tau: jax.Array  # safety threshold τ > 0
    delta: jax.Array  # per-round violation probability δ ∈ (0,1)
    delta_prime: jax.Array  # estimation confidence δ′ ∈ (0,1)
    kappa_r: jax.Array  # reward noise level κ_r
    kappa_c: jax.Array  # cost noise level κ_c
    eps: jax.Array  # ε of ε-Greedy (0 for the others)
    b_scale: jax.Array  # 1: realized-cost margin kept (HPC-UCB), 0: On-Expectation
    g1: jax.Array  # curve parameter p (power) or EC50 (emax)
    g2: jax.Array  # curve parameter n (emax)
    n_r: jax.Array  # the true size |F^r| (members from it on are padding)
    n_c: jax.Array  # the true size |F^c|


class NLState(NamedTuple):
    """Least-squares sums over the informative rounds so far."""

    loss_r: jax.Array  # (n_r,) Σ (f_i(X_s) − R_s/g(α_s))²
    loss_c: jax.Array  # (n_c,) Σ (f_i(X_s) − C_s/g(α_s))²
    dist_r: jax.Array  # (n_r, n_r) Σ (f_i(X_s) − f_j(X_s))²
    dist_c: jax.Array  # (n_c, n_c) Σ (f_i(X_s) − f_j(X_s))²


class NLAction(NamedTuple):
    """The dose and the confidence sets it was chosen with."""

    alpha: jax.Array  # () dose α_t
    in_r: jax.Array  # (n_r,) bool, member of C^r_t
    in_c: jax.Array  # (n_c,) bool, member of C^c_t


def margin(p: NLParams) -> jax.Array:
    """b_δ = κ_c·sqrt(2 log(1/δ))."""
    return p.kappa_c * jnp.sqrt(2.0 * jnp.log(1.0 / p.delta))


def radius(kappa: jax.Array, n: Any, delta_prime: jax.Array) -> jax.Array:
    """ρ = 8κ² log(|F|/δ′) of a finite class (Safety by Design eqs. 20–21)."""
    return 8.0 * kappa**2 * jnp.log(n / delta_prime)


def upper_dose(curve: Curve, p: NLParams, big_b: jax.Array) -> jax.Array:
    """g⁻¹(ẑ) with ẑ = 1 if B ≤ 0 else min(1, τ/B)."""
    safe_b = jnp.where(big_b > 0, big_b, 1.0)
    z = jnp.where(big_b <= 0, 1.0, jnp.minimum(1.0, p.tau / safe_b))
    return curve.g_inv(z, p.g1, p.g2)


def first_dose(curve: Curve, p: NLParams) -> jax.Array:
    """α₁ = g⁻¹(min(1, τ/(b + 1))) with b = b_scale·b_δ (Algorithm 2, line 2)."""
    return curve.g_inv(jnp.minimum(1.0, p.tau / (p.b_scale * margin(p) + 1.0)), p.g1, p.g2)


def confidence_set(loss: jax.Array, dist: jax.Array, values: jax.Array, rho: jax.Array, n: jax.Array
                   ) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(fit index, member mask of the set, max over the set of ``values``) of one class whose first
    ``n`` members are real (the rest padding: never the fit, never in the set)."""
    real = within(n, loss.shape[0])
    fit = jnp.argmin(jnp.where(real, loss, jnp.inf))  # first minimum: ties go to the lowest index
    inside = (dist[fit] <= rho) & real
    return fit, inside, jnp.max(jnp.where(inside, values, -jnp.inf))


def make_policy(curve: Curve, n_r: int, n_c: int) -> Policy:
    """Non-linear HPC-UCB / On-Expectation / ε-Greedy for class widths ``n_r``, ``n_c`` and a dose curve.

    ``obs`` needs ``fr`` (n_r,), ``fc`` (n_c,), ``u_eps`` and ``t`` (0-based); the feedback is (R_t, C_t).
    The true sizes are the params' ``n_r``, ``n_c`` (at most the widths; the members after them are padding).
    """

    def init(p: NLParams) -> NLState:
        dtype = p.tau.dtype
        return NLState(jnp.zeros((n_r,), dtype), jnp.zeros((n_c,), dtype), jnp.zeros((n_r, n_r), dtype),
                       jnp.zeros((n_c, n_c), dtype))

    def act(p: NLParams, s: NLState, obs: Any) -> tuple[NLAction, dict[str, jax.Array]]:
        fit_r, in_r, u = confidence_set(s.loss_r, s.dist_r, obs.fr, radius(p.kappa_r, p.n_r, p.delta_prime), p.n_r)
        fit_c, in_c, v = confidence_set(s.loss_c, s.dist_c, obs.fc, radius(p.kappa_c, p.n_c, p.delta_prime), p.n_c)
        est = upper_dose(curve, p, v + p.b_scale * margin(p))
        alpha1 = first_dose(curve, p)
        greedy = jnp.where(u >= 0, est, 0.0)
        first = obs.t == 0
        alpha = jnp.where(first, alpha1, jnp.where(obs.u_eps < p.eps, alpha1, greedy))
        dtype = obs.fr.dtype
        info = {"est_upper": jnp.where(first, alpha1, est).astype(dtype), "set_r": in_r.sum(dtype=jnp.int32),
                "set_c": in_c.sum(dtype=jnp.int32), "fit_r": fit_r.astype(jnp.int32),
                "fit_c": fit_c.astype(jnp.int32)}
        return NLAction(alpha.astype(dtype), in_r, in_c), info

    def update(p: NLParams, s: NLState, obs: Any, action: NLAction, feedback: tuple[jax.Array, jax.Array]
               ) -> NLState:
        r, c = feedback
        gz = curve.g(action.alpha, p.g1, p.g2)
        informative = gz > 0
        keep = informative.astype(obs.fr.dtype)  # 0 adds exact zeros: the sums stay as they were
        safe_gz = jnp.where(informative, gz, 1.0)

        def add(loss: jax.Array, dist: jax.Array, f: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
            return loss + keep * (f - y) ** 2, dist + keep * (f[:, None] - f[None, :]) ** 2

        loss_r, dist_r = add(s.loss_r, s.dist_r, obs.fr, r / safe_gz)
        loss_c, dist_c = add(s.loss_c, s.dist_c, obs.fc, c / safe_gz)
        return NLState(loss_r, loss_c, dist_r, dist_c)

    def report(p: NLParams, s: NLState, action: NLAction, info: dict[str, jax.Array]) -> dict[str, jax.Array]:
        return dict(info)

    return Policy(init=init, act=act, update=update, report=report)
