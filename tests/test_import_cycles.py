"""No two modules of engram_server import each other.

The graph is built from the source with `ast`, so it sees every import: module
level, inside functions (a local import is the usual way to hide a cycle) and
under `TYPE_CHECKING`. `from package import name` counts as importing the
submodule `package.name` when that submodule exists.
"""

from __future__ import annotations

import ast
from pathlib import Path

import engram_server

PACKAGE_ROOT = Path(engram_server.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE_ROOT.rglob("*.py")}


def _resolve_from(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """Every engram_server module `module` imports, anywhere in its source."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _resolve_from(module, path.name == "__init__.py", node)
            targets = [source]
            targets += [f"{source}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(target for target in targets if target in known)
    found.discard(module)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def test_graph_sees_local_and_relative_imports(tmp_path: Path) -> None:
    graph = import_graph()
    assert len(graph) > 50
    assert "engram_server.store.postgres" in graph["engram_server.services.recall_runtime"]
    # Imports inside a function, relative ones and `from package import module`
    # are edges too: a cycle cannot hide behind any of them.
    source = tmp_path / "a.py"
    source.write_text(
        "from . import b\n"
        "def f():\n"
        "    from .c import name\n"
        "    import engram_server.store.postgres\n"
    )
    known = {"pkg.a", "pkg.b", "pkg.c", "engram_server.store.postgres"}
    assert _imports("pkg.a", source, known) == {"pkg.b", "pkg.c", "engram_server.store.postgres"}


def test_no_two_modules_import_each_other() -> None:
    graph = import_graph()
    # A package's __init__ re-exporting its own submodules is not a cycle between
    # use cases; only pairs where neither side is the other's package count.
    pairs = sorted(
        {
            tuple(sorted((module, target)))
            for module, targets in graph.items()
            for target in targets
            if module in graph.get(target, set())
            and not target.startswith(module + ".")
            and not module.startswith(target + ".")
        }
    )
    assert pairs == [], f"modules that import each other: {pairs}"
