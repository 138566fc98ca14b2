"""The settings tables of the README and of the configuration doc, generated from the one
declaration of every setting (:class:`~agent_tui.core.setting_fields.SettingFields`).

``python3 -m agent_tui.core.setting_docs`` rewrites both tables in place; a test checks the
committed ones are what the declaration gives.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .setting_fields import SETTINGS, SettingSpec
from .text.generated_part import rewrite_parts, with_part

BEGIN = "<!-- settings table: generated from core/setting_fields.py by python3 -m agent_tui.core.setting_docs -->"
END = "<!-- end of settings table -->"

ROOT = Path(__file__).resolve().parent.parent
FILES_WITH_THE_TABLE = ("README.md", "tools/docs/configuration.md")
"""The files (from the repository's root) that hold the table between :data:`BEGIN` and
:data:`END`."""


def _cell(text: str) -> str:
    """``text`` safe in a Markdown table cell: no column breaks, no emphasis, no tags."""
    return text.replace("|", "\\|").replace("*", "\\*").replace("<", "&lt;")


def _default(spec: SettingSpec) -> str:
    value: Any = spec.kind.default
    if value is None:
        return "—"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, tuple):
        return "`[]`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{value}`"


def _flag(spec: SettingSpec) -> str:
    if spec.flag is None:
        return ""
    metavar = spec.flag.metavar or ""
    if not metavar and spec.kind.type == "choice":
        metavar = "{" + ",".join(spec.kind.choices) + "}"
    elif not metavar and spec.kind.type != "bool":
        metavar = spec.name.upper()
    return ", ".join(f"`{name} {metavar}`" if metavar else f"`{name}`"
                     for name in spec.flag.names)


def settings_table() -> str:
    """Every setting as a Markdown table: its key, default, flag and meaning; ✱ marks the
    keys an untrusted project's own file may not set."""
    rows = ["| Setting | Default | Flag | What it does |", "|---|---|---|---|"]
    for spec in SETTINGS.values():
        gated = " ✱" if spec.trust_gated else ""
        rows.append(f"| `{spec.name}`{gated} | {_default(spec)} | {_flag(spec)} | "
                    f"{_cell(spec.description)} |")
    return "\n".join(rows)


def with_table(text: str) -> str:
    """``text`` with the part between :data:`BEGIN` and :data:`END` replaced by the table.

    Raises:
        ValueError: ``text`` has no such part.
    """
    return with_part(text, BEGIN, END, settings_table())


def main() -> int:
    """Rewrite the tables in :data:`FILES_WITH_THE_TABLE`; 0."""
    return rewrite_parts((ROOT / name for name in FILES_WITH_THE_TABLE), BEGIN, END, settings_table(),
                         "settings table")


if __name__ == "__main__":
    raise SystemExit(main())
