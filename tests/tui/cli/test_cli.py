"""The agent-tui command as a real process: flags, exit codes, a clean stdout."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys

import pytest

from agent_tui.core import __version__
from tests.fakes.providers import Fault, Reply, ToolCall

AGENT_TUI = shutil.which("agent-tui")
COMMAND = [AGENT_TUI] if AGENT_TUI else [
    sys.executable, "-c", "import sys; from agent_tui.tui.cli.main import main; sys.exit(main())"]


def agent_tui(*args, cwd, env_extra=None, stdin=None, timeout=60):
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env["AGENT_TUI_HOME"] = str(cwd / ".home")
    env.update(env_extra or {})
    return subprocess.run([*COMMAND, *args], cwd=cwd, env=env, input=stdin, text=True,
                          capture_output=True, timeout=timeout)


def fake_flags(fake):
    return ["--model", "openai/fake-model", "--api-base", fake.openai_base,
            "--api-key", "sk-test"]


def test_version_loads_neither_textual_nor_litellm(tmp_path):
    done = agent_tui("--version", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.strip() == f"agent-tui {__version__}"
    probe = subprocess.run(
        [sys.executable, "-c",
         "import sys\nfrom agent_tui.tui.cli.main import main\n"
         "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
         "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'litellm')))"],
        capture_output=True, text=True, check=True)
    assert probe.stdout.strip().endswith("[]")


def test_unknown_flag_is_a_usage_error(tmp_path):
    done = agent_tui("--frobnicate", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["agent-tui: error: unrecognized arguments: --frobnicate",
                                        "Run agent-tui --help for the options."]
    assert done.stdout == ""


def test_help_lists_every_subcommand_with_a_line(tmp_path):
    from agent_tui.tui.cli.cli_parser import SUBCOMMANDS

    done = agent_tui("--help", cwd=tmp_path)
    assert done.returncode == 0
    listed = {line.split()[1]: line for line in done.stdout.splitlines()
              if line.startswith("  agent-tui ")}
    assert set(listed) == {"sessions", "agents", "config", "delegates", "engine", "replay", "serve",
                           "acp", "studio",
                           "batch"}
    assert set(listed) == set(SUBCOMMANDS)
    assert "play a recorded session back" in listed["replay"]
    for name in listed:  # each line names a subcommand the command line really runs
        assert agent_tui(name, "--help", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize(("config", "env", "said"), [
    ("max_turns = 0\n", {}, "invalid setting (max_turns"),
    ("", {"AGENT_TUI_APPROVAL_MODE": "reckless"}, "invalid setting (approval_mode"),
])
def test_a_bad_config_value_is_one_line_and_exit_2(tmp_path, config, env, said):
    (tmp_path / ".home").mkdir()
    (tmp_path / ".home" / "config.toml").write_text(config)
    done = agent_tui("-p", "hello", "--model", "openai/x", cwd=tmp_path, env_extra=env)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("agent-tui: error: ") and said in line
    assert done.stdout == ""


def test_resume_of_an_unknown_session_is_a_usage_error(tmp_path):
    done = agent_tui("--resume", "nosuchid", "-p", "hello", "--model", "openai/x",
                     cwd=tmp_path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert "no session 'nosuchid'" in line and "agent-tui sessions list" in line


def test_bad_flag_value_is_a_usage_error(tmp_path):
    done = agent_tui("-p", "x", "--max-turns", "zero", cwd=tmp_path)
    assert done.returncode == 2
    assert "not a whole number" in done.stderr


def test_no_model_anywhere_explains_what_to_set(tmp_path):
    done = agent_tui("-p", "hello", cwd=tmp_path)
    assert done.returncode == 2
    assert "no model configured" in done.stderr and "--model" in done.stderr
    for variable in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY",
                     "OPENROUTER_API_KEY"):
        assert variable in done.stderr


def test_broken_config_file_is_a_usage_error(tmp_path):
    (tmp_path / ".home").mkdir()
    (tmp_path / ".home" / "config.toml").write_text("model = = 1\n")
    done = agent_tui("-p", "hello", "--model", "openai/x", cwd=tmp_path)
    assert done.returncode == 2
    assert "config.toml is not valid TOML" in done.stderr


def test_text_output_is_only_the_answer(fake_provider, tmp_path):
    (tmp_path / "README").write_text("project readme\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "README"})]),
        Reply(text="It is a project."),
    )
    done = agent_tui("-p", "what is this?", *fake_flags(fake_provider), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "It is a project.\n"
    assert "read_file" in done.stderr  # progress goes to stderr


def test_prompt_from_stdin(fake_provider, tmp_path):
    fake_provider.script(Reply(text="ok"))
    done = agent_tui("-p", "-", *fake_flags(fake_provider), cwd=tmp_path, stdin="from stdin\n")
    assert done.returncode == 0, done.stderr
    assert fake_provider.requests[0].last_user_text() == "from stdin\n"


def test_json_output_is_one_result_object(fake_provider, tmp_path):
    fake_provider.script(Reply(text="answer", usage=(50, 5)))
    done = agent_tui("-p", "q", "--output-format", "json", *fake_flags(fake_provider),
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["type"] == "result" and result["text"] == "answer"
    assert result["usage"]["total_tokens"] == 55
    assert result["session_id"]


def test_stream_json_is_json_lines_only(fake_provider, tmp_path):
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "echo hi"})]),
                         Reply(text="done"))
    done = agent_tui("-p", "q", "--output-format", "stream-json", "--approval-mode", "yolo",
                     *fake_flags(fake_provider), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    for kind in ("session_start", "tool_call", "approval", "tool_result", "context", "result"):
        assert kind in kinds
    call = events[kinds.index("tool_call")]
    assert call["args"] == {"command": "echo hi"} and call["id"]


def test_failing_provider_exits_1_with_its_message(fake_provider, tmp_path):
    fake_provider.script(*[Fault.server_error(500, "the upstream is on fire")] * 3)
    done = agent_tui("-p", "q", *fake_flags(fake_provider), cwd=tmp_path,
                     env_extra={"AGENT_TUI_MAX_RETRIES": "2", "AGENT_TUI_RETRY_BASE_DELAY": "0"})
    assert done.returncode == 1
    assert "the upstream is on fire" in done.stderr
    # Each retry in the workbench's words: which of how many, and why.
    assert "  ↻ retrying now (1 of 2): " in done.stderr
    assert "  ↻ retrying now (2 of 2): " in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_unreachable_provider_exits_1(tmp_path):
    done = agent_tui("-p", "q", "--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1",
                     "--api-key", "k", cwd=tmp_path,
                     env_extra={"AGENT_TUI_MAX_RETRIES": "0"})
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "agent-tui: error:" in done.stderr


def test_a_server_that_is_not_running_is_one_line_and_no_retry(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    done = agent_tui("-p", "q", "--model", "openai/x", "--api-base", base, "--api-key", "k",
                     cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()  # and no "↻ retry" line before it
    assert line.startswith("agent-tui: error: connection refused by " + base)
    assert "is the server running? start it or pass --api-base" in line


def test_a_missing_key_is_one_line_naming_the_variable(tmp_path):
    done = agent_tui("-p", "q", "--model", "openai/gpt-4.1", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "agent-tui: error: no API key for openai/gpt-4.1 at https://api.openai.com/v1: set "
        "OPENAI_API_KEY (or api_key_env in config.toml to the variable that holds it)."]


@pytest.mark.parametrize("variable", ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"])
def test_model_is_picked_from_the_key_in_the_environment(tmp_path, variable):
    done = agent_tui("-p", "q", "--output-format", "stream-json", cwd=tmp_path,
                     env_extra={variable: "sk-bogus", "AGENT_TUI_MAX_RETRIES": "0",
                                "AGENT_TUI_API_BASE": "http://127.0.0.1:9"})
    first = json.loads(done.stdout.splitlines()[0])
    assert first["type"] == "session_start"
    assert first["model"].startswith(variable.split("_")[0].lower())


def test_net_flag_turns_network_tools_on(fake_provider, tmp_path):
    fake_provider.script(Reply(text="ok"))
    done = agent_tui("-p", "q", "--net", "--output-format", "json", *fake_flags(fake_provider),
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    system = fake_provider.requests[0].messages[0]["content"]
    assert "Network tools: on" in system


def test_preview_prints_what_a_refused_command_would_change(fake_provider, tmp_path):
    (tmp_path / "notes.txt").write_text("one\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "echo two >> notes.txt; "
                                             "echo hello > made.txt; echo wrote"})]),
        Reply(text="done"))
    done = agent_tui("-p", "q", "--preview", "--output-format", "stream-json",
                     *fake_flags(fake_provider), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    preview = events[kinds.index("preview")]
    call = events[kinds.index("tool_call")]
    assert preview["id"] == call["id"]
    assert preview["command"] == "echo two >> notes.txt; echo hello > made.txt; echo wrote"
    changes = {c["path"]: c for c in preview["changes"] if not c["path"].startswith(".home")}
    assert changes["made.txt"]["kind"] == "created" and "+hello" in changes["made.txt"]["diff"]
    assert changes["notes.txt"]["kind"] == "modified"
    assert "+two" in changes["notes.txt"]["diff"]
    assert preview["output"] == "wrote\n"
    assert preview["exit_code"] == 0 and preview["timed_out"] is False
    assert preview["left_running"] == []
    approval = events[kinds.index("approval")]
    assert kinds.index("preview") < kinds.index("approval")
    assert approval["decision"] == "deny"
    assert not (tmp_path / "made.txt").exists()
    assert (tmp_path / "notes.txt").read_text() == "one\n"


def test_preview_in_text_mode_is_a_summary_on_stderr(fake_provider, tmp_path):
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "touch made.txt"})]),
                         Reply(text="done"))
    done = agent_tui("-p", "q", "--preview", *fake_flags(fake_provider), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"
    assert "◇ preview (exit 0," in done.stderr
    assert "    created  made.txt" in done.stderr
    assert not (tmp_path / "made.txt").exists()


def test_preview_without_a_prompt_is_a_usage_error(tmp_path):
    done = agent_tui("--preview", cwd=tmp_path)
    assert done.returncode == 2
    assert "--preview goes with -p" in done.stderr


def test_preview_without_bwrap_says_what_to_install_and_still_refuses(fake_provider, tmp_path):
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "touch made.txt"})]),
                         Reply(text="done"))
    done = agent_tui("-p", "q", "--preview", "--output-format", "stream-json",
                     *fake_flags(fake_provider), cwd=tmp_path,
                     env_extra={"AGENT_TUI_BWRAP_PATH": "/nonexistent/bwrap"})
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert "preview" not in kinds
    error = events[kinds.index("error")]
    assert error["message"].startswith("no preview of shell: touch made.txt: preview needs "
                                       "bubblewrap")
    assert "apt-get install bubblewrap" in error["message"]
    assert events[kinds.index("approval")]["decision"] == "deny"
    assert not (tmp_path / "made.txt").exists()


def test_a_denied_command_is_told_once_with_the_flag_that_allows_it(fake_provider, tmp_path):
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "touch made.txt"})]),
                         Reply(text="I could not run it."))
    done = agent_tui("-p", "q", *fake_flags(fake_provider), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Do not retry" not in done.stderr  # that is the model's instruction
    [told] = [line for line in done.stderr.splitlines() if "touch made.txt" in line
              and not line.startswith("●")]
    assert told.startswith("  ✗ refused shell: touch made.txt (") and "approval" in told
    assert "--approval-mode yolo" in told and 'allow_rules = ["shell(touch' in told
    assert "Do not retry" in fake_provider.requests[1].tool_results()[-1]["content"]
    assert not (tmp_path / "made.txt").exists()


def test_a_denied_edit_names_auto_edit(fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "made.txt", "content": "x\n"})]),
        Reply(text="I could not write it."))
    done = agent_tui("-p", "q", *fake_flags(fake_provider), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    told = [line for line in done.stderr.splitlines() if "refused" in line or "denied" in line]
    assert len(told) == 1 and "rerun with --approval-mode auto-edit" in told[0]


def test_json_result_counts_the_model_calls_of_the_prompt(fake_provider, tmp_path):
    """A prompt answered after two rounds of tool calls took three model calls: the result
    says model_calls 3 (and turns, its deprecated alias, the same)."""
    (tmp_path / "a.txt").write_text("a\n")
    read = Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})])
    fake_provider.script(read, read, Reply(text="done"))
    done = agent_tui("-p", "q", "--output-format", "json", *fake_flags(fake_provider),
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["model_calls"], result["turns"]) == (3, 3)


@pytest.mark.parametrize(("args", "said"), [
    (("sessions",), "agent-tui sessions: error: the following arguments are required: command"),
    (("sessions", "show"), "agent-tui sessions show: error: the following arguments are "
                           "required: id"),
    (("agents", "list", "--bogus"), "agent-tui agents: error: unrecognized arguments: --bogus"),
    (("replay",), "agent-tui replay: error: the following arguments are required: session"),
    (("serve", "--bogus"), "agent-tui serve: error: unrecognized arguments: --bogus"),
    (("acp", "--bogus"), "agent-tui acp: error: unrecognized arguments: --bogus"),
    (("studio", "bogus"), "agent-tui studio: error: argument COMMAND: invalid choice: 'bogus' "
                          "(choose from 'exec', 'run', 'list', 'status', 'accept', 'discard')"),
    (("batch",), "agent-tui batch: error: the following arguments are required: tasks"),
    (("batch", "tasks.jsonl", "--bogus"), "agent-tui batch: error: unrecognized arguments: "
                                          "--bogus"),
])
def test_a_subcommands_usage_error_is_one_line_without_the_banner(tmp_path, args, said):
    done = agent_tui(*args, cwd=tmp_path)
    assert done.returncode == 2
    command = said.partition(": error")[0]
    assert done.stderr.splitlines() == [said, f"Run {command} --help for the options."]
    assert done.stdout == ""


def test_a_subcommands_own_check_names_the_subcommand(tmp_path):
    done = agent_tui("batch", "tasks.jsonl", "--workers", "0", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["agent-tui batch: error: --workers must be at least 1."]
