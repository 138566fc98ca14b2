"""find_element: a UI element found by its visible text, read off the screen by Tesseract.

The capture is scaled up 2x before OCR (Tesseract reads small UI fonts far better so), and
the words it finds are matched line by line, so a label of several words is found as one.
"""

from __future__ import annotations

import asyncio
import csv
import io
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from ..base import (
    Confirmation,
    Invocation,
    OutputCallback,
    Tool,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from ..names import ToolName
from .display import DisplayError, need_program
from .screen import Capture, capture

SCALE = 2
"""How much the capture is enlarged before OCR."""
PAD = 16
"""Pixels of margin added around the capture before OCR."""
MIN_CONFIDENCE = 30.0
"""Tesseract's word confidence (0-100) below which a word is ignored."""


@dataclass(frozen=True, slots=True)
class Word:
    """A word Tesseract read, with its box in screen pixels."""

    text: str
    left: int
    top: int
    width: int
    height: int
    line: tuple[int, int, int, int]  # (page, block, paragraph, line)


@dataclass(frozen=True, slots=True)
class Match:
    """Where a text was found: its box in screen pixels."""

    text: str
    x: int
    y: int
    width: int
    height: int

    @property
    def centre(self) -> tuple[int, int]:
        """The middle of the box (where to click)."""
        return self.x + self.width // 2, self.y + self.height // 2

    def line(self) -> str:
        """E.g. ``"Press Me" at (215, 140) 130x41, centre (280, 160)``."""
        cx, cy = self.centre
        return (f"{self.text!r} at ({self.x}, {self.y}) {self.width}x{self.height}, "
                f"centre ({cx}, {cy})")


def read_words(shot: Capture, *, inverted: bool = False) -> list[Word]:
    """The words on a capture, with screen coordinates.

    Tesseract thresholds with Sauvola's local method: its default global Otsu turns a
    window's light grey background black when the window is mostly grey and white, and
    then reads nothing. ``inverted`` reads the image inverted (light text on dark bars).

    Raises:
        DisplayError: Tesseract is missing or failed.
    """
    from PIL import Image, ImageOps

    tesseract = need_program("tesseract", "tesseract-ocr",
                             "find_element reads the screen with it")
    with Image.open(io.BytesIO(shot.png)) as image:
        gray = image.convert("L")
    edge = gray.getpixel((0, 0))
    assert isinstance(edge, int)  # a pixel of an "L" image is one int
    # A margin of the edge's colour: Tesseract misses text close to the image's border.
    gray = ImageOps.expand(gray, border=PAD, fill=edge)
    big = gray.resize((gray.width * SCALE, gray.height * SCALE), Image.Resampling.LANCZOS)
    if inverted:
        big = ImageOps.invert(big)
    with tempfile.TemporaryDirectory(prefix="agent-tui-ocr-") as folder:
        path = Path(folder) / "screen.png"
        big.save(path)
        return _tesseract(tesseract, path, shot, pass_number=int(inverted))


def _overlap(a: Word, b: Word) -> bool:
    dx = min(a.left + a.width, b.left + b.width) - max(a.left, b.left)
    dy = min(a.top + a.height, b.top + b.height) - max(a.top, b.top)
    return dx > 0 and dy > 0 and dx * dy >= 0.5 * min(a.width * a.height, b.width * b.height)


def _tesseract(tesseract: str, path: Path, shot: Capture, pass_number: int) -> list[Word]:
    done = subprocess.run([tesseract, str(path), "-", "--psm", "11",
                           "-c", "thresholding_method=2", "tsv"],
                          capture_output=True, text=True, timeout=60,
                          # OpenMP threads make Tesseract 3-6x slower on a busy 2-core machine
                          env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    if done.returncode:
        raise DisplayError(f"tesseract failed: {done.stderr.strip()[:300]}")
    words = []
    for row in csv.DictReader(io.StringIO(done.stdout), delimiter="\t", quoting=csv.QUOTE_NONE):
        text = (row.get("text") or "").strip()
        if not text or float(row.get("conf") or -1) < MIN_CONFIDENCE:
            continue
        words.append(Word(
            text,
            shot.left + int(row["left"]) // SCALE - PAD, shot.top + int(row["top"]) // SCALE - PAD,
            max(1, int(row["width"]) // SCALE), max(1, int(row["height"]) // SCALE),
            (pass_number, int(row["block_num"]), int(row["par_num"]), int(row["line_num"]))))
    return words


def _norm(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def find_text(words: list[Word], wanted: str, exact: bool) -> list[Match]:
    """Runs of consecutive words on one line that read ``wanted`` (ignoring case, spaces and
    punctuation); with ``exact`` false a run may also just contain it. Best first."""
    target = _norm(wanted)
    if not target:
        return []
    lines: dict[tuple[int, int, int, int], list[Word]] = {}
    for word in words:
        lines.setdefault(word.line, []).append(word)
    found: list[tuple[int, Match]] = []
    for line_words in lines.values():
        line_words.sort(key=lambda w: w.left)
        for start in range(len(line_words)):
            text = ""
            for end in range(start, len(line_words)):
                text += _norm(line_words[end].text)
                hit = text == target or (not exact and target in text)
                if hit:
                    run = line_words[start:end + 1]
                    x = min(w.left for w in run)
                    y = min(w.top for w in run)
                    right = max(w.left + w.width for w in run)
                    bottom = max(w.top + w.height for w in run)
                    label = " ".join(w.text for w in run)
                    score = 0 if text == target else len(text) - len(target)
                    found.append((score, Match(label, x, y, right - x, bottom - y)))
                    break
                if len(text) >= len(target) and not (not exact and target in text):
                    if not target.startswith(text):
                        break
    found.sort(key=lambda item: (item[0], item[1].y, item[1].x))
    unique: list[Match] = []
    for _, match in found:
        if not any(abs(m.x - match.x) < 3 and abs(m.y - match.y) < 3 for m in unique):
            unique.append(match)
    return unique


def find_on_screen(text: str, window_id: str | None,
                   exact: bool) -> tuple[list[Match], list[Word], Capture]:
    """Capture the screen (or a window) and find ``text`` on it: read as it is, then, only
    if the text was not found, inverted too."""
    shot = capture(window_id, None, None)
    words = read_words(shot)
    matches = find_text(words, text, exact)
    if not matches:
        words += [word for word in read_words(shot, inverted=True)
                  if not any(_overlap(word, seen) for seen in words)]
        matches = find_text(words, text, exact)
    return matches, words, shot


class FindElementParams(ToolParams):
    """Arguments of find_element."""

    text: str = Field(min_length=1, description="The element's visible text, e.g. a button's "
                                                "label `Save` or a menu item `Open File`.")
    window_id: str | None = Field(default=None, description="Optional: look only in this "
                                  "window (an id from list_windows, or a piece of its title).")
    exact: bool = Field(default=False, description="Match the whole text only (default: a "
                                                   "longer label containing it also matches).")


class FindElementTool(Tool):
    """Finds a UI element on the screen by its visible text."""

    name = ToolName.FIND_ELEMENT
    kind = ToolKind.COMPUTER
    ask_reason = "reads the screen"
    description = (
        "Find a UI element on the screen by its visible text (OCR with Tesseract): returns "
        "each match's box and centre in screen coordinates, best first. Click it with "
        "mouse_click at the centre. Restrict it to one window with window_id.")
    Params = FindElementParams

    def create_invocation(self, params: FindElementParams,
                          ctx: ToolContext) -> FindElementInvocation:
        """Make the invocation."""
        return FindElementInvocation(self, params, ctx)


class FindElementInvocation(Invocation[FindElementParams]):
    """One find_element call."""

    def describe(self) -> str:
        """E.g. ``find_element "Save"``."""
        where = f" in {self.params.window_id}" if self.params.window_id else ""
        return f"find_element {self.params.text!r}{where}"

    def confirmation(self) -> Confirmation:
        """What is looked for (the screen is read to find it)."""
        return Confirmation(title=f"Read the screen to find {self.params.text!r}",
                            details="The screen is captured and read with OCR.")

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Capture, read and match in a worker thread."""
        p = self.params
        try:
            matches, words, shot = await asyncio.to_thread(find_on_screen, p.text, p.window_id,
                                                           p.exact)
        except DisplayError as exc:
            return ToolResult.failure(str(exc))
        except subprocess.TimeoutExpired:
            return ToolResult.failure("tesseract took over a minute; capture one window "
                                      "with window_id to give it less to read")
        if not matches:
            seen = ", ".join(repr(w.text) for w in words[:25]) or "no text at all"
            more = f" and {len(words) - 25} more" if len(words) > 25 else ""
            return ToolResult.failure(
                f"{p.text!r} was not found on {shot.what}; the words read there were: "
                f"{seen}{more}. Check the spelling, look with take_screenshot, or search part "
                "of the label")
        lines = [f"Found {p.text!r} {len(matches)} time(s) on {shot.what} (best first):",
                 *(f"{i}. {m.line()}" for i, m in enumerate(matches, 1))]
        cx, cy = matches[0].centre
        lines.append(f"To click the first: mouse_click with x={cx}, y={cy}.")
        return ToolResult(llm_content="\n".join(lines))
