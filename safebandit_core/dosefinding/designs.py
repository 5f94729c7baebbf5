"""3+3, BOIN and CRM as pure JAX functions of one trial, vectorised over trials (CLINICAL.md §1–§3).

Every trial draws its patients' tolerances ``u_i ~ U(0, 1)`` once, in enrolment order; patient i given dose
j has a DLT iff ``u_i < p_j``, so the three designs of a trial treat the same patients (common random
numbers). Each design is a ``lax.scan`` over cohorts with fixed shapes, written for one trial and ``vmap``-ed
over batches of trials; :func:`simulate_all` runs all three in one jitted call, in float64.

Doses are 1-based in what a design returns (``mtd`` 0 = none; ``doses[i]`` 0 = patient i not enrolled);
inside the scans they are 0-based indices.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .. import device as _device  # noqa: F401  (float64 on before any array is built)
from . import rules

DESIGNS = ("3+3", "boin", "crm")
LABELS = {"3+3": "3+3", "boin": "BOIN", "crm": "CRM"}
TIE_STEP = 1e-10
"""BOIN's tie-breaking slope: the k-th dose of the isotonic fit is compared as ``q̃_k + k·1e-10``."""


class Trial(NamedTuple):
    """One design's result for one trial (a leading trial axis once vmapped)."""

    mtd: jax.Array  # () int: selected dose 1..K, 0 = none
    n: jax.Array  # (K,) int: patients per dose
    y: jax.Array  # (K,) int: DLTs per dose
    doses: jax.Array  # (U,) int: dose of each patient in enrolment order, 0 = not enrolled


class BoinTables(NamedTuple):
    """BOIN's boundaries as arrays indexed by n = 0..N (see :class:`.rules.BoinBoundaries`)."""

    escalate: jax.Array  # (N+1,) int
    deescalate: jax.Array  # (N+1,) int
    eliminate: jax.Array  # (N+1,) int
    select_over: jax.Array  # (N+1, N+1) bool: [n, y] over-toxic in the MTD selection


class CrmTables(NamedTuple):
    """The CRM's fixed arrays on the grid of ``a`` (G = 2001 points, K doses)."""

    grid: jax.Array  # (G,) a_g
    log_prior: jax.Array  # (G,) log t_g − a_g²/2.68
    exp_grid: jax.Array  # (G,) e^{a_g}
    log_skeleton: jax.Array  # (K,) log s_j
    log_no_dlt: jax.Array  # (G, K) log(−expm1(e^{a_g} log s_j))
    p_grid: jax.Array  # (G, K) s_j^{e^{a_g}}
    below_a_star: jax.Array  # (G,) a_g < a* = log(log φ / log s_1)
    prior: jax.Array  # (G,) t_g e^{−a_g²/2.68}, scaled to a maximum of 1
    cohort_likelihood: jax.Array  # (K, c+1, G) p_j(a_g)^k (1 − p_j(a_g))^{c−k}: a cohort with k DLTs of c at j


def boin_tables(target: float, max_n: int) -> BoinTables:
    """BOIN's count boundaries for ``n ≤ max_n`` as device arrays."""
    b = rules.boin_boundaries(target, max_n)
    sel = rules.boin_select_table(target, max_n)
    return BoinTables(*(jnp.asarray(v) for v in (b.escalate, b.deescalate, b.eliminate, sel)))


def crm_tables(skeleton: np.ndarray, target: float, cohort: int) -> CrmTables:
    """The CRM's grid, prior and per-dose likelihood terms for a skeleton and cohort size (float64)."""
    a, log_prior = rules.crm_grid()
    logs = np.log(np.asarray(skeleton, dtype=np.float64))
    ea = np.exp(a)
    z = ea[:, None] * logs[None, :]  # (G, K) log p_j(a_g)
    log_no = np.log(-np.expm1(z))  # (G, K) log(1 − p_j(a_g))
    k = np.arange(cohort + 1)[None, :, None]
    cohort_lik = np.exp(k * z.T[:, None, :] + (cohort - k) * log_no.T[:, None, :])
    a_star = np.log(np.log(target) / logs[0])
    return CrmTables(*(jnp.asarray(v) for v in (a, log_prior, ea, logs, log_no, np.exp(z), a < a_star,
                                                 np.exp(log_prior - log_prior.max()), cohort_lik)))


def _cohort(u: jax.Array, p: jax.Array, start: jax.Array, size: int, dose: jax.Array) -> jax.Array:
    """DLTs of the ``size`` patients enrolled from ``start`` at 0-based ``dose``."""
    return jnp.sum(jax.lax.dynamic_slice(u, (start,), (size,)) < p[dose]).astype(jnp.int32)


