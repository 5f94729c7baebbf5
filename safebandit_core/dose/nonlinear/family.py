"""Non-linear HPC-UCB as a :class:`~safebandit_core.model.Family`: settings → one composed scan → a Run.

HPC-UCB, On-Expectation and ε-Greedy are ONE lane (the same policy vmapped over its traced
numbers), so they see the same draws in one scan. :func:`run_on_table` runs one policy on an
explicit table of member values and noises through the very same policy; :func:`draw_table`
gives the table seed i of a run sees, and :func:`class_curves` the candidate cost functions
along a context direction with their confidence-set flags at a round (for the page).

A run is compiled at the bucketed widths (:func:`widths`: ``shapes.bucket`` of |F|, d and the
hidden width) with the true sizes traced (:mod:`.env`, :mod:`.policy`), so moving |F|, d or the
hidden width inside a bucket compiles nothing; the public functions still take and give arrays
at the true sizes.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ... import device as dev
from ... import model as M
from ... import runner, shapes
from ...results import interval95
from ...settings import SettingsError, check_int_range
from .. import curves
from ..env import draw_round
from ..family import AXES as DOSE_AXES
from ..family import PANELS as DOSE_PANELS
from ..settings import check_numbers
from . import classes
from .env import NLEnvParams, Table, class_draw, make_env, table_draw
from .fields import FIELDS
from .policy import LABELS, NAMES, NLParams, make_policy, policy_numbers, radius
from .settings import GRID_FIELDS, OUTPUT_KEYS, NonlinearSettings, memory_bytes, warnings_for

SCRUB: tuple[M.Scrub, ...] = (
    M.Scrub("tau", "τ", "cost limit", (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0), DOSE_PANELS),
    M.Scrub("delta", "δ", "allowed violation probability",
            (0.001, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5), DOSE_PANELS),
)
"""The dose model's knobs over 11 values each, not 21: a cell of this model scores every function of its class
each round (|F| = 64 on the page), so the grid computed after every change of T or of the class costs half as
long; both axes keep the page's defaults (τ = 0.5, δ = 0.05) and the same ranges.
"""

TABLE = "table"
CLASS_TAG = 0x4E4C  # folded into PRNGKey(base_seed) for the classes: never a seed's own key


@functools.cache
def make_model(source: str, n_r: int, n_c: int, d: int, hidden: int, g: str, precision: str, n_policies: int
               ) -> runner.Model:
    """The compiled-once model for one set of widths: ``source`` is a class kind (members drawn per
    round's context) or ``"table"`` (an explicit :class:`~.env.Table`); ``d``, ``hidden`` only shape a
    class. The widths may exceed the true sizes, which the params carry (see :func:`widths`)."""
    curve = curves.get(g)
    dtype = dev.dtype_of(precision)
    draw = table_draw if source == TABLE else class_draw(source, d, dtype)
    return M.compose(make_env(curve, draw), [M.Lane(make_policy(curve, n_r, n_c), n_policies)],
                     name=f"nonlinear-{source}-{n_r}x{n_c}-d{d}-h{hidden}-{g}-{precision}")


def widths(s: NonlinearSettings) -> tuple[int, int, int]:
    """The compiled (|F|, d, hidden) of a run: each true size's ``shapes.bucket``."""
    return shapes.bucket(s.size), shapes.bucket(s.d), shapes.bucket(s.hidden)


def _model_of(s: NonlinearSettings, precision: str, n_policies: int) -> runner.Model:
    n, d, hidden = widths(s)
    return make_model(s.function_class, n, n, d, hidden, s.g, precision, n_policies)


def draw_classes(s: NonlinearSettings) -> tuple[Any, Any, int, int]:
    """(F^r members, F^c members, r_star, c_star), drawn from PRNGKey(base_seed) (float64 numpy)."""
    k_r, k_c, k_rs, k_cs = jax.random.split(jax.random.fold_in(jax.random.PRNGKey(s.base_seed), CLASS_TAG), 4)
    members_r = classes.draw(s.function_class, k_r, s.size, s.d, s.hidden)
    members_c = classes.draw(s.function_class, k_c, s.size, s.d, s.hidden)
    r_star = int(jax.random.randint(k_rs, (), 0, s.size))
    c_star = int(jax.random.randint(k_cs, (), 0, s.size))
    return members_r, members_c, r_star, c_star


def _curve_numbers(s: Any) -> tuple[float, float]:
    return curves.params_of(s.g, s.g_power, s.g_ec50, s.g_hill)


def env_params(s: NonlinearSettings, dtype: Any) -> NLEnvParams:
    """The environment's numbers, members (zero-padded to :func:`widths`) and true indices of a run."""
    g1, g2 = _curve_numbers(s)
    members_r, members_c, r_star, c_star = draw_classes(s)
    pad = lambda m: classes.cast(classes.pad(s.function_class, m, *widths(s)), dtype)
    cast = lambda v: jnp.asarray(v, dtype)
    return NLEnvParams(cast(s.tau), cast(s.delta), cast(s.kappa_r), cast(s.kappa_c), cast(g1), cast(g2), cast(s.d),
                       jnp.asarray(r_star, jnp.int32), jnp.asarray(c_star, jnp.int32), pad(members_r), pad(members_c))


def policy_params(s: Any, dtype: Any, policies: tuple[str, ...] | None = None, sizes: tuple[int, int] | None = None
                  ) -> NLParams:
    """The policies' traced numbers with a leading axis over ``policies`` (default: the settings'),
    for true class sizes ``sizes`` = (|F^r|, |F^c|) (default: the settings' size twice)."""
    g1, g2 = _curve_numbers(s)
    n_r, n_c = (s.size, s.size) if sizes is None else sizes
    rows = []
    for name in policies or s.policies:
        b_scale, eps = policy_numbers(name, s.eps)
        rows.append(NLParams(s.tau, s.delta, s.delta_prime, s.kappa_r, s.kappa_c, eps, b_scale, g1, g2, n_r, n_c))
    return jax.tree.map(lambda *xs: jnp.asarray(xs, dtype=dtype), *rows)


def params(s: NonlinearSettings, precision: str) -> Any:
    """``(env, (policy rows,))``: the traced params of one run."""
    dtype = dev.dtype_of(precision)
    return env_params(s, dtype), (policy_params(s, dtype),)


def _model(s: NonlinearSettings, precision: str) -> runner.Model:
    return _model_of(s, precision, len(s.policies))


def derive(s: NonlinearSettings, out: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Cumulative regret, violation (C_t > τ) and the per-round slack τ − C_t."""
    return {"cum_regret": np.cumsum(out["regret"], axis=-1), "violation": out["cost"] > s.tau,
            "slack": s.tau - out["cost"]}


def summarize(s: NonlinearSettings, out: dict[str, np.ndarray]) -> dict[str, Any]:
    """Violation rate (95 % interval over seeds), count, smallest slack, final set sizes, and the
    share of seeds whose sets left out a true member at some round (Lemma 10: at most 2δ′)."""
    viol = out["cost"] > s.tau
    m, lo, hi = interval95(viol.mean(axis=-1), 0.0, 1.0)
    kept = np.asarray(out["true_in_r"]).all(axis=-1) & np.asarray(out["true_in_c"]).all(axis=-1)
    return {"violation_rate": float(viol.mean()), "violation_rate_lo": lo, "violation_rate_hi": hi,
            "violations": int(viol.sum()), "min_slack": float((s.tau - out["cost"]).min()),
            "set_r_final": float(np.mean(out["set_r"][..., -1])), "set_c_final": float(np.mean(out["set_c"][..., -1])),
            "true_excluded_rate": float(1.0 - kept.mean())}


def _on_stream(s: NonlinearSettings, policy: str, st: dict[str, Any]) -> dict[str, np.ndarray]:
    """One policy on a seed's explicit tables (ε-Greedy's coins come from ``run_on_table``'s own seed)."""
    return run_on_table(policy, st["Fr"], st["Fc"], st["xi_r"], st["xi_c"], st["r_star"], st["c_star"], tau=s.tau,
                        delta=s.delta, delta_prime=s.delta_prime, kappa_r=s.kappa_r, kappa_c=s.kappa_c, g=s.g,
                        eps=s.eps)


FAMILY = M.Family(
    kind="nonlinear",
    settings_cls=NonlinearSettings,
    example=NonlinearSettings(policies=("hpucb", "on_expectation"), size=8, d=3, T=150, seeds=2),
    labels=LABELS,
    policies=lambda s: tuple(s.policies),
    model=_model,
    params=params,
    axes=DOSE_AXES,
    traced=GRID_FIELDS,
    scrub=SCRUB,
    derive=derive,
    summarize=summarize,
    memory_bytes=memory_bytes,
    warnings=warnings_for,
    stream=lambda s, i: draw_table(s, i),
    on_stream=lambda s, p, st: _on_stream(s, p, st),
    command="nonlinear",
    cli="safebandit_core.dose.nonlinear_cli",
    fields=FIELDS,
)


def _table_params(s: Any, dtype: Any, table: Table, r_star: int, c_star: int, policy: str, sizes: tuple[int, int]
                  ) -> Any:
    g1, g2 = _curve_numbers(s)
    cast = lambda v: jnp.asarray(v, dtype)
    env = NLEnvParams(cast(s.tau), cast(s.delta), cast(s.kappa_r), cast(s.kappa_c), cast(g1), cast(g2), cast(0),
                      jnp.asarray(r_star, jnp.int32), jnp.asarray(c_star, jnp.int32), table=table)
    return env, (policy_params(s, dtype, (policy,), sizes),)


def _check_values(name: str, arr: np.ndarray, T: int | None) -> None:
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1 or (T is not None and arr.shape[1] != T):
        want = "an (|F|, T) array" + ("" if T is None else f" with T = {T}")
        raise SettingsError(name, want, arr.shape)
    if not (np.all(np.isfinite(arr)) and np.all(np.abs(arr) <= 1.0)):
        raise SettingsError(name, "values in [-1, 1] (the class maps X to [-1, 1])")


def _index(name: str, value: Any, n: int) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not 0 <= value < n:
        raise SettingsError(name, f"an integer in [0, {n - 1}]", value)
    return int(value)


def run_on_table(policy: str, Fr: Any, Fc: Any, xi_r: Any, xi_c: Any, r_star: int, c_star: int, *, tau: float,
                 delta: float, delta_prime: float, kappa_r: float, kappa_c: float, g: str = "linear", eps: float = 0.5,
                 seed: int = 0, width: int | None = None) -> dict[str, np.ndarray]:
    """Run one policy on explicit tables and return length-T numpy arrays.

    ``Fr`` (|F^r|, T) holds every reward-class member's value at each round's context, ``Fc``
    (|F^c|, T) the cost class's; ``r_star``, ``c_star`` index the true members; ``xi_r``, ``xi_c``
    (T,) are the noises. Keys: ``alpha, est_upper, true_upper, reward, cost, regret, set_r, set_c,
    fit_r, fit_c, true_in_r, true_in_c``. Float64 tables are computed in float64, anything else in
    float32. The dose curve ``g`` takes its default parameters; ε-Greedy explores at round t ≥ 2
    when ``u[t] < eps`` with ``u = jax.random.uniform(PRNGKey(seed), (T,))``, so the same call
    gives the same run. ``width`` ≥ both sizes runs both classes padded with never-chosen members to
    that many through the model compiled at that width (the padding check: the same numbers).
    """
    Fr, Fc = np.asarray(Fr), np.asarray(Fc)
    if policy not in NAMES:
        raise SettingsError("policy", "one of " + ", ".join(NAMES), policy)
    _check_values("Fr", Fr, None)
    T = Fr.shape[1]
    _check_values("Fc", Fc, T)
    for name, arr in (("xi_r", xi_r), ("xi_c", xi_c)):
        if np.shape(arr) != (T,):
            raise SettingsError(name, f"an array of length T = {T}", np.shape(arr))
    r_star, c_star = _index("r_star", r_star, Fr.shape[0]), _index("c_star", c_star, Fc.shape[0])
    sizes = (Fr.shape[0], Fc.shape[0])
    if isinstance(width, np.integer):
        width = int(width)
    n_r, n_c = sizes if width is None else (shapes.stream_width("width", width, max(sizes)),) * 2
    check_numbers(tau, delta, delta_prime, kappa_r, kappa_c, eps, g)
    precision = "float64" if Fr.dtype == np.float64 else "float32"
    dtype = dev.dtype_of(precision)
    s = NonlinearSettings(policies=(policy,), T=T, tau=tau, delta=delta, delta_prime=delta_prime, kappa_r=kappa_r,
                          kappa_c=kappa_c, g=g, eps=eps)
    u_eps = jax.random.uniform(jax.random.PRNGKey(seed), (T,), dtype)
    pad = lambda F, n: jnp.asarray(shapes.zero_pad(F, (n, F.shape[1])).T, dtype)
    table = Table(pad(Fr, n_r), pad(Fc, n_c), jnp.asarray(xi_r, dtype), jnp.asarray(xi_c, dtype), u_eps)
    model = make_model(TABLE, n_r, n_c, 0, 0, g, precision, 1)
    p = _table_params(s, dtype, table, r_star, c_star, policy, sizes)
    out = runner.run(model, p, jax.random.PRNGKey(seed)[None], T)
    return {k: np.asarray(out[k][0, 0]) for k in OUTPUT_KEYS}


def _seed_key(s: NonlinearSettings, seed_index: int) -> jax.Array:
    check_int_range("seed_index", seed_index, 0, s.seeds - 1)
    return runner.seed_keys(s.base_seed + seed_index, 1)[0]


def draw_table(s: NonlinearSettings, seed_index: int = 0, T: int | None = None) -> dict[str, Any]:
    """The explicit stream seed ``seed_index`` of ``simulate(s)`` sees in its first ``T`` rounds (default s.T).

    Keys: ``X`` (T, d) contexts, ``Fr``/``Fc`` (|F|, T) member values (the layout of
    :func:`run_on_table`), ``xi_r``, ``xi_c``, ``u_eps`` (T,), and ``r_star``, ``c_star``.
    """
    s = s.validate()
    T = s.T if T is None else T
    check_int_range("T", T, 1)
    precision = FAMILY.precision_of(s)
    p = env_params(s, dev.dtype_of(precision))
    _, d_width, _ = widths(s)
    X, obs = _stream_fn(s.function_class, d_width, precision)(p, _seed_key(s, seed_index), jnp.arange(_padded(T)))
    cut = lambda v: np.asarray(v)[:T]
    return {"X": cut(X)[:, :s.d], "Fr": cut(obs.fr)[:, :s.size].T, "Fc": cut(obs.fc)[:, :s.size].T,
            "xi_r": cut(obs.xi_r), "xi_c": cut(obs.xi_c), "u_eps": cut(obs.u_eps), "r_star": int(p.r_star),
            "c_star": int(p.c_star)}


@functools.cache
def _stream_fn(kind: str, width: int, precision: str) -> Any:
    """Jitted (contexts, observations) of given rounds of one seed's synthetic stream, at a compiled width."""
    dtype = dev.dtype_of(precision)
    draw = class_draw(kind, width, dtype)

    def one(p: NLEnvParams, key: jax.Array, t: jax.Array) -> Any:
        return draw_round(p, key, t, width, dtype, padded=True).x, draw(p, key, t)

    return jax.jit(jax.vmap(one, in_axes=(None, None, 0)))


@functools.cache
def _values_fn(kind: str) -> Any:
    """Jitted values of every member at many contexts: (members, (N, d)) -> (N, |F|)."""
    return jax.jit(jax.vmap(lambda m, x: classes.evaluate(kind, m, x), in_axes=(None, 0)))


def confidence_set_of(values: np.ndarray, targets: np.ndarray, rho: float) -> tuple[int, np.ndarray, np.ndarray]:
    """(fit, squared distance of every member to the fit, set mask) from data, recomputed from scratch.

    ``values`` (|F|, N) are the members at the informative rounds' contexts, ``targets`` (N,) the
    transformed observations; the fit minimises the squared loss (ties to the lowest index).
    """
    loss = ((values - targets[None, :]) ** 2).sum(axis=1)
    fit = int(np.argmin(loss))
    dist = ((values - values[fit][None, :]) ** 2).sum(axis=1)
    return fit, dist, dist <= rho


def class_curves(s: NonlinearSettings, seed_index: int, t: int, n_points: int = 101, *, policy: str | None = None,
                 direction: Any = None, run: M.Run | None = None) -> dict[str, Any]:
    """The candidate cost functions on a 1-D grid x = a·u, a ∈ [−1, 1], and their set flags at round ``t``.

    ``u`` is ``direction`` normalised (default the first axis); round ``t`` (1-based) uses the
    informative rounds s < t of seed ``seed_index`` under ``policy`` (default the settings' first).
    Its doses and costs come from ``run`` when given (a finished or partial run of ``s``), else
    from a fresh run of that seed. Returns ``grid`` (n_points,), ``direction`` (d,), ``values``
    (|F|, n_points), ``in_set`` (|F|,), ``distance`` (|F|,), ``fit``, ``true`` (μ*'s index),
    ``rho`` and ``set_size``.
    """
    s = s.validate()
    check_int_range("seed_index", seed_index, 0, s.seeds - 1)
    check_int_range("t", t, 1, s.T)
    check_int_range("n_points", n_points, 2, 100_000)
    policy = s.policies[0] if policy is None else policy
    if policy not in s.policies:
        raise SettingsError("policy", "one of " + ", ".join(s.policies), policy)
    u = np.zeros(s.d) if direction is None else np.asarray(direction, dtype=np.float64)
    if direction is None:
        u[0] = 1.0
    if u.shape != (s.d,) or not np.isfinite(u).all() or np.linalg.norm(u) == 0:
        raise SettingsError("direction", f"a non-zero vector of length d = {s.d}", u.shape)
    u = u / np.linalg.norm(u)
    grid = np.linspace(-1.0, 1.0, n_points)
    _, members_c, _, c_star = draw_classes(s)
    values = np.asarray(_values_fn(s.function_class)(classes.cast(members_c, jnp.float64),
                                                     jnp.asarray(grid[:, None] * u[None, :]))).T
    n = t - 1
    if n > 0:
        alpha, cost = _doses_and_costs(s, seed_index, n, policy, run)
        table = draw_table(s, seed_index, n)
        gz = curves.evaluate(s.g, alpha, s.g_power, s.g_ec50, s.g_hill)
        informative = gz > 0
        fit, dist, inside = confidence_set_of(table["Fc"][:, informative], cost[informative] / gz[informative],
                                              _rho(s.kappa_c, s.size, s.delta_prime))
    else:
        fit, dist, inside = 0, np.zeros(s.size), np.ones(s.size, bool)
    return {"grid": grid, "direction": u, "values": values, "in_set": inside, "distance": dist, "fit": fit,
            "true": c_star, "rho": _rho(s.kappa_c, s.size, s.delta_prime), "set_size": int(inside.sum())}


def _rho(kappa: float, n: int, delta_prime: float) -> float:
    return float(radius(jnp.float64(kappa), n, jnp.float64(delta_prime)))


def _doses_and_costs(s: NonlinearSettings, seed_index: int, n: int, policy: str, run: M.Run | None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Doses and costs of rounds 1..n of one seed and policy: from ``run``, or a fresh one-seed run."""
    if run is not None:
        if run.t_done < n:
            raise SettingsError("t", f"at most {run.t_done + 1} (the run has {run.t_done} rounds so far)", n + 1)
        out = run.policy_outputs(policy)
        return np.asarray(out["alpha"][seed_index, :n]), np.asarray(out["cost"][seed_index, :n])
    precision = FAMILY.precision_of(s)
    dtype = dev.dtype_of(precision)
    model = _model_of(s, precision, 1)
    p = (env_params(s, dtype), (policy_params(s, dtype, (policy,)),))
    out = runner.run(model, p, _seed_key(s, seed_index)[None], _padded(n))
    return np.asarray(out["alpha"][0, 0, :n]), np.asarray(out["cost"][0, 0, :n])


def _padded(n: int) -> int:
    """The next power of two (at least 16): rounds beyond n do not change rounds 1..n, and few
    distinct lengths mean few compilations when a page asks for many rounds in turn."""
    return max(16, 1 << (n - 1).bit_length())
