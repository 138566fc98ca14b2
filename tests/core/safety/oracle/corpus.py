"""The corpus file read into cases: each group's class, source and verdict given to its cases."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).with_name("corpus.toml")
VERDICTS = frozenset({"allow", "ask", "deny"})


@dataclass(frozen=True, slots=True)
class Case:
    """One command and the verdict agent-tui must give it in default mode with no rules.

    Attributes:
        command: The bash command line.
        expect: ``allow``, ``ask`` or ``deny``.
        klass: The kind of command (``read-only``, ``c05-text-evaluated-as-code``…).
        source: Where the command comes from.
        note: What bash really does with it, when that is the point.
    """

    command: str
    expect: str
    klass: str
    source: str
    note: str = ""

    @property
    def label(self) -> str:
        """A short id for test names: the class and the command on one line."""
        return f"{self.klass}: {' '.join(self.command.split())[:70]}"


def load_corpus(path: Path = CORPUS) -> list[Case]:
    """Every case of the corpus at ``path``, in file order.

    Raises:
        ValueError: A case lacks a command or has a verdict other than allow, ask or deny.
    """
    data = tomllib.loads(path.read_text())
    cases: list[Case] = []
    for group in data["group"]:
        for entry in group["cases"]:
            fields = {"command": entry} if isinstance(entry, str) else dict(entry)
            case = Case(command=fields["command"],
                        expect=fields.get("expect", group.get("expect", "")),
                        klass=group["class"],
                        source=fields.get("source", group["source"]),
                        note=fields.get("note", ""))
            if not case.command.strip() or case.expect not in VERDICTS:
                raise ValueError(f"{path.name}: case {case.command!r} of {case.klass} needs a "
                                 f"command and expect = allow, ask or deny")
            cases.append(case)
    return cases
