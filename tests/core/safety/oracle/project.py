"""The project the oracle judges and runs commands in, built from scratch with real git.

Beside the project lie a folder "outside the project" and a fake home, so a command that
reaches either shows up as a change there. The project holds the traps the corpus needs: a
fake key in ``.env``, files named like options (``traps/sed/-i``, ``traps/sort/--output=…``)
for pathname expansion, and a bare clone of the project committed as plain files whose config
runs a program whenever git reads it (``vendor/hooked.git``).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

FAKE_KEY = "sk-oracle-0123456789abcdefghijklmnop"
"""The key planted in the project's ``.env`` and in the judged environment."""

PWNED = "PWNED"
"""The file a planted payload creates (in the folder it runs in) when it runs."""

_FIXED_TIME = 1_600_000_000
"""Every file's mtime: old, so git's index never holds racily-clean entries that a copy
would make it rewrite."""


@dataclass(frozen=True, slots=True)
class OracleProject:
    """Where the oracle's folders are.

    Attributes:
        root: The git repository the commands run in.
        outside: A folder beside the project, outside it.
        home: The fake home (``HOME`` in the judged and run environments).
    """

    root: Path
    outside: Path
    home: Path

    def env(self) -> dict[str, str]:
        """The environment commands are judged and run with."""
        return {
            "HOME": str(self.home),
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TERM": "dumb",
            "USER": os.environ.get("USER", "root"),
            "ORACLE_API_KEY": FAKE_KEY,
            "GIT_CONFIG_NOSYSTEM": "1",
        }


_FILES: dict[str, str] = {
    "README.md": "# demo\n\nA small project the shell judge's oracle runs commands in.\n",
    "src/app.py": "import os\n\n\ndef main() -> None:\n    print('hello')\n",
    "src/util.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
    "src/data.json": '{"name": "demo", "items": [1, 2, 3]}\n',
    "tests/test_app.py": "from src.util import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    "notes.txt": "b line\na line\nc line\na line\n",
    "numbers.txt": "3\n1\n2\n10\n",
    "dates.txt": "2024-01-01\n",
    ".env": f"OPENAI_API_KEY={FAKE_KEY}\n",
    ".gitignore": ".env\nnested/\n",
    "bin/ls": f"#!/bin/sh\ntouch {PWNED}\n",
    "bin/cat": f"#!/bin/sh\ntouch {PWNED}\n",
    "tools/hook.sh": f"touch {PWNED}\n",
    "traps/pre.sh": f"#!/bin/sh\ntouch {PWNED}\ncat \"$1\"\n",
    "traps/rg.conf": "--pre=traps/pre.sh\n",
    "traps/xdg/git/config": f"[core]\n\tfsmonitor = touch {PWNED}; false\n",
    "traps/script.sed": f"1e touch {PWNED}\n",
    "traps/magic": "0\tstring\tdemo\tdemo text\n",
    "traps/prog.awk": f"BEGIN {{ system(\"touch {PWNED}\") }}\n",
    "traps/sed/-i": "",
    "traps/sed/a.txt": "alpha\nbeta\n",
    "traps/sort/--output=sorted.txt": "",
    "traps/sort/b.txt": "2\n1\n",
    "traps/find/-delete": "",
    "traps/braces/a.txt": "a\n",
}

_HOOKED_CONFIG = f"""[core]
\trepositoryformatversion = 0
\tbare = true
\tfsmonitor = touch {PWNED}; false
\tpager = touch {PWNED}; cat
[diff]
\texternal = sh -c 'touch {PWNED}'
[alias]
\tst = !touch {PWNED}
[remote "origin"]
\turl = ../..
"""
"""A bare repository's config that runs a program whenever git reads it as a repository."""


