"""``/mcp``: each MCP server's state, its tools, and reconnect or disable."""

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

LOG_MESSAGES_SHOWN = 20
"""The server's latest log messages shown under its tools (all are in its log file)."""

STATE_STYLES = {"ready": "green", "starting": "yellow", "failed": "bold red",
                "disabled": "dim"}


class McpScreen(ModalScreen[None]):
    """The MCP servers of the session (``core.mcp.McpManager``): one row each with its
    transport, state and tool count; below, the highlighted server's tools, its latest log
    messages, or its error and the end of its log. ``r`` reconnects it, ``d`` disables it,
    Esc closes."""

    DEFAULT_CSS = """
    McpScreen { align: center middle; }
    McpScreen > Vertical {
        width: 95%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    McpScreen #mcp-title { text-style: bold; width: 1fr; }
    McpScreen DataTable { height: auto; max-height: 12; }
    McpScreen #mcp-detail { height: 1fr; color: $text-muted; }
    McpScreen #mcp-help { color: $text-muted; width: 1fr; }
    """

    BINDINGS = [
        Binding("r", "reconnect", "reconnect"),
        Binding("d", "disable", "disable"),
        Binding("escape,q", "close", "close"),
    ]

    def __init__(self, manager: Any, warnings: list[str] | None = None) -> None:
        super().__init__()
        self.manager = manager
        self.warnings = list(warnings or [])
        self._names: list[str] = []
        self._log_count_shown = 0

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("", id="mcp-title")
            table: DataTable[str | Text] = MeasuredTable(cursor_type="row", zebra_stripes=True)
            table.add_columns("server", "transport", "state", "tools")
            yield table
            with VerticalScroll(id="mcp-detail"):
                yield Static("", id="mcp-server")
            yield Label("r reconnect · d disable · Esc close · tools are mcp__SERVER__TOOL; "
                        "allow one server's with the rule mcp__SERVER__*", id="mcp-help")

    def on_mount(self) -> None:
        self.refresh_servers()
        self.query_one(DataTable).focus()
        self.set_interval(1.0, self._new_log_messages)

    def _new_log_messages(self) -> None:
        """Redraw the highlighted server once it has sent log messages since."""
        name = self._selected()
        server = self.manager.servers.get(name) if name is not None else None
        if server is not None and server.log_count != self._log_count_shown:
            self._show(self.query_one(DataTable).cursor_row)

    def refresh_servers(self) -> None:
        """Redraw every server's row (the manager calls back on each change of state)."""
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        servers = list(self.manager.servers.values()) if self.manager else []
        self._names = [server.name for server in servers]
        for server in servers:
            table.add_row(outside_text(server.name), server.config.transport,
                          Text(server.state, style=STATE_STYLES.get(server.state, "")),
                          str(len(server.tools)) if server.state == "ready" else "")
        ready = sum(server.state == "ready" for server in servers)
        title = (f"{len(servers)} MCP server{'s' if len(servers) != 1 else ''}, {ready} ready"
                 if servers else "No MCP servers are configured: add [mcp_servers.NAME] to "
                 "config.toml or a .mcp.json to the project (see the README)")
        self.query_one("#mcp-title", Label).update(title)
        if servers:
            table.move_cursor(row=min(max(row, 0), len(servers) - 1))
        self._show(table.cursor_row)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(event.cursor_row)

    def _show(self, row: int) -> None:
        detail = self.query_one("#mcp-server", Static)
        lines = [f"warning: {warning}" for warning in self.warnings]
        if 0 <= row < len(self._names):
            server = self.manager.servers[self._names[row]]
            config = server.config
            where = config.url or " ".join([config.command or "", *config.args])
            lines += [f"{server.name}: {where}", f"from {config.source}", f"log: {server.log_path}"]
            if server.error:
                lines += ["", f"error: {server.error}"]
            if server.state == "ready":
                lines += ["", *(f"  {tool.name}: {tool.description.splitlines()[0][:100]}"
                                if tool.description else f"  {tool.name}"
                                for tool in server.tools)]
                if server.task_tools:
                    lines += ["", "not offered (they run only as MCP tasks, which agent-tui "
                              f"does not run yet): {', '.join(server.task_tools)}"]
            self._log_count_shown = server.log_count
            messages = list(server.log_messages)[-LOG_MESSAGES_SHOWN:]
            if messages:
                lines += ["", "its log messages (info and above):", *messages]
            tail = server.stderr_tail()
            if tail and server.state != "ready":
                lines += ["", "the end of its log:", tail]
        detail.update(outside_text("\n".join(lines)))

    def _selected(self) -> str | None:
        row = self.query_one(DataTable).cursor_row
        return self._names[row] if 0 <= row < len(self._names) else None

    async def action_reconnect(self) -> None:
        if (name := self._selected()) is not None:
            self.notify(f"Reconnecting {name}…", markup=False, timeout=2)
            self.run_worker(self.manager.reconnect(name), exit_on_error=False)

    def action_disable(self) -> None:
        if (name := self._selected()) is not None:
            self.manager.disable(name)
            self.refresh_servers()

    def action_close(self) -> None:
        self.dismiss(None)
