"""Text files: decoding, binary sniffing, line endings and atomic text writes."""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

import pytest

from agent_tui.core.text import text_files
from agent_tui.core.text.text_files import atomic_write_text, decode_text, is_binary, read_text

BOM = codecs.BOM_UTF8


def leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.endswith(".tmp")]


def test_decode_utf8_with_and_without_bom() -> None:
    plain = decode_text("héllo\n".encode())
    assert (plain.text, plain.encoding, plain.bom) == ("héllo\n", "utf-8", False)
    marked = decode_text(BOM + "héllo\n".encode())
    assert (marked.text, marked.encoding, marked.bom) == ("héllo\n", "utf-8", True)


def test_decode_falls_back_to_latin1_only_for_invalid_utf8() -> None:
    decoded = decode_text("café\n".encode("latin-1"))
    assert (decoded.text, decoded.encoding, decoded.bom) == ("café\n", "latin-1", False)


@pytest.mark.parametrize(("text", "newline"), [
    ("a\nb\n", "\n"), ("a\r\nb\r\nc\n", "\r\n"), ("a\rb\r", "\r"), ("no breaks", "\n"),
    ("a\r\nb\n", "\n"),
])
def test_dominant_newline(text: str, newline: str) -> None:
    assert decode_text(text.encode()).newline == newline


def test_read_text_keeps_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"a\r\nb\r\n")
    loaded = read_text(path)
    assert loaded.text == "a\r\nb\r\n"
    assert loaded.newline == "\r\n"


def test_is_binary() -> None:
    assert is_binary(b"abc\0def")
    assert is_binary(bytes(range(1, 32)) * 10)
    assert is_binary(bytes(range(0x80, 0xA0)) * 4 + b"text")
    assert not is_binary(b"")
    assert not is_binary(b"plain text\twith tabs\r\n")
    assert not is_binary("日本語のテキスト".encode() * 100)
    assert not is_binary("une phrase accentuée, déjà vue".encode("latin-1"))
    assert not is_binary("déjà".encode("latin-1"))
    assert not is_binary(b"\x1b[31mred\x1b[0m\n")


def test_is_binary_only_looks_at_the_first_4kb() -> None:
    assert not is_binary(b"a" * 4096 + b"\0")


def test_atomic_write_new_file_gets_umask_mode(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        path = tmp_path / "new.txt"
        assert atomic_write_text(path, "hi\n") == 3
    finally:
        os.umask(umask)
    assert path.read_text() == "hi\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert leftovers(tmp_path) == []


def test_atomic_write_keeps_mode_bom_and_converts_newlines(tmp_path: Path) -> None:
    path = tmp_path / "script.sh"
    path.write_text("old")
    path.chmod(0o755)
    atomic_write_text(path, "a\nb\r\n", bom=True, newline="\r\n")
    assert path.read_bytes() == BOM + b"a\r\nb\r\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o755


def test_atomic_write_follows_symlinks(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    atomic_write_text(link, "new")
    assert link.is_symlink()
    assert target.read_text() == "new"


def test_atomic_write_failure_leaves_target_intact(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "keep.txt"
    path.write_text("original")

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    # A disk error after the data was written to the temporary file.
    monkeypatch.setattr(text_files.os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        atomic_write_text(path, "replacement")
    assert path.read_text() == "original"
    assert leftovers(tmp_path) == []


def test_atomic_write_unencodable_text_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes(b"caf\xe9")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(path, "emoji 🙂", encoding="latin-1")
    assert path.read_bytes() == b"caf\xe9"
    assert leftovers(tmp_path) == []
