"""``pip install .`` gives a package that runs anywhere: its dependencies, the ``safebandit`` command and the app.

The wheel is built from a copy of the repository and installed into a folder of its own; every
command then runs from another working directory with only that folder on the path, so nothing
is borrowed from the checkout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from tests.conftest import ROOT
from tests.ui import browserkit
from tests.ui.wsclient import sessions

SOURCES = ("pyproject.toml", "setup.py", "README.md", "app.py", "pages", ".streamlit",
           "safebandit_core", "safebandit_ui")


def _floors(lines: list[str]) -> dict[str, str]:
    """``name -> floor`` of requirement lines such as ``jax>=0.6`` (comments and ``-r`` lines skipped)."""
    out = {}
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            name, floor = re.fullmatch(r"([A-Za-z0-9_.\-\[\]]+)>=(\S+)", line).groups()
            out[name] = floor
    return out


def test_the_package_declares_the_same_floors_as_requirements_txt() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert _floors(project["dependencies"]) == _floors((ROOT / "requirements.txt").read_text().splitlines())
    assert project["scripts"] == {"safebandit": "safebandit_ui.command:main"}
    assert set(project["optional-dependencies"]) == {"cuda12", "cuda13"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, Path]:
    """The wheel built from a copy of the repository, installed into ``site/`` (its command in ``site/bin``)."""
    base = tmp_path_factory.mktemp("install")
    src = base / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        copy = shutil.copytree if path.is_dir() else shutil.copyfile
        copy(path, src / name, **({"ignore": shutil.ignore_patterns("__pycache__")} if path.is_dir() else {}))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(base / "dist"), "."],
                   cwd=src, check=True, capture_output=True)
    wheel = next((base / "dist").glob("safebandit-*.whl"))
    site = base / "site"
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return {"site": site, "cwd": elsewhere, "command": site / "bin" / "safebandit"}


def _env(site: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, "PYTHONPATH": str(site), "SAFEBANDIT_WARMUP": "0"}


def test_the_installed_command_runs_outside_the_repository(installed) -> None:
    run = subprocess.run([str(installed["command"]), "dose", "--T", "200", "--seeds", "1", "--json"],
                         cwd=installed["cwd"], env=_env(installed["site"]), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["kind"] == "dose"
    helped = subprocess.run([str(installed["command"]), "--help"], cwd=installed["cwd"], env=_env(installed["site"]),
                            capture_output=True, text=True, timeout=300)
    assert helped.returncode == 0 and "usage: safebandit" in helped.stdout and "app" in helped.stdout


def test_safebandit_app_serves_the_dashboard_from_the_installed_package(installed, tmp_path) -> None:
    proc, url = browserkit.start(lambda port: [str(installed["command"]), "app", "--server.port", str(port),
                                               "--server.address", "127.0.0.1"],
                                 tmp_path / "server.log", installed["cwd"], _env(installed["site"]), wait_s=180)
    try:
        (home,) = sessions(url, [""], timeout_s=240)  # the home page: the packaged app.py, sidebar and pages/home.py
        assert home.finished and not home.exceptions and home.elements > 3, (home, (tmp_path / "server.log")
                                                                              .read_text(errors="replace")[-3000:])
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert Path(installed["site"] / "safebandit_ui" / "_app" / ".streamlit" / "config.toml").is_file()
