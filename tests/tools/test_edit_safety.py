"""Edit safety: no edit of a file not read as it is now, and writes that are faithful and atomic.

Real files and real processes throughout; the loop tests go through litellm and HTTP to the
fake provider, with an approver that answers as a person in the modal would.
"""

from __future__ import annotations

import asyncio
import codecs
import hashlib
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent import Agent
from agent_tui.core.approval import Allow, ApprovalRequest, Decision, WriteEdited
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.core.sessions.log import SessionStore, read_events
from agent_tui.core.text import durable
from agent_tui.core.text.durable import write_atomically
from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolResult
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.files import MAX_FILE_BYTES
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import FakeProvider, Reply, ToolCall

BOM = codecs.BOM_UTF8
REGISTRY = ToolRegistry(builtin_tools())


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")


def call(ctx: ToolContext, tool: str, **args: Any) -> ToolResult:
    """Validate and run one tool call, as the loop does (without the approval)."""
    return asyncio.run(REGISTRY.build(tool, args, ctx).execute())


def read(ctx: ToolContext, file_path: str, **page: Any) -> None:
    result = call(ctx, "read_file", file_path=file_path, **page)
    assert result.ok or "binary" in (result.error or ""), result.error


def refused(ctx: ToolContext, tool: str, **args: Any) -> str:
    """The message of a call refused at validation, before any approval could be asked."""
    with pytest.raises(ToolArgumentError) as caught:
        REGISTRY.build(tool, args, ctx)
    return str(caught.value)


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


EDITS: list[tuple[str, dict[str, Any]]] = [
    ("edit_file", {"old_text": "two", "new_text": "2"}),
    ("str_replace", {"diff": "@@ -2,1 +2,1 @@\n-two\n+2\n"}),
    ("write_file", {"content": "one\n2\nthree\n"}),
]


# --------------------------------------------------------------------------- read before edit


@pytest.mark.parametrize(("tool", "args"), EDITS)
def test_a_file_never_read_is_not_changed(ctx: ToolContext, tool: str,
                                          args: dict[str, Any]) -> None:
    path = ctx.workdir / "a.txt"
    path.write_text("one\ntwo\nthree\n")
    message = refused(ctx, tool, file_path="a.txt", **args)
    assert message.startswith("a.txt has not been read in this session")
    assert "nothing was written" in message and "Read it first with read_file" in message
    assert path.read_text() == "one\ntwo\nthree\n"

    read(ctx, "a.txt")
    assert call(ctx, tool, file_path="a.txt", **args).ok
    assert path.read_text() == "one\n2\nthree\n"


def test_creating_a_file_needs_no_read(ctx: ToolContext) -> None:
    result = call(ctx, "write_file", file_path="new/b.txt", content="fresh\n")
    assert result.ok, result.error
    assert (ctx.workdir / "new/b.txt").read_text() == "fresh\n"
    # What the agent wrote counts as seen: it may edit it straight away.
    assert call(ctx, "edit_file", file_path="new/b.txt", old_text="fresh", new_text="ok").ok


@pytest.mark.parametrize(("tool", "args"), EDITS)
def test_a_file_changed_on_disk_after_it_was_read_is_refused(
        ctx: ToolContext, tool: str, args: dict[str, Any]) -> None:
    path = ctx.workdir / "a.txt"
    path.write_text("one\ntwo\nthree\n")
    read(ctx, "a.txt")
    path.write_text("one\ntwo\nthree\nfour, added by the person\n")

    message = refused(ctx, tool, file_path="a.txt", **args)
    assert message.startswith("a.txt changed on disk since you last read it")
    assert "Read it again with read_file, then" in message
    assert path.read_text().endswith("four, added by the person\n")

    read(ctx, "a.txt")
    assert call(ctx, tool, file_path="a.txt", **args).ok


