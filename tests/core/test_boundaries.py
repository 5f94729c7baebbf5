"""The layers of DESIGN.md, checked on the source: every local import is followed, transitively.

- Pages never import JAX, themselves or through a UI helper (``safebandit_ui/``) or a figure builder; they
  use the core, which uses JAX inside.
- The figure builders (``safebandit_core/viz/**``) take frames only: following every local import they
  reach no JAX and no Streamlit.
- The core never reaches Streamlit, and names nothing of the app: no string in its code (docstrings aside) names
  a module of ``safebandit_ui`` or a page file, so what the app shows of a kind lives in the app's registry.
- The data families share their replay, fit, embedders and memo through :mod:`safebandit_core.data`: neither
  the battery experiment nor the logged-data family reaches the other's package (only the registry and the
  router know both).
- The router (:mod:`safebandit_core.cli`) imports the command modules, never the reverse: a family's command
  module reaches neither the router nor the registry (:mod:`safebandit_core.families`), and no command
  module imports the router.

An import runs the ``__init__`` of every package on its way, so those are followed too; no package ``__init__``
imports a local module when it runs (its re-exported names are imported on first use, from the modules its
``_EXPORTS`` table names, which the walk follows as the import that asks for them).

- Concurrent first imports cannot deadlock: no ``__init__`` imports a local module other than the packages above it,
  and the imports that run when a module runs (those at its top level, not those inside its functions) form no
  cycle, so two threads importing at once never each hold a module the other waits for
  (tests/core/test_import_race.py races them).
- A run never reaches a figure: the registry of families and every module it imports reach no module of
  ``safebandit_core/viz``.
"""

from __future__ import annotations

import ast
import graphlib
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator
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


def exported(module: str) -> str | None:
    """The local module a package's lazily re-exported name comes from (``safebandit_core.dose.DoseSettings`` ->
    ``safebandit_core.dose.settings``, from the package's ``_EXPORTS`` table), or None."""
    package, _, name = module.rpartition(".")
    init = local_file(package)
    if not package or init is None or init.name != "__init__.py":
        return None
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["_EXPORTS"]:
            where = ast.literal_eval(node.value).get(name)
            if where is None:
                return None
            relative = where.partition(":")[0]
            dots = len(relative) - len(relative.lstrip("."))
            base = package.split(".")[: len(package.split(".")) - dots + 1]
            return ".".join(base + [relative.lstrip(".")])
    return None


