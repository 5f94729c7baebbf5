"""Every policy of One-size-fits-all's conservative bandits as a :class:`~safebandit_core.model.Policy`, by problem
and name.

GenCB around the problem's standard policy (UCB, LinUCB, C2UCB; ALGORITHMS.md §2.1), the
expected-reward baselines (BASELINES.md §1–4) and the unconstrained standard policy. The numbers
they share are one :class:`~.gencb.Params` built from the settings and the instance, its arms padded
to the compiled widths (zero rows and columns) and its true K and d traced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from ..model import Policy
from ..shapes import zero_pad
from . import baselines
from .cccb import c2ucb
from .clb import linucb
from .cmab import ucb
from .gencb import Params, gencb, unconstrained, with_super_arm, wrap
from .instances import Instance
from .settings import SUPER_ARMS, ConservativeSettings, check_policy

Builder = Callable[[int, int, int], Policy]
"""``builder(K, d, m)``: the policy for K (base) arms in R^d (d unused on CMAB), super arms of size m.

K and d are compiled widths; the true sizes are the params' ``K`` and ``d``.
"""

BUILDERS: dict[str, dict[str, Builder]] = {
    "cmab": {
        "gencb": lambda K, d, m: gencb(ucb(K)),
        "conucb": lambda K, d, m: baselines.conucb(K),
        "clucb": lambda K, d, m: baselines.clucb_multiarmed(K),
        "ucb": lambda K, d, m: wrap(ucb(K), unconstrained),
    },
    "clb": {
        "gencb": lambda K, d, m: gencb(linucb(K, d)),
        "clucb": lambda K, d, m: baselines.clucb(K, d),
        "clucb2": lambda K, d, m: baselines.clucb2(K, d),
        "linucb": lambda K, d, m: wrap(linucb(K, d), unconstrained),
    },
    "cccb": {
        "gencb": lambda K, d, m: gencb(c2ucb(K, d, m)),
        "c3ucb": lambda K, d, m: baselines.c3ucb(K, d, m),
        "c2ucb": lambda K, d, m: wrap(c2ucb(K, d, m), unconstrained),
    },
}


def make_policy(problem: str, policy: str, K: int, d: int | None = None, m: int = 1) -> Policy:
    """The conservative (or unconstrained) policy ``policy`` of ``problem``; CCCB's also reports ``super``."""
    check_policy(problem, policy)
    built = BUILDERS[problem][policy](K, d or 0, m)
    return with_super_arm(built) if SUPER_ARMS[problem] else built


def make_params(*, alpha: Any, mu0: Any, K: int, arms: Any = None, lam: Any = 1.0, S: Any = 1.0, L: Any = 1.0,
                delta: Any, dtype: Any = jnp.float64, width: int | None = None, dim_width: int | None = None
                ) -> Params:
    """A policy's params as arrays of ``dtype`` (the caller validates).

    ``K`` is the true arm count and ``arms`` the true (K, d) features; ``width`` ≥ K and ``dim_width``
    ≥ d pad them with zero rows and columns up to the compiled widths (None: no padding). The true
    K and d (d = K for CMAB's one-hot ridge) become traced numbers.
    """
    arr = lambda x: jnp.asarray(x, dtype)
    d = K if arms is None else np.shape(arms)[1]
    if arms is not None:
        arms = arr(zero_pad(arms, (width or K, dim_width or d)))
    return Params(alpha=arr(alpha), mu0=arr(mu0), lam=arr(lam), S=arr(S), L=arr(L), delta=arr(delta), K=arr(K),
                  d=arr(d), arms=arms)


def policy_params(settings: ConservativeSettings, inst: Instance, dtype: Any, width: int,
                  dim_width: int | None) -> Params:
    """The params every policy of ``settings`` uses (δ = 1/T), padded to the compiled widths."""
    return make_params(alpha=settings.alpha, mu0=inst.mu0, K=settings.K, arms=inst.arms, lam=settings.lam,
                       S=inst.S, L=settings.L, delta=1.0 / settings.T, dtype=dtype, width=width,
                       dim_width=dim_width)
