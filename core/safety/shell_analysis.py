"""Shell analysis: a bash command split into the simple commands it would run.

``analyse("timeout 5 rm -rf x; echo $(cat ~/.ssh/id_rsa) > out", cwd)`` parses the command
with tree-sitter-bash and walks it into ``Part`` s: ``rm -rf x`` (looked through
``timeout``), ``cat ~/.ssh/id_rsa`` (inside ``$( )``) and ``echo …`` with its redirection.
Parts come from every place bash runs a command: ``;``, ``&&``, ``||``, ``|``, ``&``,
newlines, subshells, ``{ }``, ``$( )``, backticks, process substitution, strings, heredocs,
``if``/``for``/``while``/``case`` bodies, function bodies, ``find -exec`` and the strings
given to ``bash -c``, ``eval`` and ``watch``. ``cd`` moves the parts after it.

The analyser describes; ``shell_policy`` and ``permissions`` judge.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .command_names import UNKNOWN, bindings, made_files, runs_instead
from .path_listings import listing_of
from .shell_builtins import (
    code_in_text_reason,
    nameref_targets,
    names_set,
    shell_change_reason,
)
from .shell_parts import FedNames, Part, Redirect, ShellAnalysis, Word, quoted
from .shell_reading import Scope, WordReader
from .shell_syntax import (
    assigned_names,
    bindable_names,
    cd_target,
    error_near,
    node_text,
    reads_stdin_code,
    shell_operands,
    stored_code,
)
from .shell_words import WordText
from .shell_wrappers import AWK, INTERPRETER, SHELLS, Look, inline_code, look_through
from .workspace import real_path

if TYPE_CHECKING:
    from tree_sitter import Node

MAY_BE_COMMAND = 3
"""How many words after a wrapper's unreadable options are each judged as its command."""
MAX_DEPTH = 6
"""How deep strings given to ``bash -c`` / ``eval`` may nest before the command asks."""

_DYNAMIC_NODES = frozenset({"simple_expansion", "expansion", "command_substitution",
                            "arithmetic_expansion"})


def analyse(command: str, cwd: Path | None) -> ShellAnalysis:
    """Split ``command`` into the simple commands bash would run from folder ``cwd``."""
    walker = _Walker()
    start = Path(os.path.realpath(cwd)) if cwd is not None else None
    walker.source(command, Scope(cwd=start), "the command")
    error = walker.errors[0] if walker.errors else None
    return ShellAnalysis(command, tuple(walker.parts), error, tuple(walker.fork_bombs))


