"""How long a key takes to reach the screen while the workbench is busy, and how far the
streamed answer on screen is behind what has arrived.

The real `agent-tui` runs on a pseudo-terminal (120x40) against an OpenAI-compatible server
in this script that streams a long Markdown answer (paragraphs, bullet lists, code spans,
bold, fenced code blocks) one word per event at a set pace. Meanwhile the script types into
the prompt, one character at a time, and times each from the write to the pty until the
character is written back by the workbench (characters that never occur in the answer).

Scenarios: idle; right after the first frame while litellm loads; while the answer streams
at 50, 200 and 1,000 words/s (the last one 10,000 words); while a command prints a 5 MB log
into the tool log (over ~2.5 s, as a chatty test run does: an instant `cat` ends before a
key or two). The display lag is the time from the server sending a marked word until
the screen shows it or a later one (a draw that adds many lines scrolls some past unseen). Baseline, same run: a bare Textual app with a TextArea on the same pty.

Usage: python3 benchmarks/responsiveness.py [--quick] [--profile DIR]

``--profile DIR`` samples the workbench with py-spy (``pip install py-spy``) during each
streaming scenario, without pausing it, and writes the collapsed stacks of what held the
GIL to DIR (one ``.txt`` per scenario) with a summary of the top functions by thread.
"""

from __future__ import annotations

import argparse
import bisect
import fcntl
import itertools
import json
import os
import pty
import random
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import textwrap
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

COLUMNS, ROWS = 120, 40
KEYS = "αβγδεζηθικλμνξοπρστυφχψωБГДЖЗИЙЛПФЦЧШЩЪЫЭЮЯ"
"""Typed characters, in turn: none occurs in the answers; the prompt is emptied (Ctrl+U)
after each scenario."""
MARK_RE = re.compile(rb"mk([A-Z])(\d{5})")
"""Marked words of a streamed answer: mk, the stream's letter, five digits; each stream
ends with mkEND and its letter."""

TOOL_LABEL = "tool log: 5 MB printed in ~2.5 s"
TOOL_COMMAND = ("python3 -c 'import sys, time\n"
                "for n, line in enumerate(open(\"big.log\")):\n"
                "    sys.stdout.write(line)\n"
                "    if n % 2000 == 0: sys.stdout.flush(); time.sleep(0.05)'")
"""Prints big.log (5 MB, 100,000 lines) in 50 bursts 50 ms apart."""

GOALS: dict[str, tuple[float | None, float | None]] = {
    # scenario: (p95 ms, max ms); None = no goal
    "idle": (10.0, None),
    "while litellm loads": (50.0, None),
    "streaming 50 words/s": (30.0, None),
    "streaming 200 words/s": (50.0, 100.0),
    "streaming 1000 words/s, 10,000 words": (50.0, 100.0),
    TOOL_LABEL: (50.0, 100.0),
}
MARK_EVERY = 10
"""Every tenth streamed word is a marker: 60 lag samples at 50 words/s for 12 s."""
MIN_KEYS = 30
"""Keys measured in a scenario at least (the tool log's rounds go on until there are)."""
TOOL_ROUNDS = 5
LAG_GOAL_MS = 100.0
"""The streamed text on screen stays at most this far behind what has arrived (p95)."""


# -- the answer ------------------------------------------------------------------------


