"""The shared sidebar: which device computes, in which precision, from which base seed.

``app.py`` calls :func:`render_sidebar` on every run, before the page runs, so these widgets
(and their values) live across page switches. Pages call :func:`current` to read them as a
plain :class:`RunContext`; they never touch the widget keys themselves. Precision and base seed
are bound to the URL, so a shared link reproduces a run; the device is not (it is machine-specific).
"""

from __future__ import annotations

import dataclasses

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from safebandit_core import device

from . import registry

DEVICE_KEY = "device"
PRECISION_KEY = "precision"
SEED_KEY = "base_seed"
# Every model runs seeds base_seed … base_seed + (at most 1000) − 1 as 32-bit keys.
MAX_BASE_SEED = 2**31 - 1 - 1000


@dataclasses.dataclass(frozen=True)
class RunContext:
    """What the sidebar chose: device id (``cpu:0``, ``gpu:0``), its label, precision, base seed."""

    device: str
    device_label: str
    precision: str
    base_seed: int


@st.cache_resource(show_spinner=False)
def devices() -> list[device.DeviceInfo]:
    """Every device the core sees, GPUs first (looked up once per process)."""
    return device.list_devices()


def _reset_precision() -> None:
    st.session_state[PRECISION_KEY] = device.default_precision(st.session_state[DEVICE_KEY])


def render_sidebar() -> RunContext:
    """Draw the shared compute controls in the sidebar and return the current choice."""
    infos = devices()
    labels = {i.id: i.label for i in infos}
    default_id = infos[0].id
    with st.sidebar:
        st.markdown("**Compute**")
        st.selectbox("Device", list(labels), format_func=labels.__getitem__, key=DEVICE_KEY,
                     on_change=_reset_precision,
                     help="Where the simulations run. A GPU is listed first when there is one.")
        default_precision = device.PRECISIONS.index(device.default_precision(default_id))
        st.selectbox("Precision", device.PRECISIONS, index=default_precision, key=PRECISION_KEY, bind="query-params",
                     help="float64 is the default on a CPU, float32 on a GPU (faster, slightly less exact).")
        st.number_input("Base seed", min_value=0, max_value=MAX_BASE_SEED, value=0, step=1, key=SEED_KEY,
                        bind="query-params",
                        help="Seed i of a run uses the random stream base seed + i; the same seed gives the same run.")
    return current()


def require_entrypoint() -> None:
    """Make sure this page runs inside ``app.py``; every page calls this (or :func:`current`) first.

    Streamlit runs a page file on its own, without ``app.py``, when it treats ``pages/`` as an
    old-style page folder: on a fresh server until the first ``st.navigation`` call (a first visitor
    who opens a page's URL), and at the start of every AppTest run. It keeps that mode in a class
    flag. Then this registers the real navigation (which ends that mode) and reruns, so the visitor
    gets the full app, shared sidebar included, on the page they asked for.
    """
    if getattr(PagesManager, "uses_pages_directory", False):
        st.navigation(registry.navigation_pages(), position="hidden")
        st.rerun()


def current() -> RunContext:
    """The sidebar's choice as plain data (defaults when the sidebar has not been drawn in this session)."""
    require_entrypoint()
    ids = [i.id for i in devices()]
    dev = st.session_state.get(DEVICE_KEY)
    if dev not in ids:
        dev = ids[0]
    prec = st.session_state.get(PRECISION_KEY)
    if prec not in device.PRECISIONS:
        prec = device.default_precision(dev)
    seed = st.session_state.get(SEED_KEY, 0)
    return RunContext(device=dev, device_label=device.describe(dev), precision=prec, base_seed=int(seed))
