"""Where the app's entry file lives: the repository in a checkout, or the copy inside an installed package.

``app.py``, ``pages/`` and ``.streamlit/config.toml`` sit at the repository's top level, where
``make run`` serves them. A wheel built from the repository carries a copy of them under
``safebandit_ui/_app`` (``setup.py`` puts it there), so ``safebandit app`` serves the same pages
from an installed package, anywhere.
"""

from __future__ import annotations

from pathlib import Path

PACKAGED = Path(__file__).resolve().parent / "_app"
"""The copy of ``app.py``, ``pages/`` and ``.streamlit/`` inside an installed package."""
CHECKOUT = Path(__file__).resolve().parent.parent
"""The repository's top level, when the package runs from a checkout."""


def app_root() -> Path:
    """The folder holding ``app.py`` and ``pages/``: the checkout's top level first, else the packaged copy."""
    if (CHECKOUT / "app.py").is_file() and (CHECKOUT / "pages").is_dir():
        return CHECKOUT
    return PACKAGED
