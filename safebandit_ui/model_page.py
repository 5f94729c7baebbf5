"""The one model page: a family's controls → settings → the shared run → its charts, words, table → scrub, tools,
downloads.

A model page is one call, :func:`render`, with its title and introduction. What the page draws comes from the family's
two entries: its controls from ``Family.fields`` (:class:`safebandit_core.fields.Field`, declared once in
the family's folder) and the rest from its page spec, a :class:`Spec` named by its app entry (the ``spec`` of
:class:`.registry.Entry`): the
sidebar's section order and its named extra sections (a curve picker, the policies), the result sections with
their explanations, the charts, the sentences computed from the run and the sections only that family has.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from safebandit_core import families
from safebandit_core.fields import Field
from safebandit_core.model import Family, Run

from . import ahead, downloads, forms, links, live, pagekit, pins, registry, scrub, shell, store, tools

Views = dict[str, Any]
"""What a page reads from a finished run (its tidy frame, its summary, ...), built once per run; ``summary``
is always there."""
Slots = dict[str, Any]
"""Where the charts (by their key) and the sentences (``*_text``, ``*_note``) of the result sections go."""


class Sidebar:
    """The controls of a family as they are drawn: :meth:`field` draws one, :meth:`fields_of` several, :meth:`section`
    a section's; :attr:`values` holds every settings field they set (a field not drawn keeps its default)."""

    def __init__(self, family: Family, form: forms.SettingsForm[Any], ctx: shell.RunContext) -> None:
        self.family, self.form, self.ctx = family, form, ctx
        self.fields: dict[str, Field] = {f.name: f for f in family.fields}
        defaults = family.settings_cls()
        self.values: dict[str, Any] = {f.target: getattr(defaults, f.target) for f in family.fields}

    def field(self, name: str) -> Any:
        """Draw the control of settings field ``name``; returns (and keeps) its value."""
        f = self.fields[name]
        draw = {"slider": forms.slider, "integer": forms.integer, "number": forms.number}[f.widget]
        self.values[f.target] = f.value(draw(self.form.controls, name, f.help))
        return self.values[f.target]

    def section(self, section: str, expert: bool = False) -> None:
        """Draw the controls of ``section`` (its expert ones or the others) in their declared order."""
        self.fields_of(*(f.name for f in self.fields.values() if f.section == section and f.expert == expert))

    def fields_of(self, *names: str) -> None:
        """Draw the controls of ``names`` in this order, a field marked ``beside`` in two columns with the next."""
        i = 0
        while i < len(names):
            pair = names[i:i + 2] if self.fields[names[i]].beside and i + 1 < len(names) else names[i:i + 1]
            if len(pair) == 2:
                for col, name in zip(st.columns(2), pair, strict=True):
                    with col:
                        self.field(name)
            else:
                self.field(pair[0])
            i += len(pair)


@dataclasses.dataclass(frozen=True)
class Spec:
    """What a family's model page shows beyond its controls.

    - ``section``: the sidebar heading of its controls; ``model``: how messages name the model ("the dose model");
    - ``sidebar``: the sidebar's sections in order (each headed in bold; empty: no heading); ``extras``: named
      sections drawn by a function of the :class:`Sidebar` instead of their fields alone (a curve picker, the
      policies); ``collapsed``: sections drawn in a collapsed expander under their name instead; the expert fields
      follow (shown with *Expert settings* only), then *Restore a run*;
    - ``upload_key``, ``field_names``, ``values_of``, ``restore_extra``: the restore of :class:`forms.SettingsForm`;
    - ``check(settings)``: a page's own limit beyond ``validate()`` (raises SettingsError); ``warnings``: show the
      family's warnings above the results;
    - ``explain(settings)``: drawn above the run's status line (the model's rule), returning slots to fill later;
    - ``layout(settings)``: the result sections with their explanations; returns their slots and the view state
      the charts depend on (a band, a zoom);
    - ``views(run)``, ``figures(settings, views, state)``: the run's frames and the charts by slot name (drawn
      with the pins over them, and redrawn live during a long run); ``texts(slots, settings, views, state)``:
      the sentences computed from the run;
    - ``sections``: what follows, each ``f(settings, run, views, ctx)`` (a table, a round inspector);
    - ``steps(run)``: the step-through of one seed (None: none); ``stem(settings)``: the downloads' file name;
      ``key_prefix``: of the download buttons' keys; ``saved_figures(settings, views, state)``: the charts the
      zip holds (default: ``figures``);
    - ``opening``: the view state ``layout`` returns while the page's controls are untouched, under which the
      warm-up makes the opening charts (:func:`warm_charts`);
    - ``keys``: the URL parameters of its own controls beyond its fields (the problem, the policies, a zoom), some
      drawn only under some settings or in an open section; ``old_keys``: the URL parameters the page read under
      an older name, each with its name now (a link shared before the rename opens the same view:
      :func:`.links.rename` moves them before any control reads them).
    """

    section: str
    model: str
    upload_key: str
    layout: Callable[[Any], tuple[Slots, Any]]
    views: Callable[[Run], Views]
    figures: Callable[[Any, Views, Any], Mapping[str, go.Figure]]
    stem: Callable[[Any], str]
    sidebar: tuple[str, ...] = ()
    collapsed: tuple[str, ...] = ()
    extras: Mapping[str, Callable[[Sidebar], None]] = dataclasses.field(default_factory=dict)
    field_names: Mapping[str, str] = dataclasses.field(default_factory=dict)
    values_of: Callable[[Any], dict[str, float]] | None = None
    restore_extra: Callable[[Any], None] | None = None
    check: Callable[[Any], None] | None = None
    warnings: bool = True
    explain: Callable[[Any], Slots] | None = None
    texts: Callable[[Slots, Any, Views, Any], None] = lambda slots, s, views, state: None
    sections: tuple[Callable[[Any, Run, Views, shell.RunContext], None], ...] = ()
    steps: Callable[[Run], Callable[[str, int], go.Figure]] | None = None
    key_prefix: str = ""
    saved_figures: Callable[[Any, Views, Any], Mapping[str, go.Figure]] | None = None
    opening: Any = None
    keys: tuple[str, ...] = ()
    old_keys: Mapping[str, str] = dataclasses.field(default_factory=dict)


