"""The shape DESIGN.md promises: the engine is UI-free and litellm has one door."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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


@pytest.mark.parametrize("folder", ["core", "tools"])
def test_core_and_tools_never_import_tui(folder: str):
    """The engine and its tools know no front end: no import of tui/, relative or absolute,
    lazy or not."""
    offenders = {str(path.relative_to(ROOT)): sorted(tui) for path in sources(folder)
                 if (tui := {m for m in _package_imports(path)
                             if m == "agent_tui.tui" or m.startswith("agent_tui.tui.")})}
    assert offenders == {}


def test_only_the_litellm_provider_imports_litellm():
    allowed = ROOT / "core" / "providers" / "litellm.py"
    offenders = [str(p.relative_to(ROOT)) for p in sources("core", "tools", "tui")
                 if p != allowed and any(m.split(".")[0] == "litellm"
                                         for m in imported_modules(p))]
    assert offenders == []


def _package_imports(path: Path) -> set[str]:
    """The agent_tui names ``path`` imports, lazily or not, relative or absolute: each module,
    and for ``from X import y`` also ``X.y``, which is a module when ``y`` is a submodule."""
    relative = path.relative_to(ROOT).with_suffix("")
    package = ["agent_tui", *relative.parts[:-1]]  # a module's package, or __init__'s own
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.startswith("agent_tui.")}


def _module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(("agent_tui", *parts))


PACKAGES = ("core", "tools", "tui", "themes")


def test_no_import_cycles_anywhere():
    """A module never imports, through any chain, a module that imports it (lazy and
    TYPE_CHECKING imports included: a cycle hidden in a function is still a cycle)."""
    modules = {_module_name(path): _package_imports(path) for path in sources(*PACKAGES)}
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


TOOLS_PUBLIC_FACE = {"agent_tui.tools.base", "agent_tui.tools.registry", "agent_tui.tools.names"}
"""What core may import from tools: the framework, the registry and the tool names."""

ASSEMBLY = ROOT / "core" / "runtime"
"""core/runtime/ puts an agent together with its tools (the builtin ones, the discovered
ones, the MCP servers'): the one part of core that reaches every tool."""


@pytest.mark.parametrize("path", [p for p in sources("core") if ASSEMBLY not in p.parents],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_core_reaches_tools_only_through_their_public_face(path: Path):
    tools_modules = {_module_name(p) for p in sources("tools")}
    reached = _package_imports(path) & tools_modules
    assert reached <= TOOLS_PUBLIC_FACE, sorted(reached - TOOLS_PUBLIC_FACE)


MAX_MODULE_LINES = 600
"""A module longer than this holds more than one idea; split it by idea."""

MAX_APP_LINES = 450
"""tui/app.py is the Textual App only: chrome, start-up, routing, the open sessions."""


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_no_module_over_600_lines():
    long = {str(path.relative_to(ROOT)): lines
            for path in sources("core", "tools", "tui", "skills")
            if (lines := _lines(path)) > MAX_MODULE_LINES}
    assert long == {}, f"modules over {MAX_MODULE_LINES} lines; split them by idea"


def test_the_textual_app_stays_under_450_lines():
    lines = _lines(ROOT / "tui" / "app.py")
    assert lines < MAX_APP_LINES, (
        f"tui/app.py has {lines} lines; what is not chrome, start-up or routing belongs in "
        "tui/workbench/ or a screen")
