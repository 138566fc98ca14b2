"""Every setting, declared once: its type, bounds, default, meaning, whether an untrusted
project may set it, and its command-line flag if it has one.

:class:`SettingFields` is the one declaration. From it come the pydantic model
(:class:`~agent_tui.core.settings.Settings`, built after the workbench's first frame), the
cheap check the first frame is drawn from (:data:`~agent_tui.core.config.SETTING_KINDS`), the
keys an untrusted project may not set, the ``agent-tui`` flags that set settings, and the
settings tables of the README and the configuration doc (:mod:`.setting_docs`).

Only the standard library: the workbench reads this before its first frame.
"""

from typing import Literal

from .setting_spec import CliFlag, SettingKind, SettingSpec, setting, specs_of

__all__ = ["SETTINGS", "CliFlag", "SettingFields", "SettingKind", "SettingSpec", "setting"]

ApprovalMode = Literal["default", "auto-edit", "plan", "yolo"]
ToolProtocol = Literal["auto", "native", "text"]
ToolSet = Literal["auto", "full", "lean"]
ReasoningEffort = Literal["off", "low", "medium", "high"]
SandboxMode = Literal["none", "bwrap"]
SyntaxGuard = Literal["warn", "refuse", "off"]
EditCorrection = Literal["off", "model"]
SearchBackend = Literal["searxng", "brave", "tavily"]
NotifyTerminal = Literal["auto", "osc9", "osc777", "off"]