def build_project(base: Path) -> OracleProject:
    """Build the project, the outside folder and the fake home under ``base``."""
    root = base / "work" / "project"
    outside = base / "work" / "outside"
    home = base / "home"
    for folder in (root, outside, home / ".ssh", home / ".config" / "git", home / ".aws"):
        folder.mkdir(parents=True, exist_ok=True)
    (outside / "notes.txt").write_text("outside the project\n")
    (outside / "secret.txt").write_text(f"token={FAKE_KEY}\n")
    (home / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n")
    (home / ".aws" / "credentials").write_text(f"[default]\naws_secret_access_key={FAKE_KEY}\n")
    (home / ".bashrc").write_text("# the fake home's bashrc\n")
    for name, text in _FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for name in ("bin/ls", "bin/cat", "traps/pre.sh"):
        (root / name).chmod(0o755)
    env = {**os.environ, **OracleProject(root, outside, home).env(),
           "GIT_AUTHOR_NAME": "Oracle", "GIT_AUTHOR_EMAIL": "oracle@example.invalid",
           "GIT_COMMITTER_NAME": "Oracle", "GIT_COMMITTER_EMAIL": "oracle@example.invalid",
           "GIT_AUTHOR_DATE": f"@{_FIXED_TIME} +0000",
           "GIT_COMMITTER_DATE": f"@{_FIXED_TIME} +0000"}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)

    git("init", "-q", "--template=", "-b", "main")
    # A copy of the project has new inodes and ctimes; without these git status would
    # rewrite the index of every copy it runs in.
    git("config", "core.checkStat", "minimal")
    git("config", "core.trustCtime", "false")
    git("add", "README.md", "src", "tests", ".gitignore", "notes.txt", "numbers.txt")
    git("commit", "-q", "-m", "First commit: a tiny app")
    (root / "src" / "util.py").write_text(_FILES["src/util.py"] + "\n\ndef sub(a, b):\n"
                                          "    return a - b\n")
    git("add", "src/util.py")
    git("commit", "-q", "-m", "util: sub")
    git("branch", "feature")
    git("tag", "v0.1")
    git("clone", "-q", "--bare", ".", "vendor/hooked.git")
    (root / "vendor" / "hooked.git" / "config").write_text(_HOOKED_CONFIG)
    git("add", "-f", "traps", "vendor", "bin", "tools", "dates.txt")
    git("commit", "-q", "-m", "Fixtures")
    (root / "src" / "app.py").write_text(_FILES["src/app.py"] + "\n# work in progress\n")
    git("gc", "-q", "--prune=now")  # few folders: each run copies and removes them all
    nested = [root / "nested" / name for name in _NESTED]
    for folder in nested:
        _nested_repository(folder, env)
    _settle(root, outside, home)
    for folder in (root, *nested):  # refresh each index's stat cache after _settle
        subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=folder, env=env,
                       capture_output=True)
    for folder, config in zip(nested, _NESTED.values(), strict=True):
        with (folder / ".git" / "config").open("a") as handle:
            handle.write(config)
    return OracleProject(root, outside, home)


_NESTED: dict[str, str] = {
    "headerline": f"[core] fsmonitor = touch {PWNED}; false\n",
    "oldform": f"[diff.x]\n\ttextconv = touch {PWNED}; cat\n",
    "uppercase": f"[CORE]\n\tFSMonitor = touch {PWNED}; false\n",
    "included": "[include]\n\tpath = extra.cfg\n",
}
"""Repositories inside the project (not committed) whose config runs a program, each spelt
in a form git reads: a key on the section's header line, the old ``[section.subsection]``
form, upper case, an include."""


def _nested_repository(folder: Path, env: dict[str, str]) -> None:
    """A repository with two commits of ``a.txt`` and a change not yet committed."""
    folder.mkdir(parents=True)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True)

    git("init", "-q", "--template=", "-b", "main")
    git("config", "core.checkStat", "minimal")
    git("config", "core.trustCtime", "false")
    (folder / ".gitattributes").write_text("*.txt diff=x\n")
    (folder / "a.txt").write_text("one\n")
    git("add", ".")
    git("commit", "-q", "-m", "one")
    (folder / "a.txt").write_text("one\ntwo\n")
    git("commit", "-q", "-am", "two")
    git("gc", "-q", "--prune=now")
    (folder / "a.txt").write_text("one\ntwo\nthree\n")
    (folder / ".git" / "extra.cfg").write_text(f"[core]\n\tfsmonitor = touch {PWNED}; false\n")


def _settle(*folders: Path) -> None:
    """Give every file and folder the same old mtime."""
    for top in folders:
        for dirpath, dirnames, filenames in os.walk(top):
            for name in (*filenames, *dirnames):
                os.utime(Path(dirpath, name), (_FIXED_TIME, _FIXED_TIME), follow_symlinks=False)
