"""Whether a tool call may run: approval modes, rules, shell analysis, the workspace boundary.

``decide`` is the one entry point the agent calls. It answers allow, ask or deny with the
reason; for a command it judges each simple command (part) on its own and reports every
part's verdict. What "ask" becomes is up to the front end's approver: the TUI asks the
person, a headless run refuses.

The order of judgement, for a call or a part: hard-denied commands (every mode, yolo
included), deny rules, protected paths (``.git`` internals, agent-tui's config: asked in
every mode, refused in plan mode), plan mode, ask rules, then allow rules, the mode and the
read-only allowlist.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from ...tools.base import Invocation, ToolKind, ToolParams
from ...tools.names import (
    COMMAND_RULE_TOOL,
    EDIT_TOOLS,
    FOLDER_READING_TOOLS,
    READ_TOOLS,
    ToolName,
)
from ..text.glob_patterns import fixed_folder, has_magic
from .command_names import ANY_NAME, ANY_PROGRAM, could_run
from .hard_denials import hard_denial
from .permission_rules import Kind, Rule, RuleSet
from .shell_analysis import Part, ShellAnalysis, analyse
from .shell_parts import Word
from .shell_policy import access, risky_assignments, searched_folders
from .workspace import Workspace

NEVER_RUNS = "agent-tui never runs it"
"""The end of every hard denial's reason."""


class Verdict(StrEnum):
    """The three answers of a permission check."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


@dataclass(frozen=True, slots=True)
class PartVerdict:
    """The verdict on one simple command of a command line.

    Attributes:
        text: The part as written (``timeout 5 rm -rf x``).
        verdict: Its verdict.
        reason: Why, for people and the model.
        suggest: The rule that would allow it from now on (None when no rule can).
    """

    text: str
    verdict: Verdict
    reason: str
    suggest: str | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """A verdict and the reason a person (or the model) is shown.

    Attributes:
        verdict: Allow, ask or deny.
        reason: Why.
        parts: For a command, the verdict on each of its parts.
        rules: The rules "always allow" would save (one per part that needs one).
        by: ``policy``, ``rule`` (a rule decided) or ``hook`` (a ``PreToolUse`` hook).
        any_mode: It asks whatever the approval mode (a protected path, an ask rule): no
            mode would let it run without a person.
    """

    verdict: Verdict
    reason: str = ""
    parts: tuple[PartVerdict, ...] = ()
    rules: tuple[str, ...] = ()
    by: str = "policy"
    any_mode: bool = False


def decide(invocation: Invocation[ToolParams], mode: str, workdir: Path,
           rules: RuleSet | None = None) -> Decision:
    """Judge one validated call under approval ``mode`` for the project at ``workdir``."""
    rules = rules or RuleSet()
    workspace = Workspace(workdir)
    command = getattr(invocation.params, "command", None)
    if invocation.tool.kind == ToolKind.EXECUTE and isinstance(command, str):
        cwd = getattr(invocation, "working_dir", None) or workdir
        return decide_command(command, mode, workspace, rules, Path(cwd),
                              tool=invocation.tool.name)
    return _decide_tool(invocation, mode, workspace, rules)


def hard_denied(command: str, cwd: Path | None = None) -> str | None:
    """Why ``command`` is refused in every mode (judged part by part), or None."""
    workspace = Workspace(cwd or Path.cwd())
    analysis = analyse(command, workspace.root)
    for part in analysis.parts:
        if why := hard_denial(part, analysis, workspace):
            return f"`{part.text}`: {why}; {NEVER_RUNS}"
    return None


# -- tools other than commands -----------------------------------------------------------


def _decide_tool(invocation: Invocation[ToolParams], mode: str, workspace: Workspace,
                 rules: RuleSet) -> Decision:
    tool = invocation.tool
    writes = tool.kind == ToolKind.EDIT
    if writes:
        rule_tools = EDIT_TOOLS | {tool.name}
    elif tool.read_only:
        rule_tools = READ_TOOLS | {tool.name}
    else:
        rule_tools = frozenset({tool.name})
    located = [p for p in (workspace.resolve(str(loc)) for loc in invocation.locations()) if p]
    subject = _subject(invocation)

    def matching(kind: Kind) -> Rule | None:
        if located:
            return next((r for p in located if (r := rules.path(kind, rule_tools, p, workspace))),
                        None)
        return rules.call(kind, tool.name, subject)

    if denied := matching("deny"):
        return Decision(Verdict.DENY, f"denied by the rule {denied.text}", by="rule")
    if tool.name in FOLDER_READING_TOOLS and rules.deny:
        for folder in _searched(located or [workspace.root]):
            if rule := rules.inside("deny", rule_tools, folder, workspace):
                return Decision(Verdict.ASK, _searches_denied(folder, rule, workspace),
                                by="rule", any_mode=True)
    outside = workspace.first_outside(located)
    where = f" outside the project ({outside})" if outside else ""
    if writes and (protected := next(filter(None, map(workspace.protected, located)), None)):
        if mode == "plan":
            return Decision(Verdict.DENY, f"plan mode does not write files, and {protected}")
        return Decision(Verdict.ASK, f"writes a protected file: {protected}", any_mode=True)
    if mode == "plan":
        if not tool.read_only:
            return Decision(Verdict.DENY, "plan mode allows read-only tools only; propose the "
                                          "change as a plan instead of making it")
        if outside:
            return Decision(Verdict.DENY, f"plan mode does not read{where}")
    if asked := matching("ask"):
        return Decision(Verdict.ASK, f"the rule {asked.text} asks first", by="rule",
                        any_mode=True)
    if located:
        allowed = all(rules.path("allow", rule_tools, p, workspace) for p in located)
        rule = rules.path("allow", rule_tools, located[0], workspace) if allowed else None
    else:
        rule = rules.call("allow", tool.name, subject)
    if rule is not None:
        return Decision(Verdict.ALLOW, f"allowed by the rule {rule.text}", by="rule")
    if mode == "yolo":
        return Decision(Verdict.ALLOW, "yolo mode")
    if not writes and (harmless := invocation.harmless()):
        return Decision(Verdict.ALLOW, harmless)
    suggest = _suggest_for_tool(invocation, workspace, located, subject)
    if tool.read_only:
        if not outside:
            return Decision(Verdict.ALLOW, "read-only")
        return Decision(Verdict.ASK, f"reads{where}", rules=suggest)
    if writes:
        if mode == "auto-edit" and not outside:
            return Decision(Verdict.ALLOW, "auto-edit mode")
        return Decision(Verdict.ASK, f"changes files{where}", rules=suggest)
    reason = tool.ask_reason or _KIND_REASONS.get(tool.kind, "is not read-only")
    return Decision(Verdict.ASK, f"{reason}{where}",
                    rules=suggest)


_KIND_REASONS = {
    ToolKind.EXECUTE: "runs a command",
    ToolKind.FETCH: "reaches the network",
    ToolKind.COMPUTER: "controls the computer",
    ToolKind.MEMORY: "changes the agent's memory",
}


def _subject(invocation: Invocation[ToolParams]) -> str | None:
    """What a rule's pattern is matched against for a tool without paths: a URL, a query."""
    params = invocation.params
    for name in ("url", "query", "command", "name", "path", "file_path"):
        value = getattr(params, name, None)
        if isinstance(value, str):
            return value
    return None


