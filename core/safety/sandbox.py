"""The bubblewrap sandbox that shell and background commands run in (``sandbox = "bwrap"``).

Inside it the whole file system is read-only except the project folder and a private
``/tmp`` (a folder of the session's, kept across the session's commands). In the project,
``.agent-tui`` (agent-tui's own config) and git's hooks and config stay read-only too: a
command must not leave behind something that runs unsandboxed later. The network is cut
(``--unshare-net``) unless it is on for the session when the command starts.

The command stays in the process group agent-tui starts it in (no ``--new-session``, no pid
namespace), so cancelling kills it and its children exactly as without the sandbox, and the
pids of background processes mean the same inside and out. ``--die-with-parent`` takes a
command down when agent-tui dies.

When bwrap is missing or cannot start, :class:`SandboxUnavailable` says what to install or
to run with ``--sandbox none``: a command never runs unsandboxed by surprise.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..paths import PROJECT_DIR_NAME

if TYPE_CHECKING:
    from ..settings import Settings

PROBE_TIMEOUT_S = 10.0
"""How long the one-off check that bwrap can build a sandbox may take."""
SANDBOX_TMP = Path("/tmp")
"""Where the session's private temp folder appears inside the sandbox."""
PROTECTED = (PROJECT_DIR_NAME, ".git/hooks", ".git/config")
"""Paths in the project that stay read-only: agent-tui's own config, and the parts of git
that run code outside the sandbox later (a hook, or ``core.hooksPath``/``core.fsmonitor``)."""
INSTALL_BUBBLEWRAP = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: "
                      "dnf install bubblewrap; Arch: pacman -S bubblewrap)")
"""How to get bwrap, for every message that needs it."""
_INSTALL_HINT = (f"{INSTALL_BUBBLEWRAP} or run agent-tui with --sandbox none (sandbox = \"none\" "
                 "in config.toml) to run commands without the sandbox")


class SandboxError(Exception):
    """A command cannot run in the sandbox; the message says why and what to do."""


class SandboxUnavailable(SandboxError):
    """bwrap is missing or cannot build a sandbox on this machine."""