def test_the_hash_decides_not_the_modification_time(ctx: ToolContext) -> None:
    path = ctx.workdir / "a.txt"
    path.write_text("one\ntwo\nthree\n")
    read(ctx, "a.txt")
    before = path.stat()
    path.write_text("one\nTWO\nthree\n")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert "changed on disk" in refused(ctx, "edit_file", file_path="a.txt",
                                        old_text="one", new_text="1")

    path.write_text("one\ntwo\nthree\n")  # back to what was read
    os.utime(path, ns=(before.st_atime_ns + 10**9, before.st_mtime_ns + 10**9))
    read(ctx, "a.txt")
    os.utime(path, ns=(before.st_atime_ns + 5 * 10**9, before.st_mtime_ns + 5 * 10**9))
    assert call(ctx, "edit_file", file_path="a.txt", old_text="one", new_text="1").ok


@pytest.mark.parametrize(("tool", "args"), EDITS)
def test_a_change_while_the_person_looks_at_the_diff_is_caught_before_writing(
        ctx: ToolContext, tool: str, args: dict[str, Any]) -> None:
    path = ctx.workdir / "a.txt"
    path.write_text("one\ntwo\nthree\n")
    read(ctx, "a.txt")
    invocation = REGISTRY.build(tool, {"file_path": "a.txt", **args}, ctx)
    assert invocation.confirmation() is not None
    path.write_text("one\ntwo\nthree\nsaved meanwhile\n")

    result = asyncio.run(invocation.execute())

    assert not result.ok
    assert "changed on disk since you last read it" in result.error
    assert path.read_text() == "one\ntwo\nthree\nsaved meanwhile\n"


def test_a_file_that_appears_before_write_file_runs_is_not_overwritten(
        ctx: ToolContext) -> None:
    invocation = REGISTRY.build("write_file", {"file_path": "c.txt", "content": "mine\n"}, ctx)
    (ctx.workdir / "c.txt").write_text("someone else's\n")
    result = asyncio.run(invocation.execute())
    assert not result.ok and "has not been read" in result.error
    assert (ctx.workdir / "c.txt").read_text() == "someone else's\n"


def test_edits_in_a_row_need_no_read_in_between(ctx: ToolContext) -> None:
    (ctx.workdir / "a.txt").write_text("one\ntwo\nthree\n")
    read(ctx, "a.txt")
    assert call(ctx, "edit_file", file_path="a.txt", old_text="one", new_text="1").ok
    assert call(ctx, "str_replace", file_path="a.txt", diff="-two\n+2\n").ok
    assert call(ctx, "write_file", file_path="a.txt", content="1\n2\n3\n").ok
    assert (ctx.workdir / "a.txt").read_text() == "1\n2\n3\n"


def test_any_page_counts_as_a_read_and_so_does_read_many_files(ctx: ToolContext) -> None:
    (ctx.workdir / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 5001)))
    (ctx.workdir / "b.txt").write_text("bee\n")
    read(ctx, "long.txt", start_line=4000, end_line=4001)
    assert call(ctx, "edit_file", file_path="long.txt", old_text="line 1\n",
                new_text="first\n").ok
    assert call(ctx, "read_many_files", paths=["b.txt"]).ok
    assert call(ctx, "edit_file", file_path="b.txt", old_text="bee", new_text="wasp").ok


def test_paging_an_unchanged_file_keeps_what_was_seen(ctx: ToolContext) -> None:
    path = ctx.workdir / "long.txt"
    path.write_text("".join(f"line {n}\n" for n in range(1, 5001)))
    read(ctx, "long.txt")
    seen = ctx.reads.get(path)
    read(ctx, "long.txt", start_line=2001)
    read(ctx, "long.txt", start=10, end=20)
    assert ctx.reads.get(path) == seen
    path.write_text("rewritten\n")
    read(ctx, "long.txt")
    assert ctx.reads.get(path) != seen
    assert call(ctx, "edit_file", file_path="long.txt", old_text="rewritten",
                new_text="again").ok