@dataclass
class _Walker(WordReader):
    errors: list[str] = field(default_factory=list)
    fork_bombs: list[str] = field(default_factory=list)
    _pipes: itertools.count[int] = field(default_factory=itertools.count)
    _bindable: list[frozenset[str]] = field(default_factory=list)  # per script being walked
    _made: set[Path] = field(default_factory=set)  # files earlier parts may make a program of

    # -- statements -------------------------------------------------------------------

    def source(self, text: str, scope: Scope, what: str) -> Scope:
        """Parse ``text`` and walk it; returns the scope after it (``cd`` applied)."""
        # Parsers are not thread-safe: one per call.
        from tree_sitter_language_pack import get_parser

        tree = get_parser("bash").parse(text.encode("utf-8", "surrogateescape"))
        root = tree.root_node
        if root.has_error:
            self.errors.append(f"{what} does not parse as bash ({error_near(root)}), so "
                               "agent-tui cannot tell what it would run")
        self._bindable.append(bindable_names(root))
        try:
            return self._walk(root, scope)
        finally:
            self._bindable.pop()

    def _walk(self, node: Node, scope: Scope) -> Scope:
        kind = node.type
        handler = _STATEMENTS.get(kind)
        if handler is not None:
            return handler(self, node, scope)
        if kind in ("subshell", "pipeline"):
            self._isolated(node, scope)
            return scope
        if kind in ("command_substitution", "process_substitution"):
            self._substitution(node, scope)
            return scope
        for child in node.named_children:
            if child.type != "comment":
                scope = self._walk(child, scope)
        return scope

    def _isolated(self, node: Node, scope: Scope) -> None:
        """A subshell or a pipeline: ``cd`` inside stays inside."""
        if node.type == "subshell":
            self._walk_children(node, scope)
            return
        pipe = next(self._pipes)
        stages = [c for c in node.named_children if c.type != "comment"]
        for index, stage in enumerate(stages):
            self._walk(stage, replace(scope, pipe=(pipe, index)))

    def _walk_children(self, node: Node, scope: Scope) -> Scope:
        for child in node.named_children:
            if child.type != "comment":
                scope = self._walk(child, scope)
        return scope

    def _function(self, node: Node, scope: Scope) -> Scope:
        name = node_text(node.child_by_field_name("name"))
        before = len(self.parts)
        body = node.child_by_field_name("body")
        if body is not None:
            self._walk(body, scope)
        calls = [p for p in self.parts[before:] if p.name == name]
        if len(calls) > 1 or any(p.pipe is not None for p in calls):
            self.fork_bombs.append(name)
        body_parts = tuple(self.parts[before:])
        bound = tuple(b for p in body_parts for b in p.binds)  # made when it is called
        return replace(scope, functions=((name, body_parts), *scope.functions),
                       programs=bound + scope.programs)

    def _for(self, node: Node, scope: Scope) -> Scope:
        """``for f in *.py; do wc -l "$f"; done``: over literal words, ``$f`` is one of them,
        judged as the glob or list ``{a,b}`` of them."""
        name = node_text(node.child_by_field_name("variable"))
        values = [w for v in node.children_by_field_name("value") for w in self._fields(v, scope)]
        inner = scope
        if values and not any(v.dynamic or set(v.text) & set("{},") or v.text.startswith("-")
                              for v in values):
            text = values[0].text if len(values) == 1 else "{" + ",".join(
                v.text for v in values) + "}"
            inner = replace(scope, bindings=((name, text), *scope.bindings))
            if len(values) > 1:
                self._loop_lists.add(name)
        body = node.child_by_field_name("body")
        after = self._walk(body, inner) if body is not None else scope
        return replace(after, bindings=scope.bindings)

    def _assignment(self, node: Node, scope: Scope) -> Scope:
        """``X=1`` on its own: a part with no command, judged by the name it sets."""
        names = assigned_names(node)
        self._values(node, scope)
        part = Part(node_text(node), (), assignments=names, cwd=scope.cwd, origin=scope.origin,
                    pipe=scope.pipe, wrappers=scope.wrappers, asks=scope.asks + stored_code(node))
        part = replace(part, binds=bindings(part))
        self.parts.append(part)
        scope = replace(scope, programs=part.binds + scope.programs)
        value = node.child_by_field_name("value")
        if (len(names) == 1 and names[0] in self._bindable[-1] and value is not None
                and node.parent is not None and node.parent.type == "program"):
            written = self._written(value, scope)
            if not written.dynamic and not written.inner:
                return replace(scope, bindings=((names[0], written.chars), *scope.bindings))
        return scope

    def _declaration(self, node: Node, scope: Scope) -> Scope:
        """``export X=1``, ``local y``, ``unset z``: a command whose names are judged."""
        words: list[Word] = []
        names: list[str] = []
        asks: list[str] = []
        for child in node.children:
            if child.type == "variable_assignment":
                names.extend(assigned_names(child))
                self._values(child, scope)
                asks.extend(stored_code(child))
                value = child.child_by_field_name("value")
                written = self._written(value, scope) if value is not None else WordText()
                words.append(Word(f"{node_text(child.child_by_field_name('name'))}="
                                  f"{written.chars}", written.dynamic))
            elif child.is_named and child.type != "comment":
                words.append(self._word(child, scope))
            elif child.type in ("export", "declare", "local", "readonly", "typeset", "unset"):
                words.append(Word(child.type))
        argv = tuple(w.text for w in words)
        if argv and (why := code_in_text_reason(argv[0], argv)):
            asks.append(why)
        targets = nameref_targets(argv)
        if targets is not None:
            names.extend(targets)
            if any(w.dynamic for w in words):
                asks.append("makes a name refer to a variable only known at run time "
                            "(declare -n)")
        part = Part(node_text(node), tuple(words), assignments=tuple(names), cwd=scope.cwd,
                    origin=scope.origin, pipe=scope.pipe, redirects=scope.redirects,
                    wrappers=scope.wrappers, asks=scope.asks + tuple(dict.fromkeys(asks)))
        part = replace(part, binds=bindings(part))
        self.parts.append(part)
        return replace(scope, programs=part.binds + scope.programs)

    def _test(self, node: Node, scope: Scope) -> Scope:
        """``[[ … ]]``: its substitutions run; quoted subscripts in it are evaluated."""
        self._walk_children(node, scope)
        if stored_code(node):
            self.parts.append(Part(node_text(node), (), cwd=scope.cwd, origin=scope.origin,
                                   pipe=scope.pipe, wrappers=scope.wrappers, asks=scope.asks + (
                                       "tests text with $(…) or backticks, which [[ ]] "
                                       "evaluates as code (an array subscript)",)))
        return scope

    def _arithmetic(self, node: Node, scope: Scope) -> Scope:
        """``(( x = y + 1 ))``: no program runs; it sets the names assigned in it."""
        self._values(node, scope)
        text = node_text(node)
        code = ("evaluates text with $(…) or backticks as arithmetic, which runs it",) if (
            stored_code(node)) else ()
        self.parts.append(Part(text, (), assignments=names_set(("((", text)), cwd=scope.cwd,
                               origin=scope.origin, pipe=scope.pipe, wrappers=scope.wrappers,
                               asks=scope.asks + code))
        return scope

    def _redirected(self, node: Node, scope: Scope) -> Scope:
        """A statement with redirections; they apply to every command in it."""
        redirects: list[Redirect] = []
        continuations: list[Node] = []
        for child in node.children_by_field_name("redirect"):
            redirects.extend(self._redirect(child, scope, continuations))
        body = node.child_by_field_name("body")
        pipe_cont = next((c for c in continuations if c.type == "pipeline"), None)
        pipe = (next(self._pipes), 0) if pipe_cont is not None else scope.pipe
        inner = replace(scope, redirects=scope.redirects + tuple(redirects), pipe=pipe)
        if body is None:  # `> file` alone truncates or creates the file
            self.parts.append(Part(node_text(node), (), redirects=inner.redirects, cwd=scope.cwd,
                                   origin=scope.origin, pipe=pipe, wrappers=scope.wrappers,
                                   asks=scope.asks))
            after = scope
        else:
            after = replace(self._walk(body, inner), redirects=scope.redirects, pipe=scope.pipe)
        for cont in continuations:
            if cont.type == "pipeline" and pipe is not None:
                stages = [c for c in cont.named_children if c.type != "comment"]
                for index, stage in enumerate(stages, start=1):
                    self._walk(stage, replace(scope, pipe=(pipe[0], index)))
            else:
                after = self._walk(cont, after)
        return after

    def _redirect(self, node: Node, scope: Scope, continuations: list[Node]) -> list[Redirect]:
        """The redirections in ``node``; a heredoc's trailing ``| cmd`` or ``&& cmd`` go
        to ``continuations`` (tree-sitter nests them in the heredoc)."""
        kind = node.type
        op = next((node_text(c) for c in node.children if not c.is_named), "")
        if kind == "file_redirect":
            target = node.child_by_field_name("destination")
            if target is None:
                return []
            return [Redirect(op, self._word(target, scope))]
        if kind == "herestring_redirect":
            word_node = next((c for c in node.named_children), None)
            if word_node is None:
                return []
            word = self._word(word_node, scope)
            return [Redirect("<<<", word, body=word.text + "\n", dynamic_body=word.dynamic)]
        if kind != "heredoc_redirect":
            return []
        found: list[Redirect] = []
        quoted = False
        body_text, dynamic = "", False
        inner: tuple[Part, ...] = ()
        for child in node.children:
            if child.type == "heredoc_start":
                quoted = any(q in node_text(child) for q in "'\"\\")
            elif child.type == "heredoc_body":
                body_text = node_text(child)
                if op == "<<-":
                    body_text = re.sub(r"(?m)^\t+", "", body_text)
                if not quoted:
                    dynamic = any(c.type in _DYNAMIC_NODES for c in child.named_children)
                    before = len(self.parts)
                    self._values(child, scope)
                    inner = tuple(self.parts[before:])
            elif child.type in ("file_redirect", "herestring_redirect"):
                found.extend(self._redirect(child, scope, continuations))
            elif child.is_named and child.type not in ("heredoc_end", "comment"):
                continuations.append(child)
        body = Word(body_text, dynamic, inner)
        return [Redirect("<<", body, body=body_text, dynamic_body=dynamic), *found]

    # -- simple commands ---------------------------------------------------------------

    def _command(self, node: Node, scope: Scope) -> Scope:
        words: list[Word] = []
        names: list[str] = []
        redirects: list[Redirect] = []
        continuations: list[Node] = []
        asks: list[str] = []
        name_node = node.child_by_field_name("name")
        if name_node is not None and name_node.named_children and (
                name_node.named_children[0].type == "arithmetic_expansion"):
            return self._arithmetic(node, scope)
        for index, child in enumerate(node.children):
            kind = child.type
            if kind == "variable_assignment":
                names.extend(assigned_names(child))
                asks.extend(stored_code(child))
                self._values(child, scope)
            elif kind == "command_name":
                target = child.named_children[0] if child.named_children else child
                words.extend(self._fields(target, scope))
            elif kind in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                redirects.extend(self._redirect(child, scope, continuations))
            elif node.field_name_for_child(index) == "argument" or (
                    child.is_named and kind != "comment"):
                words.extend(self._fields(child, scope))
        after = self._simple(node_text(node), words, tuple(names),
                             scope.redirects + tuple(redirects), scope, tuple(asks))
        for cont in continuations:
            after = self._walk(cont, after)
        return after

    def _simple(self, text: str, words: list[Word], names: tuple[str, ...],
                redirects: tuple[Redirect, ...], scope: Scope,
                asks_here: tuple[str, ...] = ()) -> Scope:
        """Make the part of one simple command, looking through its wrappers."""
        look = look_through(words)
        fed = self._fed(scope, look) if look.from_input else None
        if look.replace is not None:
            words = _pasted(words, look, fed)
        cwd = scope.cwd
        if look.chdir is not None:
            cwd = real_path(look.chdir, cwd)
        redirects = (redirects + tuple(Redirect("<", w) for w in look.reads)
                     + tuple(Redirect(">", w) for w in look.writes))
        wrappers = scope.wrappers + look.wrappers
        asks = scope.asks + look.asks
        origin = scope.origin or quoted(tuple(words))
        command = tuple(words[look.start:])
        own = names + look.assignments
        env = scope.env + own
        part = Part(text, tuple(words), look.start, redirects, cwd, env, wrappers,
                    asks + asks_here, origin=origin, pipe=scope.pipe,
                    from_input=look.from_input, fed=fed,
                    input_paths=fed.listing.reads if fed is not None else None)
        name = part.name
        if name:
            argv = part.argv
            changes = tuple(filter(None, (shell_change_reason(argv),
                                          code_in_text_reason(name, argv))))
            part = replace(part, assignments=env + names_set(argv), asks=part.asks + changes)
            part = replace(part, runs_as=runs_instead(part, scope.programs, scope.functions)
                           + self._remade(part))
        part = replace(part, binds=bindings(part))
        self._made.update(made_files(part))
        inner_scope = replace(scope, cwd=cwd, redirects=redirects, wrappers=wrappers, asks=asks,
                              origin=origin, depth=scope.depth + 1, env=env)
        if look.maybe_at is not None:  # each word that may be the command, judged as it
            last_ask = part.asks[-1:]
            for start in range(look.maybe_at, min(len(words), look.maybe_at + MAY_BE_COMMAND)):
                self.parts.append(replace(part, start=start, asks=last_ask))
        if name in SHELLS:
            startup = tuple(f"{name} {o} runs the commands in a startup file"
                            for o in ("--rcfile", "--init-file") if o in part.argv)
            if own or startup or asks_here:  # what the shell itself starts with is judged too
                self.parts.append(Part(text, (), cwd=cwd, assignments=env, wrappers=wrappers,
                                       asks=asks + asks_here + startup, origin=origin,
                                       pipe=scope.pipe))
            return self._shell(part, inner_scope, scope)
        if name == "eval" and len(command) > 1:
            if any(w.dynamic for w in command[1:]):
                self.parts.append(replace(part, asks=asks + ("runs code built at run time "
                                                             "(eval)",), code=command[1:]))
                return scope
            code = " ".join(w.text for w in command[1:])
            after = self._reparse(code, replace(inner_scope, wrappers=wrappers + ("eval",)),
                                  "the code given to eval")
            return replace(scope, cwd=after.cwd, programs=after.programs,
                           functions=after.functions)
        if name == "watch" and look.watch_code is not None:
            if look.watch_dynamic:
                self.parts.append(replace(part, asks=asks + ("runs code built at run time "
                                                             "(watch)",)))
            else:
                self._reparse(look.watch_code, replace(inner_scope, wrappers=wrappers + (
                    "watch",)), "the command given to watch")
            return scope
        why = inline_code(part.argv) if name and INTERPRETER.match(name) else None
        if why is not None:
            part = replace(part, asks=part.asks + (why,), code=command[1:])
        elif AWK.match(name):  # a program built at run time is code others may feed it
            part = replace(part, code=tuple(w for w in command[1:] if w.dynamic))
        elif name and INTERPRETER.match(name) and reads_stdin_code(part):
            part = self._stdin_code(part, f"runs code it reads from its input ({name})") or part
        if name == "find":
            self._find_exec(part, inner_scope)
        if name in ("source", ".") and len(command) > 1:
            part = replace(part, code=command[1:])
        self.parts.append(part)
        scope = replace(scope, programs=part.binds + scope.programs)
        if name in ("cd", "pushd", "popd") and not part.wrappers[len(scope.wrappers):]:
            return replace(scope, cwd=cd_target(cwd, part))
        return scope

    def _remade(self, part: Part) -> tuple[tuple[Word, ...], ...]:
        """``cp /bin/rm x; ./x -rf d``: a program run by its path that an earlier part of
        the command line may have written runs what agent-tui cannot tell."""
        program = part.command[0]
        if "/" not in program.text or program.dynamic:
            return ()
        if real_path(program.text, part.cwd) not in self._made:
            return ()
        return ((UNKNOWN, *part.command[1:]),)

    def _fed(self, scope: Scope, look: Look) -> FedNames | None:
        """``find src -name '*.py' | xargs wc -l``: the paths the stage before lists, when
        it is a lister whose names xargs splits as it prints them (see
        :mod:`.path_listings`)."""
        if scope.pipe is None or scope.pipe[1] == 0 or look.reads:
            return None  # no pipe, or `xargs -a FILE` reads a file instead
        feeder = next((p for p in reversed(self.parts)
                       if p.pipe == (scope.pipe[0], scope.pipe[1] - 1)), None)
        if feeder is None or feeder.wrappers != scope.wrappers or feeder.cwd != scope.cwd:
            return None
        listing = listing_of(feeder)
        if listing is None or look.separator not in ("nul", "newline", "blank") or (
                listing.nul != (look.separator == "nul")):
            return None
        return FedNames(listing, look.separator)

    def _shell(self, part: Part, inner: Scope, outer: Scope) -> Scope:
        """``bash -c STRING``, ``sh script``, ``… | sh``: look into the code it runs."""
        command = part.command
        code_at, script = shell_operands(part.argv)
        label = f"{part.name} -c"
        if code_at is not None:
            if code_at >= len(command):
                self.parts.append(part)
            elif command[code_at].dynamic:
                self.parts.append(replace(part, asks=part.asks + (
                    f"runs code built at run time ({label})",), code=(command[code_at],)))
            else:
                # A new shell: the variables of this one are not its own.
                self._reparse(command[code_at].text,
                              replace(inner, wrappers=inner.wrappers + (label,), bindings=()),
                              f"the string given to {label}")
            return outer
        if script is not None:
            word = command[script]
            if word.process:  # `sh <(curl …)`: runs what the substitution prints
                self.parts.append(replace(part, code=(word,), asks=part.asks + (
                    "runs code another command prints (process substitution)",)))
            else:
                self.parts.append(part)
            return outer
        fed = self._stdin_code(part, f"runs the commands it reads from its input ({part.name})",
                               inner)
        if fed is not None:
            self.parts.append(fed)
        return outer

    def _stdin_code(self, part: Part, why: str, inner: Scope | None = None) -> Part | None:
        """A shell or interpreter reading its program from its input.

        A literal heredoc given to a shell is read like ``bash -c``'s string (and None is
        returned: its commands are the parts); a file (``bash < x.sh``) runs like a script;
        anything else asks with ``why``.
        """
        feeds = [r for r in part.redirects if r.stdin_text or r.reads]
        if not feeds:
            if part.pipe is None or part.pipe[1] == 0:
                return part  # its input is empty (/dev/null): it reads no program
            return replace(part, asks=part.asks + (why,), stdin_code=True)
        last = feeds[-1]
        if last.reads or last.target is None:
            return part
        body = last.target
        if body.dynamic:
            return replace(part, asks=part.asks + (
                f"runs code built at run time ({part.name} <<)",), code=(body,))
        if inner is None:
            return replace(part, asks=part.asks + (why,), code=(body,))
        self._reparse(body.text, replace(inner, wrappers=inner.wrappers + (
            f"{part.name} <<",)), f"the heredoc given to {part.name}")
        return None

    def _reparse(self, code: str, scope: Scope, what: str) -> Scope:
        if scope.depth > MAX_DEPTH:
            self.parts.append(Part(code, (Word(code),), cwd=scope.cwd, origin=scope.origin,
                                   asks=scope.asks + ("nests commands too deeply to check",)))
            return scope
        return self.source(code, scope, what)

    def _find_exec(self, part: Part, scope: Scope) -> None:
        """``find … -exec CMD {} ;``: CMD is a part of its own, its arguments unknown."""
        command = list(part.command)
        index = 0
        while index < len(command):
            if command[index].text in ("-exec", "-execdir", "-ok", "-okdir"):
                end = index + 1
                while end < len(command) and command[end].text not in (";", "+"):
                    end += 1
                inner = command[index + 1:end]
                if inner:
                    text = " ".join(w.text for w in inner)
                    before = len(self.parts)
                    self._simple(text, inner, (), (), replace(
                        scope, pipe=None, wrappers=scope.wrappers + ("find -exec",)))
                    for i in range(before, len(self.parts)):
                        self.parts[i] = replace(self.parts[i], from_input=True)
                index = end
            index += 1


def _pasted(words: list[Word], look: Look, fed: FedNames | None) -> list[Word]:
    """``xargs -I {} CMD``: the words ``{}`` is pasted into are only known at run time; a
    word that is just ``{}`` stands for one of the paths a lister feeds it."""
    stand_in = Word(fed.listing.reads[0].text) if fed is not None else None
    replace = look.replace or ""
    return [w if index < look.start or replace not in w.text else (
        stand_in if stand_in is not None and w.text == replace and not w.dynamic
        and index > look.start else Word(w.text, dynamic=True, inner=w.inner))
        for index, w in enumerate(words)]


_STATEMENTS = {
    "command": _Walker._command,
    "redirected_statement": _Walker._redirected,
    "function_definition": _Walker._function,
    "variable_assignment": _Walker._assignment,
    "variable_assignments": _Walker._assignment,
    "declaration_command": _Walker._declaration,
    "for_statement": _Walker._for,
    "test_command": _Walker._test,
    "unset_command": _Walker._declaration,
}
