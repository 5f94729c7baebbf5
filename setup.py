"""Packaging hook: the wheel carries ``app.py``, ``pages/`` and ``.streamlit/`` as ``safebandit_ui/_app``.

They live at the repository's top level (where ``make run`` serves them); copying them into the
package at build time lets ``safebandit app`` serve the dashboard from an installed package.
Everything else about the package is in ``pyproject.toml``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
PAGES = (p.relative_to(HERE).as_posix() for p in sorted(HERE.glob("pages/*.py")))
APP_FILES = ("app.py", ".streamlit/config.toml", *PAGES)


class BuildWithApp(build_py):
    """``build_py`` that also copies the app's entry file, pages and Streamlit config into the package."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "safebandit_ui" / "_app"
        for name in APP_FILES:
            dest = target / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(HERE / name, dest)


setup(cmdclass={"build_py": BuildWithApp})
