"""The app's shared UI pieces (Streamlit only, never JAX).

- :mod:`safebandit_ui.registry`: the list of pages; ``app.py`` builds the navigation from it and
  the home page its links, so adding a page is one line there;
- :mod:`safebandit_ui.shell`: the shared sidebar (device, precision, base seed) that ``app.py``
  draws on every run, and :func:`safebandit_ui.shell.current` that pages call to read it.

These helpers live outside ``pages/`` on purpose: Streamlit lists every ``pages/*.py`` as a page
whenever it falls back to its folder-based navigation, and a helper must never show up as one.
"""
