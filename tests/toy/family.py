"""The toy family's one registry entry."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from safebandit_core import device, runner
from safebandit_core import model as M

from .env import EnvParams, draw, make_env
from .fields import FIELDS
from .policies import Params, make_policy
from .settings import ToySettings

LABELS = {"greedy": "Greedy", "first": "Arm 0 only"}


@functools.cache
def make_model(policies: tuple[str, ...], precision: str) -> runner.Model:
    """Every policy as one lane over the same draws."""
    lane = M.Lane(make_policy(device.dtype_of(precision)), len(policies))
    return M.compose(make_env(), [lane], name=f"toy[{','.join(policies)}]:{precision}")


def params(s: ToySettings, precision: str) -> tuple[EnvParams, tuple[Params]]:
    """The arms' means and one row per policy."""
    dtype = device.dtype_of(precision)
    first = jnp.asarray([p == "first" for p in s.policies], dtype)
    return EnvParams(jnp.asarray([s.p0, s.p1], dtype)), (Params(first),)


def derive(s: ToySettings, out: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The cumulative regret and the slack of the cumulative reward over half the default arm's."""
    t = np.arange(1, out["reward"].shape[-1] + 1)
    return {"cum_regret": np.cumsum(out["regret"], axis=-1, dtype=np.float64),
            "slack": np.cumsum(out["reward"], axis=-1, dtype=np.float64) - 0.5 * s.p0 * t}


def stream(s: ToySettings, i: int) -> dict[str, np.ndarray]:
    """The outcomes seed ``i`` sees, (T, 2)."""
    precision = FAMILY.precision_of(s)
    key = runner.seed_keys(s.base_seed + i, 1)[0]
    env = params(s, precision)[0]
    return {"outcomes": np.asarray(jax.vmap(lambda t: draw(env, key, t).outcomes)(jnp.arange(s.T)))}


def on_stream(s: ToySettings, policy: str, st: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One policy replayed on ``st`` in plain numpy."""
    means, pulls, wins = np.array([s.p0, s.p1]), np.zeros(2), np.zeros(2)
    reward, regret = [], []
    for row in st["outcomes"]:
        score = np.where(pulls == 0, np.inf, wins / np.maximum(pulls, 1))
        a = 0 if policy == "first" else int(np.argmax(score))
        pulls[a] += 1
        wins[a] += row[a]
        reward.append(row[a])
        regret.append(means.max() - means[a])
    return {"reward": np.array(reward), "regret": np.array(regret)}


FAMILY = M.Family(
    kind=ToySettings.KIND,
    settings_cls=ToySettings,
    example=ToySettings(T=60, seeds=2, base_seed=5),
    labels=LABELS,
    policies=lambda s: tuple(s.policies),
    model=lambda s, precision: make_model(tuple(s.policies), precision),
    params=params,
    axes=(M.Axis("p0", "p₀", "default arm's mean", 0.0, 1.0, (0.3, 0.4)),
          M.Axis("p1", "p₁", "other arm's mean", 0.0, 1.0, (0.5, 0.7))),
    traced=("p0", "p1"),
    derive=derive,
    summarize=lambda s, out: {"min_slack": float(out["slack"].min())},
    stream=stream,
    on_stream=on_stream,
    command="toy",
    cli="tests.toy.cli",
    sweep_base=lambda: ToySettings(T=50, seeds=2),
    fields=FIELDS,
    audience="tests.toy.audience:MODEL",
)
