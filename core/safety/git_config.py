"""git config files read the way git reads them, and the settings in them that run programs.

git's syntax is looser than it looks: ``[core] fsmonitor = x`` puts a key on the header line,
``[Core]`` and ``FSMonitor`` are ``core.fsmonitor``, ``[diff.evil]`` is the old spelling of
``[diff "evil"]``, values may be quoted, escaped and continued over lines, and a key with no
``=`` is boolean true. :func:`config_entries` follows git's own parser (``config.c``)
character by character; text it cannot read is reported, since git may read it otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_SPACE = " \t\r\n"
_ESCAPES = {"\n": "", "t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}
_RUNS = frozenset({"core.fsmonitor", "core.pager", "core.hookspath", "diff.external",
                   "gpg.program", "log.showsignature", "trace2.normaltarget",
                   "trace2.perftarget", "trace2.eventtarget"})
"""Settings that run a program (or write a file) when a read-only git command runs."""
_DRIVERS = {"diff": {"textconv", "command"}, "merge": {"driver"},
            "filter": {"clean", "smudge", "process"},
            "gpg": {"program", "defaultkeycommand"}}
"""Per-driver settings (``diff.<driver>.textconv``) that run a program."""
_FALSE = frozenset({"false", "no", "off", "", "0"})
_TRUE = frozenset({"true", "yes", "on", "1"})


class ConfigSyntaxError(ValueError):
    """A config file git would refuse, or that agent-tui cannot read as git does."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One setting.

    Attributes:
        name: ``section.key`` or ``section.subsection.key``; section and key lower-cased,
            the subsection as written (the old ``[section.sub]`` form lower-cases it too).
        value: The value with quotes and escapes resolved; None for a bare key (true).
    """

    name: str
    value: str | None

    @property
    def parts(self) -> tuple[str, str, str]:
        """``(section, subsection, key)``; subsection "" when there is none."""
        section, _, rest = self.name.partition(".")
        subsection, _, key = rest.rpartition(".")
        return section, subsection, key


def config_entries(text: str) -> list[Entry]:
    """Every setting in a config file's text, in order.

    Raises:
        ConfigSyntaxError: git would stop at this text (a bad line, an open quote).
    """
    reader = _Reader(text.removeprefix("\ufeff").replace("\r\n", "\n"))
    return reader.entries()


class _Reader:
    """git's ``git_parse_source``: a character loop, not a line splitter."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def next(self) -> str:
        """The next character; end of text reads as a newline, as in git."""
        if self.at >= len(self.text):
            self.at += 1
            return "\n"
        char = self.text[self.at]
        self.at += 1
        return char

    @property
    def done(self) -> bool:
        return self.at >= len(self.text)

    def entries(self) -> list[Entry]:
        found: list[Entry] = []
        section: str | None = None
        comment = False
        while not self.done:
            char = self.next()
            if char == "\n":
                comment = False
            elif comment or char in _SPACE:
                continue
            elif char in "#;":
                comment = True
            elif char == "[":
                section = self.header()
            elif char.isascii() and char.isalpha():
                if section is None:
                    raise ConfigSyntaxError("a key before any [section]")
                key, value = self.key(char)
                found.append(Entry(f"{section}.{key}", value))
            else:
                raise ConfigSyntaxError(f"unexpected {char!r}")
        return found

    def header(self) -> str:
        name = ""
        while True:
            if self.done:
                raise ConfigSyntaxError("an unfinished [section]")
            char = self.next()
            if char in _SPACE:
                return f"{name}.{self.subsection()}"
            if char == "]":
                return name
            if not (char.isascii() and (char.isalnum() or char in "-.")):
                raise ConfigSyntaxError(f"{char!r} in a section name")
            name += char.lower()

    def subsection(self) -> str:
        char = self.next()
        while char in _SPACE and not self.done:
            char = self.next()
        if char != '"':
            raise ConfigSyntaxError("a subsection that is not quoted")
        name = ""
        while True:
            char = self.next()
            if char == "\n":
                raise ConfigSyntaxError("an unfinished subsection")
            if char == '"':
                break
            if char == "\\":
                char = self.next()
                if char == "\n":
                    raise ConfigSyntaxError("an unfinished subsection")
            name += char
        if self.next() != "]":
            raise ConfigSyntaxError("text after a subsection's closing quote")
        return name

    def key(self, first: str) -> tuple[str, str | None]:
        key = first.lower()
        char = self.next()
        while char.isascii() and (char.isalnum() or char == "-"):
            key += char.lower()
            char = self.next()
        while char in " \t":
            char = self.next()
        if char == "\n":
            return key, None
        if char != "=":
            raise ConfigSyntaxError(f"{char!r} after the key {key}")
        return key, self.value()

    def value(self) -> str:
        value, spaces, quoted, comment = "", 0, False, False
        while True:
            char = self.next()
            if char == "\n":
                if quoted:
                    raise ConfigSyntaxError("an unfinished quoted value")
                return value
            if comment:
                continue
            if char in _SPACE and not quoted:
                spaces += 1 if value else 0
                continue
            if not quoted and char in "#;":
                comment = True
                continue
            value += " " * spaces
            spaces = 0
            if char == "\\":
                escaped = self.next()
                if escaped not in _ESCAPES:
                    raise ConfigSyntaxError(f"the escape \\{escaped}")
                value += _ESCAPES[escaped]
            elif char == '"':
                quoted = not quoted
            else:
                value += char


def runs_program(entry: Entry) -> bool:
    """Whether a setting makes a read-only git command (status, diff, log…) run a program.

    ``core.fsmonitor = true`` is git's own daemon; any other value is a command.
    ``pager.<cmd> = true`` uses ``core.pager`` (checked on its own). Pagers only start on a
    terminal, but ``git grep -O`` starts one anywhere, and a terminal is not ruled out.
    """
    section, subsection, key = entry.parts
    value = "true" if entry.value is None else entry.value.strip().lower()
    if entry.name == "core.fsmonitor" or section == "pager":
        return not _boolean(value)
    if not subsection and entry.name in _RUNS:
        return True
    return bool(subsection) and key in _DRIVERS.get(section, ())


def _boolean(value: str) -> bool:
    """git_parse_maybe_bool: true/false words or an integer."""
    if value in _FALSE or value in _TRUE:
        return True
    try:
        int(value, 0)
    except ValueError:
        return False
    return True


def includes(entry: Entry) -> bool:
    """``include.path`` and ``includeIf.<condition>.path`` (every condition counts)."""
    section, subsection, key = entry.parts
    return key == "path" and (section == "include" and not subsection
                              or section == "includeif" and bool(subsection))


def read_entries(path: Path) -> tuple[Entry, ...] | None:
    """The settings in the config file at ``path`` (cached while the file is unchanged);
    None when there is no such file.

    Raises:
        ConfigSyntaxError: The file cannot be read as git reads it.
    """
    try:
        stat = path.stat()
    except OSError:
        return None
    return _entries_at(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _entries_at(path: str, stamp: int, size: int) -> tuple[Entry, ...] | None:
    try:
        text = Path(path).read_bytes().decode("utf-8", errors="replace")
    except IsADirectoryError as error:
        raise ConfigSyntaxError(f"{path} is a folder") from error
    except OSError:
        return None
    return tuple(config_entries(text))
