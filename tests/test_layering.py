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
