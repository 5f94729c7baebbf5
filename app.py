"""safebandit lab: the entry point. It only routes: page config, navigation, the shared sidebar.

Pages come from :data:`safebandit_ui.registry.PAGES` (add a page there, one line); the shared
sidebar (device, precision, base seed) is drawn here on every run, so it is the same on every page.
"""

import streamlit as st

from safebandit_ui import registry, shell

st.set_page_config(page_title="safebandit lab", page_icon=":material/health_and_safety:", layout="wide")

navigation = st.navigation(registry.navigation_pages())
shell.render_sidebar()
navigation.run()