SIDEBAR_NAMES = {"policies": "Compare", "precision": "Precision (sidebar)", "base_seed": "Base seed (sidebar)"}
"""How messages name the fields the shared controls set: the *Compare* choice and the sidebar's two."""


def spec_of(family: Family) -> Spec:
    """The page spec the family's app entry names (:class:`.registry.Entry`)."""
    path = registry.entry(family.kind).spec
    if not path:
        raise ValueError(f"the {family.kind!r} family has no page spec")
    return families.resolve(path)


def settings_form(family: Family, spec: Spec) -> forms.SettingsForm[Any]:
    """The restore form of a family's page: one control per declared field, starting at its ``start`` or else the
    settings class's default (a default of None shows as the field's ``unset`` value)."""
    controls = forms.controls_of(family.fields, family.settings_cls())
    return forms.SettingsForm(
        (family.kind,), spec.model, controls, spec.upload_key,
        int_fields=frozenset(f.name for f in family.fields if f.widget == "integer"),
        field_names={**SIDEBAR_NAMES, **spec.field_names}, values_of=spec.values_of,
        restore_extra=spec.restore_extra)


def policies(family: Family, key: str, help: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """The *Compare* multiselect over a family's policies (``key``, bound to the URL)."""
    return tuple(links.bound(st.multiselect, "Compare", list(family.labels), default=list(default), key=key,
                             format_func=family.label, help=help))


def sidebar(family: Family, spec: Spec, form: forms.SettingsForm[Any], ctx: shell.RunContext) -> dict[str, Any]:
    """Draw the page's controls; return the settings fields they chose."""
    bar = Sidebar(family, form, ctx)
    order = spec.sidebar or tuple(dict.fromkeys(f.section for f in family.fields if not f.expert))

    def draw(section: str) -> None:
        if section in spec.extras:
            spec.extras[section](bar)
        else:
            bar.section(section)

    for section in order:
        if section in spec.collapsed:
            with st.expander(section):
                draw(section)
            continue
        if section:
            st.markdown(f"**{section}**")
        draw(section)
    expert = tuple(dict.fromkeys(f.section for f in family.fields if f.expert))
    if expert:
        with st.container(key=shell.EXPERT_BOX.format(family.kind)):
            for section in expert:
                with st.expander(f"{section} (expert)"):
                    bar.section(section, expert=True)
    forms.restore_section(form)
    return {**bar.values, "base_seed": ctx.base_seed, "precision": ctx.precision}


def build_settings(family: Family, spec: Spec, values: dict[str, Any], ctx: shell.RunContext) -> Any:
    """The checked settings, within the page's own limits and the device's memory (raises
    :class:`~safebandit_core.settings.SettingsError`)."""
    s = family.settings_cls(**values).validate()
    if spec.check is not None:
        spec.check(s)
    family.check_fits(s, ctx.device, limit=store.run_limit())
    return s


class Figures(Mapping[str, go.Figure]):
    """A page's charts by slot name, each built on first use and then kept (:func:`render` caches the whole set per
    run): a chart whose section is closed is never built, while the downloads still get every chart.

    Thread-safe: a chart that another thread is building (computing ahead prepares the very charts a page about to
    show the run asks for) is waited for, not built a second time beside it."""

    def __init__(self, **build: Callable[[], go.Figure]) -> None:
        self._build = build
        self._made: dict[str, go.Figure] = {}
        self._locks = {name: threading.Lock() for name in build}

    def __getitem__(self, name: str) -> go.Figure:
        with self._locks[name]:
            if name not in self._made:
                self._made[name] = self._build[name]()
        return self._made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._build)

    def __len__(self) -> int:
        return len(self._build)


