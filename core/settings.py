"""The settings model (pydantic): every setting, its type, bounds, default and meaning.

Importing pydantic and pydantic-settings and building this model costs ~100 ms, so the
workbench does it after its first frame: :mod:`.config` reads the files, the environment and
the flags without pydantic, checks them against a light copy of these types
(:data:`~agent_tui.core.config.SETTING_KINDS`, kept equal to this model by the tests), and
validates here once the screen is up. Import :class:`Settings` from :mod:`.config`.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any, Literal

from pydantic import Field, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .safety.permission_rules import parse_rules

ApprovalMode = Literal["default", "auto-edit", "plan", "yolo"]
ToolProtocol = Literal["auto", "native", "text"]
SandboxMode = Literal["none", "bwrap"]
SyntaxGuard = Literal["warn", "refuse", "off"]
EditCorrection = Literal["off", "model"]


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
    escalation_model: str | None = Field(
        None, description="A stronger litellm model that takes over the rest of a run when a "
        "tool suggests it (an edit whose text is not in the file) or the model says it cannot "
        "proceed; unset: no escalation.")
    escalation_api_base: str | None = Field(
        None, description="Base URL of the escalation model's provider; unset: model's "
        "api_base when both models name the same provider, else that provider's own endpoint.")
    escalation_api_key_env: str | None = Field(
        None, description="Name of the environment variable that holds the escalation "
        "model's API key; unset: as for escalation_api_base, model's key or the provider's "
        "usual variable.")
    approval_mode: ApprovalMode = Field("default", description="default | auto-edit | plan | yolo.")
    max_turns: int = Field(100, ge=1, description="Model calls allowed for one prompt.")
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
    stream_process: bool = Field(
        True, description="The workbench streams the model's answers in a worker process "
        "(litellm's parsing of a fast stream then never delays a key or a frame); false: "
        "in the workbench's own process, ~230 MB less memory.")
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
    webdriver: bool = Field(
        False, description="Offer the webdriver_* browser tools (Chromium through Selenium; "
        "--webdriver or --chrome-headless).")
    chrome_headless: bool = Field(
        True, description="Run the browser without a window; false shows it where a display "
        "exists.")
    chromium_path: str | None = Field(
        None, description="The Chromium or Chrome program (default: chromium on PATH).")
    chromedriver_path: str | None = Field(
        None, description="The chromedriver program (default: chromedriver on PATH).")
    computer_control: bool = Field(
        False, description="Offer the desktop tools that act on the screen: list_windows, "
        "mouse_click, type_text, find_element (each asks first in default mode).")
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
    approval_key_guard: float = Field(
        0.5, ge=0, le=60, description="Seconds the approval modal ignores its keys after it "
        "opens by itself, so a key typed for the prompt cannot answer it; 0: none.")
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
    checkpoint_max_files: int = Field(
        50_000, ge=1, description="More files than this to snapshot (after .gitignore, "
        "virtual environments, node_modules and caches are left out) and checkpoints are off "
        "for the folder, said once.")
    checkpoint_max_file_mb: float = Field(
        5.0, gt=0, description="Files larger than this many MB are left out of checkpoints "
        "(/undo cannot restore them).")
    checkpoint_timeout: float = Field(
        5.0, gt=0, description="Seconds a turn waits for its checkpoint; past that the turn "
        "goes on without it (hashing goes on in the background).")

    review_compaction: bool = Field(
        True, description="In the workbench, show the compaction summary for editing before "
        "it replaces the history (headless runs always apply it).")
    skill_paths: list[str] = Field(
        default_factory=list, description="More folders of skills (each holding "
        "<name>/SKILL.md), between your own skills and the project's.")
    embedding_model: str | None = Field(
        None, description="litellm embedding model for memory_search (e.g. "
        "'openai/text-embedding-3-small'); unset: the local model when installed, else "
        "keyword search alone.")
    embedding_api_base: str | None = Field(
        None, description="Base URL of the embedding model's server, when not the provider's.")
    http_allowed_domains: list[str] = Field(
        default_factory=list, description="Domains (and their subdomains) http_request and "
        "gif_search may GET without asking.")
    tool_discovery_command: str | None = Field(
        None, description="A command printing the project's tool declarations as JSON "
        "(gemini-cli's discovered tools).")
    tool_call_command: str | None = Field(
        None, description="A command that runs one discovered tool: NAME is appended, the "
        "arguments come as JSON on stdin.")
    gif_search_url: str = Field(
        "https://api.giphy.com/v1/gifs/search",
        description="The Giphy-compatible search endpoint gif_search asks (key: GIPHY_API_KEY).")
    agent: str | None = Field(
        None, description="The persona the session takes on (--agent NAME): a Markdown file "
        "in the agents/ folder of the config folder or of the project's .agent-tui, or a "
        "bundled one (reviewer, architect, test-writer).")

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


def build_settings(layers: tuple[Mapping[str, Any], ...], overrides: Mapping[str, Any]) -> Settings:
    """Validate: ``overrides`` (flags) over ``AGENT_TUI_*`` over ``layers`` (the user file's
    then the project file's known keys, lowest first) over the defaults.

    Raises:
        pydantic.ValidationError: a value is invalid.
    """
    token = _file_layers.set(tuple(dict(layer) for layer in layers))
    try:
        return Settings(**overrides)
    finally:
        _file_layers.reset(token)
