"""The layers of DESIGN.md, checked on the source: every local import is followed, transitively.

- Pages never import JAX, themselves or through a UI helper (``safebandit_ui/``) or a figure builder; they
  use the core, which uses JAX inside.
- The figure builders (``safebandit_core/viz/**``) take frames only: following every local import they
  reach no JAX and no Streamlit.
- The core never reaches Streamlit.
- The data families share their replay, fit, embedders and memo through :mod:`safebandit_core.data`: neither
  the battery experiment nor the logged-data family reaches the other's package (only the registry and the
  router know both).
- The router (:mod:`safebandit_core.cli`) imports the command modules, never the reverse: a family's command
  module reaches neither the router nor the registry (:mod:`safebandit_core.families`), and no command
  module imports the router.

An import runs the ``__init__`` of every package on its way (``safebandit_core.battery.loader`` runs
``battery/__init__.py``, which imports the battery's family and JAX), so those are followed too. The one
exception is the top-level package's ``__init__`` when an import only passes through it: every import of the
library runs it (it re-exports the registry's ``run``), so it belongs to no layer; importing it by name
(``import safebandit_core``, ``from safebandit_core import run``) follows it like any module.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from safebandit_core import cli, families

ROOT = Path(__file__).resolve().parents[2]
CORE = "safebandit_core"
UI_FILES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]


def module_name(path: Path) -> str:
    """The dotted name of a file of this repository (a package's for its ``__init__.py``)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def local_file(module: str) -> Path | None:
    """The file of a module of this repository, or None for third-party modules and names that are not modules."""
    parts = module.split(".")
    for candidate in (ROOT.joinpath(*parts).with_suffix(".py"), ROOT.joinpath(*parts, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None


def imports_of(path: Path) -> set[str]:
    """Absolute module names a file imports (relative imports resolved against its package), at any depth.

    ``from P import a`` gives ``P.a``, and ``P`` itself unless every name is a submodule of a local ``P``
    (then ``P`` is only passed through, as in ``import P.a``).
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    rel = path.relative_to(ROOT).with_suffix("")
    package = list(rel.parts[:-1])  # a module's package, or the package itself for an __init__.py
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names = [f"{mod}.{alias.name}" for alias in node.names]
            out.update(names)
            if local_file(mod) is None or not all(local_file(n) for n in names):
                out.add(mod)
    return out


def files_run_by(module: str) -> list[Path]:
    """The local files importing ``module`` runs: each package's ``__init__`` on the way, then the module's own
    file (the top-level package's ``__init__`` only when ``module`` is that package)."""
    parts = module.split(".")
    files = [local_file(".".join(parts[:i])) for i in range(2, len(parts) + 1)]
    if len(parts) == 1:
        files.insert(0, local_file(module))
    return [f for f in files if f is not None]


def reachable_imports(start: Iterable[Path], follow: Callable[[str], bool] = lambda _: True) -> dict[str, Path]:
    """Every module imported from ``start``, following the local modules ``follow`` accepts (every one by default).

    Returns imported module name -> the first file found importing it.
    """
    seen: set[Path] = set()
    found: dict[str, Path] = {}
    todo = list(start)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for mod in sorted(imports_of(path)):
            found.setdefault(mod, path)
            todo.extend(f for f in files_run_by(mod) if follow(module_name(f)))
    return found


def under(*prefixes: str) -> Callable[[str], bool]:
    """Accept the modules named ``prefix`` or below it, for each prefix."""
    return lambda mod: any(mod == p or mod.startswith(p + ".") for p in prefixes)


def offending(found: dict[str, Path], banned: str) -> list[str]:
    return sorted(f"{f.relative_to(ROOT)} imports {m}" for m, f in found.items()
                  if m == banned or m.startswith(banned + "."))


def test_ui_files_exist():
    assert (ROOT / "app.py").is_file() and (ROOT / "pages" / "dose.py").is_file()


UI_LAYERS = under("safebandit_ui", "pages", f"{CORE}.viz")


@pytest.mark.parametrize("path", UI_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_pages_never_import_jax(path):
    found = reachable_imports([path], UI_LAYERS)
    assert offending(found, "jax") == [] and offending(found, "jaxlib") == []


def test_ui_helpers_never_import_jax():
    helpers = sorted((ROOT / "safebandit_ui").glob("*.py"))
    assert helpers, "safebandit_ui/ holds the shared UI helpers"
    found = reachable_imports(helpers, UI_LAYERS)
    assert offending(found, "jax") == [] and offending(found, "jaxlib") == []


def test_core_never_reaches_streamlit():
    files = sorted((ROOT / CORE).rglob("*.py"))
    assert files
    assert offending(reachable_imports(files), "streamlit") == []


def test_figure_builders_take_frames_only():
    viz = sorted((ROOT / CORE / "viz").rglob("*.py"))
    assert len(viz) > 5
    found = reachable_imports(viz)
    assert [m for m in found if m.startswith(f"{CORE}.viz.")], "the walk reads the figure modules"
    for banned in ("jax", "jaxlib", "streamlit"):
        assert offending(found, banned) == []


DATA_FAMILIES = ("battery", "logged")
ALL_KNOWING = under(f"{CORE}.families", f"{CORE}.cli")
"""The registry and the router import every family by design; the walk between families stops at them."""


@pytest.mark.parametrize("family", DATA_FAMILIES)
def test_a_data_family_never_reaches_the_other(family):
    files = sorted((ROOT / CORE / family).rglob("*.py"))
    assert len(files) > 3
    found = reachable_imports(files, lambda mod: not ALL_KNOWING(mod))
    assert [m for m in found if m.startswith(f"{CORE}.data.")], "the walk reaches the shared data modules"
    for other in DATA_FAMILIES:
        if other != family:
            assert offending(found, f"{CORE}.{other}") == []


def test_the_shared_data_modules_reach_no_data_family():
    found = reachable_imports(sorted((ROOT / CORE / "data").rglob("*.py")), lambda mod: not ALL_KNOWING(mod))
    for family in DATA_FAMILIES:
        assert offending(found, f"{CORE}.{family}") == []


def command_modules() -> dict[str, list[str]]:
    """The command modules the router imports, by who registers them: ``family`` (the registry's families),
    ``other`` (its tools and the router's other commands)."""
    return {"family": sorted(f.cli for f in families.FAMILIES.values() if f.cli),
            "other": sorted({*(t.cli for t in families.TOOLS.values()), *cli.OTHER_COMMANDS.values()})}


@pytest.mark.parametrize("module", command_modules()["family"])
def test_a_family_command_reaches_neither_the_router_nor_the_registry(module):
    found = reachable_imports(files_run_by(module))
    assert offending(found, f"{CORE}.cli") == [] and offending(found, f"{CORE}.families") == []


@pytest.mark.parametrize("module", command_modules()["other"])
def test_no_command_module_imports_the_router(module):
    path = files_run_by(module)[-1]
    assert offending({m: path for m in imports_of(path)}, f"{CORE}.cli") == []


def test_importing_and_running_the_core_leaves_streamlit_unloaded():
    script = textwrap.dedent("""
        import sys
        import safebandit_core
        from safebandit_core import viz
        from safebandit_core import families
        from safebandit_core.dose import DoseSettings
        from safebandit_core.viz.common import by_label
        s = DoseSettings(d=2, T=20, seeds=1, policies=("hpucb",))
        run = families.run(s)
        viz.dose.regret_figure(by_label(families.tidy(run)))
        assert run.outputs["cost"].shape == (1, 1, 20)
        print("streamlit" in sys.modules, any(m.startswith("streamlit.") for m in sys.modules))
    """)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["False", "False"]


def test_boundary_checker_sees_a_transitive_import(tmp_path, monkeypatch):
    """The checker itself: a page importing a helper that imports jax is caught."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "pages").mkdir()
    (tmp_path / "safebandit_ui").mkdir()
    (tmp_path / "safebandit_ui" / "__init__.py").write_text("")
    (tmp_path / "safebandit_ui" / "helper.py").write_text("import jax.numpy as jnp\n")
    page = tmp_path / "pages" / "p.py"
    page.write_text("from safebandit_ui import helper\n")
    found = reachable_imports([page], under("safebandit_ui"))
    assert offending(found, "jax") == ["safebandit_ui/helper.py imports jax.numpy"]


def test_boundary_checker_follows_package_inits(tmp_path, monkeypatch):
    """The checker itself: a figure module importing a data module whose package ``__init__`` imports jax is
    caught (the old viz/battery.py -> battery/__init__.py -> battery/family.py -> jax); the top-level
    package's ``__init__`` is followed only when imported by name."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    top = tmp_path / "lib"
    for folder, init in ((top, "from . import model\n"), (top / "data", "from .family import FAMILY\n"),
                         (top / "viz", "")):
        folder.mkdir()
        (folder / "__init__.py").write_text(init)
    (top / "model.py").write_text("import jax\n")
    (top / "data" / "family.py").write_text("from .. import model\nFAMILY = 1\n")
    (top / "data" / "loader.py").write_text("import pandas\n")
    (top / "viz" / "plain.py").write_text("from .. import data\nfrom ..data import loader\n")
    (top / "viz" / "bad.py").write_text("from ..data.loader import read\n")
    (top / "viz" / "named.py").write_text("import lib\n")
    viz = top / "viz"
    assert offending(reachable_imports([viz / "plain.py"]), "jax") == ["lib/model.py imports jax"]
    assert offending(reachable_imports([viz / "bad.py"]), "jax") == ["lib/model.py imports jax"]
    (top / "data" / "__init__.py").write_text("")
    assert offending(reachable_imports([viz / "bad.py"]), "jax") == []
    assert offending(reachable_imports([viz / "named.py"]), "jax") == ["lib/model.py imports jax"]
