"""The shape DESIGN.md promises: the engine is UI-free and litellm has one door."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def sources(*folders: str) -> list[Path]:
    return [p for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))]


def test_core_and_tools_never_import_textual():
    offenders = [str(p.relative_to(ROOT)) for p in sources("core", "tools")
                 if any(m.split(".")[0] == "textual" for m in imported_modules(p))]
    assert offenders == []


def test_only_the_litellm_provider_imports_litellm():
    allowed = ROOT / "core" / "providers" / "litellm.py"
    offenders = [str(p.relative_to(ROOT)) for p in sources("core", "tools", "tui")
                 if p != allowed and any(m.split(".")[0] == "litellm"
                                         for m in imported_modules(p))]
    assert offenders == []


def _package_imports(path: Path) -> set[str]:
    """The agent_tui modules ``path`` imports, lazily or not, relative or absolute."""
    relative = path.relative_to(ROOT).with_suffix("")
    package = ["agent_tui", *relative.parts[:-1]]  # a module's package, or __init__'s own
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
                if node.module is None:
                    found.update(f"{module}.{alias.name}" for alias in node.names)
                    continue
            else:
                module = node.module or ""
            found.add(module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.startswith("agent_tui.")}


def test_core_has_no_import_cycles():
    """A module never imports, through any chain, a module that imports it (lazy imports
    included: a cycle hidden in a function is still a cycle)."""
    modules: dict[str, set[str]] = {}
    for path in sources("core"):
        relative = path.relative_to(ROOT).with_suffix("")
        parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
        modules[".".join(("agent_tui", *parts))] = _package_imports(path)
    graph = {name: {m for m in imports if m in modules and m != name}
             for name, imports in modules.items()}

    def reaches(start: str, goal: str) -> bool:
        seen, stack = set(), [start]
        while stack:
            name = stack.pop()
            if name == goal:
                return True
            if name not in seen:
                seen.add(name)
                stack.extend(graph[name])
        return False

    cycles = sorted(f"{a} <-> {b}" for a in graph for b in graph[a] if a < b and reaches(b, a))
    assert cycles == []