def _enrol(doses: jax.Array, start: jax.Array, size: int, dose: jax.Array, active: jax.Array) -> jax.Array:
    """``doses`` with patients ``start .. start+size−1`` given the 1-based ``dose + 1`` when ``active``."""
    filled = jax.lax.dynamic_update_slice(doses, jnp.full((size,), dose + 1, jnp.int32), (start,))
    return jnp.where(active, filled, doses)


def _treat(u: jax.Array, p: jax.Array, k: jax.Array, cohort: int, d: jax.Array, n: jax.Array, y: jax.Array,
           doses: jax.Array, active: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Cohort ``k`` (0-based) of size ``cohort`` treated at ``d`` when ``active``: its DLTs and the patients, DLTs
    and doses per patient counted with it (the step BOIN and the CRM share)."""
    start = k * cohort
    dlt = _cohort(u, p, start, cohort, d)
    n = n.at[d].add(jnp.where(active, cohort, 0))
    y = y.at[d].add(jnp.where(active, dlt, 0))
    return dlt, n, y, _enrol(doses, start, cohort, d, active)


def three_plus_three(u: jax.Array, p: jax.Array) -> Trial:
    """The 3+3 design on one trial's tolerances ``u`` (≥ 6K of them) and truth ``p`` (CLINICAL.md §1).

    3 at dose d: 0/3 up, 1/3 three more at d, ≥2 stop (MTD d−1); 6 at d: ≤1/6 up, ≥2 stop (MTD d−1);
    "up" at the top dose stops with MTD K. Lower doses are never revisited; at most 2K cohorts.
    """
    K = p.shape[0]

    def step(carry, _):
        d, n, y, ptr, done, mtd, doses = carry
        active = ~done
        dlt = _cohort(u, p, ptr, 3, d)
        n = n.at[d].add(jnp.where(active, 3, 0))
        y = y.at[d].add(jnp.where(active, dlt, 0))
        doses = _enrol(doses, ptr, 3, d, active)
        nd, yd = n[d], y[d]
        toxic = yd >= 2
        up = ((nd == 3) & (yd == 0)) | ((nd == 6) & (yd <= 1))
        top = up & (d == K - 1)
        mtd = jnp.where(active & toxic, d, jnp.where(active & top, K, mtd))
        done = done | (active & (toxic | top))
        d = jnp.where(active & up & ~top, d + 1, d)
        return (d, n, y, ptr + jnp.where(active, 3, 0), done, mtd, doses), None

    zeros = jnp.zeros(K, jnp.int32)
    init = (jnp.int32(0), zeros, zeros, jnp.int32(0), jnp.bool_(False), jnp.int32(0), jnp.zeros(u.shape, jnp.int32))
    (_, n, y, _, _, mtd, doses), _ = jax.lax.scan(step, init, None, length=2 * K)
    return Trial(mtd, n, y, doses)


def pava(q: jax.Array, w: jax.Array, mask: jax.Array) -> jax.Array:
    """Weighted isotonic (non-decreasing) fit of ``q`` with weights ``w`` over the entries where ``mask`` holds,
    in order (pool adjacent violators, a stack of blocks); entries outside ``mask`` come back as 0."""
    K = q.shape[0]

    def merge(st):
        sw, swq, cnt, top = st
        sw = sw.at[top - 2].add(sw[top - 1])
        swq = swq.at[top - 2].add(swq[top - 1])
        cnt = cnt.at[top - 2].add(cnt[top - 1])
        return sw, swq, cnt, top - 1

    def violates(st):
        sw, swq, _, top = st
        i, j = jnp.maximum(top - 2, 0), jnp.maximum(top - 1, 0)
        return (top >= 2) & (swq[i] / sw[i] > swq[j] / sw[j])

    def push(i, st):
        sw, swq, cnt, top = st
        pushed = (sw.at[top].set(w[i]), swq.at[top].set(w[i] * q[i]), cnt.at[top].set(1), top + 1)
        pooled = jax.lax.while_loop(violates, merge, pushed)
        return jax.tree.map(lambda a, b: jnp.where(mask[i], a, b), pooled, st)

    ones = jnp.ones(K, q.dtype)
    sw, swq, cnt, top = jax.lax.fori_loop(0, K, push, (ones, jnp.zeros(K, q.dtype), jnp.zeros(K, jnp.int32),
                                                       jnp.int32(0)))
    pos = jnp.cumsum(mask) - 1  # position of each masked entry among the masked ones
    ends = jnp.cumsum(jnp.where(jnp.arange(K) < top, cnt, 0))
    block = jnp.sum(ends[None, :] <= pos[:, None], axis=1)
    return jnp.where(mask, swq[block] / sw[block], 0.0)


def boin_select(n: jax.Array, y: jax.Array, target: jax.Array, over: jax.Array) -> jax.Array:
    """BOIN's MTD (1..K, 0 = none) from the final counts (CLINICAL.md §2, ``select.mtd``): the doses below the
    lowest over-toxic one that were tried, an isotonic fit of their shrunk DLT rates, the one closest to φ with
    ``k·1e-10`` added to the k-th (within a pooled tie: highest below φ, lowest at or above)."""
    K = n.shape[0]
    toxic = over[n, y]
    E = jnp.where(jnp.any(toxic), jnp.argmax(toxic), K)
    idx = jnp.arange(K)
    mask = (idx < E) & (n > 0)
    nf, yf = n.astype(jnp.float64), y.astype(jnp.float64)
    q = (yf + 0.05) / (nf + 0.1)
    v = (yf + 0.05) * (nf - yf + 0.05) / ((nf + 0.1) ** 2 * (nf + 1.1))
    fit = pava(q, 1.0 / v, mask)
    k = jnp.cumsum(mask).astype(jnp.float64)
    score = jnp.where(mask, jnp.abs(fit + k * TIE_STEP - target), jnp.inf)
    return jnp.where(E == 0, 0, jnp.argmin(score) + 1).astype(jnp.int32)


def boin(u: jax.Array, p: jax.Array, target: jax.Array, tables: BoinTables, cohort: int, cohorts: int,
         stop_at: int | None = None) -> Trial:
    """BOIN on one trial (CLINICAL.md §2): after each cohort but the last, eliminate when ``y ≥ x(n)`` (stop
    with no MTD at dose 1), optionally stop when ``n_d ≥ stop_at`` and the next step would stay, then escalate
    when ``y ≤ e(n)`` (unless the next dose is eliminated), de-escalate when ``y ≥ b(n)``, else stay."""
    K = p.shape[0]
    idx = jnp.arange(K)

    def step(carry, k):
        d, n, y, elim, stopped, none, doses = carry
        active = ~stopped
        dlt, n, y, doses = _treat(u, p, k, cohort, d, n, y, doses, active)
        decide = active & (k < cohorts - 1)
        nd, yd = n[d], y[d]
        drop = decide & (yd >= tables.eliminate[nd])
        elim = elim | (drop & (idx >= d))
        none = none | (drop & (d == 0))
        esc = yd <= tables.escalate[nd]
        de = yd >= tables.deescalate[nd]
        blocked = (d == K - 1) | elim[jnp.minimum(d + 1, K - 1)]
        halt = none
        if stop_at is not None:
            stays = (~esc & ~de) | ((d == 0) & de) | (blocked & esc)
            halt = halt | (decide & (nd >= stop_at) & stays)
        move = jnp.where(esc & ~blocked, d + 1, jnp.where(~esc & de & (d > 0), d - 1, d))
        d = jnp.where(decide & ~halt, move, d)
        return (d, n, y, elim, stopped | halt | (active & (k == cohorts - 1)), none, doses), None

    zeros = jnp.zeros(K, jnp.int32)
    init = (jnp.int32(0), zeros, zeros, jnp.zeros(K, bool), jnp.bool_(False), jnp.bool_(False),
            jnp.zeros(u.shape, jnp.int32))
    (_, n, y, _, _, none, doses), _ = jax.lax.scan(step, init, jnp.arange(cohorts))
    mtd = jnp.where(none, 0, boin_select(n, y, target, tables.select_over))
    return Trial(mtd.astype(jnp.int32), n, y, doses)


def crm_posterior(n: jax.Array, y: jax.Array, tables: CrmTables) -> jax.Array:
    """The CRM's normalised posterior weights ``w_g`` on the grid from the counts (CLINICAL.md §3, term by term).

    :func:`crm` keeps the same weights as a product updated once per cohort (``w ∝ prior · Π cohort
    likelihoods``, scaled to a maximum of 1 after each): equal up to rounding, with no exponential per trial.
    """
    logw = (tables.log_prior + tables.exp_grid * jnp.dot(y.astype(jnp.float64), tables.log_skeleton)
            + tables.log_no_dlt @ (n - y).astype(jnp.float64))
    w = jnp.exp(logw - jnp.max(logw))
    return w / jnp.sum(w)


def crm(u: jax.Array, p: jax.Array, target: jax.Array, tables: CrmTables, cohort: int, cohorts: int,
        start_dose: int = 1, overdose_stop: bool = False, posterior_mean: bool = False) -> Trial:
    """The CRM on one trial (CLINICAL.md §3): after each cohort the posterior of ``a``, the plug-in estimate
    ``s_j^{exp(â)}`` (or the posterior mean of ``p_j`` with ``posterior_mean``), the dose closest to φ; the
    next dose is at most one above the current one, and not above it after a cohort with ``y/c ≥ φ``. The MTD
    is the last recommendation (unrestricted); ``overdose_stop`` ends the trial with none when
    ``P(p_1 > φ | data) > 0.9``."""
    K = p.shape[0]
    skeleton = jnp.exp(tables.log_skeleton)

    def step(carry, k):
        d, n, y, stopped, none, rec, doses, e = carry
        active = ~stopped
        dlt, n, y, doses = _treat(u, p, k, cohort, d, n, y, doses, active)
        e = e * tables.cohort_likelihood[d, dlt]
        e = e / jnp.max(e)
        w = e / jnp.sum(e)
        if posterior_mean:
            p_hat = w @ tables.p_grid
        else:
            p_hat = skeleton ** jnp.exp(jnp.dot(w, tables.grid))
        new_rec = jnp.argmin(jnp.abs(p_hat - target)).astype(jnp.int32)
        nxt = jnp.minimum(new_rec, d + 1)
        nxt = jnp.where(dlt / cohort >= target, jnp.minimum(nxt, d), nxt)
        halt = jnp.bool_(False)
        if overdose_stop:
            halt = active & (jnp.dot(w, tables.below_a_star) > 0.9)
        rec = jnp.where(active, new_rec, rec)
        d = jnp.where(active & ~halt, nxt, d)
        e = jnp.where(active, e, carry[-1])
        return (d, n, y, stopped | halt, none | halt, rec, doses, e), None

    zeros = jnp.zeros(K, jnp.int32)
    init = (jnp.int32(start_dose - 1), zeros, zeros, jnp.bool_(False), jnp.bool_(False), jnp.int32(0),
            jnp.zeros(u.shape, jnp.int32), tables.prior)
    (_, n, y, _, none, rec, doses, _), _ = jax.lax.scan(step, init, jnp.arange(cohorts))
    return Trial(jnp.where(none, 0, rec + 1).astype(jnp.int32), n, y, doses)


class Options(NamedTuple):
    """What fixes the compiled code: cohort size and count, which designs, and the designs' switches."""

    cohort: int = 3
    cohorts: int = 10
    designs: tuple[str, ...] = DESIGNS
    boin_stop_at: int | None = None
    crm_start: int = 1
    crm_overdose_stop: bool = False
    crm_posterior_mean: bool = False


BATCH = 128
"""Trials vectorised together: the CRM's (trials, 2001) posteriors of a batch stay in the CPU's cache."""


def patients_needed(K: int, cohort: int, cohorts: int) -> int:
    """Tolerances drawn per trial: ``max(N, 6K)`` (3+3 may treat up to 6K, the others N = c·M)."""
    return max(cohort * cohorts, 6 * K)


@partial(jax.jit, static_argnames=("options",))
def simulate_all(u: jax.Array, p: jax.Array, target: jax.Array, boin_t: BoinTables, crm_t: CrmTables,
                 options: Options) -> dict[str, Trial]:
    """Every chosen design on every trial's tolerances ``u`` (R, U) for the truth ``p`` (K,): name -> a
    :class:`Trial` with a leading axis of R (each design ``vmap``-ed over batches of :data:`BATCH` trials)."""
    o = options
    run = {"3+3": lambda row: three_plus_three(row, p),
           "boin": lambda row: boin(row, p, target, boin_t, o.cohort, o.cohorts, o.boin_stop_at),
           "crm": lambda row: crm(row, p, target, crm_t, o.cohort, o.cohorts, o.crm_start, o.crm_overdose_stop,
                                  o.crm_posterior_mean)}
    return {name: jax.lax.map(run[name], u, batch_size=BATCH) for name in o.designs}


def tolerances(seed: int, trials: int, per_trial: int) -> jax.Array:
    """The trials' tolerances ``u`` (trials, per_trial), U(0, 1) in float64, from one seed."""
    return jax.random.uniform(jax.random.PRNGKey(seed), (trials, per_trial), dtype=jnp.float64)
