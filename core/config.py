"""Settings, layered lowest first: defaults, user ``config.toml``, the project's
``.agent-tui/config.toml``, ``AGENT_TUI_*`` environment variables, command-line flags.

A project's own file cannot grant anything (approval mode, where requests and keys go)
until the person trusts that folder; such keys are ignored with a warning.

Rule lists (``allow_rules``, ``ask_rules``, ``deny_rules``) add up across the files instead of
replacing each other, and the user file's ``[projects."/real/path"]`` table adds the rules
remembered for that project. An untrusted project's ask and deny rules apply: they only
restrict.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from . import paths
from .durable import write_atomically
from .safety.permission_rules import Kind, Scope, parse_rules

ApprovalMode = Literal["default", "auto-edit", "plan", "yolo"]
APPROVAL_MODES: tuple[str, ...] = ("default", "auto-edit", "plan", "yolo")
ToolProtocol = Literal["auto", "native", "text"]
SandboxMode = Literal["none", "bwrap"]
SyntaxGuard = Literal["warn", "refuse", "off"]
EditCorrection = Literal["off", "model"]

# Keys an untrusted project file may not set: each could widen what the agent may do or
# send the person's API key to a server of the project's choosing.
TRUST_GATED_KEYS = frozenset(
    {"approval_mode", "api_base", "api_key", "api_key_env", "trusted_projects", "allow_rules",
     "network", "web_search_url", "web_search_key_env", "sandbox", "bwrap_path",
     "env_passthrough"}
)


class ConfigError(Exception):
    """A config file or value is wrong; the message names the file and the fix."""


class Settings(BaseSettings):
    """Everything agent-tui can be configured with."""

    model_config = SettingsConfigDict(env_prefix="AGENT_TUI_", extra="ignore")

    model: str | None = Field(
        None,
        description="litellm model name, e.g. 'anthropic/claude-sonnet-4-20250514', "
        "'openai/gpt-4.1', 'gemini/gemini-2.5-pro', 'ollama_chat/qwen2.5-coder'.",
    )
    api_base: str | None = Field(
        None, description="Base URL of the provider (OpenAI-compatible servers, Ollama, vLLM)."
    )
    api_key: str | None = Field(
        None,
        repr=False,
        description="API key; by default litellm reads the provider's usual "
        "environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, …).",
    )
    api_key_env: str | None = Field(
        None, description="Name of the environment variable that holds the API key."
    )
    approval_mode: ApprovalMode = Field("default", description="default | auto-edit | plan | yolo.")
    max_turns: int = Field(100, ge=1, description="Model calls allowed in one run.")
    context_window: int | None = Field(
        None, ge=1024, description="Tokens the model accepts; overrides litellm's figure."
    )
    max_output_tokens: int | None = Field(None, ge=1, description="Cap on tokens per response.")
    temperature: float | None = Field(None, ge=0, le=2, description="Sampling temperature.")
    tool_protocol: ToolProtocol = Field(
        "auto", description="native function calling, a text protocol, or auto-detect."
    )
    request_timeout: float = Field(600.0, gt=0, description="Seconds for one model request.")
    stream_idle_timeout: float = Field(
        120.0, gt=0, description="Seconds a stream may stay silent before it is retried."
    )
    max_retries: int = Field(5, ge=0, description="Retries of a failing model call.")
    retry_base_delay: float = Field(1.0, ge=0, description="First backoff delay in seconds.")
    retry_max_delay: float = Field(60.0, ge=0, description="Longest backoff delay in seconds.")
    shell_timeout_ms: int = Field(120_000, ge=1, description="Default shell command timeout.")
    tool_output_limit: int = Field(
        30_000, ge=1000, description="Characters of tool output the model receives."
    )
    trusted_projects: list[str] = Field(
        default_factory=list, description="Project folders whose own config is trusted."
    )

    allow_rules: list[str] = Field(
        default_factory=list,
        description="Calls that never ask, e.g. 'shell(git status)', 'shell(npm run test:*)', "
        "'edit_file(src/**)'.",
    )
    ask_rules: list[str] = Field(
        default_factory=list,
        description="Calls that always ask, yolo mode included, e.g. 'shell(git push *)'.",
    )
    deny_rules: list[str] = Field(
        default_factory=list,
        description="Calls that are always refused, e.g. 'shell(rm *)', 'read_file(.env)'.",
    )

    @field_validator("allow_rules", "ask_rules", "deny_rules")
    @classmethod
    def _rules_are_rules(cls, rules: list[str]) -> list[str]:
        parse_rules(rules)  # a RuleError is a ValueError: pydantic reports it with the field
        return rules

    theme: str = Field("agent-tui-dark", description="The workbench's Textual theme.")
    notify_bell: bool = Field(
        True,
        description="Ring the terminal bell when the agent waits or finishes while the "
        "terminal is not focused.",
    )

    network: bool = Field(
        False, description="Whether tools may reach the network (web_fetch, web_search, "
        "research); off until the person turns it on.")
    web_search_backend: Literal["searxng", "brave", "tavily"] | None = Field(
        None, description="Which search service web_search uses.")
    web_search_url: str | None = Field(
        None, description="Base URL of the search service (SearXNG: your instance).")
    web_search_key_env: str | None = Field(
        None, description="Environment variable holding the search service's API key.")
    keep_background_processes: bool = Field(
        False, description="Leave background_process processes running when agent-tui exits.")
    sandbox: SandboxMode = Field(
        "none", description="Run shell and background commands under bubblewrap ('bwrap': "
        "read-only root, the project and a private /tmp writable, no network unless it is "
        "on) or not at all ('none').")
    bwrap_path: str | None = Field(
        None, description="The bubblewrap binary (default: bwrap on PATH).")
    preview_timeout: float = Field(
        10.0, gt=0, description="Seconds a previewed command may run (p in the approval "
        "modal, --preview headless) before it is killed.")
    env_passthrough: list[str] = Field(
        default_factory=list,
        description="Environment variables (names or globs, e.g. 'GITHUB_TOKEN', 'NPM_*') "
        "that commands receive although they look like secrets.")

    edit_syntax_guard: SyntaxGuard = Field(
        "warn", description="After each edit of a file in a language tree-sitter knows: "
        "'warn' reports a syntax error the edit adds (line and node) to the model and on the "
        "approval, 'refuse' does not write such an edit, 'off' skips the check.")
    edit_correction: EditCorrection = Field(
        "off", description="When edit_file's text matches nowhere, even ignoring whitespace "
        "and over-escaping: 'model' asks the model once to correct it against the nearest "
        "candidate regions of the file; 'off' fails with those candidates shown.")

    review_compaction: bool = Field(
        True, description="In the workbench, show the compaction summary for editing before "
        "it replaces the history (headless runs always apply it).")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        layers = [_LayerSource(settings_cls, data) for data in reversed(_file_layers.get())]
        return (init_settings, env_settings, *layers)


class _LayerSource(PydanticBaseSettingsSource):
    """A settings source over one already-loaded TOML file."""

    def __init__(self, settings_cls: type[BaseSettings], data: dict[str, Any]) -> None:
        super().__init__(settings_cls)
        self._data = data

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._data)


_file_layers: ContextVar[tuple[dict[str, Any], ...]] = ContextVar("_file_layers", default=())


@dataclass(slots=True)
class LoadedSettings:
    """Settings with the warnings met while loading them."""

    settings: Settings
    warnings: list[str] = field(default_factory=list)


def read_toml(path: Path) -> dict[str, Any]:
    """Read a TOML file; a missing file is empty.

    Raises:
        ConfigError: the file is not valid TOML.
    """
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix or remove the file.") from None


def load_settings(workdir: Path, overrides: dict[str, Any] | None = None) -> LoadedSettings:
    """Layer defaults, user file, project file, environment and ``overrides`` (flags).

    Raises:
        ConfigError: a file is not TOML or a value is invalid.
    """
    warnings: list[str] = []
    known = set(Settings.model_fields)
    user_file = paths.user_config_file()
    user = read_toml(user_file)
    project_file = paths.project_config_file(workdir)
    project = read_toml(project_file)
    for source, data in ((user_file, user), (project_file, project)):
        unknown = sorted(k for k, v in data.items() if k not in known and not isinstance(v, dict))
        if unknown:
            warnings.append(f"{source}: unknown setting(s) {', '.join(unknown)} ignored.")
    trusted = str(workdir.resolve()) in user.get("trusted_projects", [])
    if not trusted:
        gated = sorted(TRUST_GATED_KEYS & project.keys())
        if gated:
            warnings.append(
                f"{project_file}: {', '.join(gated)} ignored because this folder is not "
                f"trusted; add it to trusted_projects in {user_file} to allow it."
            )
            project = {k: v for k, v in project.items() if k not in TRUST_GATED_KEYS}
    project = {**project, **_merged_rules(user, project, workdir)}
    layers = tuple({k: v for k, v in data.items() if k in known} for data in (user, project))
    token = _file_layers.set(layers)
    try:
        settings = Settings(**{k: v for k, v in (overrides or {}).items() if v is not None})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigError(
            f"invalid setting ({problems}). Check the flags, AGENT_TUI_* variables, "
            f"{user_file} and {project_file}."
        ) from None
    finally:
        _file_layers.reset(token)
    return LoadedSettings(settings, warnings)


RULE_KEYS = ("allow_rules", "ask_rules", "deny_rules")


def project_table_key(workdir: Path) -> str:
    """The key of a project's table in the user config (``[projects."KEY"]``): its real path."""
    return str(workdir.resolve())


