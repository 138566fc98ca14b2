"""An MCP server's form (elicitation): its fields drawn from the requested schema; the
person accepts (the values go to the server), declines or cancels."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, SelectionList, Static

from ...core.mcp.form import FormField, checked_value, form_fields
from ...core.mcp.host import ElicitationAnswer, ElicitationRequest
from ..outside_text import outside_text


class ElicitationScreen(ModalScreen[ElicitationAnswer]):
    """The form of one ``elicitation/create`` request. Ctrl+S (or Accept) sends the values
    once they fit the schema, Ctrl+D (Decline) says no, Esc (Cancel) dismisses it without a
    choice. A request in URL mode shows the page to visit instead of fields."""

    DEFAULT_CSS = """
    ElicitationScreen { align: center middle; }
    ElicitationScreen > Vertical {
        width: 90%; max-width: 100; height: 90%;
        border: round $warning; background: $surface; padding: 0 1;
    }
    ElicitationScreen #elicit-title { text-style: bold; }
    ElicitationScreen #elicit-fields { height: 1fr; }
    ElicitationScreen .field-title { margin-top: 1; }
    ElicitationScreen .field-help { color: $text-muted; }
    ElicitationScreen SelectionList { height: auto; max-height: 8; }
    ElicitationScreen #elicit-error { color: $error; }
    ElicitationScreen #elicit-buttons { height: auto; margin-top: 1; }
    ElicitationScreen Button { margin-right: 2; }
    """

    BINDINGS = [
        # Above the fields' own keys (an Input deletes with ctrl+d): the form is modal.
        Binding("ctrl+s", "accept", "accept", priority=True),
        Binding("ctrl+d", "decline", "decline", priority=True),
        Binding("escape", "cancel", "cancel"),
    ]

    def __init__(self, request: ElicitationRequest) -> None:
        super().__init__()
        self.request = request
        self.fields: list[FormField] = [] if request.url else form_fields(request.schema)

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical():
            yield Label(outside_text(f"The MCP server {request.server} asks:"),
                        id="elicit-title")
            yield Static(outside_text(request.message), id="elicit-message")
            with VerticalScroll(id="elicit-fields"):
                if request.url:
                    yield Static(outside_text(f"Open this page to go on: {request.url}"),
                                 id="elicit-url")
                for index, form_field in enumerate(self.fields):
                    mark = " *" if form_field.required else ""
                    yield Label(outside_text(form_field.title + mark), classes="field-title")
                    if form_field.description or form_field.format:
                        hint = " ".join(p for p in (form_field.description,
                                                    f"({form_field.format})" if form_field.format
                                                    else "") if p)
                        yield Label(outside_text(hint), classes="field-help")
                    yield self._input(form_field, f"field-{index}")
            yield Label("", id="elicit-error")
            with Horizontal(id="elicit-buttons"):
                yield Button("Accept (ctrl+s)", id="accept", variant="primary")
                yield Button("Decline (ctrl+d)", id="decline")
                yield Button("Cancel (esc)", id="cancel")

    def _input(self, form_field: FormField, widget_id: str) -> Widget:
        default = form_field.default
        if form_field.kind == "boolean":
            return Checkbox("yes", bool(default), id=widget_id)
        if form_field.kind == "choice":
            values = [value for value, _label in form_field.options]
            return Select([(outside_text(label), value) for value, label in form_field.options],
                          value=default if default in values else Select.NULL,
                          allow_blank=not form_field.required or default not in values,
                          id=widget_id)
        if form_field.kind == "choices":
            chosen = default if isinstance(default, list) else []
            return SelectionList[str](*[(outside_text(label), value, value in chosen)
                                        for value, label in form_field.options], id=widget_id)
        kind = {"integer": "integer", "number": "number"}.get(form_field.kind, "text")
        return Input("" if default is None else str(default), type=kind,  # type: ignore[arg-type]
                     placeholder=form_field.format or ("" if kind == "text" else kind),
                     id=widget_id)

    def on_mount(self) -> None:
        first = self.query(f"#field-{0}") if self.fields else self.query("#accept")
        if first:
            first.first().focus()

    def _raw(self, index: int) -> Any:
        widget = self.query_one(f"#field-{index}")
        if isinstance(widget, Checkbox):
            return widget.value
        if isinstance(widget, Select):
            return None if widget.value is Select.NULL else widget.value
        if isinstance(widget, SelectionList):
            return list(widget.selected)
        assert isinstance(widget, Input)
        return widget.value.strip()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"accept": self.action_accept, "decline": self.action_decline,
         "cancel": self.action_cancel}[event.button.id or "cancel"]()

    def action_accept(self) -> None:
        values: dict[str, Any] = {}
        for index, form_field in enumerate(self.fields):
            try:
                value = checked_value(form_field, self._raw(index))
            except ValueError as exc:
                self.query_one("#elicit-error", Label).update(f"{exc}; fix it, or decline.")
                self.query_one(f"#field-{index}").focus()
                return
            if value is not None:
                values[form_field.name] = value
        self.dismiss(ElicitationAnswer("accept", None if self.request.url else values))

    def action_decline(self) -> None:
        self.dismiss(ElicitationAnswer("decline"))

    def action_cancel(self) -> None:
        self.dismiss(ElicitationAnswer("cancel"))
