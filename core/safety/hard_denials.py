"""The commands agent-tui refuses in every mode, yolo included: ``rm -rf /``, fork bombs,
``mkfs``, ``dd`` onto a disk, ``curl … | sh``, ``chmod -R 777 /``, shutting the machine down.

Options are read as the programs read them (``rm --no-pres`` is ``--no-preserve-root``), and
a target is judged by where it really is (``rm -rf ~/..`` is the home folder's parent).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .option_tables import TABLES
from .shell_options import parse_options
from .shell_parts import Part, ShellAnalysis, Word
from .workspace import GLOB_CHARS, Workspace, brace_expand

DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "GET"})
"""Programs that fetch from the network."""

SYSTEM_DIRS = frozenset({
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
    "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/var", "/snap", "/usr/bin",
    "/usr/lib", "/usr/local", "/usr/sbin", "/usr/share", "/var/lib", "/Applications",
    "/Library", "/System", "/Users", "/Volumes", "/private",
})
"""Folders whose loss breaks the machine."""

_DISK = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|dm-|md|mapper/|rdisk)|"
                   r"^/proc/sysrq-trigger$")
"""Disk devices and the kernel's trigger file, whose overwriting wrecks the machine."""


def hard_denial(part: Part, analysis: ShellAnalysis, workspace: Workspace) -> str | None:
    """Why ``part`` is refused in every mode, yolo included, or None."""
    name = part.name
    argv = part.argv
    operands = [w for w in part.command[1:] if not w.text.startswith("-")]
    if name in analysis.fork_bombs:
        return "is a fork bomb"
    if name == "rm":
        parsed = parse_options(part.command, 0, TABLES["rm"])
        if parsed.has("--no-preserve-root"):
            return "deletes with --no-preserve-root, which lets rm erase /"
        if parsed.has("-r", "-R", "--recursive"):
            for word in parsed.operands:
                if doomed := _doomed(word, part.cwd, workspace, project=True):
                    return f"deletes {doomed}"
    if name in ("chmod", "chown", "chgrp"):
        parsed = parse_options(part.command, 0, TABLES[name])
        if parsed.has("-R", "--recursive"):
            for word in parsed.operands:
                if doomed := _doomed(word, part.cwd, workspace, project=False):
                    return f"changes the permissions or owner of everything in {doomed}"
    if name == "find" and _find_deletes(argv):
        for word in operands:
            if doomed := _doomed(word, part.cwd, workspace, project=False):
                return f"deletes everything in {doomed}"
    if name == "mv":
        for word in operands:
            if doomed := _doomed(word, part.cwd, workspace, project=False):
                return f"moves {doomed} away"
    if name.startswith("mkfs") or name in ("mke2fs", "mkdosfs", "mkntfs"):
        return "formats a file system"
    if reason := _disk_write(part, name, operands):
        return reason
    if name in ("shutdown", "reboot", "halt", "poweroff") or (
            name == "systemctl" and argv[1:2] and argv[1] in ("poweroff", "reboot", "halt",
                                                              "kexec")) or (
            name in ("init", "telinit") and argv[1:2] in (("0",), ("6",))):
        return "shuts down or restarts the machine"
    if name == "killall5" or (name == "kill" and "-1" in argv[2:]) or argv == ("kill", "--",
                                                                                "-1"):
        return "kills every process you own"
    if _fed_from_network(part, analysis):
        return "runs a script straight from the network (like curl … | sh)"
    return None


def _find_deletes(argv: tuple[str, ...]) -> bool:
    """``find -delete`` or ``find -exec rm``/``shred``."""
    for index, arg in enumerate(argv):
        if arg == "-delete" or (arg in ("-exec", "-execdir") and index + 1 < len(argv)
                                and os.path.basename(argv[index + 1]) in ("rm", "shred")):
            return True
    return False


def _doomed(word: Word, cwd: Path | None, workspace: Workspace, *, project: bool) -> str | None:
    """What losing ``word`` would lose when that is catastrophic: /, home, a system folder,
    (with ``project``) the project or a folder holding it."""
    if word.dynamic:
        return None
    for candidate in brace_expand(word.text):
        globbed = bool(GLOB_CHARS.search(candidate))
        base = candidate
        if globbed:
            prefix = GLOB_CHARS.split(candidate, 1)[0]
            base = os.path.dirname(prefix) if "/" in prefix else "."
        path = workspace.resolve(base, cwd)
        if path is None:
            continue
        if not str(path).strip("/"):
            return "the root folder /"
        if path == workspace.home:
            return "your home folder"
        if str(path) in SYSTEM_DIRS:
            return f"the system folder {path}"
        if project and not globbed and (path == workspace.root or path in workspace.root.parents):
            return "the project folder" if path == workspace.root else (
                f"{path}, which holds the project")
    return None


def _disk_write(part: Part, name: str, operands: list[Word]) -> str | None:
    for redirect in part.redirects:
        if redirect.writes and redirect.target and _DISK.match(redirect.target.text):
            return f"overwrites the device {redirect.target.text}"
    if name == "dd":
        for word in part.command[1:]:
            if word.text.startswith("of=") and _DISK.match(word.text[3:]):
                return f"overwrites the device {word.text[3:]}"
    if name in ("tee", "cp", "shred", "wipefs", "mkswap", "blkdiscard", "sgdisk"):
        for word in operands:
            if _DISK.match(word.text):
                return f"overwrites the device {word.text}"
    return None


def _fed_from_network(part: Part, analysis: ShellAnalysis) -> bool:
    """Code that comes from a download: ``curl … | sh``, ``sh <(curl …)``,
    ``bash -c "$(curl …)"``, ``eval "$(wget -qO- …)"``."""
    if part.stdin_code and part.pipe is not None:
        stages = analysis.pipeline(part)
        if any(p.name in DOWNLOADERS for p in stages if p.pipe and p.pipe[1] < part.pipe[1]):
            return True
    return any(p.name in DOWNLOADERS for word in part.code for p in word.inner)