class BwrapSandbox:
    """Wraps commands in bubblewrap.

    Args:
        tmp_dir: The host folder mounted at ``/tmp`` inside; made on first use and removed
            when agent-tui exits unless ``keep_tmp``.
        binary: The bwrap executable (a path or a name on PATH).
        keep_tmp: Leave ``tmp_dir`` in place at exit (background processes kept running
            after agent-tui exits still use it).
    """

    def __init__(self, tmp_dir: Path, binary: str | None = None, *,
                 keep_tmp: bool = False) -> None:
        self.tmp_dir = tmp_dir
        self.binary = binary
        self.keep_tmp = keep_tmp
        self._lock = threading.Lock()
        self._cleanup_registered = False

    def wrap(self, argv: Sequence[str], *, workdir: Path, cwd: Path, network: bool,
             readable: Iterable[Path] = (), die_with_parent: bool = True) -> list[str]:
        """The command line that runs ``argv`` in the sandbox.

        Blocks for a moment the first time (bwrap is tried once per binary and network
        setting); call it off the event loop.

        Args:
            argv: The command, e.g. ``["bash", "-c", "make"]``.
            workdir: The project folder, the one writable place besides ``/tmp``.
            cwd: Where the command starts.
            network: Whether the command may reach the network.
            readable: Host folders under ``/tmp`` the command must still read (e.g. where
                output logs go), mounted read-only over the private ``/tmp``.
            die_with_parent: Kill the command when agent-tui dies (off for background
                processes meant to outlive it).

        Raises:
            SandboxUnavailable: bwrap is missing or cannot start.
            SandboxError: ``cwd`` is hidden by the private ``/tmp``.
        """
        exe = find_bwrap(self.binary)
        check_bwrap(exe, network)
        project = workdir.resolve()
        where = cwd.resolve()
        if _under(where, SANDBOX_TMP) and not _under(where, project):
            raise SandboxError(
                f"{cwd} is under /tmp, which the sandbox replaces with a private temp folder, "
                f"so the command cannot start there; run it in the project ({workdir}) or a "
                "folder outside /tmp, or run agent-tui with --sandbox none")
        tmp = self._tmp()
        args = [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--bind", str(tmp), str(SANDBOX_TMP)]
        for path in readable:
            if path.is_dir() and _under(path.resolve(), SANDBOX_TMP):
                args += ["--ro-bind", str(path.resolve()), str(path.resolve())]
        args += ["--bind", str(project), str(project)]
        for name in PROTECTED:
            if (project / name).exists():
                args += ["--ro-bind", str(project / name), str(project / name)]
        if not network:
            args.append("--unshare-net")
        if die_with_parent:
            args.append("--die-with-parent")
        # Run as root, bwrap keeps root's capabilities inside: `mount -o remount,rw /` would
        # make the whole file system writable again.
        args += ["--cap-drop", "ALL"]
        args += ["--setenv", "TMPDIR", str(SANDBOX_TMP), "--chdir", str(where), "--", *argv]
        return args

    def _tmp(self) -> Path:
        with self._lock:
            self.tmp_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not self._cleanup_registered and not self.keep_tmp:
                atexit.register(self.close)
                self._cleanup_registered = True
        return self.tmp_dir

    def close(self) -> None:
        """Remove the private ``/tmp`` folder (unless ``keep_tmp``)."""
        if not self.keep_tmp:
            shutil.rmtree(self.tmp_dir, ignore_errors=True)


def make_sandbox(settings: Settings, tmp_dir: Path) -> BwrapSandbox | None:
    """The sandbox ``settings`` ask for (``sandbox``, ``bwrap_path``), or None for "none".

    Args:
        settings: The run's settings.
        tmp_dir: The host folder to mount at ``/tmp`` (e.g. inside the session's folder).
    """
    if getattr(settings, "sandbox", "none") != "bwrap":
        return None
    return BwrapSandbox(tmp_dir, getattr(settings, "bwrap_path", None),
                        keep_tmp=bool(getattr(settings, "keep_background_processes", False)))


def sandbox_problem(settings: Settings) -> str | None:
    """Why the sandbox ``settings`` ask for cannot run here, or None when it can (or is off).

    For a warning at start-up; each command checks again.
    """
    if getattr(settings, "sandbox", "none") != "bwrap":
        return None
    try:
        check_bwrap(find_bwrap(getattr(settings, "bwrap_path", None)),
                    bool(getattr(settings, "network", False)))
    except SandboxUnavailable as exc:
        return str(exc)
    return None


def find_bwrap(binary: str | None = None) -> str:
    """The bwrap executable: ``binary`` (a path, or a name looked up on PATH) or ``bwrap``.

    Raises:
        SandboxUnavailable: it is not installed, or ``binary`` names nothing usable.
    """
    if binary and os.sep in binary:
        if os.path.isfile(binary) and os.access(binary, os.X_OK):
            return binary
        what = "does not exist" if not os.path.exists(binary) else "is not an executable file"
        raise SandboxUnavailable(
            f"the sandbox is on but bwrap_path ({binary}) {what}; point bwrap_path in "
            f"config.toml at the bwrap binary (or remove it to use bwrap on PATH), or "
            f"{_INSTALL_HINT}")
    name = binary or "bwrap"
    found = shutil.which(name)
    if found is None:
        raise SandboxUnavailable(
            f"the sandbox is on but bubblewrap ({name}) is not installed or not on PATH; "
            f"{_INSTALL_HINT}")
    return found


_working: set[tuple[str, bool]] = set()
_working_lock = threading.Lock()


def check_bwrap(exe: str, network: bool) -> None:
    """Make sure ``exe`` can build a sandbox here, with or without the network.

    Tried once per binary and network setting for the life of the process; a failure is
    tried again next time (the person may have fixed it meanwhile).

    Raises:
        SandboxUnavailable: with bwrap's own message, e.g. when user namespaces are off.
    """
    key = (exe, network)
    with _working_lock:
        if key in _working:
            return
    probe = [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
             *([] if network else ["--unshare-net"]), "--die-with-parent", "--", "true"]
    try:
        done = subprocess.run(probe, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(
            f"bubblewrap ({exe}) cannot start: {exc}; reinstall it, or run agent-tui with "
            "--sandbox none to run commands without the sandbox") from None
    if done.returncode != 0:
        said = (done.stderr.decode(errors="replace").strip().rstrip(".")
                or f"exit code {done.returncode}")
        raise SandboxUnavailable(
            f"bubblewrap ({exe}) cannot build a sandbox here: {said}.{namespace_hint(said)} "
            "Or run agent-tui with --sandbox none to run commands without the sandbox")
    with _working_lock:
        _working.add(key)


def namespace_hint(said: str) -> str:
    """What to do, when bwrap's complaint ``said`` is about user namespaces; "" otherwise
    (then its own words are the whole story: a guess would send the person the wrong way)."""
    if "namespace" not in said and "uid map" not in said:
        return ""
    return (" It needs user namespaces: run as root, or enable them "
            "(kernel.unprivileged_userns_clone=1, user.max_user_namespaces above 0, or a "
            "container that allows them).")


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
