"""What every model page offers under its charts: pin and compare, a step-through, the command line.

One call, :func:`panel`, so these are written once for every family: the pins of :mod:`.pins`
(a "before → after" table), an animated step-through of one seed (a plotly figure with frames,
played in the browser: it costs the server nothing), and the command line that runs the same
thing bigger, with the time this server expects it to take.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from safebandit_core import captions, cli, device, families, presets, report
from safebandit_core.dose import ellipse
from safebandit_core.viz import steps

from . import pagekit, pins, registry, store

COMPARE = {"cum_regret_mean": "regret (mean)", "violation_rate": "violation rate", "min_slack": "min slack",
           "default_pulls_mean": "default pulls N₀"}


def seed_rows(run: Any, label: str, seed: int, fields: tuple[str, ...]) -> pd.DataFrame:
    """The tidy rows (``fields`` only) of one policy, by its label, and one seed of a run."""
    frame = families.tidy(run, list(fields))
    return frame[(frame["label"] == label) & (frame["seed"] == seed)]


def dose_steps(run: Any) -> Callable[[str, int], go.Figure]:
    """The step-through of a dose-type run (dose, non-linear, battery): dose, safe ends, realized cost against τ."""
    fields = ("alpha", "est_upper", "true_upper", "cost")
    return lambda label, seed: steps.dose_steps(seed_rows(run, label, seed, fields), run.settings.tau,
                                                f"{label}, seed {seed}:")


def conservative_steps(run: Any) -> Callable[[str, int], go.Figure]:
    """The step-through of a conservative run: the reward so far against the line, and each default pull."""
    fields = ("cum_reward", "baseline_line", "default")
    return lambda label, seed: steps.conservative_steps(seed_rows(run, label, seed, fields), f"{label}, seed {seed}:")


def command(settings: Any, kind: str) -> None:
    """The command line that runs these settings, and how long this server expects it to take.

    It sits in a collapsed section whose contents are made only once it is opened (a code block
    costs every page load about 0.2 s of the browser's time, and most visitors never open it).
    """
    line = cli.command_for(settings)
    if line is None:
        return
    box = pagekit.lazy("The same run from the command line", f"{kind}_cli", icon=":material/terminal:")
    if not box.open:
        return
    with box:
        st.markdown("Raise `--T` and `--seeds` to go bigger:")
        st.code(line, language="bash")
        est = store.store().estimate(store.kind_of(settings), store.work(settings))
        if est is not None:
            st.caption(f"About {captions.number(est, 2)} s on this machine at this size, by the last run of this "
                       "model.")


def preset_command(run: presets.PresetRun, device_id: str | None) -> str:
    """The command that runs the same preset from a terminal (``--full`` at the paper's size; the precision only
    when it is not ``device_id``'s default)."""
    return report.command_line(run, device.default_precision(device_id))


def sweep_command(settings_file: str) -> str:
    """The command a sweeps page shows for running its settings file on several machines (HOST:PORT, N and I are
    for the reader to fill in)."""
    return (f"python -m safebandit_core sweep --settings {settings_file} --coordinator HOST:PORT --num-processes N "
            "--process-id I")


def ellipse_steps(run: Any) -> Callable[[str, int], go.Figure] | None:
    """For a two-dimensional dose run: the cost estimate's confidence ellipse shrinking round by round."""
    if getattr(run.settings, "d", None) != 2 or not registry.entry(run.family.kind).ellipse:
        return None

    def fig(label: str, seed: int) -> go.Figure:
        policy = run.policies[run.labels.index(label)]
        stops = steps.frame_rounds(run.settings.T, steps.MAX_FRAMES)
        data = ellipse.ellipses(run, policy, seed - run.settings.base_seed, stops)
        return steps.ellipse_steps(data, f"{label}, seed {seed}:")

    return fig


def panel(kind: str, run: Any, summary: pd.DataFrame, steps: Callable[[str, int], go.Figure] | None = None,
          figures: Callable[[], Mapping[str, go.Figure]] | None = None) -> None:
    """Pins with their before → after table, the step-through (``steps(label, seed)``), for d = 2 the
    confidence ellipse of the cost estimate, and the command line. ``figures()`` gives the page's charts
    as a pin keeps them (drawn faded over every chart afterwards, :func:`.pins.overlay_all`)."""
    st.subheader("Compare, step through, go bigger")
    pins.controls(kind, run, summary, figures)
    table = pins.compare(kind, summary, {c: n for c, n in COMPARE.items() if c in summary})
    if table is not None:
        st.markdown("Pinned → now (change):")
        st.table(table.style.hide(axis="index"))
    box = None if steps is None else pagekit.lazy("Step through one run, round by round", f"{kind}_steps_box")
    if box is not None and box.open:
        with box:
            left, right = st.columns(2)
            label = left.selectbox("Policy", list(run.labels), key=f"{kind}_steps_policy")
            seed = right.number_input("Seed", run.settings.base_seed, run.settings.base_seed + run.settings.seeds - 1,
                                      run.settings.base_seed, key=f"{kind}_steps_seed")
            if st.toggle("Show the animation", key=f"{kind}_steps_on",
                         help="Built once; ▶ Play runs in your browser, the server does nothing while it plays."):
                pagekit.chart(st, steps(label, int(seed)), f"{kind}_steps", keep=False)
                shrink = ellipse_steps(run)
                if shrink is not None:
                    st.markdown("With d = 2 the estimate of the cost parameter μ* is a point in the plane, and the "
                                "set of parameters the data still allow is an ellipse: HPC-UCB doses as if the "
                                "worst of them were true. It shrinks around μ* as informative rounds come in.")
                    pagekit.chart(st, shrink(label, int(seed)), f"{kind}_ellipse", keep=False)
    command(run.settings, kind)