class SettingFields:
    """Everything agent-tui can be configured with."""

    model: str | None = setting(
        None,
        description="litellm model name, e.g. 'anthropic/claude-sonnet-4-20250514', "
        "'openai/gpt-4.1', 'gemini/gemini-2.5-pro', 'ollama_chat/qwen2.5-coder'.",
        flag=CliFlag(
            ("--model", "-m"),
            "litellm model, e.g. openai/gpt-4.1, "
            "anthropic/claude-sonnet-4-20250514, ollama_chat/qwen2.5-coder",
        ),
    )
    api_base: str | None = setting(
        None,
        description="Base URL of the provider (OpenAI-compatible servers, Ollama, vLLM).",
        trust_gated=True,
        flag=CliFlag(
            ("--api-base",), "provider base URL (OpenAI-compatible servers, Ollama, vLLM)", "URL"
        ),
    )
    api_key: str | None = setting(
        None,
        repr=False,
        description="API key; by default litellm reads the provider's usual "
        "environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, …).",
        trust_gated=True,
        flag=CliFlag(
            ("--api-key",), "API key (default: the provider's usual environment variable)", "KEY"
        ),
    )
    api_key_env: str | None = setting(
        None,
        description="Name of the environment variable that holds the API key.",
        trust_gated=True,
    )
    escalation_model: str | None = setting(
        None,
        description="A stronger litellm model that takes over the rest of a run when a "
        "tool suggests it (an edit whose text is not in the file) or the model says it cannot "
        "proceed; unset: no escalation.",
        flag=CliFlag(
            ("--escalation-model",),
            "a stronger litellm model that takes over the rest of a run when a tool suggests "
            "it (an edit whose text is not in the file) or the model says it cannot proceed",
            "MODEL",
        ),
    )
    escalation_api_base: str | None = setting(
        None,
        description="Base URL of the escalation model's provider; unset: model's "
        "api_base when both models name the same provider, else that provider's own endpoint.",
        trust_gated=True,
    )
    escalation_api_key_env: str | None = setting(
        None,
        description="Name of the environment variable that holds the escalation "
        "model's API key; unset: as for escalation_api_base, model's key or the provider's "
        "usual variable.",
        trust_gated=True,
    )
    approval_mode: ApprovalMode = setting(
        "default",
        description="default | auto-edit | plan | yolo.",
        trust_gated=True,
        flag=CliFlag(("--approval-mode",), "what may run without asking (default: default)"),
    )
    max_turns: int = setting(
        100,
        ge=1,
        description="Model calls allowed for one prompt.",
        flag=CliFlag(
            ("--max-turns",),
            "model calls allowed for one prompt, a call after each round of tool calls "
            "(default: 100; the run stops there and says so); with --autonomous or --planning, "
            "the player-coach rounds instead (default: 5)",
            "N",
        ),
    )
    max_cost: float | None = setting(
        None,
        gt=0,
        description="US dollars the session may spend: once its cost reaches this, the agent "
        "stops before its next model call and says so (unset: no limit; a model without "
        "known prices is never stopped).",
        flag=CliFlag(
            ("--max-cost",),
            "US dollars the session may spend; the agent stops before its next model call "
            "once its cost reaches this (default: no limit)",
            "USD",
        ),
    )
    context_window: int | None = setting(
        None,
        ge=1024,
        description="Tokens the model accepts; overrides litellm's figure.",
        flag=CliFlag(
            ("--context-window",),
            "the model's context window in tokens (for models litellm "
            "does not know, e.g. local ones)",
            "N",
        ),
    )
    max_output_tokens: int | None = setting(None, ge=1, description="Cap on tokens per response.")
    temperature: float | None = setting(None, ge=0, le=2, description="Sampling temperature.")
    reasoning_effort: ReasoningEffort | None = setting(
        None,
        description="How hard a reasoning model thinks: off, low, medium or high (unset: the "
        "provider's default). litellm maps it to OpenAI's reasoning effort and to Anthropic's "
        "and Gemini's thinking budgets; a model without such a control is called without it "
        "(said once).",
        flag=CliFlag(
            ("--reasoning-effort",),
            "how hard a reasoning model thinks: off, low, medium or high (default: the "
            "provider's); OpenAI's effort, Anthropic's and Gemini's thinking budgets",
        ),
    )
    gemini_explicit_cache: bool = setting(
        False,
        description=(
            "Gemini and Vertex AI: keep the system prompt and tools in an explicit context "
            "cache (cachedContents, one hour), so every call reads them at the cached price; "
            "Google bills the cache's storage by the hour. Off: Gemini 2.5 and later cache a "
            "repeated prefix on their own, without the guarantee."
        ),
    )
    tool_protocol: ToolProtocol = setting(
        "auto",
        description="native function calling, a text protocol, or auto-detect.",
        flag=CliFlag(
            ("--tool-protocol",), "native function calling or the text protocol (default: auto)"
        ),
    )
    tool_set: ToolSet = setting(
        "auto",
        description="Every tool, the lean set for small windows, or auto: lean up to 16K tokens.",
        flag=CliFlag(
            ("--tool-set",),
            "every tool (full), or the lean set for small context windows: read_file, grep, "
            "edit_file, write_file and shell, described briefly, with shorter instructions "
            "(default: auto, lean for windows up to 16,384 tokens)",
        ),
    )
    repo_map_tokens: int = setting(
        2048,
        ge=0,
        description="Tokens of the repository map sent with each request (the project's files "
        "and main definitions, ranked by what the conversation touches), at most an eighth of "
        "the window (a sixteenth with the lean tool set, none under 8K tokens); 0: no map.",
        flag=CliFlag(
            ("--map-tokens",),
            "tokens of the repository map sent with each request (default: 2048, at most an "
            "eighth of the window; 0: no map)",
            "N",
        ),
    )
    request_timeout: float = setting(600.0, gt=0, description="Seconds for one model request.")
    stream_idle_timeout: float = setting(
        120.0, gt=0, description="Seconds a stream may stay silent before it is retried."
    )
    stream_process: bool = setting(
        True,
        description="The workbench streams the model's answers in a worker process "
        "(litellm's parsing of a fast stream then never delays a key or a frame, and the "
        "workbench imports no litellm of its own); false: in the workbench's own process.",
    )
    warm_engine: bool = setting(
        True,
        description="Stream workers come ready from a background process of yours that keeps "
        "litellm loaded (started by the first workbench, gone 15 minutes after the last "
        "one ends), so the first model request waits for no import; false: each workbench "
        "starts its own worker, which loads litellm for seconds.",
    )
    max_retries: int = setting(5, ge=0, description="Retries of a failing model call.")
    retry_base_delay: float = setting(1.0, ge=0, description="First backoff delay in seconds.")
    retry_max_delay: float = setting(60.0, ge=0, description="Longest backoff delay in seconds.")
    shell_timeout_ms: int = setting(120_000, ge=1, description="Default shell command timeout.")
    tool_output_limit: int = setting(
        30_000, ge=1000, description="Characters of tool output the model receives."
    )
    trusted_projects: list[str] = setting(
        [],
        description="Project folders whose own config is trusted.",
        trust_gated=True,
    )

    allow_rules: list[str] = setting(
        [],
        rules=True,
        description="Calls that never ask, e.g. 'shell(git status)', 'shell(npm run test:*)', "
        "'edit_file(src/**)'.",
        trust_gated=True,
    )
    ask_rules: list[str] = setting(
        [],
        rules=True,
        description="Calls that always ask, yolo mode included, e.g. 'shell(git push *)'.",
    )
    deny_rules: list[str] = setting(
        [],
        rules=True,
        description="Calls that are always refused, e.g. 'shell(rm *)', 'read_file(.env)'.",
    )

    theme: str = setting("agent-tui-dark", description="The workbench's Textual theme.")
    vi_mode: bool = setting(False, description="Edit the prompt with vi keys: Esc to normal "
                            "mode (motions, dd dw cw yy p u, counts), i a o back to insert.")
    notify_bell: bool = setting(
        True,
        description="Ring the terminal bell when the agent waits or finishes while the "
        "terminal is not focused.",
    )
    notify_terminal: NotifyTerminal = setting(
        "auto",
        description="A notification the terminal shows when the agent waits or finishes "
        "while the terminal is not focused: osc9 (iTerm2, WezTerm, kitty), osc777 (Ghostty, "
        "foot, rxvt, Windows Terminal, VTE terminals), auto (picked from $TERM_PROGRAM, $TERM "
        "and the variables terminals set; none for a terminal it does not know) or off. "
        "Under tmux it goes through tmux's passthrough (set allow-passthrough on).",
    )
    notify_desktop: bool = setting(
        True,
        description="Also run notify-send (where installed, with $DISPLAY or "
        "$WAYLAND_DISPLAY set) when the agent waits or finishes while the terminal is not "
        "focused; skipped when notify_terminal's auto already picked a terminal "
        "notification, so one shows, not two.",
    )

    network: bool = setting(
        False,
        description="Whether tools may reach the network (web_fetch, web_search, "
        "research); off until the person turns it on.",
        trust_gated=True,
        flag=CliFlag(
            ("--net",),
            "let tools reach the network (web_fetch, web_search, research); off by default",
        ),
    )
    web_search_backend: SearchBackend | None = setting(
        None, description="Which search service web_search uses."
    )
    web_search_url: str | None = setting(
        None,
        description="Base URL of the search service (SearXNG: your instance).",
        trust_gated=True,
    )
    web_search_key_env: str | None = setting(
        None,
        description="Environment variable holding the search service's API key.",
        trust_gated=True,
    )
    webdriver: bool = setting(
        False,
        description="Offer the webdriver_* browser tools (Chromium through Selenium; "
        "--webdriver or --chrome-headless).",
        trust_gated=True,
        flag=CliFlag(
            ("--webdriver",),
            "offer the webdriver_* browser tools (Chromium through Selenium; "
            "headless unless chrome_headless = false in config.toml)",
        ),
    )
    chrome_headless: bool = setting(
        True,
        description="Run the browser without a window; false shows it where a display exists.",
        flag=CliFlag(
            ("--chrome-headless",),
            "offer the browser tools with a headless Chromium",
            implies=("webdriver",),
        ),
    )
    chromium_path: str | None = setting(
        None,
        description="The Chromium or Chrome program (default: chromium on PATH).",
        trust_gated=True,
    )
    chromedriver_path: str | None = setting(
        None,
        description="The chromedriver program (default: chromedriver on PATH).",
        trust_gated=True,
    )
    computer_control: bool = setting(
        False,
        description="Offer the desktop tools that act on the screen: list_windows, "
        "mouse_click, type_text, find_element (each asks first in default mode).",
        trust_gated=True,
        flag=CliFlag(
            ("--computer-control",),
            "offer the desktop tools that act on the screen (list_windows, "
            "mouse_click, type_text, find_element); each asks first",
        ),
    )
    keep_background_processes: bool = setting(
        False, description="Leave background_process processes running when agent-tui exits."
    )
    sandbox: SandboxMode = setting(
        "none",
        description="Run shell and background commands under bubblewrap ('bwrap': "
        "read-only root, the project and a private /tmp writable, no network unless it is "
        "on) or not at all ('none').",
        trust_gated=True,
        flag=CliFlag(
            ("--sandbox",),
            "run shell and background commands under bubblewrap: read-only "
            "system, the project and a private /tmp writable, no network unless "
            "it is on (default: none, or sandbox in config.toml)",
        ),
    )
    bwrap_path: str | None = setting(
        None,
        description="The bubblewrap binary (default: bwrap on PATH).",
        trust_gated=True,
    )
    preview_timeout: float = setting(
        10.0,
        gt=0,
        description="Seconds a previewed command may run (p in the approval "
        "modal, --preview headless) before it is killed.",
    )
    approval_key_guard: float = setting(
        0.5,
        ge=0,
        le=60,
        description="Seconds the approval modal ignores its keys after it "
        "opens by itself, so a key typed for the prompt cannot answer it; 0: none.",
    )
    env_passthrough: list[str] = setting(
        [],
        description="Environment variables (names or globs, e.g. 'GITHUB_TOKEN', 'NPM_*') "
        "that commands receive although they look like secrets.",
        trust_gated=True,
    )

    edit_syntax_guard: SyntaxGuard = setting(
        "warn",
        description="After each edit of a file in a language tree-sitter knows: "
        "'warn' reports a syntax error the edit adds (line and node) to the model and on the "
        "approval, 'refuse' does not write such an edit, 'off' skips the check.",
    )
    edit_correction: EditCorrection = setting(
        "off",
        description="When edit_file's text matches nowhere, even ignoring whitespace "
        "and over-escaping: 'model' asks the model once to correct it against the nearest "
        "candidate regions of the file; 'off' fails with those candidates shown.",
    )
    checkpoint_max_files: int = setting(
        50_000,
        ge=1,
        description="More files than this to snapshot (after .gitignore, "
        "virtual environments, node_modules and caches are left out) and checkpoints are off "
        "for the folder, said once.",
    )
    checkpoint_max_file_mb: float = setting(
        5.0,
        gt=0,
        description="Files larger than this many MB are left out of checkpoints "
        "(/undo cannot restore them).",
    )
    checkpoint_timeout: float = setting(
        5.0,
        gt=0,
        description="Seconds a turn waits for its checkpoint; past that the turn "
        "goes on without it (hashing goes on in the background).",
    )
    auto_commit: bool = setting(
        False, description="Commit each turn's changed files (in a git repository) with a "
        "message the model writes; files you had changed or staged before it are left out. "
        "/undo takes the commit back too while HEAD is still that commit.")
    lint_command: str = setting(
        "", trust_gated=True, description="Run after a turn's edits, e.g. 'ruff check "
        "{files}' ({files}: the changed files); a failure goes back to the model to fix.")
    test_command: str = setting(
        "", trust_gated=True, description="Run after a turn's edits once lint_command "
        "passes, e.g. 'pytest -q -x'; a failure goes back to the model as lint's does.")
    fix_attempts: int = setting(3, ge=0, description="Failures of lint_command and "
                                "test_command one prompt sends back to the model to fix.")
    check_timeout: float = setting(600.0, gt=0, description="Seconds lint_command or "
                                   "test_command may run before it is killed (a failure).")

    review_compaction: bool = setting(
        True,
        description="In the workbench, show the compaction summary for editing before "
        "it replaces the history (headless runs always apply it).",
    )
    skill_paths: list[str] = setting(
        [],
        description="More folders of skills (each holding "
        "<name>/SKILL.md), between your own skills and the project's.",
        trust_gated=True,
    )
    embedding_model: str | None = setting(
        None,
        description="litellm embedding model for memory_search (e.g. "
        "'openai/text-embedding-3-small'); unset: the chat provider's own embedding "
        "endpoint where it has one, else the local model, else keyword search alone.",
        trust_gated=True,
    )
    embedding_api_base: str | None = setting(
        None,
        description="Base URL of the embedding model's server, when not the provider's.",
        trust_gated=True,
    )
    http_allowed_domains: list[str] = setting(
        [],
        description="Domains (and their subdomains) http_request and "
        "gif_search may GET without asking.",
        trust_gated=True,
    )
    tool_discovery_command: str | None = setting(
        None,
        description="A command printing the project's tool declarations as JSON "
        "(gemini-cli's discovered tools).",
        trust_gated=True,
    )
    tool_call_command: str | None = setting(
        None,
        description="A command that runs one discovered tool: NAME is appended, the "
        "arguments come as JSON on stdin.",
        trust_gated=True,
    )
    gif_search_url: str = setting(
        "https://api.giphy.com/v1/gifs/search",
        description="The Giphy-compatible search endpoint gif_search asks (key: GIPHY_API_KEY).",
        trust_gated=True,
    )
    agent: str | None = setting(
        None,
        description="The persona the session takes on (--agent NAME): a Markdown file "
        "in the agents/ folder of the config folder or of the project's .agent-tui, or a "
        "bundled one (reviewer, architect, test-writer).",
        trust_gated=True,
        flag=CliFlag(
            ("--agent",),
            "take on the persona NAME: its prompt, model, tools and approval mode "
            "(bundled: reviewer, architect, test-writer; agent-tui agents list shows them all)",
            "NAME",
        ),
    )


SETTINGS: dict[str, SettingSpec] = specs_of(SettingFields)
"""Every setting, in its declared order."""
