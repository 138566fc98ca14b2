"""Previewing a command in bubblewrap over a scratch copy of a real project."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import uuid
from pathlib import Path

import pytest

from agent_tui.core.approval import preview_event
from agent_tui.core.events import Event
from agent_tui.core.safety.preview import (
    MAX_FILES,
    CommandPreview,
    PreviewCancelled,
    PreviewUnavailable,
    preview_command,
    preview_summary,
)
from agent_tui.core.safety.redaction import REDACTED, RedactingSink


def tree_digest(root: Path) -> dict[str, tuple[int, str]]:
    """Every entry under ``root``: its mode and its content (or link target)."""
    seen: dict[str, tuple[int, str]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            info = path.lstat()
            if path.is_symlink():
                body = os.readlink(path)
            elif path.is_file():
                body = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                body = ""
            seen[str(path.relative_to(root))] = (info.st_mode, body)
    return seen


def processes_with(marker: str) -> list[int]:
    """Pids of processes on this machine whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\nx = 1\n")
    (root / "notes.txt").write_text("keep me\n")
    (root / "old.log").write_text("stale\n")
    (root / "run.sh").write_text("#!/bin/sh\necho run\n")
    (root / "blob.bin").write_bytes(b"\0\1\2" * 10)
    os.symlink("notes.txt", root / "link")
    return root


def by_path(preview: CommandPreview) -> dict[str, tuple[str, str]]:
    return {c.path: (c.kind, c.diff) for c in preview.changes}


def test_created_modified_and_deleted_files_are_reported_with_diffs(project: Path):
    before = tree_digest(project)

    preview = preview_command(
        "echo new > fresh.txt && sed -i 's/x = 1/x = 2/' src/app.py && rm old.log "
        "&& chmod +x notes.txt && echo done",
        project)

    changes = by_path(preview)
    assert set(changes) == {"fresh.txt", "src/app.py", "old.log", "notes.txt"}
    assert changes["fresh.txt"][0] == "created"
    assert "+new" in changes["fresh.txt"][1]
    kind, diff = changes["src/app.py"]
    assert kind == "modified"
    assert "--- a/src/app.py" in diff and "+++ b/src/app.py" in diff
    assert "-x = 1" in diff and "+x = 2" in diff
    assert changes["old.log"][0] == "deleted" and "-stale" in changes["old.log"][1]
    assert changes["notes.txt"] == ("modified", "mode 100644 → 100755")
    assert preview.exit_code == 0 and not preview.timed_out
    assert preview.output == "done\n"
    assert tree_digest(project) == before


def test_the_real_project_is_untouched_even_by_in_place_writes_and_rm_rf(project: Path):
    before = tree_digest(project)

    preview = preview_command(
        "printf more >> notes.txt; dd if=/dev/zero of=blob.bin bs=1 count=4 conv=notrunc "
        "2>/dev/null; rm -rf ./*", project)

    assert {c.kind for c in preview.changes} == {"deleted"}
    assert "src/app.py" in by_path(preview)
    assert tree_digest(project) == before


def test_absolute_paths_into_the_project_land_in_the_copy(project: Path):
    target = project / "src" / "abs.txt"

    preview = preview_command(f"echo absolute > {target}", project, project / "src")

    assert by_path(preview)["src/abs.txt"][0] == "created"
    assert not target.exists()


def test_output_keeps_stdout_and_stderr_and_the_exit_code(project: Path):
    preview = preview_command("echo out; echo err >&2; exit 3", project)

    assert "out\n" in preview.output and "err\n" in preview.output
    assert preview.exit_code == 3
    assert preview.changes == ()


def test_binary_and_symlink_changes_are_described_not_diffed(project: Path):
    preview = preview_command("printf '\\0\\0' >> blob.bin; ln -sfn src/app.py link", project)

    changes = by_path(preview)
    assert changes["blob.bin"] == ("modified", "binary file, 30 bytes → binary file, 32 bytes")
    assert changes["link"] == ("modified", "symlink to notes.txt → symlink to src/app.py")


