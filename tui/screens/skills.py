"""``/skills``: the skills on offer, where each comes from, and what it shadows."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from ..outside_text import outside_text
from ..widgets.measured_table import MeasuredTable

DESCRIPTION_CHARS = 48
TOOLS_CHARS = 26


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _granted(skill: Any) -> str:
    tools = ", ".join(skill.allowed_tools)
    if tools and not skill.may_grant:
        tools += " (not granted: untrusted project)"
    return tools


class SkillsScreen(ModalScreen[None]):
    """Every skill of the session's catalog (``core.skills.SkillCatalog``): one row each
    (name, source, allowed tools, description), then the skills another one shadows, then
    the files that could not be loaded. The highlighted skill's file shows below."""

    DEFAULT_CSS = """
    SkillsScreen { align: center middle; }
    SkillsScreen > Vertical {
        width: 95%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    SkillsScreen #skills-title { text-style: bold; }
    SkillsScreen DataTable { height: 1fr; }
    SkillsScreen #skill-detail { height: 10; color: $text-muted; }
    SkillsScreen #skills-help { color: $text-muted; }
    """

    BINDINGS = [Binding("escape,q", "close", "close")]

    def __init__(self, catalog: Any) -> None:
        super().__init__()
        self.catalog = catalog

    def compose(self) -> ComposeResult:
        catalog = self.catalog
        count = len(catalog.skills)
        with Vertical():
            yield Label(f"{count} skill{'s' if count != 1 else ''} on offer; the agent loads "
                        "one with activate_skill when a task calls for it", id="skills-title")
            table: DataTable[str | Text] = MeasuredTable(cursor_type="row", zebra_stripes=True)
            table.add_columns("skill", "source", "description", "allowed tools")
            yield table
            with VerticalScroll(id="skill-detail"):
                yield Static("", id="skill-file")
            yield Label("A later source wins: bundled < yours < skill_paths < "
                        ".agent-tui/skills < the repository's skills/ · Esc close",
                        id="skills-help")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # Everything in these rows comes from files: literal Text, never markup.
        for skill in self.catalog.skills:
            table.add_row(outside_text(skill.name), skill.source,
                          outside_text(_cut(skill.description, DESCRIPTION_CHARS)),
                          outside_text(_cut(_granted(skill), TOOLS_CHARS)))
        for loser, winner in self.catalog.shadowed:
            table.add_row(outside_text(loser.name), loser.source,
                          Text(f"shadowed by the {winner.source} skill of the same name",
                               style="dim"), "")
        for problem in self.catalog.problems:
            table.add_row(Text("problem", style="bold red"), "",
                          outside_text(_cut(problem, DESCRIPTION_CHARS)), "")
        table.focus()
        self._show(0)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(event.cursor_row)

    def _show(self, row: int) -> None:
        """The highlighted row in full below the table: a skill's file, description,
        allowed tools and instructions; a problem's whole message."""
        skills = list(self.catalog.skills) + [loser for loser, _ in self.catalog.shadowed]
        detail = self.query_one("#skill-file", Static)
        if 0 <= row < len(skills):
            skill = skills[row]
            granted = f"\nallowed tools: {_granted(skill)}" if skill.allowed_tools else ""
            detail.update(outside_text(f"{skill.path}\n{skill.description}{granted}\n\n"
                                       f"{skill.body.strip()[:1500]}"))
        elif 0 <= row - len(skills) < len(self.catalog.problems):
            detail.update(outside_text(self.catalog.problems[row - len(skills)]))
        else:
            detail.update("")

    def action_close(self) -> None:
        self.dismiss(None)