def _suggest_for_tool(invocation: Invocation[ToolParams], workspace: Workspace, located: list[Path],
                      subject: str | None) -> tuple[str, ...]:
    name = invocation.tool.name
    if located:
        return tuple(dict.fromkeys(f"{name}({workspace.shown(p)})" for p in located))
    if subject is not None and getattr(invocation.params, "url", None) == subject:
        from urllib.parse import urlsplit

        host = urlsplit(subject).hostname
        return (f"{name}(domain:{host})",) if host else (name,)
    return (name,)


# -- commands ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Judged:
    verdict: PartVerdict
    firm: bool = False
    by_rule: bool = False


def decide_command(command: str, mode: str, workspace: Workspace, rules: RuleSet, cwd: Path,
                   tool: str = COMMAND_RULE_TOOL) -> Decision:
    """Judge a command line part by part; the strictest part decides.

    Args:
        command: The bash command line.
        mode: The approval mode.
        workspace: The project.
        rules: The rules in force.
        cwd: Where the command starts.
        tool: The tool running it (``shell``, ``background_process``).
    """
    analysis = analyse(command, cwd)
    changer = _changer(analysis, workspace)
    judged = [_judge(part, analysis, mode, workspace, rules, tool, changer)
              for part in analysis.parts]
    parts = tuple(j.verdict for j in judged)
    several = len(parts) > 1
    denied = [p for p in parts if p.verdict == Verdict.DENY]
    if denied:
        first = denied[0]
        reason = f"`{first.text}`: {first.reason}" if several or NEVER_RUNS in first.reason else (
            first.reason)
        return Decision(Verdict.DENY, reason, parts,
                        by="rule" if any(j.by_rule for j in judged if j.verdict in denied)
                        else "policy")
    if analysis.error is not None:
        reason = f"{analysis.error}; rewrite it as plain bash"
        if mode == "plan":
            return Decision(Verdict.DENY, reason, parts)
        return Decision(Verdict.ASK, reason, parts, any_mode=True)
    asking = [j for j in judged if j.verdict.verdict == Verdict.ASK]
    if asking:
        reasons = list(dict.fromkeys(  # a part judged several ways is told once
            f"`{j.verdict.text}`: {j.verdict.reason}" if several else j.verdict.reason
            for j in asking))
        shown = reasons[:3]
        more = f" (and {len(reasons) - 3} more parts)" if len(reasons) > 3 else ""
        suggest = tuple(dict.fromkeys(j.verdict.suggest for j in asking if j.verdict.suggest))
        return Decision(Verdict.ASK, "; ".join(shown) + more, parts, suggest,
                        any_mode=any(j.firm for j in asking))
    if not parts:
        return Decision(Verdict.ALLOW, "runs nothing", parts)
    reasons = list(dict.fromkeys(p.reason for p in parts))
    reason = reasons[0] if len(reasons) == 1 else "every part is allowed (" + "; ".join(
        reasons) + ")"
    return Decision(Verdict.ALLOW, reason, parts,
                    by="rule" if all(j.by_rule for j in judged) else "policy")