def shown(slots: Slots, figures: Mapping[str, go.Figure]) -> dict[str, go.Figure]:
    """The figures that have a slot on the page now, built only for those (a closed secondary section has none)."""
    return {name: figures[name] for name in figures if name in slots}


def prepared(spec: Spec, s: Any, run: Run, state: Any) -> tuple[Views, Mapping[str, go.Figure]]:
    """The views and the charts of ``run`` (of settings ``s``) under the page's view ``state``, each built once per
    run and shared (:func:`.pagekit.per_run`): what :func:`render` draws and what computing ahead makes for it."""
    views = pagekit.per_run(run, "views", lambda: spec.views(run))
    return views, pagekit.per_run(run, ("figures", state), lambda: spec.figures(s, views, state))


def made_ready(spec: Spec, s: Any, run: Run, state: Any, slots: Mapping[str, Any] | None = None) -> None:
    """Build the views and the charts of ``run`` under ``state`` (those with a slot in ``slots``; None: every chart)
    and encode each as the page sends it, so that a later drawing only sends them: what computing ahead and the
    warm-up make for a page."""
    _, figures = prepared(spec, s, run, state)
    for fig in (figures if slots is None else shown(slots, figures)).values():
        pagekit.encode_ahead(fig)


def warm_charts(s: Any, device: str) -> bool:
    """:func:`made_ready` for the model page of ``s`` with untouched controls, from its stored run: every chart under
    :attr:`Spec.opening` (those of its closed boxes too). The page's first visitor after the warm-up then only
    sends them, as every later visitor does. False when the run is not in the store."""
    entry = store.store().peek(store.key_of(s, device))
    if entry is None:
        return False
    spec = spec_of(families.of(s))
    made_ready(spec, s, entry.value, spec.opening)
    return True


def render(kind: str, title: str, intro: str) -> None:
    """The model page of the family ``kind``, under ``title`` and its introduction ``intro`` (computing ahead waits
    while it is drawn: :func:`.ahead.drawing`)."""
    with ahead.drawing():
        _render(kind, title, intro)


def _render(kind: str, title: str, intro: str) -> None:
    family = families.get(kind)
    spec = spec_of(family)
    links.rename(spec.old_keys.get)
    links.may_read(*(f.key for f in family.fields), *spec.keys)
    form = settings_form(family, spec)
    ctx, values = pagekit.page_start(title, intro, spec.section,
                                     lambda c: sidebar(family, spec, form, c))
    with st.container():
        s = pagekit.checked(form, lambda: build_settings(family, spec, values, ctx),
                            family.warnings if spec.warnings else lambda s: [])
        if s is None:
            return
        slots = spec.explain(s) if spec.explain is not None else {}
        status = st.empty()
        more, state = spec.layout(s)
        slots.update(more)
        run, shared, seconds = live.run(s, ctx, lambda r: pagekit.draw_charts(
            slots, pagekit.with_pins(shown(slots, spec.figures(s, spec.views(r), state)), kind, s),
            f"-live-{r.t_done}"))
        live.status(status, run, shared, seconds)
        views, figures = prepared(spec, s, run, state)
        pagekit.draw_charts(slots, pagekit.with_pins(shown(slots, figures), kind, s))
        spec.texts(slots, s, views, state)
        for section in spec.sections:
            section(s, run, views, ctx)
        scrub.section(s, ctx)
        tools.panel(kind, run, views["summary"], spec.steps(run) if spec.steps else None, lambda: figures)
        saved = spec.saved_figures or spec.figures
        downloads.downloads(s, lambda: families.tidy(run), spec.stem(s), spec.key_prefix, summary=views["summary"],
                            figures=lambda: saved(s, views, state), extra=lambda: pins.export(kind),
                            device=run.device, precision=run.precision)
        compute_ahead(family, spec, s, ctx, slots, state)


AHEAD_KEY = "ahead_{}"
"""Session state: the knob values of a model page's last run (which way the visitor moves the knob)."""


def compute_ahead(family: Family, spec: Spec, s: Any, ctx: shell.RunContext, slots: Slots, state: Any) -> None:
    """Queue the runs a knob step or two from ``s`` (:mod:`.ahead`), each with the views and charts this page would draw
    from it in this session (its zoom and open sections; with pins on, the charts are drawn over copies, so only
    the views and figures are made)."""
    key = AHEAD_KEY.format(family.kind)
    previous = st.session_state.get(key)
    st.session_state[key] = ahead.knob_values(family, s)
    names, pinned = dict.fromkeys(slots), pins.pinned(family.kind)

    def prepare(n: Any, run: Run) -> None:
        if pinned:
            prepared(spec, n, run, state)
        else:
            made_ready(spec, n, run, state, names)

    ahead.after(s, ctx.device, previous, prepare, source=shell.visitor_id())