def test_writes_outside_the_project_fail_unless_the_folder_is_watched(tmp_path: Path,
                                                                       project: Path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("# rc\n")

    unwatched = preview_command(f"echo x > {home}/.bashrc", project)
    watched = preview_command(f"echo x >> {home}/.bashrc; touch {tmp_path}/beside",
                              project, watch=[home, tmp_path])

    assert unwatched.exit_code != 0 and unwatched.changes == ()
    assert by_path(watched) == {
        f"{home}/.bashrc": ("modified",
                            f"--- a/{home}/.bashrc\n+++ b/{home}/.bashrc\n"
                            "@@ -1 +1,2 @@\n # rc\n+x"),
        f"{tmp_path}/beside": ("created", ""),
    }
    assert (home / ".bashrc").read_text() == "# rc\n"
    assert not (tmp_path / "beside").exists()


def test_a_command_past_the_time_box_is_killed_with_its_group(project: Path):
    marker = f"{uuid.uuid4().int % 1000}.{uuid.uuid4().int % 100000}"

    preview = preview_command(f"echo started; sleep 6{marker}", project, timeout_s=0.5)

    assert preview.timed_out and preview.exit_code is None
    assert "started" in preview.output
    assert processes_with(f"sleep 6{marker}") == []


@pytest.mark.parametrize("then", ["", " echo bye"])
def test_processes_left_running_are_listed_and_then_killed(project: Path, then: str):
    marker = f"6{uuid.uuid4().int % 100000}"

    preview = preview_command(f"sleep {marker} &{then}", project)

    assert preview.exit_code == 0 and not preview.timed_out
    assert preview.left_running == (f"sleep {marker}",)
    assert processes_with(f"sleep {marker}") == []


def test_the_previewed_command_has_no_capabilities(project: Path):
    """As root, `mount -o remount,rw /` inside would make the real tree writable."""
    outside = Path.home() / f".agent-tui-preview-remount-{os.getpid()}"  # not under /tmp
    preview = preview_command(f"grep CapEff /proc/self/status; mount -o remount,rw /; "
                              f"touch {outside}", project)
    assert "CapEff:\t0000000000000000" in preview.output
    assert not outside.exists()


def test_the_network_is_cut(project: Path):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]

        preview = preview_command(
            f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected || echo refused", project)

    assert "refused" in preview.output and "connected" not in preview.output


def test_daemon_sockets_under_run_are_out_of_reach(project: Path):
    path = Path("/run") / f"agent-tui-test-{uuid.uuid4().hex[:8]}.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen()
        try:
            preview = preview_command(
                f"test -S {path} && echo reachable || echo hidden", project)
        finally:
            path.unlink()

    assert preview.output == "hidden\n"


def test_tmp_is_private_holding_only_the_way_to_the_project(project: Path):
    outside = Path("/tmp") / f"outside-{uuid.uuid4().hex}"
    outside.touch()
    try:
        preview = preview_command("ls -A /tmp", project)
    finally:
        outside.unlink()

    # And the way to agent-tui's own Python, when it lives under /tmp (it runs the command).
    ways = {path.parts[2] for path in (project, Path(sys.prefix), Path(sys.base_prefix))
            if path.parts[1:2] == ("tmp",)}
    assert sorted(preview.output.split()) == sorted(ways)


PREVIEW_FROM_ANOTHER_PYTHON = """
import json, site, sys
from pathlib import Path
for folder in json.loads(sys.argv[1]):
    site.addsitedir(folder)
from agent_tui.core.safety.preview import preview_command
preview = preview_command("echo made > made.txt && echo ran", Path(sys.argv[2]))
print(json.dumps({"prefix": sys.prefix, "exit_code": preview.exit_code,
                  "output": preview.output, "changes": [c.path for c in preview.changes]}))
"""


def test_a_preview_works_when_agent_tuis_python_lives_under_tmp(project: Path):
    # A virtual environment under /tmp, which the preview sandbox hides behind an empty tmpfs.
    venv = Path(tempfile.mkdtemp(prefix="agent-tui-venv-", dir="/tmp"))
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--clear", str(venv)],
                       check=True, capture_output=True, timeout=120)
        site_dirs = [p for p in sys.path if p.endswith("site-packages")]
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-c", PREVIEW_FROM_ANOTHER_PYTHON,
             json.dumps(site_dirs), str(project)],
            capture_output=True, text=True, timeout=120, check=False)
    finally:
        shutil.rmtree(venv)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["prefix"] == str(venv)
    assert (seen["exit_code"], seen["output"], seen["changes"]) == (0, "ran\n", ["made.txt"])
    assert not (project / "made.txt").exists()