def _at_import(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` that run when the module runs: not those in functions, nor under
    ``if TYPE_CHECKING:``."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _at_import(node.orelse)
            continue
        yield node
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _at_import([n for n in inner if isinstance(n, (ast.stmt, ast.ExceptHandler))])


def imports_of(path: Path, at_import: bool = False) -> set[str]:
    """Absolute module names a file imports (relative imports resolved against its package), at any depth, or with
    ``at_import`` only those that run when the module does (:func:`_at_import`).

    ``from P import a`` gives ``P.a``, and ``P`` itself unless every name is a submodule of a local ``P``
    (then ``P`` is only passed through, as in ``import P.a``); a name ``P`` re-exports lazily also gives the module
    it comes from (:func:`exported`).
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    rel = path.relative_to(ROOT).with_suffix("")
    package = list(rel.parts[:-1])  # a module's package, or the package itself for an __init__.py
    out: set[str] = set()
    for node in _at_import(tree.body) if at_import else ast.walk(tree):
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
            out.update(filter(None, map(exported, names)))
            if local_file(mod) is None or not all(local_file(n) for n in names):
                out.add(mod)
    return out


def files_run_by(module: str) -> list[Path]:
    """The local files importing ``module`` runs: each package's ``__init__`` on the way, then the module's own
    file."""
    parts = module.split(".")
    files = [local_file(".".join(parts[:i])) for i in range(1, len(parts) + 1)]
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


def code_strings(path: Path) -> Iterator[str]:
    """The string constants of a module's code, its docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.value


APP_NAMES = ("safebandit_ui", "pages/")


def test_the_core_names_nothing_of_the_app():
    named = [(str(path.relative_to(ROOT)), text) for path in sorted((ROOT / CORE).rglob("*.py"))
             for text in code_strings(path) if any(name in text for name in APP_NAMES)]
    assert named == []


def test_the_app_names_check_sees_a_page_in_code_but_not_in_a_docstring(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('"""Read by ``safebandit_ui.registry``."""\nPAGE = "pages/dose.py"\n')
    assert [t for t in code_strings(module) if any(n in t for n in APP_NAMES)] == ["pages/dose.py"]


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
        from safebandit_core import families
        from safebandit_core.dose import DoseSettings
        from safebandit_core.viz import dose as vd
        from safebandit_core.viz.common import by_label
        s = DoseSettings(d=2, T=20, seeds=1, policies=("hpucb",))
        run = safebandit_core.run(s)
        vd.regret_figure(by_label(families.tidy(run)))
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
    caught (the old viz/battery.py -> battery/__init__.py -> battery/family.py -> jax), and so is one importing a
    name the package re-exports lazily from a module that imports jax."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    top = tmp_path / "lib"
    for folder, init in ((top, ""), (top / "data", "from .family import FAMILY\n"), (top / "viz", "")):
        folder.mkdir()
        (folder / "__init__.py").write_text(init)
    (top / "model.py").write_text("import jax\n")
    (top / "data" / "family.py").write_text("from .. import model\nFAMILY = 1\n")
    (top / "data" / "loader.py").write_text("import pandas\n")
    (top / "viz" / "plain.py").write_text("from .. import data\nfrom ..data import loader\n")
    (top / "viz" / "bad.py").write_text("from ..data.loader import read\n")
    (top / "viz" / "lazy.py").write_text("from ..data import FAMILY\n")
    viz = top / "viz"
    assert offending(reachable_imports([viz / "plain.py"]), "jax") == ["lib/model.py imports jax"]
    assert offending(reachable_imports([viz / "bad.py"]), "jax") == ["lib/model.py imports jax"]
    (top / "data" / "__init__.py").write_text('_EXPORTS = {"FAMILY": ".family"}\n')
    assert offending(reachable_imports([viz / "bad.py"]), "jax") == []
    assert offending(reachable_imports([viz / "plain.py"]), "jax") == []
    assert offending(reachable_imports([viz / "lazy.py"]), "jax") == ["lib/model.py imports jax"]


PACKAGES = ("safebandit_core", "safebandit_ui")


def library_files() -> list[Path]:
    return sorted(f for pkg in PACKAGES for f in (ROOT / pkg).rglob("*.py"))


def import_graph(files: Iterable[Path]) -> dict[str, set[str]]:
    """Module -> the local modules that run while it runs (its imports at import time, the packages on their way,
    the modules of lazily re-exported names) and its own package (imported while the module's import waits)."""
    graph: dict[str, set[str]] = {}
    for path in files:
        name = module_name(path)
        edges = {module_name(f) for mod in imports_of(path, at_import=True) for f in files_run_by(mod)}
        parent = name.rpartition(".")[0] if path.name != "__init__.py" else ".".join(name.split(".")[:-1])
        graph[name] = (edges | ({parent} if parent else set())) - {name}
    return graph


def cycle_in(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as the modules along it, or [] when it has none."""
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as err:
        return list(err.args[1])
    return []


@pytest.mark.parametrize("init", [f for f in library_files() if f.name == "__init__.py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_package_init_imports_a_module_of_the_library(init):
    """A package ``__init__`` imports only the packages above it (already run): never a module of its own package,
    so importing one of its modules never runs another one first."""
    package = module_name(init)
    above = {".".join(package.split(".")[:i]) for i in range(1, package.count(".") + 1)}
    local = {m for m in imports_of(init, at_import=True) if local_file(m) is not None}
    assert local <= above, f"{init.relative_to(ROOT)} imports {sorted(local - above)}"


def test_the_library_imports_form_no_cycle():
    graph = import_graph(library_files())
    assert len(graph) > 60 and graph["safebandit_ui.model_page"], "the graph holds the library's modules"
    assert cycle_in(graph) == []


def test_every_module_using_jax_turns_float64_on_first():
    """Each module that imports JAX also imports :mod:`safebandit_core.device` (which turns float64 on), itself or
    through another module: no package ``__init__`` does it for them."""
    graph = import_graph(library_files())

    def reaches(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    using = [module_name(f) for f in library_files()
             if any(m.split(".")[0] == "jax" for m in imports_of(f, at_import=True))]
    assert f"{CORE}.linalg" in using
    assert [m for m in using if m != f"{CORE}.device" and f"{CORE}.device" not in reaches(m)] == []


def test_a_run_never_reaches_a_figure():
    """The registry of families and every module it imports (every family's settings, policies, scan) import no
    figure module: a figure module may use the core, never the reverse."""
    found = reachable_imports(files_run_by(f"{CORE}.families"))
    assert [m for m in found if m.startswith(f"{CORE}.dose.nonlinear.")], "the walk reaches the families"
    assert offending(found, f"{CORE}.viz") == []


def test_cycle_checker_sees_a_cycle_through_a_package_init(tmp_path, monkeypatch):
    """The checker itself: an ``__init__`` importing its own module, which another module of the package reaches
    through its package, is a cycle; the same re-export made lazy is none."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    top = tmp_path / "lib"
    top.mkdir()
    (top / "__init__.py").write_text("from .a import A\n")
    (top / "a.py").write_text("from .b import B\nA = 1\n")
    (top / "b.py").write_text("B = 2\n")
    files = sorted(top.glob("*.py"))
    assert set(cycle_in(import_graph(files))) >= {"lib", "lib.a"}
    (top / "__init__.py").write_text('_EXPORTS = {"A": ".a"}\n')
    (top / "c.py").write_text("from lib import A\n")
    graph = import_graph(sorted(top.glob("*.py")))
    assert cycle_in(graph) == [] and "lib.a" in graph["lib.c"]
