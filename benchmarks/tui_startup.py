"""Time from launching `agent-tui` to its first frame, beside a bare Textual app with the
same layout, `python -c pass` and `python -c "import textual.app"`, measured in the same run.

Each app runs on its own pseudo-terminal of 120x40; the first frame is the moment the status
bar's "mode: default" has been written. The bare app (written to a temporary file, run by
the same interpreter) has the workbench's first-frame widgets in the same tree and sizes,
with Textual's own widgets and theme: two panes, a scrolling conversation, a hidden option
list and a text area for the prompt, side titles, a gauge and todo text, a data table with a
detail pane, a status bar; it writes the same marker. It also runs with garbage collection
off until its first frame, as agent-tui starts, for a second, stricter ratio (no goal).
Goals: the first frame within 0.5 s of launch, and at most 1.15x the bare app's.

agent-tui also starts in a second project whose session knows a lot: 1,000 memories in the
memory database, 50 skills in the person's skills folder, an AGENTS.md. Goal: the same first
frame as with none (within 10 %, the spread of these runs): all of that is read after it.

The launches drop ``PYTHONDONTWRITEBYTECODE``: an installed agent-tui runs from compiled
bytecode, and the warm-up launch writes it.

Usage: python3 benchmarks/tui_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

GOAL_S = 0.5
GOAL_RATIO = 1.15
GOAL_KNOWING = 1.10
MEMORIES, SKILLS = 1_000, 50
COLUMNS, LINES = 120, 40

BARE_APP = '''
from textual.app import App
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, OptionList, Static, TextArea


class Bare(App):
    CSS = """
    #main { height: 1fr; }
    #left { width: 1fr; }
    #conversation { height: 1fr; padding: 0 1; }
    #completion { display: none; overlay: screen; height: auto; max-height: 12; }
    #prompt { height: auto; min-height: 3; max-height: 10; border: round $primary; }
    #side { width: 44; border-left: solid $panel; }
    .side-title { background: $panel; text-style: bold; padding: 0 1; }
    #gauge { height: auto; min-height: 4; padding: 0 1; }
    #todo-section { height: auto; max-height: 12; margin-bottom: 1; }
    #todos { height: auto; max-height: 11; padding: 0 1; }
    #tool-log { height: 1fr; }
    #tool-table { height: 1fr; min-height: 4; }
    #tool-detail-scroll { height: 1fr; border-top: solid $panel; }
    #status { height: 1; background: $panel; }
    """

    def compose(self):
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield VerticalScroll(id="conversation")
                yield OptionList(id="completion")
                yield TextArea(id="prompt", soft_wrap=True, show_line_numbers=False,
                               tab_behavior="focus")
            with Vertical(id="side"):
                yield Static("context", classes="side-title")
                yield Static("\u2591" * 40 + "\\n0 / ? tokens (0%)\\nturn n/a \u00b7 session n/a",
                             id="gauge")
                with Vertical(id="todo-section"):
                    yield Static("todos", classes="side-title")
                    yield Static("No todos yet.", id="todos")
                yield Static("tool log", classes="side-title")
                with Vertical(id="tool-log"):
                    earlier = Static("", id="tool-earlier")
                    earlier.display = False
                    yield earlier
                    table = DataTable(cursor_type="row", zebra_stripes=True, id="tool-table")
                    table.add_columns("time", "tool", "arguments", "status", "took")
                    yield table
                    with VerticalScroll(id="tool-detail-scroll"):
                        yield Static("Select a call to see its arguments and output.")
        yield Static(" \u25cb idle  openai/bench \u2502 mode: default \u2502 net: off \u2502 ~/p "
                     "\u2502 session 20250101-000000-abcdef", id="status")

    def on_mount(self):
        self.query_one(TextArea).focus()


Bare().run()
'''
"""A bare Textual app with the workbench's first-frame layout, writing the same marker."""
GC_OFF = "import gc\n\ngc.disable()  # as agent-tui's start-up, until the first frame\n"
"""Put before BARE_APP: the bare app with collections off (never turned back on: it is
killed once drawn)."""
MARKER = b"mode: default"


