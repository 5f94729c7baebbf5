"""safebandit lab: the entry point. It only routes: page config, navigation, the shared sidebar.

Every session runs this script and its page in a thread of its own, so the first visitors of a fresh server import
the library at the same moment. That is safe whatever is imported first: no package ``__init__`` imports a module
and the library's imports form no cycle (tests/core/test_boundaries.py), so no two threads can wait on each other's
half-run module. The persistent compile cache and a background warm-up of every page's
default shapes start with the server (:mod:`safebandit_ui.warmup`), and when the server stops, its process waits for
the background work and every session's run in flight (:mod:`safebandit_ui.stopping`) so it exits 0. Pages come from
:data:`safebandit_ui.registry.PAGES` (add a page there, one line); the shared sidebar is drawn
here on every run, so it is the same on every page; above the page, one note names any value of the
link that a control could not take, any parameter the page does not read and a page the app does not have
(:mod:`safebandit_ui.links`).
"""

import streamlit as st

from safebandit_ui import stopping

stopping.session_thread()  # exit waits for this run (safebandit_ui.stopping)

from safebandit_ui import links, registry, shell, warmup  # noqa: E402

st.set_page_config(page_title="safebandit lab", page_icon="🛡️", layout="wide")
warmup.start()

navigation = st.navigation(registry.navigation_pages())
links.notes_slot()  # before any widget: where values a link gets wrong are named
links.missing_page(registry.home_title())
shell.render_sidebar()
navigation.run()
links.unread()  # the link's parameters the page did not read
