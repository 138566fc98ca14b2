"""``/skills``: the skills on offer, where each comes from, and what it shadows."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from ..outside_text import outside_text, visible
from ..widgets.measured_table import MeasuredTable

DESCRIPTION_CHARS = 48
"""The most of a description a row shows (the highlighted skill's shows whole below)."""
TOOLS_CHARS = 26
"""The most of the allowed tools a row shows."""
LEAST_CHARS = 10
"""The least of either a row shows, however narrow the terminal."""


def column_chars(width: int, fixed: int) -> tuple[int, int]:
    """How much of a description and of the allowed tools a row shows in a table
    ``width`` cells wide whose other columns, padding and scroll bar take ``fixed``: two
    parts of what is left to the description, one to the tools, each within its limits."""
    room = width - fixed
    description = max(LEAST_CHARS, min(DESCRIPTION_CHARS, room * 2 // 3))
    return description, max(LEAST_CHARS, min(TOOLS_CHARS, room - description))


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
    SkillsScreen #skills-title { text-style: bold; width: 1fr; }
    SkillsScreen DataTable { height: 1fr; }
    SkillsScreen #skill-detail { height: 10; color: $text-muted; }
    SkillsScreen #skills-help { color: $text-muted; width: 1fr; }
    """

    BINDINGS = [Binding("escape,q", "close", "close")]

    def __init__(self, catalog: Any) -> None:
        super().__init__()
        self.catalog = catalog
        self._chars = (DESCRIPTION_CHARS, TOOLS_CHARS)

    def compose(self) -> ComposeResult:
        catalog = self.catalog
        count = len(catalog.skills)
        with Vertical():
            yield Label(f"{count} skill{'s' if count != 1 else ''} on offer; the agent loads "
                        "one with activate_skill when a task calls for it", id="skills-title")
            yield MeasuredTable(cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="skill-detail"):
                yield Static("", id="skill-file")
            yield Label("A later source wins: bundled < yours < skill_paths < "
                        ".agent-tui/skills < the repository's skills/ · Esc close",
                        id="skills-help")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        self._fill()
        table.focus()
        self._show(0)
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Cut the rows to the table's width, so none runs off its right edge."""
        table = self.query_one(DataTable)
        if not table.size.width:
            return
        catalog = self.catalog
        names = [visible(s.name) for s in [*catalog.skills, *(s for s, _ in catalog.shadowed)]]
        sources = [s.source for s in [*catalog.skills, *(s for s, _ in catalog.shadowed)]]
        fixed = (max(map(len, ["skill", "problem", *names]))
                 + max(map(len, ["source", *sources])) + 2 * table.cell_padding * 4
                 + table.styles.scrollbar_size_vertical)
        chars = column_chars(table.size.width, fixed)
        if chars != self._chars:
            self._chars = chars
            row = table.cursor_row
            self._fill()
            table.move_cursor(row=row)

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        # The columns too: a column measured for longer cells would stay that wide.
        table.clear(columns=True)
        table.add_columns("skill", "source", "description", "allowed tools")
        description, tools = self._chars
        # Everything in these rows comes from files: literal Text, never markup.
        for skill in self.catalog.skills:
            table.add_row(outside_text(skill.name), skill.source,
                          outside_text(_cut(skill.description, description)),
                          outside_text(_cut(_granted(skill), tools)))
        for loser, winner in self.catalog.shadowed:
            shadowed = f"shadowed by the {winner.source} skill of the same name"
            if description < DESCRIPTION_CHARS:  # a narrow table: cut as the others
                shadowed = _cut(shadowed, description)
            table.add_row(outside_text(loser.name), loser.source, Text(shadowed, style="dim"), "")
        for problem in self.catalog.problems:
            table.add_row(Text("problem", style="bold red"), "",
                          outside_text(_cut(problem, description)), "")

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