def test_a_symlink_and_its_target_are_one_file(ctx: ToolContext) -> None:
    (ctx.workdir / "real.txt").write_text("one\n")
    (ctx.workdir / "link.txt").symlink_to(ctx.workdir / "real.txt")
    read(ctx, "link.txt")
    assert call(ctx, "edit_file", file_path="real.txt", old_text="one", new_text="1").ok
    assert call(ctx, "edit_file", file_path="link.txt", old_text="1", new_text="2").ok
    assert (ctx.workdir / "link.txt").is_symlink()
    assert (ctx.workdir / "real.txt").read_text() == "2\n"


def test_a_binary_file_is_replaced_after_read_file_reported_it(ctx: ToolContext) -> None:
    (ctx.workdir / "blob.bin").write_bytes(bytes(range(256)) * 4)
    assert "has not been read" in refused(ctx, "write_file", file_path="blob.bin",
                                          content="text now\n")
    read(ctx, "blob.bin")
    assert call(ctx, "write_file", file_path="blob.bin", content="text now\n").ok
    assert (ctx.workdir / "blob.bin").read_bytes() == b"text now\n"


def test_a_file_too_large_to_check_points_to_the_shell(ctx: ToolContext) -> None:
    path = ctx.workdir / "huge.log"
    with path.open("wb") as handle:  # sparse: no disk space used
        handle.truncate(MAX_FILE_BYTES + 1)
    message = refused(ctx, "write_file", file_path="huge.log", content="x")
    assert "more than the" in message and "shell tool" in message
    assert path.stat().st_size == MAX_FILE_BYTES + 1