@pytest.mark.parametrize("complaint, hint", [
    ("bwrap: Can't mount proc on /newroot/proc: Operation not permitted", False),
    ("bwrap: No permissions to create new namespace, likely because the kernel does not "
     "allow non-privileged user namespaces.", True),
])
def test_a_sandbox_that_cannot_start_is_reported_in_bwraps_words(
        project: Path, tmp_path: Path, complaint: str, hint: bool):
    (tmp_path / "complaint").write_text(complaint + "\n")
    broken = tmp_path / "bwrap"
    broken.write_text(f"#!/bin/sh\necho 'said on stdout'\ncat {tmp_path / 'complaint'} >&2\n"
                      "exit 1\n")
    broken.chmod(0o755)

    with pytest.raises(PreviewUnavailable) as caught:
        preview_command("true", project, bwrap=str(broken))

    message = str(caught.value)
    assert f"could not run the command: {complaint}" in message
    assert "said on stdout" not in message
    assert ("user namespaces: run as root" in message) is hint
    assert "without a preview" in message


def test_a_missing_bwrap_says_to_install_bubblewrap(project: Path):
    with pytest.raises(PreviewUnavailable, match="apt-get install bubblewrap"):
        preview_command("true", project, bwrap="/nonexistent")


def test_a_project_too_big_to_copy_is_refused(tmp_path: Path):
    big = tmp_path / "big"
    big.mkdir()
    for i in range(MAX_FILES + 1):
        (big / f"{i}").touch()

    with pytest.raises(PreviewUnavailable, match="too much to copy"):
        preview_command("true", big)


def test_cancelling_kills_the_command(project: Path):
    marker = f"7{uuid.uuid4().int % 100000}"
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()

    with pytest.raises(PreviewCancelled):
        preview_command(f"sleep {marker}", project, timeout_s=30, cancel=cancel)

    assert processes_with(f"sleep {marker}") == []


def test_the_environment_given_is_the_commands(project: Path):
    preview = preview_command("echo $GREETING", project,
                              env={"PATH": os.environ["PATH"], "GREETING": "hi there"})

    assert preview.output == "hi there\n"


def test_a_preview_event_shows_no_secret_in_output_or_diffs(project: Path):
    secret = "hunter2-very-secret-value"
    preview = preview_command(f"echo {secret}; echo {secret} > leak.txt", project)
    shown: list[Event] = []

    RedactingSink(shown.append, [secret])(preview_event("call-1", preview))

    text = json.dumps(shown[0].to_dict())
    assert secret not in text
    event = shown[0].to_dict()
    assert event["output"] == f"{REDACTED}\n"
    assert event["changes"][0]["path"] == "leak.txt"
    assert set(event["changes"][0]) == {"path", "kind", "diff"}
    assert f"+{REDACTED}" in event["changes"][0]["diff"]


def test_the_summary_says_how_it_ended_and_what_changed(project: Path):
    preview = preview_command("touch a b; sleep 60 &", project)

    assert preview_summary(preview) == (
        "exit 0 · 2 files changed · 1 process left running (killed)")