def _changer(analysis: ShellAnalysis, workspace: Workspace) -> str | None:
    """For a command line where xargs is fed a lister's names: a part that is not read-only
    and may make new names before or while the lister runs (``mkdir 'a /etc' && …``, or
    ``… &``), as written; None when there is none."""
    if not any(p.fed for p in analysis.parts):
        return None
    return next((p.text for p in analysis.parts if p.fed is None and p.command
                 and not access(p, workspace).read_only), None)


def _judge(part: Part, analysis: ShellAnalysis, mode: str, workspace: Workspace,
           rules: RuleSet, tool: str, changer: str | None = None) -> _Judged:
    """The verdict on one part (see the module's docstring for the order)."""
    text = part.text or part.written

    def verdict(kind: Verdict, reason: str, suggest: str | None = None, *, firm: bool = False,
                by_rule: bool = False) -> _Judged:
        return _Judged(PartVerdict(text, kind, reason, suggest), firm, by_rule)

    if why := hard_denial(part, analysis, workspace):
        return verdict(Verdict.DENY, f"{why}; {NEVER_RUNS}")
    # As written, inside its wrappers, and with the program's bare name (`/bin/rm` is `rm`).
    named = " ".join((part.name, *part.argv[1:])) if part.name else ""
    lines = tuple(dict.fromkeys(x for x in (part.line, part.written, named, part.quoted_line)
                                if x))
    if part.command and (rule := rules.command("deny", tool, lines)):
        return verdict(Verdict.DENY, f"denied by the rule {rule.text}", by_rule=True)
    if rules.deny and (why := _denied_instead(part, rules, tool)):
        return verdict(Verdict.DENY, why, by_rule=True)
    acc = access(part, workspace)
    if part.fed is not None and acc.read_only and changer is not None:
        acc = replace(acc, read_only=False, why=(
            f"`{changer}` may make new files before {part.fed.listing.program} lists them, and "
            "agent-tui looks at the names there are now"))
    reads = _paths(workspace, part.cwd, (*acc.reads, *(r.target for r in part.redirects
                                                       if r.reads and r.target)))
    writes = _paths(workspace, part.cwd, (*acc.writes, *(r.target for r in part.redirects
                                                         if r.writes and r.target)))
    touches = _paths(workspace, part.cwd, acc.touches)
    for path, families in ((p, (READ_TOOLS,)) for p in reads):
        if path and (rule := rules.path("deny", families[0], path, workspace)):
            return verdict(Verdict.DENY, f"reads {workspace.shown(path)}, denied by the rule "
                                         f"{rule.text}", by_rule=True)
    for path in (*writes, *touches):
        if path and (rule := rules.path("deny", EDIT_TOOLS | READ_TOOLS, path,
                                        workspace)):
            return verdict(Verdict.DENY, f"touches {workspace.shown(path)}, denied by the rule "
                                         f"{rule.text}", by_rule=True)
    if rules.deny:
        for folder in searched_folders(part, reads):
            if rule := rules.inside("deny", READ_TOOLS, folder, workspace):
                return verdict(Verdict.ASK, _searches_denied(folder, rule, workspace),
                               firm=True, by_rule=True)
    # A program run by its path is not written by running it: a skill's script in
    # .agent-tui/bin runs as any other script does (its arguments still count).
    program = set(_paths(workspace, part.cwd, part.command[:1])) if part.command else set()
    protected = next(filter(None, (workspace.protected(p) for p in (*writes, *touches)
                                   if p and (p not in program or p in writes))), None)
    if protected:
        if mode == "plan":
            return verdict(Verdict.DENY, f"plan mode does not write files, and {protected}")
        return verdict(Verdict.ASK, f"writes a protected file: {protected}", firm=True)
    if mode == "plan":
        return _judge_plan(part, acc.read_only, acc.why, reads, writes, workspace, verdict)
    if rules.deny and (unseen := _unseen(part, reads)):
        return verdict(Verdict.ASK, f"{unseen}, so your deny rules cannot be checked on it",
                       firm=True)
    if part.command and (rule := rules.command("ask", tool, lines)) or (
            rule := _path_rule(rules, "ask", reads, writes, workspace)):
        return verdict(Verdict.ASK, f"the rule {rule.text} asks first", firm=True, by_rule=True)
    suggest = f"shell({part.quoted_line})"
    if (risky := risky_assignments(part)) and mode != "yolo":
        return verdict(Verdict.ASK, f"sets {risky[0]}, which can make commands run other programs")
    if part.asks:
        # As written (quoted as the shell reads it), and unquoted as rules saved before were.
        as_written = (part.quoted_written, " ".join(w.text for w in part.words))
        rule = rules.command("allow", tool, as_written)
        if rule is not None and (part.code or part.stdin_code) and (
                " ".join((rule.pattern or "").split())
                not in {" ".join(line.split()) for line in as_written}):
            rule = None  # code nobody has seen: only a rule naming it exactly allows it
        if rule is None and mode != "yolo":
            return verdict(Verdict.ASK, part.asks[0], f"shell({part.quoted_written})")
        allowed = f"allowed by the rule {rule.text}" if rule else "yolo mode"
    elif (not acc.read_only and part.command
          and (part.cwd is None or not workspace.inside(part.cwd)) and mode != "yolo"):
        where = f"in {part.cwd}, outside the project" if part.cwd else (
            "in a folder only known at run time")
        return verdict(Verdict.ASK, f"runs {where}")
    elif part.command and (rule := rules.command("allow", tool, lines)):
        allowed = f"allowed by the rule {rule.text}"
    elif mode == "yolo":
        allowed = "yolo mode"
    elif not acc.read_only:
        return verdict(Verdict.ASK, acc.why, suggest if part.command else None)
    else:
        unknown = any(p is None for p in reads)
        outside = workspace.first_outside(reads)
        if unknown:
            return verdict(Verdict.ASK, "reads a path only known at run time", suggest)
        if outside and not rules.path("allow", READ_TOOLS, outside, workspace):
            return verdict(Verdict.ASK, f"reads {outside}, outside the project", suggest)
        allowed = "read-only"
    if problem := _write_problem(writes, mode, workspace, rules):
        reason, target = problem
        return verdict(Verdict.ASK, reason, f"{ToolName.EDIT_FILE}({target})" if target else None)
    return verdict(Verdict.ALLOW, allowed, by_rule=allowed.startswith("allowed by"))


