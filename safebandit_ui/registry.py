"""The app's pages as data: ``app.py`` turns this list into ``st.navigation``, the home page into links.

To add a page, add one :class:`PageSpec` line to :data:`PAGES` (paths are relative to ``app.py``).
Sections appear in the order of :data:`SECTIONS`; a section without pages is left out. A page's URL is its file's
name; a renamed page keeps its old URL in :data:`MOVED`, so links shared before the rename still open it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

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


def page_of_kind(kind: str) -> str:
    """The page that takes a settings kind back (a restore, a bundle's README, a lesson's link): the registry's
    (:func:`safebandit_core.families.page_of`); empty when none."""
    return families.page_of(kind)


def kind_of_page(path: str) -> str | None:
    """The settings kind whose page is ``path`` (None for a page of no kind)."""
    entries = [*families.FAMILIES.values(), *families.TOOLS.values()]
    return next((e.kind for e in entries if e.page == path), None)


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
