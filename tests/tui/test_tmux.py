"""The real agent-tui binary in tmux against the fake provider, driven with keys."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid

import pytest

from tests.fakes.providers import Reply, ToolCall

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None or shutil.which("agent-tui") is None,
                                reason="needs tmux and the installed agent-tui binary "
                                       "(.ci/run installs tmux)")


class Tmux:
    """One tmux server of our own, one session running a command."""

    def __init__(self, command: str, width: int = 120, height: int = 40) -> None:
        self.socket = f"agent-tui-test-{uuid.uuid4().hex[:8]}"
        self._tmux("new-session", "-d", "-x", str(width), "-y", str(height), command)

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True,
                              text=True, timeout=10)
        return done.stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p")

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", *keys)

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared on screen:\n{self.screen()}")

    def wait_gone(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text not in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never left the screen:\n{self.screen()}")

    def answer_approval(self, key: str) -> None:
        """Press ``key`` in the approval modal once its key guard is over (a person reads
        the modal first; a key in its first half second is taken for a stray one)."""
        self.wait_gone("keys work in")
        self.send(key)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def test_prompt_approve_write_deny_shell_final_answer(fake_provider, tmp_path):
    fake_provider.script(
        Reply(text="I will write the file.",
              tool_calls=[ToolCall("write_file", {"file_path": "greeting.txt",
                                                  "content": "hello from the agent\n"})]),
        Reply(tool_calls=[ToolCall("shell", {"command": "rm -r build"})]),
        Reply(text="Wrote greeting.txt; the shell call was denied."),
    )
    home = tmp_path / "home"
    project = tmp_path / "project"
    project.mkdir()
    command = (
        f"cd {shlex.quote(str(project))} && env AGENT_TUI_HOME={shlex.quote(str(home))} "
        f"agent-tui --model openai/fake --api-base {fake_provider.openai_base} "
        "--api-key sk-test"
    )
    tmux = Tmux(command)
    try:
        tmux.wait_for("mode: default")
        tmux.send("write a greeting", "Enter")
        tmux.wait_for("greeting.txt")
        tmux.wait_for("allow once")
        tmux.answer_approval("y")
        tmux.wait_for("rm -r build")
        tmux.wait_for("n: deny")
        tmux.answer_approval("n")
        tmux.wait_for("Wrote greeting.txt;")
        tmux.wait_for("○ idle")
    finally:
        tmux.close()
    assert (project / "greeting.txt").read_text() == "hello from the agent\n"
    results = fake_provider.requests[2].tool_results()
    assert "denied" in results[-1]["content"]


def test_quitting_prints_how_to_resume_once_the_session_has_a_prompt(fake_provider, tmp_path):
    fake_provider.script(Reply(text="Hello there."))
    home = tmp_path / "home"
    project = tmp_path / "project"
    project.mkdir()
    command = (
        f"cd {shlex.quote(str(project))} && env AGENT_TUI_HOME={shlex.quote(str(home))} "
        f"agent-tui --model openai/fake --api-base {fake_provider.openai_base} "
        "--api-key sk-test; echo agent-tui exited; sleep 60"
    )
    tmux = Tmux(command)
    try:
        tmux.wait_for("mode: default")
        tmux.send("say hello", "Enter")
        tmux.wait_for("Hello there.")
        tmux.wait_for("○ idle")
        tmux.send("C-q")
        screen = tmux.wait_for("agent-tui exited")
    finally:
        tmux.close()
    [session] = [p.name for p in (home / "sessions").iterdir() if p.is_dir()]
    assert (f"To go on with this session: agent-tui --resume {session} "
            "(or agent-tui --continue for this folder's latest).") in screen.replace("\n", "")


def test_quitting_before_any_prompt_prints_no_resume_hint(tmp_path):
    home = tmp_path / "home"
    command = (f"cd {shlex.quote(str(tmp_path))} && env AGENT_TUI_HOME={shlex.quote(str(home))} "
               "agent-tui --model openai/fake --api-key sk-test; echo agent-tui exited; sleep 60")
    tmux = Tmux(command)
    try:
        tmux.wait_for("mode: default")
        tmux.send("C-q")
        screen = tmux.wait_for("agent-tui exited")
    finally:
        tmux.close()
    assert "--resume" not in screen
