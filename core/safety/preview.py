"""Previewing a command: run it in bubblewrap over a scratch copy of the project and report
what it would change, before anyone approves it.

The project (and each ``watch`` folder) is copied to a scratch folder and the copy is bound
writable at the original's own path, so absolute paths in the command land in the copy; the
rest of the file system is read-only, ``/tmp`` is a private tmpfs and the network is cut.
``/run`` is hidden too: through the sockets there (docker, D-Bus, agents) a command could
act outside the sandbox without a network. The command runs under a small wrapper, the
sandbox's first process, that runs ``bash -c``, waits for it and then lists the processes
still alive; leaving the sandbox kills them. The wrapper is agent-tui's own Python: where
that Python (or bash) lives in a hidden folder (a virtual environment under ``/tmp``), its
folders are bound read-only into the sandbox so it can start. On the time box the whole
process group is killed. Afterwards each copy is compared with its original: regular files
and symlinks created, modified (content or mode) or deleted, with a unified diff. The real
tree is never written.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .preview_changes import MAX_TOTAL_DIFF_CHARS, FileChange, compare_copy, walk_files
from .sandbox import INSTALL_BUBBLEWRAP, SandboxUnavailable, find_bwrap, namespace_hint

MAX_FILES = 20_000
"""The most files (project and watch folders together) a preview copies."""
MAX_BYTES = 500 * 1024 * 1024
"""The most bytes a preview copies."""
MAX_OUTPUT_BYTES = 64 * 1024
"""Output kept: the first and last halves of this many bytes."""
_RUNTIME_DIRS = ("/run", "/var/run")
"""Hidden behind an empty tmpfs: the sockets there (docker, D-Bus, systemd, ssh and gpg
agents) would let a previewed command act outside the sandbox, network or not."""
# A write in the same tick of the kernel's coarse clock as the copy can leave ctime
# unchanged; waiting one tick (at most 10 ms at HZ=100) makes every later write visible.
_CLOCK_TICK_S = 0.011
# The command's stderr goes with its stdout, so what reaches the sandbox's own stderr is
# bwrap's (or the wrapper's) complaint, reported as the reason when the wrapper never reports.
# The listing is repeated until it holds still: a child forked just before bash exited
# shows bash's command line, then none, until it has exec'd its own program.
_WRAPPER = r"""
import json, os, subprocess, sys, time
report, bash, command = int(sys.argv[1]), sys.argv[2], sys.argv[3]
code = subprocess.call([bash, "-c", command], stderr=subprocess.STDOUT)
me = os.getpid()
def alive():
    left = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in (1, me):
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    state = f.read().rsplit(b")", 1)[1].split()[0]
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    raw = f.read()
            except (OSError, IndexError):
                continue
            if state != b"Z":  # the command line is empty for a moment during exec
                left.append(raw.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace"))
    return sorted(left)
left = alive()
for _ in range(10):
    if not left:
        break
    time.sleep(0.02)
    left, before = alive(), left
    if left == before:
        break
code = code if code >= 0 else 128 - code
os.write(report, json.dumps({"exit_code": code, "left_running": left}).encode())
sys.exit(code)
"""

@dataclass(frozen=True, slots=True)
class CommandPreview:
    """What a command did in the preview sandbox.

    Attributes:
        command: The command previewed.
        changes: Files created, modified or deleted, sorted by path.
        output: stdout and stderr together, truncated with a note.
        exit_code: The command's exit code; None when the time box killed it.
        timed_out: The time box ran out.
        left_running: Command lines of processes still alive after the command exited
            (the sandbox then killed them).
        duration_s: How long the command ran.
    """

    command: str
    changes: tuple[FileChange, ...]
    output: str
    exit_code: int | None
    timed_out: bool
    left_running: tuple[str, ...]
    duration_s: float


class PreviewUnavailable(Exception):
    """The command cannot be previewed here; the message says why and what to do."""


class PreviewCancelled(Exception):
    """The preview was cancelled before the command finished; its processes were killed."""


@dataclass(frozen=True, slots=True)
class _Mount:
    original: Path
    copy: Path
    label: Callable[[str], str]


def preview_command(command: str, project: Path, cwd: Path | None = None, *,
                    timeout_s: float = 10.0, env: Mapping[str, str] | None = None,
                    watch: Sequence[Path] = (), bwrap: str | None = None,
                    cancel: threading.Event | None = None) -> CommandPreview:
    """Run ``command`` in a sandbox over a scratch copy of ``project`` and report its effect.

    Synchronous and slow (it copies the project): call it off the event loop.

    Args:
        command: The shell command, run as ``bash -c command``.
        project: The project folder; copied, and the copy bound at this path.
        cwd: Where the command starts (default: the project).
        timeout_s: The time box; then the command's process group is killed.
        env: The command's environment (default: the current one).
        watch: More folders to copy and compare (e.g. a home folder); changes there are
            reported with absolute paths.
        bwrap: The bwrap executable (a path or a name on PATH; default ``bwrap``).
        cancel: Set it to stop the preview early: the command is killed and
            :class:`PreviewCancelled` raised.

    Raises:
        PreviewUnavailable: bwrap is missing or cannot build a sandbox, or a folder is too
            big to copy or cannot be copied.
        PreviewCancelled: ``cancel`` was set.
    """
    exe = _find_bwrap(bwrap)
    project = project.resolve()
    where = (cwd or project).resolve()
    originals = sorted({project, *(Path(w).resolve() for w in watch)},
                       key=lambda p: len(p.parts))
    if not where.is_dir():
        raise PreviewUnavailable(
            f"cannot preview in {where}: it is not a folder; the command would fail there "
            "too, so deny it or edit its working folder")
    if _under(where, Path("/tmp")) and not any(_under(where, o) for o in originals):
        raise PreviewUnavailable(
            f"cannot preview in {where}: the preview replaces /tmp with an empty one; run "
            "the command from the project or a watched folder")
    _check_size(originals)
    scratch = Path(tempfile.mkdtemp(prefix="agent-tui-preview-"))
    try:
        mounts = [_Mount(original, scratch / f"copy{i}", _labeller(original, project))
                  for i, original in enumerate(originals)]
        for mount in mounts:
            _copy(mount.original, mount.copy, skip={m.original for m in mounts})
        before = {m.original: dict(walk_files(m.copy, _skips(m, mounts))) for m in mounts}
        time.sleep(_CLOCK_TICK_S)
        args = [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        hidden = _hidden_roots()
        for folder in hidden:
            args += ["--tmpfs", str(folder)]
        # Before the copies: a virtual environment inside the project is then the copy's.
        for needed in _hidden_runtime(hidden):
            args += ["--ro-bind", str(needed), str(needed)]
        for mount in mounts:
            args += ["--bind", str(mount.copy), str(mount.original)]
        # As root, bwrap keeps root's capabilities inside: `mount -o remount,rw /` would
        # make the real file system writable, `date -s` set the clock.
        args += ["--cap-drop", "ALL", "--unshare-pid", "--unshare-net", "--die-with-parent",
                 "--chdir", str(where),
                 "--", sys.executable, "-I", "-c", _WRAPPER]
        run = _run(args, command, env, timeout_s, cancel)
        changes: list[FileChange] = []
        budget = [MAX_TOTAL_DIFF_CHARS]
        for mount in mounts:
            after = dict(walk_files(mount.copy, _skips(mount, mounts)))
            changes += compare_copy(mount.original, mount.copy, mount.label,
                                    before[mount.original], after, budget)
    finally:
        _remove(scratch)
    exit_code, left = run.report
    return CommandPreview(command=command, changes=tuple(sorted(changes, key=lambda c: c.path)),
                          output=run.output, exit_code=exit_code, timed_out=run.timed_out,
                          left_running=left, duration_s=run.duration_s)


def preview_summary(preview: CommandPreview) -> str:
    """One line saying how the previewed command ended and what it changed, e.g.
    ``exit 0 · 2 files changed · nothing left running``."""
    ended = "killed by the time box" if preview.timed_out else f"exit {preview.exit_code}"
    count = len(preview.changes)
    changed = ("no file changed" if not count else
               f"{count} file{'s' if count > 1 else ''} changed")
    left = len(preview.left_running)
    running = (f"{left} process{'es' if left > 1 else ''} left running (killed)" if left
               else "nothing left running")
    return " · ".join((ended, changed, running))


def _find_bwrap(binary: str | None) -> str:
    try:
        return find_bwrap(binary)
    except SandboxUnavailable:
        name = binary or "bwrap"
        raise PreviewUnavailable(
            f"preview needs bubblewrap, and {name} is not installed or not executable; "
            f"{INSTALL_BUBBLEWRAP} (or set bwrap_path in config.toml to its path)") from None


def _hidden_roots() -> list[Path]:
    """The folders the sandbox replaces with an empty tmpfs: ``/tmp`` and the runtime dirs."""
    return [Path("/tmp"), *(Path(r) for r in _RUNTIME_DIRS
                            if os.path.isdir(r) and not os.path.islink(r))]


def _hidden_runtime(hidden: Sequence[Path]) -> list[Path]:
    """What the wrapper needs to run that the sandbox would hide: the interpreter's prefixes
    (a virtual environment's and the Python it was made from), the interpreter itself, and
    bash, each only when it lies inside one of ``hidden`` (never a whole hidden folder)."""
    bash = shutil.which("bash") or "/bin/bash"
    candidates = {Path(p).absolute() for p in (
        sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
        sys.executable, os.path.realpath(sys.executable), bash, os.path.realpath(bash)) if p}
    inside = sorted((p for p in candidates
                     if p.exists() and any(h in p.parents for h in hidden)),
                    key=lambda p: len(p.parts))
    chosen: list[Path] = []
    for path in inside:
        if not any(_under(path, c) for c in chosen):
            chosen.append(path)
    return chosen


def _labeller(original: Path, project: Path) -> Callable[[str], str]:
    if original == project:
        return lambda relative: relative
    return lambda relative: str(original / relative)


def _check_size(originals: Sequence[Path]) -> None:
    files = size = 0
    for original in originals:
        if not original.is_dir():
            raise PreviewUnavailable(
                f"cannot preview: {original} is not a folder; check the path and try again")
        for _, info in walk_files(original, set(originals) - {original}):
            files += 1
            size += info.st_size
            if files > MAX_FILES or size > MAX_BYTES:
                raise PreviewUnavailable(
                    f"cannot preview: {original} holds more than {MAX_FILES:,} files or "
                    f"{MAX_BYTES // (1024 * 1024)} MB, too much to copy quickly; approve or "
                    "deny the command without a preview")


def _copy(source: Path, target: Path, skip: set[Path]) -> None:
    """Copy ``source`` to ``target`` as ``cp -a`` does (a real copy, never hard links to
    the original), leaving the folders in ``skip`` empty: they are bound on their own."""
    target.mkdir()
    shutil.copystat(source, target)
    inside = [s for s in skip if source in s.parents]
    names = sorted(os.listdir(source))
    plain = []
    for name in names:
        path = source / name
        if path in skip:
            (target / name).mkdir()
        elif any(path in s.parents for s in inside):
            _copy(path, target / name, skip)
        else:
            plain.append(str(path))
    if not plain:
        return
    done = subprocess.run(["cp", "-a", "--reflink=auto", "--", *plain, str(target)],
                          stdin=subprocess.DEVNULL, capture_output=True, check=False)
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip()
        raise PreviewUnavailable(
            f"cannot preview: copying {source} failed: {said}; fix the file named, or "
            "approve or deny the command without a preview")


def _skips(mount: _Mount, mounts: Sequence[_Mount]) -> set[Path]:
    return {mount.copy / m.original.relative_to(mount.original) for m in mounts
            if mount.original in m.original.parents}


@dataclass(frozen=True, slots=True)
class _Run:
    output: str
    timed_out: bool
    report: tuple[int | None, tuple[str, ...]]
    duration_s: float


def _run(args: list[str], command: str, env: Mapping[str, str] | None, timeout_s: float,
         cancel: threading.Event | None) -> _Run:
    bash = shutil.which("bash") or "/bin/bash"
    read_end, write_end = os.pipe()
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            [*args, str(write_end), bash, command], stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(write_end,),
            env=dict(os.environ if env is None else env), start_new_session=True)
    except OSError as exc:
        os.close(read_end)
        os.close(write_end)
        raise PreviewUnavailable(f"cannot start bubblewrap ({args[0]}): {exc}; "
                                 f"reinstall it: {INSTALL_BUBBLEWRAP}") from None
    os.close(write_end)
    output, complaint = _OutputTail(), _OutputTail()
    readers = [threading.Thread(target=tail.read_all, args=(stream,), daemon=True)
               for tail, stream in ((output, process.stdout), (complaint, process.stderr))]
    for reader in readers:
        reader.start()
    timed_out = cancelled = False
    deadline = started + timeout_s
    while process.poll() is None:
        if cancel is not None and cancel.is_set():
            cancelled = True
        elif time.monotonic() >= deadline:
            timed_out = True
        else:
            try:
                process.wait(timeout=min(0.05, max(deadline - time.monotonic(), 0.001)))
            except subprocess.TimeoutExpired:
                pass
            continue
        _kill_group(process.pid)
        process.wait()
    duration = time.monotonic() - started
    for reader in readers:
        reader.join()
    with os.fdopen(read_end, "rb") as report_file:
        raw = report_file.read()
    if cancelled:
        raise PreviewCancelled("the preview was cancelled and its command killed")
    if timed_out:
        return _Run(output.text(), True, (None, ()), duration)
    try:
        report = json.loads(raw)
    except ValueError:
        raise PreviewUnavailable(_failure_message(args[0], process.returncode,
                                                  complaint.text().strip())) from None
    return _Run(output.text(), False,
                (int(report["exit_code"]), tuple(report["left_running"])), duration)


def _failure_message(exe: str, code: int, said: str) -> str:
    """Why the sandbox never ran the command, in bwrap's own words."""
    said = said.rstrip(".") or f"it exited with code {code} and wrote nothing on stderr"
    return (f"the preview sandbox ({exe}) could not run the command: {said}."
            f"{namespace_hint(said)} Approve or deny the command without a preview")


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class _OutputTail:
    """Keeps the first and last halves of :data:`MAX_OUTPUT_BYTES` of a stream."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def read_all(self, stream: object) -> None:
        half = MAX_OUTPUT_BYTES // 2
        reader = stream.read1 if hasattr(stream, "read1") else stream.read  # type: ignore[attr-defined]
        while chunk := reader(65536):
            room = half - len(self.head)
            self.head += chunk[:room]
            self.tail += chunk[max(room, 0):]
            if len(self.tail) > half:
                self.dropped += len(self.tail) - half
                del self.tail[:len(self.tail) - half]

    def text(self) -> str:
        head = self.head.decode(errors="replace")
        tail = self.tail.decode(errors="replace")
        if not self.dropped:
            return head + tail
        return f"{head}\n… {self.dropped:,} bytes of output not shown …\n{tail}"


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _remove(folder: Path) -> None:
    def unlock(function: object, path: str, _exc: object) -> None:
        # A command may leave folders without write permission behind in the copy.
        parent = os.path.dirname(path)
        os.chmod(parent, 0o700)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, 0o700)
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)

    shutil.rmtree(folder, onerror=unlock)