def _denied_instead(part: Part, rules: RuleSet, tool: str) -> str | None:
    """Why ``part`` is refused by a deny rule on a program it makes another name run, or
    may run under another name (``hash -p /bin/rm x``, ``alias x=rm``, ``$p -rf d``,
    ``PATH=…``), or None. A name that runs what agent-tui cannot tell may run anything."""
    for name, runs in part.binds:
        if rule := rules.command_could("deny", tool, (*_rule_words(runs), None)):
            if name == ANY_PROGRAM:
                return ("changes PATH, so every command after it may run another program; "
                        f"denied by the rule {rule.text}")
            named = "any name" if name == ANY_NAME else name
            program = "a program only known at run time" if runs[0].dynamic else runs[0].text
            return f"makes {named} run {program}; denied by the rule {rule.text}"
    tail = (None,) if part.from_input else ()
    for runs, why in could_run(part):
        if rule := rules.command_could("deny", tool, (*_rule_words(runs), *tail)):
            return f"{why}; it may run what the rule {rule.text} denies, so that rule refuses it"
    return None


def _rule_words(words: tuple[Word, ...]) -> list[str | None]:
    """A command's words as a rule sees them: the program by its bare name (``/bin/rm``
    is ``rm``), a word only known at run time as None."""
    return [None if w.dynamic else os.path.basename(w.text) if index == 0 and w.text else w.text
            for index, w in enumerate(words)]


