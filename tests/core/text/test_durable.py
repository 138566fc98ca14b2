"""Durable writes: synced, renamed, the folder synced; what killed writers left is cleared."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.text import durable
from agent_tui.core.text.durable import write_atomically


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_data_is_synced_renamed_then_the_folder_synced(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.txt"
    path.write_text("old\n")
    steps: list[tuple[str, ...]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        steps.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        steps.append(("replace", os.fspath(src), os.fspath(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(durable.os, "fsync", fsync)
    monkeypatch.setattr(durable.os, "replace", replace)
    write_atomically(path, b"new\n")

    (_, synced), (_, moved, onto), (_, folder) = steps
    assert [step[0] for step in steps] == ["fsync", "replace", "fsync"]
    assert synced == moved and onto == str(path) and folder == str(tmp_path)
    assert re.fullmatch(rf"\.a\.txt\.agent-tui-{os.getpid()}-[0-9a-f]{{8}}\.tmp",
                        Path(moved).name)
    assert Path(moved).parent == tmp_path
    assert path.read_bytes() == b"new\n" and temporaries(tmp_path) == []


def test_leftovers_of_a_killed_writer_are_removed_by_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("old\n")
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead = f".a.txt.agent-tui-{gone.stdout.strip()}-0badc0de.tmp"
    alive = f".a.txt.agent-tui-{os.getppid()}-0badc0de.tmp"  # a writer still running
    other = ".b.txt.agent-tui-1-0badc0de.tmp"  # another file's
    for name in (dead, alive, other):
        (tmp_path / name).write_text("partial")

    write_atomically(path, b"new\n")

    assert temporaries(tmp_path) == sorted([alive, other])
    assert path.read_bytes() == b"new\n"


def test_a_name_near_the_length_limit_still_gets_a_temporary_sibling(tmp_path: Path) -> None:
    path = tmp_path / ("é" * 120 + ".txt")  # 244 bytes of the 255 a name may have
    path.write_text("old\n")
    write_atomically(path, b"new\n")
    assert path.read_bytes() == b"new\n" and temporaries(tmp_path) == []


def test_a_new_file_gets_the_creation_mode_less_the_umask(tmp_path: Path) -> None:
    umask = os.umask(0o002)
    try:
        write_atomically(tmp_path / "plain", b"x")
        write_atomically(tmp_path / "shared", b"x", new_file_mode=0o666)
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "plain").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "shared").stat().st_mode) == 0o664


def test_mode_keeps_sets_or_adjusts_the_bits(tmp_path: Path) -> None:
    path = tmp_path / "script.sh"
    path.write_text("old")
    path.chmod(0o750)
    write_atomically(path, b"kept")
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    write_atomically(path, b"adjusted", mode=lambda bits: bits & ~0o111)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    write_atomically(path, b"set", mode=0o600)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes() == b"set" and temporaries(tmp_path) == []


def test_a_symlink_is_replaced_unless_followed(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_atomically(link, b"through", follow_symlinks=True)
    assert link.is_symlink() and target.read_bytes() == b"through"
    write_atomically(link, b"instead")
    assert not link.is_symlink() and link.read_bytes() == b"instead"
    assert target.read_bytes() == b"through"
