"""``[delegates.NAME]`` in config.toml: read from the user's file, and from a project's only
once the person trusts it; malformed entries are warnings, the rest loads."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core import paths
from agent_tui.core.delegates.config import load_delegates


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_user_delegates_load_with_their_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("OC_KEY", "secret")
    write(paths.user_config_file(),
          '[delegates.opencode]\ncommand = "opencode"\nargs = ["acp"]\n'
          'env = { OPENROUTER_API_KEY = "${OC_KEY}" }\n'
          '[delegates.gemini]\ncommand = "gemini"\nargs = ["--experimental-acp"]\n'
          'in_project = true\nworkspace = "elsewhere"\n')

    delegates, warnings = load_delegates(tmp_path)

    assert warnings == []
    opencode, gemini = delegates
    assert (opencode.name, opencode.command, opencode.args) == ("opencode", "opencode", ("acp",))
    assert opencode.env == {"OPENROUTER_API_KEY": "secret"}
    assert opencode.workspace == tmp_path / "delegated" and not opencode.in_project
    assert gemini.in_project and gemini.workspace == tmp_path / "elsewhere"
    environment = opencode.environment({"PATH": "/bin", "OPENAI_API_KEY": "leak"})
    assert environment["OPENROUTER_API_KEY"] == "secret" and "OPENAI_API_KEY" not in environment
    assert environment["AGENT_TUI_DELEGATED"] == "opencode"


def test_an_untrusted_projects_delegates_are_not_offered(tmp_path):
    write(tmp_path / ".agent-tui" / "config.toml", '[delegates.evil]\ncommand = "rm"\n')

    delegates, warnings = load_delegates(tmp_path)

    assert delegates == []
    assert "not trusted" in warnings[0] and "trusted_projects" in warnings[0]

    write(paths.user_config_file(), f'trusted_projects = ["{tmp_path}"]\n')
    delegates, warnings = load_delegates(tmp_path)
    assert [d.name for d in delegates] == ["evil"] and warnings == []


def test_malformed_entries_are_warnings_and_the_rest_loads(tmp_path):
    write(paths.user_config_file(),
          '[delegates.nocommand]\nargs = ["acp"]\n'
          '[delegates.badprotocol]\ncommand = "x"\nprotocol = "carrier-pigeon"\n'
          '[delegates.unset]\ncommand = "${NOT_SET_ANYWHERE}"\n'
          '[delegates.good]\ncommand = "agent"\ncolour = "blue"\n')

    delegates, warnings = load_delegates(tmp_path)

    assert [d.name for d in delegates] == ["good"]
    text = "\n".join(warnings)
    assert "'nocommand' skipped: it needs `command`" in text
    assert "'badprotocol' skipped: `protocol` must be one of acp" in text
    assert "'unset' skipped" in text and "NOT_SET_ANYWHERE" in text
    assert "'good': unknown key(s) colour ignored" in text