def first_frame_seconds(command: list[str], env: dict[str, str], cwd: str) -> float:
    """Launch ``command`` on a pty and return the seconds until MARKER appears."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    os.set_blocking(master, False)
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
    )
    os.close(slave)
    seen = b""
    try:
        while time.perf_counter() - start < 20:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
                # Textual draws cells with escape sequences between them; compare text only.
                plain = seen.replace(b"\x1b", b"")
                if MARKER in plain or MARKER in _strip_ansi(seen):
                    return time.perf_counter() - start
        raise RuntimeError(f"no first frame within 20 s; output so far: {seen[-400:]!r}")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(master)


def _strip_ansi(data: bytes) -> bytes:
    import re

    return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", data)


def fill_knowledge(home: str, project: str) -> None:
    """Give ``project`` (with agent-tui's home at ``home``) memories, skills, an AGENTS.md."""
    from pathlib import Path

    from agent_tui.core import paths
    from agent_tui.core.memory import MemoryStore

    old_home = os.environ.get("AGENT_TUI_HOME")
    os.environ["AGENT_TUI_HOME"] = home
    try:
        store = MemoryStore(paths.memory_db())
        scope = os.path.realpath(paths.project_root(Path(project)))
        for i in range(MEMORIES):
            store.set(scope if i % 5 else "user", f"fact_{i}",
                      f"Fact {i}: the service on port {8000 + i} logs to /var/log/svc{i}.log")
        store.close()
        for i in range(SKILLS):
            folder = paths.user_skills_dir() / f"skill-{i}"
            folder.mkdir(parents=True)
            (folder / "SKILL.md").write_text(
                f"---\nname: skill-{i}\ndescription: Does task number {i} the house way.\n"
                f"---\n# Skill {i}\n\n" + "Step by step instructions.\n" * 40)
        Path(project, "AGENTS.md").write_text("# Rules\n\n" + "- a project rule\n" * 100)
    finally:
        if old_home is None:
            del os.environ["AGENT_TUI_HOME"]
        else:
            os.environ["AGENT_TUI_HOME"] = old_home


def wall(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    # The script beside this interpreter, not a pyenv shim (which adds ~100 ms per launch).
    binary = shutil.which("agent-tui", path=os.path.dirname(sys.executable)) or shutil.which(
        "agent-tui"
    )
    if binary is None:
        print("agent-tui is not installed (pip install -e .)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as project, \
            tempfile.TemporaryDirectory() as rich_home, \
            tempfile.TemporaryDirectory() as rich_project:
        env = {k: v for k, v in os.environ.items()
               if not k.endswith("_API_KEY") and k != "PYTHONDONTWRITEBYTECODE"}
        env.update(AGENT_TUI_HOME=home, TERM="xterm-256color", COLUMNS=str(COLUMNS),
                   LINES=str(LINES))
        rich_env = {**env, "AGENT_TUI_HOME": rich_home}
        fill_knowledge(rich_home, rich_project)
        ours = [binary, "--model", "openai/bench", "--api-base", "http://127.0.0.1:9/v1"]
        commands = {"ours": (ours, env, project), "knowing": (ours, rich_env, rich_project)}
        for name, source in (("bare", BARE_APP), ("bare_gc_off", GC_OFF + BARE_APP)):
            script = os.path.join(project, f"{name}.py")
            with open(script, "w") as file:
                file.write(source)
            commands[name] = ([sys.executable, script], env, project)
        for command, run_env, cwd in commands.values():  # warm the page cache, bytecode
            first_frame_seconds(command, run_env, cwd)
        frames: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):  # taking turns, so all see the same machine
            for name, (command, run_env, cwd) in commands.items():
                frames[name].append(first_frame_seconds(command, run_env, cwd))
        bare = [wall([sys.executable, "-c", "pass"], env) for _ in range(args.runs)]
        textual_import = [
            wall([sys.executable, "-c", "import textual.app"], env) for _ in range(args.runs)
        ]
    rows = [
        ("agent-tui first frame", frames["ours"]),
        (f"  {MEMORIES:,} memories, {SKILLS} skills", frames["knowing"]),
        ("bare Textual app, same layout", frames["bare"]),
        ("  the same, collections off", frames["bare_gc_off"]),
        ("python -c pass", bare),
        ("python -c 'import textual.app'", textual_import),
    ]
    print(f"{'':34}{'median':>10}{'min':>10}")
    for label, values in rows:
        print(f"{label:34}{statistics.median(values) * 1000:>8.0f}ms{min(values) * 1000:>8.0f}ms")
    median = statistics.median(frames["ours"])
    verdict = "PASS" if median <= GOAL_S else "MISS"
    print(
        f"goal: first frame within {GOAL_S * 1000:.0f} ms of launch -> {verdict} "
        f"({median * 1000:.0f} ms)"
    )
    ratio = median / statistics.median(frames["bare"])
    verdict = "PASS" if ratio <= GOAL_RATIO else "MISS"
    print(f"goal: at most {GOAL_RATIO:.2f}x the bare Textual app's first frame -> {verdict} "
          f"({ratio:.2f}x)")
    strict = median / statistics.median(frames["bare_gc_off"])
    print(f"beside the bare app with collections off until drawn: {strict:.2f}x")
    knowing = statistics.median(frames["knowing"]) / median
    verdict = "PASS" if knowing <= GOAL_KNOWING else "MISS"
    print(f"goal: with {MEMORIES:,} memories and {SKILLS} skills, the same first frame as "
          f"with none (at most {GOAL_KNOWING:.2f}x) -> {verdict} ({knowing:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
