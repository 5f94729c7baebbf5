"""The non-linear figure builders: set sizes on log axes, candidate curves grouped honestly, the direction."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest

from safebandit_core.dose.nonlinear import candidates, classes
from safebandit_core.viz import nonlinear as vn


def frame(size: int = 8, T: int = 50) -> pd.DataFrame:
    """Two policies, two seeds; the sets halve every ten rounds down to one member."""
    t = np.arange(1, T + 1)
    sizes = np.maximum(size / 2 ** (t // 10), 1)
    rows = [pd.DataFrame({"policy": p, "seed": s, "t": t, "set_r": sizes, "set_c": np.maximum(sizes - s, 1)})
            for p in ("HPC-UCB", "On-Expectation") for s in (0, 1)]
    return pd.concat(rows, ignore_index=True)


def test_log_rounds_keep_the_ends_and_every_early_round():
    r = vn.log_rounds(10_000, 300)
    assert r[0] == 1 and r[-1] == 10_000 and np.all(np.diff(r) > 0)
    assert set(range(1, 30)) <= set(r.tolist()) and r.size <= 301


def test_set_size_figure_means_over_seeds_on_log_axes():
    fig = vn.set_size_figure(frame(), 8)
    assert fig.layout.yaxis.type == "log" and fig.layout.xaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert [d.name for d in fig.data] == ["HPC-UCB", "On-Expectation"] * 2
    cost = fig.data[2]
    assert cost.yaxis == "y2" and cost.y[0] == pytest.approx(7.5), "mean of 8 and 8 − 1 over the two seeds"
    assert [s.y0 for s in fig.layout.shapes] == [8, 8]


def curves(n: int = 6, inside: tuple[int, ...] = (1, 2), fit: int = 1, true: int = 2) -> dict:
    grid = np.linspace(-1, 1, 11)
    mask = np.zeros(n, bool)
    mask[list(inside)] = True
    return {"grid": grid, "values": np.outer(np.linspace(-1, 1, n), grid), "in_set": mask, "fit": fit, "true": true}


def joined(trace) -> int:
    return int(np.isnan(np.asarray(trace.x, dtype=float)).sum())


def test_candidates_split_into_ruled_out_and_still_in_with_fit_and_truth():
    fig = vn.candidates_figure(curves(), "round 5")
    by = {d.name: d for d in fig.data}
    assert joined(by["ruled out"]) == 4 and joined(by["still in C^c_t"]) == 2
    assert np.allclose(by["fit μ̂_t"].y, curves()["values"][1]) and by["true μ*"].line.dash == "dash"
    assert by["fit μ̂_t"].line.width > by["still in C^c_t"].line.width
    capped = vn.candidates_figure(curves(n=50, inside=tuple(range(40))), "capped", max_lines=10)
    assert joined(capped.data[0]) == 10 and joined(capped.data[1]) == 10


@pytest.mark.parametrize("kind", classes.KINDS)
def test_gradient_direction_is_the_unit_gradient_at_zero(kind):
    members = classes.draw(kind, jax.random.PRNGKey(1), 5, 3, 4)
    f = lambda x: classes.evaluate(kind, classes.cast(members, jnp.float64), x)[3]
    grad = np.asarray(jax.grad(f)(jnp.zeros(3, jnp.float64)))
    u = candidates.gradient_direction(kind, members, 3)
    assert np.linalg.norm(u) == pytest.approx(1.0)
    assert np.allclose(u, grad / np.linalg.norm(grad), atol=1e-9)
