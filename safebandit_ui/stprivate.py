"""Every private Streamlit call the app makes, in one place, behind a check of the installed version.

Streamlit has no public call for five things the app needs:

- amending the URL snapshot a bound widget is seeded from (:mod:`safebandit_ui.links` drops or rewrites a link's
  value before the widget reads it): the query parameters' ``_initial_query_params``, ``_query_params`` and
  ``_send_query_param_msg``;
- telling one script run from the next and a fragment's rerun from a whole run (where a link's note goes): the
  script run context's ``cursors`` and ``fragment_ids_this_run``;
- the running page's file (the presentation switch names the page's model): ``pages_manager`` and
  ``page_script_hash``;
- whether Streamlit runs a page file on its own, outside ``app.py`` (``PagesManager.uses_pages_directory``);
- the page a run asked for when navigation found none such and ran the default page (a link's note names it):
  ``PagesManager.intended_page_script_hash`` and ``intended_page_name``.

The module checks, on import, that the installed Streamlit is a release these were read from (:data:`TESTED`) and
that every name above exists; anything else raises :class:`StreamlitChanged` naming what moved, so an upgrade
fails loudly at the first page instead of silently dropping a link's note. tests/ui/test_stprivate.py checks the
same on every run of the suite.
"""

from __future__ import annotations

from collections.abc import Hashable

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.state.query_params import QueryParams
from streamlit.runtime.state.session_state_proxy import get_session_state

TESTED = ((1, 60), (1, 69))
"""The Streamlit releases (major, minor), both ends included, whose internals this module was read from."""
QUERY_FIELDS = ("_initial_query_params", "_query_params", "_send_query_param_msg", "remove_param")
CONTEXT_FIELDS = ("cursors", "fragment_ids_this_run", "pages_manager", "page_script_hash")
HINT_FLAG = "_use_warning_has_been_displayed"
PAGES_FIELDS = ("intended_page_script_hash", "intended_page_name")


class StreamlitChanged(RuntimeError):
    """The installed Streamlit is not one whose internals the app was written against."""


def version() -> tuple[int, int]:
    """The installed Streamlit's (major, minor)."""
    major, minor = st.__version__.split(".")[:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


def problems() -> list[str]:
    """What does not hold in the installed Streamlit (empty when every private name is where it is expected)."""
    found = []
    low, high = TESTED
    if not low <= version() <= high:
        found.append(f"Streamlit {st.__version__} is outside the releases {low[0]}.{low[1]}–{high[0]}.{high[1]}")
    qp = QueryParams()
    found += [f"QueryParams.{name} is gone" for name in QUERY_FIELDS if not hasattr(qp, name)]
    if not all(isinstance(getattr(qp, n, None), dict) for n in QUERY_FIELDS[:2]):
        found.append("QueryParams' URL snapshot is no longer a dict")
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    fields = set(getattr(ScriptRunContext, "__dataclass_fields__", {})) | set(dir(ScriptRunContext))
    found += [f"ScriptRunContext.{name} is gone" for name in CONTEXT_FIELDS if name not in fields]
    found += [f"PagesManager.{name} is gone" for name in PAGES_FIELDS if not hasattr(PagesManager, name)]
    if not isinstance(getattr(PagesManager, "uses_pages_directory", None), (bool, type(None))):
        found.append("PagesManager.uses_pages_directory is no longer a flag")
    from streamlit import delta_generator

    if not isinstance(getattr(delta_generator, HINT_FLAG, None), bool):
        found.append(f"delta_generator.{HINT_FLAG} is gone")
    return found


def check() -> None:
    """Raise :class:`StreamlitChanged` when :func:`problems` finds anything."""
    found = problems()
    if found:
        raise StreamlitChanged("safebandit needs these Streamlit internals: " + "; ".join(found)
                               + ". Install a release the app supports (requirements.txt).")


def run_token() -> Hashable | None:
    """An object that stays the same through one script run and changes with the next (None outside a run)."""
    ctx = get_script_run_ctx()
    return ctx.cursors if ctx else None


def in_fragment() -> bool:
    """Whether this is a fragment's rerun, not a run of the whole page."""
    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)


def page_script() -> str | None:
    """The running page's script path as navigation registered it; None outside a run or before navigation."""
    ctx = get_script_run_ctx()
    info = ctx.pages_manager.get_pages().get(ctx.page_script_hash) if ctx else None
    return info.get("script_path") or None if info else None


def runs_page_alone() -> bool:
    """Whether Streamlit is running a page file on its own, as an old-style page folder (no ``st.navigation`` yet)."""
    return bool(getattr(PagesManager, "uses_pages_directory", False))


def page_not_found() -> str | None:
    """The page this run asked for when navigation has no such page and runs the default one instead: its URL path
    (``no_such_page``; empty when asked by an id, as a stale menu link does); None when it was found, or none asked."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return None
    manager = ctx.pages_manager
    pages = manager.get_pages()
    asked_id, asked_name = manager.intended_page_script_hash, manager.intended_page_name
    if asked_id:
        return None if asked_id in pages else asked_name or ""
    if asked_name:
        return None if any(p.get("url_pathname") == asked_name for p in pages.values()) else asked_name
    return None


def skip_direct_run_hint() -> None:
    """Tell Streamlit its hint for a script started without ``streamlit run`` has been shown: the server always
    serves through it, and the hint's check costs the first visitor 0.3–0.4 s."""
    from streamlit import delta_generator

    setattr(delta_generator, HINT_FLAG, True)


def runtime_exists() -> bool:
    """Whether Streamlit's runtime (a server, or AppTest's) has started in this process."""
    from streamlit import runtime

    return runtime.exists()


def link_names() -> list[str]:
    """The parameter names in the URL snapshot the widgets are seeded from."""
    with get_session_state().query_params() as qp:
        return list(qp._initial_query_params)


def link_values(key: str) -> list[str] | None:
    """The values the snapshot gives ``key`` (what a widget bound to it would read now), or None if it has none."""
    with get_session_state().query_params() as qp:
        values = qp._initial_query_params.get(key)
    return None if values is None else list(values)


def set_link(key: str, values: list[str]) -> None:
    """Put ``values`` (none: remove it) as the link's ``key``, both in the browser's URL and in the snapshot."""
    with get_session_state().query_params() as qp:
        if values:
            qp._initial_query_params[key] = list(values)
            qp._query_params[key] = values[0] if len(values) == 1 else list(values)
            qp._send_query_param_msg()
        else:
            qp._initial_query_params.pop(key, None)
            qp.remove_param(key)


check()
