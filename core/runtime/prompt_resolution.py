"""What a typed prompt asks the model, the same for every front end (workbench, ``-p``, ACP).

``/review 42`` runs the custom command ``/review`` (its prompt, its allowed tools, its
``model:``), ``/mcp__docs__review app.py`` an MCP server's prompt; ``/compact [FOCUS]`` and
``!COMMAND`` agent-tui runs itself (:mod:`.direct_commands`); anything else is sent as
typed. Then what the prompt names is attached: each ``@path`` of an image, each
``@server:uri`` of an MCP server's resource. The front end's own slash commands (``/help``…)
never get here.

Use::

    prompt = await resolve_prompt(typed, workdir, knowledge.commands, mcp,
                                  read_images=prompt_image_parts)   # tools.images
    for warning in prompt.warnings: ...            # say each; the prompt still runs
    result = await run_resolved(agent, prompt)    # on the command's model, if it names one
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...tools.base import ImagePart
from ..custom_commands import CustomCommands
from .assembly import make_provider as litellm_provider
from .direct_commands import DirectCommand, direct_command, run_direct

ImageReader = Callable[[str, Path], tuple[list[tuple[str, ImagePart]], list[str]]]
"""Reads the images a prompt's text names (``@shot.png``) relative to a folder: the images
(name shown, part) and why any could not be read (``tools.images.prompt_image_parts``)."""

if TYPE_CHECKING:
    from ..agent import Agent
    from ..config import Settings
    from ..events import RunResult
    from ..mcp import McpManager
    from ..providers.base import Provider

RESOURCE = re.compile(r"(?:^|\s)@([A-Za-z0-9_-]+):(\S+)")
"""``@server:uri``: an MCP server's resource attached to a prompt."""


class PromptFailed(Exception):
    """The prompt names an MCP prompt that could not be fetched; the message says why."""


@dataclass(frozen=True, slots=True)
class ResolvedPrompt:
    """A typed prompt as the model gets it.

    Attributes:
        text: The prompt (a custom command's or an MCP server's, else as typed), with the
            MCP resources it names attached after it.
        images: The images it attaches (name shown, part).
        allowed_rules: Permission rules allowed for its turn (a custom command's tools).
        model: The model its turn runs on (a custom command's ``model:``); None: the
            session's.
        command: The custom command it runs (``/review``), if any.
        warnings: What the person should know, one sentence each (an attachment that could
            not be read, a command's tools not granted); the prompt runs all the same.
        direct: What agent-tui runs itself instead of asking the model (``/compact``,
            ``!COMMAND``), if anything; ``text`` is then its argument.
    """

    text: str
    images: tuple[tuple[str, ImagePart], ...] = ()
    allowed_rules: tuple[str, ...] = ()
    model: str | None = None
    command: str | None = None
    warnings: tuple[str, ...] = ()
    direct: DirectCommand | None = None


async def resolve_prompt(prompt: str, workdir: Path, commands: CustomCommands,
                         mcp: McpManager | None = None,
                         *, images: Sequence[tuple[str, ImagePart]] = (),
                         read_images: ImageReader | None = None) -> ResolvedPrompt:
    """What ``prompt`` asks, given the session's custom commands and MCP servers
    (``core.mcp.McpManager`` or None).

    Args:
        images: Images the front end attached already (the workbench's, read as the
            prompt is typed to show them; an ACP client's).
        read_images: Reads the images the resolved prompt names, after ``images``
            (None: none are read).

    Raises:
        PromptFailed: an MCP prompt's server failed or its arguments do not fit.
    """
    if (direct := direct_command(prompt)) is not None:
        what = "/compact" if direct.kind == "compact" else "a !command"
        ignored = [f"Not attached: {name}: {what} takes no images" for name, _part in images]
        return ResolvedPrompt(direct.argument, warnings=tuple(ignored), direct=direct)
    text, rules, model, command, warnings = await _expand(prompt, commands, mcp)
    images = list(images)
    if read_images is not None:
        found, problems = await asyncio.to_thread(read_images, text, workdir)
        images += found
        warnings += [f"Not attached: {problem}" for problem in problems]
    text = await _attach_resources(text, mcp, warnings)
    return ResolvedPrompt(text, tuple(images), rules, model, command, tuple(warnings))


