"""The app's pages as data: ``app.py`` turns this list into ``st.navigation``, the home page into links; and what the
app shows of each settings kind (:class:`Entry`: its page, title, page spec, link keys, presentation panels), which
points at the core's entry of the kind (:mod:`safebandit_core.families`) and never the other way round.

To add a page, add one :class:`PageSpec` line to :data:`PAGES` (paths are relative to ``app.py``).
Sections appear in the order of :data:`SECTIONS`; a section without pages is left out. A page's URL is its file's
name; a renamed page keeps its old URL in :data:`MOVED`, so links shared before the rename still open it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

import streamlit as st

from safebandit_core import families

from .approot import app_root

ROOT = app_root()
SECTIONS: tuple[str, ...] = ("", "Models", "The papers' experiments", "Teach", "About")


@dataclasses.dataclass(frozen=True)
class PageSpec:
    """One page: its file, menu title and icon, menu section and a one-line description for the home page.

    Icons are Material Symbols (``:material/…:``): Streamlit ships their font, so they show on a browser without an
    emoji font (an emoji there is an empty box).
    """

    path: str
    title: str
    icon: str
    section: str
    blurb: str
    default: bool = False


PAGES: tuple[PageSpec, ...] = (
    PageSpec("pages/home.py", "Home", ":material/home:", "", "What a safe bandit is and what each page shows.",
             default=True),
    PageSpec("pages/dose.py", "Dose model", ":material/medication:", "Models",
             "Choose a dose each round without letting the realized cost pass a limit: HPC-UCB against "
             "On-Expectation and ε-Greedy, live."),
    PageSpec("pages/nonlinear.py", "Non-linear dose model", ":material/function:", "Models",
             "The same dose rule when reward and cost are non-linear: HPC-UCB narrows a finite function class."),
    PageSpec("pages/conservative.py", "Conservative bandits", ":material/shield:", "Models",
             "Never fall more than a share α behind a safe default arm: GenCB against ConUCB / CLUCB / C3UCB and "
             "the unconstrained UCB, LinUCB, C2UCB, live."),
    PageSpec("pages/meanvar.py", "Mean-variance bandits", ":material/show_chart:", "Models",
             "Keep the run's mean-variance near a riskless default's: MV-CUCB against MV-UCB, with the ρ it needs."),
    PageSpec("pages/logged.py", "Your data", ":material/folder_open:", "Models",
             "Fit the dose model to your own log of contexts, doses, benefits and side effects, then replay HPC-UCB "
             "and its baselines on it."),
    PageSpec("pages/dosefinding.py", "Dose finding", ":material/vaccines:", "Models",
             "A phase-I trial's search for the maximum tolerated dose: 3+3, BOIN and CRM side by side on the same "
             "patients, and HPC-UCB dosing each patient."),
    PageSpec("pages/presets.py", "Paper presets", ":material/description:", "The papers' experiments",
             "Both papers' synthetic tables and figures in one click, next to their numbers, with a verdict on "
             "each claim computed from the run."),
    PageSpec("pages/sweeps.py", "Sweeps", ":material/map:", "The papers' experiments",
             "Any model over two of its safety settings at once: where the guarantee holds and what it costs, as "
             "phase diagrams."),
    PageSpec("pages/theory.py", "Theory overlays", ":material/square_foot:", "The papers' experiments",
             "HPC-UCB's regret against the √T rate, and GenCB's and ConUCB's default-arm pulls as the horizon "
             "grows."),
    PageSpec("pages/battery.py", "Battery replay", ":material/battery_charging_full:", "The papers' experiments",
             "Safety by Design's NASA Li-ion experiment on a real NASA cell shipped with the app, or your own "
             "RW9–RW12 files."),
    PageSpec("pages/present.py", "Present", ":material/slideshow:", "Teach",
             "One screen per model for a board or a lecture hall."),
    PageSpec("pages/lessons.py", "Lessons", ":material/school:", "Teach",
             "One-click scenes for a class: one control to move in each, and what to notice, computed from the "
             "run."),
    PageSpec("pages/about.py", "About", ":material/info:", "About",
             "The papers, the exact reading of each algorithm, and the device this app computes on."),
)


MOVED: dict[str, str] = {"mean_variance": "pages/meanvar.py", "your_data": "pages/logged.py",
                         "replay_battery": "pages/battery.py"}
"""Old page URLs -> the page now there (the pages took their family's name): a hidden page at the old URL forwards
to the new one with the link's query parameters."""


def home_title(pages: tuple[PageSpec, ...] = PAGES) -> str:
    """The menu title of the default page (where a link to a page the app does not have lands)."""
    return next(p.title for p in pages if p.default)


@dataclasses.dataclass(frozen=True)
class Entry:
    """What the app shows of one settings kind (a model family's or a tool's), beside the core's entry of it.

    - ``kind``: the settings kind (:func:`safebandit_core.families.get` gives its family);
    - ``page``: its page's path relative to ``app.py`` (empty: none), and ``link_keys``: that page's widget key
      (its URL parameter) of each settings field a link to the page carries;
    - ``title``: how a model picker names it (its paper in brackets; empty: the kind);
    - ``spec``: ``module:name`` of what its page draws beyond its fields (a :class:`.model_page.Spec`; empty: no
      model page);
    - ``warmup``: the server compiles its default run before the first visitor (False where the page needs more
      than its settings, e.g. a fitted data set); ``opening``: ``module:name`` of a function of the precision giving
      the settings such a page opens with instead (prepared data), which the warm-up computes (empty: none);
    - ``ellipse``: a two-dimensional run's step-through shows the cost estimate's confidence ellipse;
    - ``draws``: what a run's shared random draws are, in the model's words (the scrub chart's caption);
    - ``panels``: ``module:name`` of its four panels in presentation mode (see :mod:`.present`); empty:
      presentation mode leaves it out.
    """

    kind: str
    page: str = ""
    title: str = ""
    spec: str = ""
    link_keys: Mapping[str, str] = dataclasses.field(default_factory=dict)
    warmup: bool = True
    opening: str = ""
    ellipse: bool = False
    draws: str = "arms, rewards and coin flips"
    panels: str = ""

    @property
    def label(self) -> str:
        """How a picker names the kind: its title, else the kind."""
        return self.title or self.kind


def _same(*fields: str) -> dict[str, str]:
    """Link keys where each field's URL parameter is its own name."""
    return {f: f for f in fields}


ENTRIES: dict[str, Entry] = {e.kind: e for e in (
    Entry("dose", "pages/dose.py", "Dose model (Safety by Design)", "safebandit_ui.specs.dose:SPEC",
          _same("tau", "delta", "kappa_r", "kappa_c", "d", "T", "seeds", "policies"), ellipse=True,
          draws="patients and noises", panels="safebandit_ui.specs.dose:present_panels"),
    Entry("nonlinear", "pages/nonlinear.py", "", "safebandit_ui.specs.nonlinear:SPEC",
          _same("size", "d", "T", "seeds", "tau", "delta", "delta_prime", "kappa_r", "kappa_c"),
          draws="patients and noises"),
    Entry("conservative", "pages/conservative.py", "Conservative bandits (One-size-fits-all)",
          "safebandit_ui.specs.conservative:SPEC",
          {**_same("K", "alpha", "T", "seeds"), "policies": "policies_cmab"},
          panels="safebandit_ui.specs.conservative:present_panels"),
    Entry("meanvar", "pages/meanvar.py", "Mean-variance bandits (One-size-fits-all)",
          "safebandit_ui.specs.meanvar:SPEC", _same("K", "alpha", "mu0", "rho", "T", "seeds", "policies"),
          panels="safebandit_ui.specs.meanvar:present_panels"),
    Entry("battery", "pages/battery.py", warmup=False),
    Entry("logged", "pages/logged.py", warmup=False, opening="safebandit_core.logged.family:opening"),
    Entry("preset", "pages/presets.py"),
    Entry("sweep", "pages/sweeps.py"),
)}
"""The app's entry of every settings kind it has a page for (the toy family of the tests adds its own)."""


def register(new: Entry) -> None:
    """Add the app's entry of a kind (one the core's registry knows, or will: the toy family registers both)."""
    if new.kind in ENTRIES:
        raise ValueError(f"the kind {new.kind!r} has an entry")
    ENTRIES[new.kind] = new


def unregister(kind: str) -> None:
    """Remove the app's entry of ``kind`` (what :func:`register` added)."""
    ENTRIES.pop(kind, None)


def entry(kind: str) -> Entry:
    """The app's entry of a settings kind (or of an older name of it); a kind with none shows as itself, with no
    page."""
    kind = families.canonical(kind)
    return ENTRIES.get(kind) or Entry(kind)


def page_of_kind(kind: str) -> str:
    """The page that takes a settings kind back (a restore, a bundle's README, a lesson's link); empty when none."""
    return entry(kind).page


def kind_of_page(path: str) -> str | None:
    """The settings kind whose page is ``path`` (None for a page of no kind)."""
    return next((e.kind for e in ENTRIES.values() if e.page == path), None)


def title_of_kind(kind: str) -> str:
    """The menu title of the page for a settings kind ("matching" when none)."""
    path = page_of_kind(kind)
    return next((p.title for p in PAGES if p.path == path), "matching")


def grouped(pages: tuple[PageSpec, ...] = PAGES) -> dict[str, list[PageSpec]]:
    """Pages by section, in :data:`SECTIONS` order, empty sections dropped."""
    unknown = sorted({p.section for p in pages} - set(SECTIONS))
    if unknown:
        raise ValueError(f"unknown section {unknown[0]!r}; use one of {SECTIONS}")
    out: dict[str, list[PageSpec]] = {}
    for section in SECTIONS:
        members = [p for p in pages if p.section == section]
        if members:
            out[section] = members
    return out


def missing_files(pages: tuple[PageSpec, ...] = PAGES) -> list[str]:
    """Paths of registered pages whose file does not exist (the tests require none)."""
    return [p.path for p in pages if not (ROOT / p.path).is_file()]


def forwarder(path: str) -> Callable[[], None]:
    """The page at a moved page's old URL: it opens ``path`` with the same query parameters (every value of a
    repeated one), so the link's settings reach the new page."""

    def forward() -> None:
        params = [(key, value) for key in st.query_params for value in st.query_params.get_all(key)]
        st.switch_page(path, query_params=params)

    return forward


FAVICON = "🛡️"
"""The browser tab's icon on every page (``app.py``'s page config): an emoji, drawn by the browser, where a page's
Material icon as the tab's would be fetched from a font server, which an offline demo machine cannot reach."""


def navigation_pages(pages: tuple[PageSpec, ...] = PAGES) -> dict[str, list[st.Page]]:
    """The ``st.navigation`` argument: ``st.Page`` objects by section; the first section also holds the hidden
    pages at the old URLs of :data:`MOVED` (those whose page is registered).

    It sets the tab's icon (:data:`FAVICON`) first: the browser takes the current page's icon for the tab unless the
    page config named one before the navigation, and a page opened alone on a fresh server registers the navigation
    before ``app.py`` has run (:func:`.shell.require_entrypoint`)."""
    st.set_page_config(page_icon=FAVICON)
    out = {section: [st.Page(p.path, title=p.title, icon=p.icon, default=p.default) for p in members]
           for section, members in grouped(pages).items()}
    paths = {p.path: p.title for p in pages}
    moved = [st.Page(forwarder(path), title=paths[path], url_path=old, visibility="hidden")
             for old, path in MOVED.items() if path in paths]
    if moved and out:
        out[next(iter(out))] += moved
    return out