def _searched(located: list[Path]) -> list[Path]:
    """The folders a folder-reading tool reads files in: folders it names, and the fixed
    leading folder of each glob (``src/**/*.py`` reads in ``src``)."""
    folders = []
    for path in located:
        if has_magic(str(path)):
            folders.append(Path(fixed_folder(str(path)) or "/"))
        elif path.is_dir():
            folders.append(path)
    return folders


def _searches_denied(folder: Path, rule: Rule, workspace: Workspace) -> str:
    """Why a search of ``folder`` asks: a deny rule covers some of the files in it."""
    shown = "the project" if folder == workspace.root else workspace.shown(folder)
    return (f"searches every file in {shown}, and the rule {rule.text} denies reading some "
            "of them; name the files or folders to search instead")


def _unseen(part: Part, reads: list[Path | None]) -> str | None:
    """Why agent-tui cannot see what ``part`` runs or reads, or None when it can."""
    if part.command and not part.name:
        return "its program's name is only known at run time"
    if part.code or part.stdin_code or any("env -S" in why for why in part.asks):
        return "it runs code agent-tui does not analyse"
    if any(path is None for path in reads):
        return "it reads a path only known at run time"
    return None


def _judge_plan(part: Part, read_only: bool, why: str, reads: list[Path | None],
                writes: list[Path | None], workspace: Workspace,
                verdict: Callable[..., _Judged]) -> _Judged:
    """Plan mode runs read-only commands inside the project, nothing else."""
    if part.asks:
        return verdict(Verdict.DENY, f"plan mode runs read-only commands only; this {part.asks[0]}")
    if not read_only:
        return verdict(Verdict.DENY, f"plan mode runs read-only commands only ({why}); "
                                     "propose the change as a plan instead")
    if [w for w in writes if w is None or not workspace.harmless(w)]:
        return verdict(Verdict.DENY, "plan mode does not write files; propose the change as a "
                                     "plan instead")
    outside = workspace.first_outside(reads)
    if outside or any(p is None for p in reads):
        return verdict(Verdict.DENY, f"plan mode does not read outside the project ({outside})")
    return verdict(Verdict.ALLOW, "read-only")


def _write_problem(writes: list[Path | None], mode: str, workspace: Workspace,
                   rules: RuleSet) -> tuple[str, str | None] | None:
    """Why the files a part writes need a yes (and what an edit rule would name), or None."""
    for path in writes:
        if path is None:
            return "writes a file whose name is only known at run time", None
        if workspace.harmless(path) or rules.path("allow", EDIT_TOOLS, path, workspace):
            continue
        if mode == "yolo":
            continue
        if not workspace.inside(path):
            return f"writes {path}, outside the project", str(path)
        if mode != "auto-edit":
            shown = workspace.shown(path)
            return f"writes {shown}", shown
    return None


def _path_rule(rules: RuleSet, kind: Kind, reads: list[Path | None], writes: list[Path | None],
               workspace: Workspace) -> Rule | None:
    for path in reads:
        if path and (rule := rules.path(kind, READ_TOOLS, path, workspace)):
            return rule
    for path in writes:
        if path and (rule := rules.path(kind, EDIT_TOOLS, path, workspace)):
            return rule
    return None


def _paths(workspace: Workspace, cwd: Path | None, words: Iterable[Word]) -> list[Path | None]:
    """The real paths shell words name (globs and braces expanded unless the analysis did
    already); None where unknown."""
    found: list[Path | None] = []
    for word in words:
        if word.process or not word.text:
            continue
        if word.dynamic:
            found.append(None)
        elif word.literal:
            found.append(workspace.resolve(word.text, cwd))
        else:
            found.extend(workspace.expand(word.text, cwd))
    return found


def is_inside(path: Path, root: Path) -> bool:
    """True when ``path`` (symlinks followed) lies inside ``root`` (symlinks followed)."""
    real = Path(os.path.realpath(path))
    real_root = Path(os.path.realpath(root))
    return real == real_root or real_root in real.parents
