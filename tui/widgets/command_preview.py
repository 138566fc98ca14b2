"""What a previewed command would do: how it ended, each file it would change with a
coloured unified diff, its output and the processes it left running.

Every piece of the command's text is shown literally (``Content``, never markup), so a
file or an output that holds ``[b]`` or ``[/]`` shows those characters; escape sequences
are shown, never sent to the terminal (the output keeps its colours). The engine hands
the preview over already redacted.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...core.safety.preview import CommandPreview, preview_summary
from ..outside_text import outside_content, visible

MAX_SHOWN_DIFF_LINES = 400
"""Lines of one file's diff drawn; the rest is counted."""
MAX_SHOWN_OUTPUT_LINES = 200
"""Last lines of the output drawn; the rest is counted."""
KIND_STYLES = {"created": "bold $text-success", "modified": "bold $text-warning",
               "deleted": "bold $text-error"}
"""How each kind of change is labelled."""
_LINE_STYLES = (("+++", "bold $text-muted"), ("---", "bold $text-muted"),
                ("@@", "$text-accent"), ("+", "$text-success on $success 15%"),
                ("-", "$text-error on $error 15%"))


class CommandPreviewView(VerticalScroll):
    """A scrollable panel with a command preview, or a line saying why there is none.

    Call :meth:`show_running` while the preview runs, then :meth:`show_preview`,
    :meth:`show_unavailable` or :meth:`show_stopped`.
    """

    DEFAULT_CSS = """
    CommandPreviewView {
        height: auto;
        padding: 0 1;
        background: $panel;
        & > #preview-body { width: 1fr; height: auto; }
        &.-problem > #preview-body { color: $text-warning; }
    }
    """

    def compose(self) -> ComposeResult:
        """One Static that holds the whole preview."""
        yield Static("", id="preview-body")

    def _show(self, content: Content, *, problem: bool = False) -> None:
        self.set_class(problem, "-problem")
        self.query_one("#preview-body", Static).update(content)
        self.scroll_home(animate=False)

    def show_running(self, timeout_s: float) -> None:
        """Say that the command runs in the sandbox, and for how long at most."""
        self._show(Content(f"previewing… running the command in a sandbox over a copy of the "
                           f"project (at most {timeout_s:g}s); esc stops it"))

    def show_unavailable(self, why: str) -> None:
        """Say why there is no preview (``why`` says what to do)."""
        self._show(Content(f"no preview: {visible(why)}"), problem=True)

    def show_stopped(self) -> None:
        """Say that the person stopped the preview."""
        self._show(Content("preview stopped: the command was killed; nothing was changed"),
                   problem=True)

    def show_preview(self, preview: CommandPreview) -> None:
        """Draw ``preview``."""
        self._show(preview_content(preview))


def preview_content(preview: CommandPreview) -> Content:
    """``preview`` as styled, literal text: a summary line, each change with its diff, the
    output, and the processes left running."""
    parts: list[str | Content | tuple[str, str]] = [
        ("Preview", "bold"), f": {visible(preview_summary(preview))}. The project was not "
        "changed.\n"]
    for change in preview.changes:
        parts += ["\n", (f"{change.kind:<8}", KIND_STYLES[change.kind]),
                  (f" {visible(change.path)}", "bold"), "\n"]
        parts += _diff_lines(change.diff)
    output = preview.output.splitlines()
    parts.append("\n")
    if not output:
        parts.append(("no output", "italic $text-muted"))
    else:
        skipped = len(output) - MAX_SHOWN_OUTPUT_LINES
        title = f"output (last {MAX_SHOWN_OUTPUT_LINES} of {len(output)} lines)" \
            if skipped > 0 else "output"
        parts += [(title, "bold"), "\n",
                  outside_content("\n".join(output[max(skipped, 0):]), ansi=True)]
    for command in preview.left_running:
        parts += ["\n", ("left running, then killed: ", "bold $text-warning"),
                  visible(command)]
    return Content.assemble(*parts)


def _diff_lines(diff: str) -> list[str | tuple[str, str]]:
    lines = diff.splitlines()
    drawn: list[str | tuple[str, str]] = []
    for line in lines[:MAX_SHOWN_DIFF_LINES]:
        style = next((s for prefix, s in _LINE_STYLES if line.startswith(prefix)), "")
        line = visible(line)
        drawn += [(line, style) if style else line, "\n"]
    if len(lines) > MAX_SHOWN_DIFF_LINES:
        drawn += [(f"… {len(lines) - MAX_SHOWN_DIFF_LINES} more diff lines",
                   "italic $text-muted"), "\n"]
    return drawn