def answer_words(count: int, letter: str) -> list[str]:
    """A long Markdown answer of about ``count`` words, as streamed pieces (one word each,
    with the whitespace before it); every ``MARK_EVERY``-th word is a marker of stream
    ``letter``."""
    paragraph = (
        "The **parser** reads each line of the `config.toml` file and keeps the last value of "
        "every key, so a later table overrides an earlier one. When the value is a list, the "
        "items are merged instead, which is what most people expect from a *settings* file."
    )
    bullets = [
        "- `load()` returns a **Settings** object with defaults filled in",
        "- errors name the file, the line and the key that was wrong",
        "- unknown keys are kept and reported once, never silently dropped",
    ]
    code = [
        "```python",
        "def merge(base: dict, override: dict) -> dict:",
        "    result = dict(base)",
        "    for key, value in override.items():",
        "        if isinstance(value, list) and isinstance(result.get(key), list):",
        "            result[key] = result[key] + value",
        "        else:",
        "            result[key] = value",
        "    return result",
        "```",
    ]
    sections = []
    for number in itertools.count(1):
        sections.append(f"## Step {number}\n\n{paragraph}\n\n" + "\n".join(bullets) + "\n\n"
                        + paragraph + "\n\n" + "\n".join(code) + "\n\n")
        if sum(len(section.split()) for section in sections) >= count:
            break
    pieces: list[str] = []
    marks = itertools.count()
    for word in re.findall(r"\s*\S+", "".join(sections)):
        if len(pieces) % MARK_EVERY == MARK_EVERY - 1 and "`" not in word and "*" not in word:
            space = word[: len(word) - len(word.lstrip())]
            word = f"{space}mk{letter}{next(marks):05d}"
        pieces.append(word)
    return pieces[:count] + [f"\n\nmkEND{letter}\n"]


# -- the fake provider -----------------------------------------------------------------


@dataclass
class Stream:
    """What the server streams for one request, and when it sent each marker."""

    pieces: list[str]
    words_per_second: float
    letter: str
    tool_command: str | None = None
    sent: dict[int, float] = field(default_factory=dict)
    started: float = 0.0
    finished: float = 0.0


class FakeServer(ThreadingHTTPServer):
    """An OpenAI-compatible chat server that answers each request with the next Stream."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: list[Stream] = []
        self.lock = threading.Lock()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def next_stream(self) -> Stream:
        with self.lock:
            if self.script:
                return self.script.pop(0)
        return Stream(["ok"], 1000.0, "Z")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        stream = self.server.next_stream()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def send(delta: dict, finish: str | None = None) -> None:
            event = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0,
                     "model": "bench", "choices": [{"index": 0, "delta": delta,
                                                    "finish_reason": finish}]}
            data = f"data: {json.dumps(event)}\n\n".encode()
            self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))

        try:
            send({"role": "assistant", "content": ""})
            stream.started = start = time.perf_counter()
            for index, piece in enumerate(stream.pieces):
                due = start + index / stream.words_per_second
                if (delay := due - time.perf_counter()) > 0:
                    self.wfile.flush()
                    time.sleep(delay)
                if match := MARK_RE.search(piece.encode()):
                    stream.sent[int(match.group(2))] = time.perf_counter()
                send({"content": piece})
            if stream.tool_command:
                arguments = json.dumps({"command": stream.tool_command})
                send({"tool_calls": [{"index": 0, "id": f"call_{id(stream)}",
                                      "type": "function",
                                      "function": {"name": "shell", "arguments": arguments}}]})
            send({}, "tool_calls" if stream.tool_command else "stop")
            usage = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0,
                     "model": "bench", "choices": [],
                     "usage": {"prompt_tokens": 100, "completion_tokens": len(stream.pieces),
                               "total_tokens": 100 + len(stream.pieces)}}
            data = f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode()
            self.wfile.write(b"%X\r\n%s\r\n0\r\n\r\n" % (len(data), data))
            self.wfile.flush()
            stream.finished = time.perf_counter()
        except (BrokenPipeError, ConnectionResetError):
            pass


# -- the terminal ------------------------------------------------------------------------


class Terminal:
    """A program on a pseudo-terminal whose output is read, with arrival times, by a thread."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: str) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     cwd=cwd, start_new_session=True)
        os.close(slave)
        self.output = bytearray()
        self.ends: list[int] = []  # the output's length after each read
        self.times: list[float] = []  # when each read returned
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:
                data = b""
            now = time.perf_counter()
            with self.changed:
                if data:
                    self.output += data
                    self.ends.append(len(self.output))
                    self.times.append(now)
                self.changed.notify_all()
            if not data:
                return

    def arrival(self, end: int) -> float:
        """When the byte before offset ``end`` was read."""
        return self.times[bisect.bisect_left(self.ends, end)]

    def wait_for(self, pattern: bytes, since: int, timeout: float) -> float | None:
        """When ``pattern`` appeared after offset ``since`` (None: not within ``timeout``)."""
        deadline = time.perf_counter() + timeout
        with self.changed:
            while True:
                found = self.output.find(pattern, since)
                if found >= 0:
                    return self.arrival(found + len(pattern))
                left = deadline - time.perf_counter()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self.changed.wait(left)

    def mark(self) -> int:
        with self.changed:
            return len(self.output)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def key_latency(self, key: str, timeout: float = 5.0) -> float | None:
        """Milliseconds from writing ``key`` until the workbench draws it."""
        since = self.mark()
        sent = time.perf_counter()
        self.type(key)
        shown = self.wait_for(key.encode(), since, timeout)
        return None if shown is None else (shown - sent) * 1000

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        os.close(self.master)