def test_each_context_has_its_own_ledger(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    parent = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")
    child = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")
    read(child, "a.txt")
    assert "has not been read" in refused(parent, "edit_file", file_path="a.txt",
                                          old_text="one", new_text="1")


# --------------------------------------------------------------------------- faithful writes


def test_a_crlf_file_with_a_bom_keeps_every_other_byte(ctx: ToolContext) -> None:
    lines = [BOM + "# Título\r\n".encode(), b"alpha\r\n", b"beta\r\n", "gamma ü\r\n".encode(),
             b"delta\r\n"]
    path = ctx.workdir / "win.md"
    path.write_bytes(b"".join(lines))
    read(ctx, "win.md")

    result = call(ctx, "edit_file", file_path="win.md", old_text="beta\n",
                  new_text="beta, edited\nand a new line é\n")

    assert result.ok, result.error
    expected = [*lines[:2], b"beta, edited\r\n", "and a new line é\r\n".encode(), *lines[3:]]
    assert path.read_bytes() == b"".join(expected)


def test_str_replace_changes_only_its_lines_in_a_file_of_mixed_endings(
        ctx: ToolContext) -> None:
    lines = [b"one\r\n", b"two\n", b"three\r", b"four\r\n", b"five"]
    path = ctx.workdir / "mixed.txt"
    path.write_bytes(b"".join(lines))
    read(ctx, "mixed.txt")

    result = call(ctx, "str_replace", file_path="mixed.txt",
                  diff="@@ -4,1 +4,1 @@\n-four\n+FOUR\n")

    assert result.ok, result.error
    assert path.read_bytes() == b"one\r\ntwo\nthree\rFOUR\r\nfive"


def test_a_latin1_file_edited_stays_latin1(ctx: ToolContext) -> None:
    lines = ["Café crème\n", "déjà vu\n", "naïve\n"]
    path = ctx.workdir / "old.txt"
    path.write_bytes("".join(lines).encode("latin-1"))
    read(ctx, "old.txt")

    result = call(ctx, "edit_file", file_path="old.txt", old_text="déjà vu",
                  new_text="déjà vu, über")

    assert result.ok, result.error
    assert path.read_bytes() == "Café crème\ndéjà vu, über\nnaïve\n".encode("latin-1")
    assert "re-encoded" not in result.llm_content


@pytest.mark.parametrize("tool", ["edit_file", "str_replace"])
def test_a_character_latin1_cannot_hold_is_a_clear_error(ctx: ToolContext, tool: str) -> None:
    original = "price: 10 EUR\ndéjà\n".encode("latin-1")
    path = ctx.workdir / "old.txt"
    path.write_bytes(original)
    read(ctx, "old.txt")
    args = ({"old_text": "10 EUR", "new_text": "10 €"} if tool == "edit_file"
            else {"diff": "-price: 10 EUR\n+price: 10 €\n"})

    result = call(ctx, tool, file_path="old.txt", **args)

    assert not result.ok
    assert "old.txt is stored as latin-1" in result.error
    assert "'€' (U+20AC)" in result.error and "Nothing was written" in result.error
    assert "write_file" in result.error
    assert path.read_bytes() == original


def test_write_file_re_encodes_a_latin1_file_whole_and_says_so(ctx: ToolContext) -> None:
    path = ctx.workdir / "old.txt"
    path.write_bytes("déjà\n".encode("latin-1"))
    read(ctx, "old.txt")
    result = call(ctx, "write_file", file_path="old.txt", content="déjà 10 €\n")
    assert result.ok and "re-encoded from latin-1 to utf-8" in result.llm_content
    assert path.read_bytes() == "déjà 10 €\n".encode()


def test_a_lone_surrogate_is_refused_in_a_utf8_file(ctx: ToolContext) -> None:
    (ctx.workdir / "a.txt").write_text("one\n")
    read(ctx, "a.txt")
    result = call(ctx, "edit_file", file_path="a.txt", old_text="one", new_text="o\ud800")
    assert not result.ok and "U+D800" in result.error
    assert (ctx.workdir / "a.txt").read_text() == "one\n"


@pytest.mark.parametrize(("tool", "args"), EDITS)
def test_mode_bits_are_kept(ctx: ToolContext, tool: str, args: dict[str, Any]) -> None:
    path = ctx.workdir / "run.sh"
    path.write_text("one\ntwo\nthree\n")
    path.chmod(0o750)
    read(ctx, "run.sh")
    assert call(ctx, tool, file_path="run.sh", **args).ok
    assert stat.S_IMODE(path.stat().st_mode) == 0o750


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_owner_and_group_are_kept(ctx: ToolContext) -> None:
    path = ctx.workdir / "theirs.txt"
    path.write_text("one\n")
    os.chown(path, 4321, 4321)
    read(ctx, "theirs.txt")
    assert call(ctx, "edit_file", file_path="theirs.txt", old_text="one", new_text="1").ok
    assert (path.stat().st_uid, path.stat().st_gid) == (4321, 4321)


# --------------------------------------------------------------------------- kill -9

WRITER = r"""
import asyncio, sys
from pathlib import Path
from agent_tui.tools.base import ToolContext
from agent_tui.tools.read_file import ReadFileTool
from agent_tui.tools.write_file import WriteFileTool

path = Path(sys.argv[1])
ctx = ToolContext(workdir=path.parent, output_dir=path.parent / "out")
assert ReadFileTool().build({"file_path": path.name}, ctx).read().ok
content = ("new " + "n" * 59 + "\n") * int(sys.argv[2])
print("ready", flush=True)
sys.stdin.readline()
write = WriteFileTool().build({"file_path": path.name, "content": content}, ctx)
result = asyncio.run(write.execute())
print("done" if result.ok else f"failed: {result.error}", flush=True)
sys.stdin.readline()
"""
OLD_LINES = 320_000  # 20 MB
NEW_LINES = 640_000  # 40 MB
MOMENTS = [None, 0.0, 0.25, 0.5, 0.75, 1.0, "done"]
"""When the writer is killed: before it starts; once its temporary file holds that share of
the new bytes (0.0: as soon as it exists; 1.0: all of them, before or after the rename);
after it reported the write done."""


def _lines(tag: str, count: int) -> bytes:
    return ((tag + " " + tag[0] * 59 + "\n") * count).encode()


def _kill_writer_at(path: Path, moment: float | str | None, new_size: int) -> bool | None:
    """Run a writer and SIGKILL it at ``moment``.

    Returns whether its temporary file was still there when it was stopped (so the rename
    had not happened), or None when that was not observed.
    """
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(NEW_LINES)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert writer.stdin is not None and writer.stdout is not None
    mine = f"{durable.temporary_prefix(path)}{writer.pid}-"
    in_flight: bool | None = None
    try:
        assert writer.stdout.readline() == "ready\n"
        if moment is not None:
            writer.stdin.write("go\n")
            writer.stdin.flush()
        if moment == "done":
            assert writer.stdout.readline() == "done\n"
        elif isinstance(moment, float):
            wanted = moment * new_size

            def temporary() -> Path | None:
                found = [e for e in os.scandir(path.parent) if e.name.startswith(mine)]
                return Path(found[0].path) if found else None

            def reached() -> bool:
                tmp = temporary()
                if tmp is not None:
                    try:
                        return tmp.stat().st_size >= wanted
                    except FileNotFoundError:
                        pass
                return path.stat().st_size == new_size  # renamed: the write is over

            while not reached():
                assert writer.poll() is None, "the writer ended early"
            writer.send_signal(signal.SIGSTOP)  # nothing moves while we look
            in_flight = temporary() is not None
    finally:
        writer.kill()
        writer.wait()
    return in_flight


def test_kill_9_during_a_large_write_leaves_the_old_or_the_new_content(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    old, new = _lines("old", OLD_LINES), _lines("new", NEW_LINES)
    old_digest, new_digest = hashlib.sha256(old).digest(), hashlib.sha256(new).digest()
    outcomes = []
    for moment in MOMENTS:
        path.write_bytes(old)
        in_flight = _kill_writer_at(path, moment, len(new))
        now = hashlib.sha256(path.read_bytes()).digest()
        assert now in (old_digest, new_digest), f"a mix of old and new after a kill at {moment}"
        outcome = "new" if now == new_digest else "old"
        if moment is None or in_flight:
            assert outcome == "old", f"killed at {moment} before the rename, yet changed"
        if moment == "done":
            assert outcome == "new"
        outcomes.append((moment, in_flight, outcome))
        for name in temporaries(tmp_path):  # a killed writer's, named as ours
            assert name.startswith(".big.txt.agent-tui-"), name

    # The next write of the file clears what killed writers left behind.
    write_atomically(path, b"after\n")
    assert temporaries(tmp_path) == [], outcomes
    assert path.read_bytes() == b"after\n"


# --------------------------------------------------------------------------- the loop


class ModalApprover:
    """Answers approvals as a person in the modal would, recording what it was asked."""

    def __init__(self, answer: Callable[[ApprovalRequest], Decision]) -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest, preview: object = None) -> Decision:
        self.asked.append(request)
        return self.answer(request)

    async def review_summary(self, summary: str) -> str:
        return summary


def _agent(fake: FakeProvider, workdir: Path, approver: Any, *,
           session: SessionStore | None = None) -> Agent:
    settings = settings_for(fake, approval_mode="default")
    return Agent(LitellmProvider(settings), ToolRegistry(builtin_tools()), settings, workdir,
                 approver, lambda event: None, session=session)


def _read_then_edit() -> list[Reply]:
    return [
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
        Reply(tool_calls=[ToolCall("edit_file", {"file_path": "a.txt", "old_text": "two",
                                                 "new_text": "2"})]),
        Reply(text="done"),
    ]


async def test_the_person_edits_the_proposed_content_and_it_is_written(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(BOM + b"one\r\ntwo\r\nthree\r\n")
    approver = ModalApprover(lambda request: WriteEdited("one\nTWO, by hand\nthree\n"))
    fake_provider.script(*_read_then_edit())

    result = await _agent(fake_provider, tmp_path, approver).run("change line two")

    assert result.ok, result.error
    assert [r.tool for r in approver.asked] == ["edit_file"]
    told = fake_provider.requests[2].tool_results()[-1]["content"]
    assert "the person edited this call" in told and "write_file" in told
    assert "Wrote" in told and "Error" not in told
    assert path.read_bytes() == BOM + b"one\r\nTWO, by hand\r\nthree\r\n"


@pytest.mark.parametrize("edited", [False, True])
async def test_a_change_on_disk_while_the_modal_is_open_is_not_overwritten(
        fake_provider: FakeProvider, tmp_path: Path, edited: bool) -> None:
    path = tmp_path / "a.txt"
    path.write_text("one\ntwo\nthree\n")

    def person_saves_elsewhere_then_allows(request: ApprovalRequest) -> Decision:
        path.write_text("one\ntwo\nthree\nsaved in the editor\n")
        return WriteEdited("mine\n") if edited else Allow()

    fake_provider.script(*_read_then_edit())
    await _agent(fake_provider, tmp_path,
                 ModalApprover(person_saves_elsewhere_then_allows)).run("change line two")

    told = fake_provider.requests[2].tool_results()[-1]["content"]
    assert "a.txt changed on disk since you last read it" in told
    assert "Read it again with read_file" in told
    assert path.read_text() == "one\ntwo\nthree\nsaved in the editor\n"


async def test_an_edit_without_a_read_is_refused_before_anyone_is_asked(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    approver = ModalApprover(lambda request: Allow())
    fake_provider.script(
        Reply(tool_calls=[ToolCall("edit_file", {"file_path": "a.txt", "old_text": "two",
                                                 "new_text": "2"})]),
        Reply(text="I will read it first."),
    )

    await _agent(fake_provider, tmp_path, approver).run("change line two")

    told = fake_provider.requests[1].tool_results()[-1]["content"]
    assert "a.txt has not been read in this session" in told
    assert approver.asked == []
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"


async def test_a_resumed_session_reads_files_again_before_editing(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    allow = ModalApprover(lambda request: Allow())
    store = SessionStore.create("before-resume", project=tmp_path, model="openai/fake-model")
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
                         Reply(text="read it"))
    await _agent(fake_provider, tmp_path, allow, session=store).run("look at a.txt")
    store.close()

    resumed = _agent(fake_provider, tmp_path, allow)
    resumed.restore(read_events("before-resume"))
    fake_provider.script(*_read_then_edit()[1:])
    await resumed.run("now change line two")

    told = fake_provider.requests[-1].tool_results()[-1]["content"]
    assert "a.txt has not been read in this session" in told
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"


async def test_a_sub_agent_reading_a_file_does_not_let_the_parent_edit_it(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    settings = settings_for(fake_provider, approval_mode="yolo", network=True)
    agent = Agent(LitellmProvider(settings), ToolRegistry(builtin_tools()), settings, tmp_path,
                  ModalApprover(lambda request: Allow()), lambda event: None)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("research", {"query": "what is in a.txt?"})]),
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),  # the sub-agent
        Reply(text="## Question\nq\n## Findings\n- one, two\n## Options\n-\n"
                   "## Recommendation\nnone"),
        Reply(tool_calls=[ToolCall("edit_file", {"file_path": "a.txt", "old_text": "two",
                                                 "new_text": "2"})]),
        Reply(text="done"),
    )

    await agent.run("research a.txt, then change it")

    assert "one" in fake_provider.requests[2].tool_results()[-1]["content"]  # the sub-agent read
    told = fake_provider.requests[4].tool_results()[-1]["content"]
    assert "a.txt has not been read in this session" in told
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"
