"""The d = 2 confidence ellipse is rebuilt exactly: HPC-UCB's estimated safe dose is the one its worst point gives."""

from __future__ import annotations

import numpy as np

from safebandit_core import families
from safebandit_core.dose import DoseSettings, draw_stream
from safebandit_core.dose.ellipse import ellipses
from safebandit_core.viz import steps


def test_the_ellipse_gives_back_the_policys_estimated_safe_dose():
    s = DoseSettings(policies=("hpucb",), d=2, T=300, seeds=2, base_seed=4, refresh_every=100)
    run = families.run(s)
    rounds = [2, 10, 50, 150, 300]
    data = ellipses(run, "hpucb", 1, rounds)
    X = draw_stream(s, 1)["X"]
    b = s.kappa_c * np.sqrt(2 * np.log(1 / s.delta))
    for j, t in enumerate(rounds):
        x = X[t - 1]
        v = data["outlines"][j] @ x  # ⟨x, μ⟩ over the outline: its maximum is the pessimistic cost
        z = min(1.0, s.tau / (v.max() + b)) if v.max() + b > 0 else 1.0
        assert abs(z - run.outputs["est_upper"][0, 1, t - 1]) < 5e-3, t  # the outline is 96 points
    widths = [np.ptp(o[:, 0]) for o in data["outlines"]]
    assert widths[-1] < widths[0]  # it shrinks as informative rounds come in
    assert data["mu"].shape == (2,)
    fig = steps.ellipse_steps(data, "HPC-UCB, seed 5:")
    assert len(fig.frames) == len(rounds)