_typed = itertools.count()
"""Keys typed so far in the run: each scenario goes on through ``KEYS`` where the last one
stopped, so a key drawn again with an earlier prompt (a redraw of the conversation) is
not the next one typed."""


def type_keys(term: Terminal, seconds: float, *, until: threading.Event | None = None,
              gap: float = 0.12) -> list[float]:
    """Type one character every ``gap`` (jittered) for ``seconds`` or until ``until`` is set;
    then empty the prompt. Returns each key's latency in ms (a lost key counts 5,000)."""
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline and not (until and until.is_set()):
        typed = next(_typed)
        if typed % len(KEYS) == 0:
            term.type("\x15")  # Ctrl+U: the prompt is emptied, so each key is new again
            time.sleep(0.2)
        key = KEYS[typed % len(KEYS)]
        latency = term.key_latency(key)
        if latency is None and term.proc.poll() is not None:
            raise RuntimeError(f"the program ended (exit {term.proc.returncode}): "
                               f"{bytes(term.output[-2000:])!r}")
        latencies.append(5000.0 if latency is None else latency)
        time.sleep(gap * random.uniform(0.5, 1.5))
    term.type("\x15")
    time.sleep(0.3)
    return latencies


# -- the runs ------------------------------------------------------------------------------


BARE_APP = textwrap.dedent("""
    from textual.app import App
    from textual.widgets import Footer, Header, TextArea

    class Bare(App):
        def compose(self):
            yield Header()
            yield TextArea(id="prompt")
            yield Footer()

        def on_mount(self):
            self.sub_title = "ready mode: default"
            self.query_one(TextArea).focus()

    Bare().run()
""")


def binary_path() -> str | None:
    # The script beside this interpreter, not a pyenv shim.
    return shutil.which("agent-tui", path=os.path.dirname(sys.executable)) or shutil.which(
        "agent-tui")


def bare_app_idle(env: dict[str, str], keys: int) -> list[float]:
    """Idle key latency of a bare Textual app with a TextArea, on the same kind of pty."""
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder, "bare.py")
        script.write_text(BARE_APP)
        term = Terminal([sys.executable, str(script)], env, folder)
        try:
            if term.wait_for(b"ready", 0, 20) is None:
                raise RuntimeError("the bare Textual app drew no first frame")
            time.sleep(1.0)
            return type_keys(term, keys * 0.15, gap=0.1)
        finally:
            term.close()


@dataclass
class Figures:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    lags: dict[str, list[float]] = field(default_factory=dict)


