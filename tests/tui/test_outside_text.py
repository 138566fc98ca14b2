"""outside_text: text from outside agent-tui is literal, and no escape reaches the terminal."""

from __future__ import annotations

import pytest
from rich.console import Console

from agent_tui.tui.outside_text import outside_text, visible
from tests.tui.hostile_text import HOSTILE


def rendered(text, *, color: bool = True) -> str:
    """What a terminal would receive for ``text``."""
    console = Console(width=200, color_system="truecolor" if color else None,
                      force_terminal=True, emoji=True, markup=True, legacy_windows=False)
    with console.capture() as capture:
        console.print(text)
    return capture.get()


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_every_hostile_sample_is_shown_without_markup_or_escapes(name: str) -> None:
    sample = HOSTILE[name]
    text = outside_text(sample)
    assert text.spans == []  # nothing styled: no tag, link or action was read from it
    assert "\x1b" not in text.plain
    out = rendered(text, color=False)
    assert "\x1b" not in out  # the terminal receives no escape sequence of the sample's


def test_markup_and_emoji_codes_stay_as_written() -> None:
    for name in ("closing tag", "click action", "link", "style tags", "emoji code",
                 "file path in brackets", "rich markup escape"):
        assert outside_text(HOSTILE[name]).plain == HOSTILE[name]


def test_escapes_and_invisible_characters_are_shown_visibly() -> None:
    assert visible("\x1b]52;c;aGk=\x07x") == "␛]52;c;aGk=␇x"
    assert visible("a\x1b[2Jb") == "a␛[2Jb"
    assert visible("bidi \u202egnp.exe") == "bidi <U+202E>gnp.exe"
    assert visible("zw\u200bsp\ufeff") == "zw<U+200B>sp<U+FEFF>"
    assert visible("nul\x00 del\x7f") == "nul␀ del␡"
    assert visible("tab\tand\nnewline") == "tab\tand\nnewline"


def test_command_output_keeps_its_colours_and_nothing_else() -> None:
    text = outside_text("\x1b[31mred\x1b[0m \x1b]0;title\x07\x1b[2Jplain", ansi=True)
    assert text.plain == "red ␛]0;title␇␛[2Jplain"
    assert [(span.start, span.end) for span in text.spans] == [(0, 3)]
    assert str(text.spans[0].style.color.name) in ("red", "color(1)")
    out = rendered(text)
    assert "\x1b]0;" not in out and "\x1b[2J" not in out


def test_an_osc_8_link_becomes_no_link() -> None:
    text = outside_text(HOSTILE["osc 8 link"], ansi=True)
    assert all(span.style.link is None for span in text.spans if hasattr(span.style, "link"))
    assert "\x1b]8" not in rendered(text)