def _merged_rules(user: dict[str, Any], project: dict[str, Any],
                  workdir: Path) -> dict[str, Any]:
    """Each rule list as the sum of the user file's, the user file's table for this project,
    and the project file's (``project`` is already stripped of what trust gates)."""
    tables = user.get("projects")
    table = tables.get(project_table_key(workdir), {}) if isinstance(tables, dict) else {}
    merged: dict[str, Any] = {}
    for key in RULE_KEYS:
        values = [source[key] for source in (user, table, project) if key in source]
        if not values:
            continue
        # A value that is not a list goes through as it is, for pydantic to report.
        odd = next((v for v in values if not isinstance(v, list)), None)
        merged[key] = odd if odd is not None else [rule for v in values for rule in v]
    return merged


def save_user_settings(updates: dict[str, Any], remove: tuple[str, ...] = ()) -> Path:
    """Merge ``updates`` into the user's ``config.toml`` (atomically, with tomli-w).

    Keys in ``remove`` are deleted, so a stale value (an old api_base) does not linger.
    Tables (dict values, e.g. ``{"projects": {"/p": {"allow_rules": [...]}}}``) merge key
    by key, so saving one project's rules keeps the other projects'.

    Returns:
        The path written.
    """
    import tomli_w

    path = paths.user_config_file()
    data = read_toml(path)
    for key in remove:
        data.pop(key, None)
    _merge_tables(data, {k: v for k, v in updates.items() if v is not None})
    path.parent.mkdir(parents=True, exist_ok=True)
    # 0600: the file may hold keys' variable names and a provider's address.
    write_atomically(path, tomli_w.dumps(data).encode(), mode=0o600)
    return path


def save_rules(rules: Sequence[str], scope: Scope, workdir: Path, kind: Kind = "allow") -> Path:
    """Add ``rules`` to the user config: its ``{kind}_rules`` (scope ``user``) or the
    project's table ``[projects."/real/path"]`` (scope ``project``).

    Returns:
        The file written.

    Raises:
        ValueError: ``scope`` is not saved to a file (``once``, ``session``).
    """
    key = f"{kind}_rules"
    data = read_toml(paths.user_config_file())
    if scope == "user":
        current = [str(r) for r in data.get(key, [])]
        return save_user_settings({key: current + [r for r in rules if r not in current]})
    if scope == "project":
        project = project_table_key(workdir)
        table = data.get("projects", {}).get(project, {})
        current = [str(r) for r in table.get(key, [])]
        merged = current + [r for r in rules if r not in current]
        return save_user_settings({"projects": {project: {key: merged}}})
    raise ValueError(f"rules of scope {scope!r} are not saved to a file")


def _merge_tables(into: dict[str, Any], updates: dict[str, Any]) -> None:
    for key, value in updates.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge_tables(into[key], value)
        else:
            into[key] = value
