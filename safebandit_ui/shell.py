"""The shared sidebar: presentation mode, and which device computes, in which precision, from which base seed.

``app.py`` calls :func:`render_sidebar` on every run, before the page runs, so these widgets
(and their values) live across page switches. Pages call :func:`current` to read them as a
plain :class:`RunContext`; they never touch the widget keys themselves. Precision and base seed
are bound to the URL, so a shared link reproduces a run; the device is not (it is machine-specific).
The compute settings show only with *Expert settings* on (on by itself when the URL sets one);
hidden, they are still drawn, so their values, keys and URL binding behave as before, and a caption
says when a hidden setting is not the default. *Presentation mode* (``?present=1``) turns any page into the
presentation page of its model (:data:`PRESENT_PAGE`, ``?model=<kind>``).
"""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import streamlit as st

from safebandit_core import device

from . import links, registry, stprivate

DEVICE_KEY = "device"
PRECISION_KEY = "precision"
SEED_KEY = "base_seed"
PRESENT_KEY = "present"
EXPERT_KEY = "expert"
PRESENT_PAGE = "pages/present.py"
MODEL_PARAM = "model"
VISITOR_KEY = "visitor_id"
"""Where a session keeps its own random id (:func:`visitor_id`)."""
COMPUTE_BOX = "compute_settings"
EXPERT_BOX = "expert_{}"
"""A page's estimation settings (δ′, S, L, λ, …) sit in a container keyed ``expert_<page>``: shown with *Expert
settings* only, like the compute settings."""
HIDE_COMPUTE = (f"<style>.st-key-{COMPUTE_BOX}, [class*='st-key-{EXPERT_BOX.format('')}'] {{display: none;}}"
                "</style>")
"""Without *Expert settings* the compute widgets are still drawn (so their values, URL binding and keys work
as ever) but not shown."""
PRESENT_WORDS = ("1", "yes", "on")
"""What ``?present=`` may also say to turn presentation mode on (a link typed by hand)."""
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
    """Draw the presentation and expert switches and (when expert) the compute controls; return the choice.

    With presentation mode on, a page other than :data:`PRESENT_PAGE` switches to it here.
    """
    infos = devices()
    labels = {i.id: i.label for i in infos}
    default_id = infos[0].id
    asked = str(st.query_params.get(PRESENT_KEY, "")).lower() in PRESENT_WORDS  # the toggle's own form: =true
    with st.sidebar:
        present = links.bound(st.toggle, "Presentation mode", key=PRESENT_KEY,
                              help="One screen per model for a talk or a projector: large panels, one headline, "
                                   "no controls but the model and the audience's scenario.")
        linked = any(k in st.query_params for k in (PRECISION_KEY, SEED_KEY))
        expert = st.toggle("Expert settings", value=linked, key=EXPERT_KEY,
                           help="Show the compute settings (device, precision, base seed) and each page's estimation "
                                "settings (δ′, the bounds S and L, λ). Hidden, they keep their values and their "
                                "place in the URL.")
        with st.container(key=COMPUTE_BOX):
            st.markdown("**Compute**")
            st.selectbox("Device", list(labels), format_func=labels.__getitem__, key=DEVICE_KEY,
                         on_change=_reset_precision,
                         help="Where the simulations run. A GPU is listed first when there is one.")
            default_precision = device.PRECISIONS.index(device.default_precision(default_id))
            links.bound(st.selectbox, "Precision", device.PRECISIONS, index=default_precision, key=PRECISION_KEY,
                        help="float64 is the default on a CPU, float32 on a GPU (faster, slightly less exact).")
            links.bound(st.number_input, "Base seed", min_value=0, max_value=MAX_BASE_SEED, value=0, step=1,
                        key=SEED_KEY, help="Seed i of a run uses the random stream base seed + i; the same seed "
                                           "gives the same run.")
        if not expert:
            st.html(HIDE_COMPUTE)
            ctx = current()
            if ctx.base_seed != 0 or ctx.precision != device.default_precision(ctx.device):
                st.caption(f"Runs use {ctx.precision}, base seed {ctx.base_seed} (*Expert settings* to change).")
    if present or asked:
        _present_this_page()
    return current()


def visitor_id() -> str:
    """This browser session's id (random, made on its first run): the key its waiting background work is filed
    under, so that a visitor who moves on replaces only their own."""
    return st.session_state.setdefault(VISITOR_KEY, uuid.uuid4().hex)


def page_path() -> str | None:
    """The running page's file relative to ``app.py`` (``pages/dose.py``), None before navigation."""
    script = stprivate.page_script()
    if script is None:
        return None
    path = Path(script)
    return (path.resolve().relative_to(registry.ROOT) if path.is_absolute() else path).as_posix()


def _present_this_page() -> None:
    """Switch to the presentation page, with the running page's model kind as ``?model=`` (unless the link names
    one) and every other parameter of the link, so the presentation page uses what it can and names the rest."""
    path = page_path()
    if path is None or path == PRESENT_PAGE:
        return
    kind = registry.kind_of_page(path)
    params = [(key, value) for key in st.query_params for value in st.query_params.get_all(key)]
    if kind and MODEL_PARAM not in st.query_params:
        params.append((MODEL_PARAM, kind))
    st.switch_page(PRESENT_PAGE, query_params=params)


def require_entrypoint() -> None:
    """Make sure this page runs inside ``app.py``; every page calls this (or :func:`current`) first.

    Streamlit runs a page file on its own, without ``app.py``, when it treats ``pages/`` as an
    old-style page folder: on a fresh server until the first ``st.navigation`` call (a first visitor
    who opens a page's URL), and at the start of every AppTest run. It keeps that mode in a class
    flag. Then this registers the real navigation (which ends that mode) and reruns, so the visitor
    gets the full app, shared sidebar included, on the page they asked for.
    """
    if stprivate.runs_page_alone():
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