async def _expand(prompt: str, commands: CustomCommands, mcp: McpManager | None
                  ) -> tuple[str, tuple[str, ...], str | None, str | None, list[str]]:
    """The prompt a slash command makes of ``prompt``: text, rules, model, command, warnings."""
    if not prompt.startswith("/"):
        return prompt, (), None, None, []
    name, _, arguments = prompt.strip().partition(" ")
    if mcp is not None and name.startswith("/mcp__"):
        found = next((p for p in mcp.prompts() if p.command == name), None)
        if found is not None:
            from ..mcp import McpError

            try:
                text = await mcp.get_prompt(found.server, found.name, found.bind(arguments))
            except (McpError, ValueError) as exc:
                raise PromptFailed(str(exc)) from None
            return text, (), None, None, []
    command = commands.get(name)
    if command is None:
        return prompt, (), None, None, []
    warnings = []
    if command.allowed_tools and not command.granted_rules:
        warnings.append(f"{command.name}: its allowed-tools are not granted: the project is "
                        "not trusted (add it to trusted_projects in the user config.toml).")
    return (command.prompt(arguments), command.granted_rules, command.model, command.name,
            warnings)


async def _attach_resources(text: str, mcp: McpManager | None, warnings: list[str]) -> str:
    """``text`` with each ``@server:uri`` of a configured server's resource attached after
    it; what cannot be read is added to ``warnings`` and left out."""
    if mcp is None:
        return text
    from ..mcp import McpError

    attached = []
    for match in RESOURCE.finditer(text):
        server, uri = match.group(1), match.group(2).rstrip(".,;:!?)")
        if server not in mcp.servers:
            continue
        try:
            body = await mcp.read_resource(server, uri)
        except McpError as exc:
            warnings.append(f"Not attached: @{server}:{uri}: {exc}")
            continue
        attached.append(f'<resource server="{server}" uri="{uri}">\n{body}\n</resource>')
    return "\n\n".join([text, *attached]) if attached else text


async def run_resolved(agent: Agent, prompt: ResolvedPrompt,
                       make_provider: Callable[[Settings], Provider] = litellm_provider
                       ) -> RunResult:
    """Run ``prompt`` with ``agent`` to the end of its turn, on the prompt's model when it
    names another: a helper agent on that model (its provider from ``make_provider``) takes
    the conversation over for the turn and hands it back; it shares the agent's tools,
    approver, front end, session log and knowledge. What agent-tui runs itself
    (``prompt.direct``) runs with ``agent``, no model turn."""
    if prompt.direct is not None:
        return await run_direct(agent, prompt.direct)
    if not prompt.model or prompt.model == agent.provider.model:
        return await agent.run(prompt.text, allowed_rules=prompt.allowed_rules,
                               images=prompt.images)
    from ..agent import Agent

    settings = agent.settings.model_copy(update={"model": prompt.model})
    helper = Agent(make_provider(settings), agent.registry, settings, agent.workdir,
                   agent.approver, agent.on_event, session_id=agent.session_id,
                   session=agent.session, knowledge=agent.knowledge,
                   memory=agent.tool_ctx.memory)
    helper.session_source = agent.session_source
    # What the front end lent the agent's tools (its browser, editor, terminals) they keep.
    for lent in ("browser", "editor_text", "command_runner"):
        setattr(helper.tool_ctx, lent, getattr(agent.tool_ctx, lent))
    helper.adopt(agent)
    try:
        return await helper.run(prompt.text, allowed_rules=prompt.allowed_rules,
                                images=prompt.images)
    finally:
        agent.adopt(helper)
