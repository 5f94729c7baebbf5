"""The import boundary of DESIGN.md: pages never import JAX, the core never imports Streamlit.

Pages may use the core (which uses JAX internally); what they must not do is import ``jax``
themselves or through a local UI helper (``app.py``, ``pages/``, ``safebandit_ui/``). The figure
builders in ``safebandit_core.viz`` (and the results helpers they use) import neither JAX nor
Streamlit themselves.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = "safebandit_core"
UI_FILES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]


def imports_of(path: Path) -> set[str]:
    """Absolute module names imported by a file (relative imports resolved against its package)."""
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
            out.add(mod)
            out.update(f"{mod}.{alias.name}" for alias in node.names)
    return out


def local_file(module: str) -> Path | None:
    """The file of a module of this repository, or None for third-party modules and names that are not modules."""
    parts = module.split(".")
    for candidate in (ROOT.joinpath(*parts).with_suffix(".py"), ROOT.joinpath(*parts, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None


def reachable_imports(start: list[Path], follow: tuple[str, ...]) -> dict[str, Path]:
    """Every module imported from ``start``, following local modules whose name starts with ``follow``.

    Returns imported module name -> the first file found importing it.
    """
    seen_files: set[Path] = set()
    found: dict[str, Path] = {}
    todo = list(start)
    while todo:
        path = todo.pop()
        if path in seen_files:
            continue
        seen_files.add(path)
        for mod in imports_of(path):
            found.setdefault(mod, path)
            target = local_file(mod)
            if target is not None and (mod.startswith(follow) or path.parent == target.parent):
                todo.append(target)
    return found


def offending(found: dict[str, Path], banned: str) -> list[str]:
    return sorted(f"{f.relative_to(ROOT)} imports {m}" for m, f in found.items()
                  if m == banned or m.startswith(banned + "."))


def test_ui_files_exist():
    assert (ROOT / "app.py").is_file() and (ROOT / "pages" / "dose.py").is_file()


@pytest.mark.parametrize("path", UI_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_pages_never_import_jax(path):
    found = reachable_imports([path], follow=("safebandit_ui", "pages"))
    assert offending(found, "jax") == [] and offending(found, "jaxlib") == []


def test_ui_helpers_never_import_jax():
    helpers = sorted((ROOT / "safebandit_ui").glob("*.py"))
    assert helpers, "safebandit_ui/ holds the shared UI helpers"
    found = reachable_imports(helpers, follow=("safebandit_ui",))
    assert offending(found, "jax") == []


def test_core_never_imports_streamlit():
    files = sorted((ROOT / CORE).rglob("*.py"))
    assert files
    bad = [f"{f.relative_to(ROOT)} imports {m}" for f in files for m in imports_of(f)
           if m == "streamlit" or m.startswith("streamlit.")]
    assert bad == []


def test_figure_builders_are_pure_plotly():
    viz = sorted((ROOT / CORE / "viz").glob("*.py"))
    assert viz
    found = reachable_imports(viz, follow=(f"{CORE}.viz", f"{CORE}.results"))
    assert offending(found, "jax") == [] and offending(found, "streamlit") == []


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
    found = reachable_imports([page], follow=("safebandit_ui",))
    assert offending(found, "jax") == ["safebandit_ui/helper.py imports jax.numpy"]