class Profiler:
    """py-spy sampling a process for the length of a scenario (``--profile``)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.proc: subprocess.Popen[bytes] | None = None
        self.output: Path | None = None

    def start(self, pid: int, label: str) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        self.output = self.folder / (re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
                                     + ".txt")
        self.proc = subprocess.Popen(
            ["py-spy", "record", "--pid", str(pid), "--rate", "250", "--format", "raw",
             "--nonblocking", "--threads", "--gil", "--output", str(self.output)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.3)  # attached

    def stop(self) -> None:
        if self.proc is None or self.output is None:
            return
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(30)
        self.proc = None
        summary = summarize_profile(self.output)
        self.output.with_suffix(".summary").write_text(summary)
        print(f"profile: {self.output}\n{summary}", file=sys.stderr)


def summarize_profile(path: Path, top: int = 25) -> str:
    """The share of GIL-holding samples per thread, and per function (self and inclusive)."""
    threads: dict[str, int] = {}
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        total += count
        threads[frames[0]] = threads.get(frames[0], 0) + count
        own[frames[-1]] = own.get(frames[-1], 0) + count
        for frame in set(frames[1:]):
            inclusive[frame] = inclusive.get(frame, 0) + count
    if not total:
        return "no samples\n"
    lines = [f"{total} samples holding the GIL"]
    for title, table in (("by thread", threads), ("self", own), ("inclusive", inclusive)):
        lines.append(f"-- {title}")
        for name, count in sorted(table.items(), key=lambda kv: -kv[1])[:top]:
            lines.append(f"{100 * count / total:6.1f}%  {name}")
    return "\n".join(lines) + "\n"


def run_workbench(env: dict[str, str], binary: str, quick: bool,
                  profiler: Profiler | None = None) -> Figures:
    profiler = profiler or Profiler(None)
    figures = Figures()
    server = FakeServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as project:
        Path(project, "big.log").write_text(
            "".join(f"{n:07d} INFO request served in {n % 97} ms from cache\n"
                    for n in range(5_000_000 // 50)))
        command = [binary, "--model", "openai/bench", "--api-base", server.base,
                   "--api-key", "sk-bench", "--context-window", "1000000",
                   "--approval-mode", "yolo"]
        term = Terminal(command, env, project)
        try:
            if term.wait_for(b"mode", 0, 30) is None:
                raise RuntimeError(f"no first frame: {bytes(term.output[-400:])!r}")
            figures.latencies["while litellm loads"] = type_keys(term, 3.0, gap=0.05)
            time.sleep(5.0)  # litellm is loaded by now
            figures.latencies["idle"] = type_keys(term, 3.0, gap=0.1)
            # One short answer first: the first model call's own imports and loads are the
            # start-up's cost (measured above), not the stream's.
            server.script.append(Stream(answer_words(60, "W"), 1000.0, "W"))
            since = term.mark()
            term.type("go\r")
            if term.wait_for(b"mkENDW", since, 60) is None:
                raise RuntimeError("the warm-up answer was not shown")
            time.sleep(1.0)
            streams = [("streaming 50 words/s", 50.0, 400 if quick else 600),
                       ("streaming 200 words/s", 200.0, 1000 if quick else 2000),
                       ("streaming 1000 words/s, 10,000 words", 1000.0,
                        3000 if quick else 10_000)]
            for (label, rate, words), letter in zip(streams, "ABC", strict=True):
                stream = Stream(answer_words(words, letter), rate, letter)
                server.script.append(stream)
                profiler.start(term.proc.pid, label)
                try:
                    figures.latencies[label], figures.lags[label] = _stream_scenario(term,
                                                                                     stream)
                finally:
                    profiler.stop()
            # Rounds of it until there are enough keys.
            label = TOOL_LABEL
            figures.latencies[label] = []
            for _round in range(TOOL_ROUNDS):
                tool = Stream(["Reading", " the", " log."], 100.0, "D",
                              tool_command=TOOL_COMMAND)
                server.script += [tool, Stream(["Done", " mkENDD\n"], 100.0, "D")]
                keys, _ = _stream_scenario(term, tool, settle=0.05, gap=0.05)
                figures.latencies[label] += keys
                if len(figures.latencies[label]) >= MIN_KEYS:
                    break
        finally:
            term.close()
            server.shutdown()
    return figures


def _stream_scenario(term: Terminal, stream: Stream, *, settle: float = 0.5,
                     gap: float = 0.12) -> tuple[list[float], list[float]]:
    """Send a prompt, type (from ``settle`` seconds after it, a key every ``gap``) while
    the answer streams; the key latencies and the marker lags."""
    since = term.mark()
    term.type("\x15go\r")
    done = threading.Event()

    def watch() -> None:
        term.wait_for(b"mkEND" + stream.letter.encode(), since, 300)
        done.set()

    threading.Thread(target=watch, daemon=True).start()
    time.sleep(settle)
    latencies = type_keys(term, 300, until=done, gap=gap)
    done.wait(300)
    time.sleep(0.5)
    with term.changed:
        output = bytes(term.output[since:])
        shown: dict[int, float] = {}
        for match in MARK_RE.finditer(output):
            if match.group(1) == stream.letter.encode():
                shown.setdefault(int(match.group(2)), term.arrival(since + match.end()))
    # A word counts as shown once it or a later word is on screen: a draw that adds many
    # lines scrolls some past without drawing them, and that is not lag.
    lags = []
    caught_up = float("inf")
    for number in sorted(stream.sent, reverse=True):
        caught_up = min(caught_up, shown.get(number, float("inf")))
        lags.append(5000.0 if caught_up == float("inf")
                    else (caught_up - stream.sent[number]) * 1000)
    return latencies, lags


# -- the report ----------------------------------------------------------------------------


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def verdict(values: list[float], goal_p95: float | None, goal_max: float | None) -> str:
    if not values:
        return "MISS (nothing measured)"
    parts = []
    if goal_p95 is not None:
        parts.append(f"p95 ≤ {goal_p95:.0f}")
    if goal_max is not None:
        parts.append(f"max ≤ {goal_max:.0f}")
    met = ((goal_p95 is None or p95(values) <= goal_p95)
           and (goal_max is None or max(values) <= goal_max))
    return f"{'PASS' if met else 'MISS'} ({', '.join(parts)} ms)" if parts else ""


def row(label: str, values: list[float], goal: str = "") -> str:
    if not values:
        return f"{label:40}{'—':>8}"
    return (f"{label:40}{len(values):>5}{statistics.median(values):>9.1f}{p95(values):>9.1f}"
            f"{max(values):>9.1f}  {goal}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter streams (~1 minute)")
    parser.add_argument("--profile", metavar="DIR", type=Path,
                        help="sample the workbench with py-spy while each answer streams")
    args = parser.parse_args()
    if args.profile and shutil.which("py-spy") is None:
        print("--profile needs py-spy (pip install py-spy)", file=sys.stderr)
        return 1
    binary = binary_path()
    if binary is None:
        print("agent-tui is not installed (pip install -e .)", file=sys.stderr)
        return 1
    random.seed(14)
    with tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(AGENT_TUI_HOME=home, TERM="xterm-256color", COLORTERM="truecolor")
        env.pop("NO_COLOR", None)
        bare = bare_app_idle(env, 30)
        figures = run_workbench(env, binary, args.quick, Profiler(args.profile))
    print(f"key -> screen, ms{'':23}{'keys':>5}{'median':>9}{'p95':>9}{'max':>9}")
    print(row("bare Textual app, idle (baseline)", bare))
    missed = 0
    for label, values in figures.latencies.items():
        goal = verdict(values, *GOALS[label])
        missed += goal.startswith("MISS")
        print(row(f"agent-tui, {label}", values, goal))
    print(f"\nstream display lag, ms{'':18}{'words':>5}{'median':>9}{'p95':>9}{'max':>9}")
    for label, values in figures.lags.items():
        goal = verdict(values, LAG_GOAL_MS, None)
        missed += goal.startswith("MISS")
        print(row(label, values, goal))
    print(f"\n{'all goals met' if not missed else f'{missed} goal(s) missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
