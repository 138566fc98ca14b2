"""The ``[keys]`` table of ``config.toml``: the workbench's keys moved by action name.

```toml
[keys]
toggle_side = "ctrl+b"
review_changes = "f10"
newline = "ctrl+j,alt+enter"
```

Each action is a binding's ``id`` (:mod:`.bindings`); the keys are Textual's names, several
separated by commas. :func:`key_map` checks the table against the bindings and the keys the
workbench does not let move (the prompt's editing keys, Enter, Textual's own): an unknown
action, a key that cannot be read, two actions on one key, or a key another action or a
built-in keeps, are each reported once (with what to do) and that entry is left out; the
others become the app's keymap (``App.set_keymap``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from textual.app import App
from textual.binding import Binding
from textual.keys import KEY_TO_UNICODE_NAME, REPLACED_KEYS, Keys, _character_to_key
from textual.widgets import TextArea

from ...core import paths
from ...core.config import is_trusted, read_key_table
from ..widgets.key_footer import key_label
from .bindings import APP_BINDINGS, PROMPT_BINDINGS

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
"""What may precede a key's name (``ctrl+shift+k``)."""

_NAMES = frozenset(
    {key.value for key in Keys if "+" not in key.value}
    | set(KEY_TO_UNICODE_NAME)
    | set(REPLACED_KEYS)
    | {"space", "enter", "tab", "backspace", "escape", "delete", "insert"}
    | {f"f{n}" for n in range(1, 25)}
)

MOVABLE: tuple[Binding, ...] = (*APP_BINDINGS, *PROMPT_BINDINGS)
"""The bindings a ``[keys]`` table may move, each by its ``id``."""


def _built_ins() -> dict[str, str]:
    """Keys the workbench does not let move, to what they do (the prompt's editing keys
    that no workbench binding takes over, Enter, Tab, and Textual's own)."""
    ours = {key for binding in MOVABLE for key in _keys(binding.key)}
    found: dict[str, str] = {
        "enter": "sends the prompt",
        "tab": "moves the focus",
        App.COMMAND_PALETTE_BINDING: "opens the command palette",
        "ctrl+q": "quits",
    }
    for binding in TextArea.BINDINGS:
        if isinstance(binding, Binding):
            what = binding.description or binding.action.replace("_", " ")
            for key in _keys(binding.key):
                found.setdefault(key, f"is the prompt's {what.lower()}")
    return {key: what for key, what in found.items() if key not in ours}


def _labels(keys: list[str]) -> str:
    """Keys as the workbench shows them: ``F7``, ``Ctrl+K``."""
    return ", ".join(key_label(key) for key in keys)


def _keys(keys: str) -> list[str]:
    return [key.strip() for key in keys.split(",") if key.strip()]


def normal_key(key: str) -> str | None:
    """``key`` as Textual names it (``?`` as ``question_mark``), or None when it is not a
    key Textual can name (an unknown name, a modifier alone, an empty part)."""
    *modifiers, name = key.strip().split("+")
    if not name or any(m.lower() not in MODIFIERS for m in modifiers):
        return None
    if len(name) == 1:
        name = _character_to_key(name)
    elif name.lower() in _NAMES:
        name = name.lower()
    else:
        return None
    return "+".join([*(m.lower() for m in modifiers), name])


def _is_typed(key: str) -> bool:
    """Whether ``key`` types a character (no ctrl, alt, super or meta): it belongs to the
    prompt."""
    *modifiers, name = key.split("+")
    if any(m in ("ctrl", "alt", "super", "meta", "hyper") for m in modifiers):
        return False
    return (
        name not in _NAMES
        or name in KEY_TO_UNICODE_NAME
        or name in REPLACED_KEYS
        or (name == "space")
    )


@dataclass
class KeyMap:
    """The checked ``[keys]`` table.

    Attributes:
        keymap: Binding ids to their new keys (comma-separated), for ``App.set_keymap``.
        problems: One sentence per entry left out: what is wrong and what to do.
    """

    keymap: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def bindings(self, bindings: Iterable[Binding]) -> list[Binding]:
        """``bindings`` with the keys this map gives them."""
        return [
            binding.with_key(self.keymap[binding.id]) if binding.id in self.keymap else binding
            for binding in bindings
        ]


def workbench_keys(workdir: Path) -> KeyMap:
    """The ``[keys]`` tables of the user's and ``workdir``'s config, checked; an untrusted
    project's table is left out (it could move a key the person relies on), and said so."""
    table = read_key_table(workdir)
    project_file = paths.project_config_file(workdir)
    ignored = sorted(a for a, (_keys, path) in table.items() if path == project_file)
    if ignored and not is_trusted(workdir):
        table = {a: entry for a, entry in table.items() if entry[1] != project_file}
        result = key_map(table)
        result.problems.append(
            f"[keys] in {project_file} ignored: this folder is not trusted; move the entries "
            f"to your user config, or add the folder to trusted_projects in "
            f"{paths.user_config_file()}."
        )
        return result
    return key_map(table)


def key_map(
    table: Mapping[str, tuple[object, Path]], movable: Sequence[Binding] = MOVABLE
) -> KeyMap:
    """Check a ``[keys]`` table (each action to its keys as written and the file saying so,
    as :func:`~agent_tui.core.config.read_key_table` reads it)."""
    defaults = {binding.id: _keys(binding.key) for binding in movable if binding.id}
    built_ins = _built_ins()
    result = KeyMap()
    wanted: dict[str, list[str]] = {}
    for action, (value, path) in table.items():
        if action not in defaults:
            result.problems.append(
                f"[keys] {action} in {path}: there is no such action; the actions are "
                f"{', '.join(sorted(defaults))}."
            )
            continue
        keys = _keys(value) if isinstance(value, str) else []
        normal = [normal_key(key) for key in keys]
        if not keys or None in normal:
            bad = next((k for k, n in zip(keys, normal, strict=True) if n is None), value)
            result.problems.append(
                f"[keys] {action} = {value!r} in {path}: {bad!r} is not a key; write keys "
                f'as Textual names them, e.g. "ctrl+b", "f10", "alt+enter" (several: '
                f"comma-separated). {action} keeps {_labels(defaults[action])}."
            )
            continue
        typed = next((k for k in normal if k is not None and _is_typed(k)), None)
        if typed is not None:
            result.problems.append(
                f"[keys] {action} = {value!r} in {path}: {_labels([typed])} is typed into the "
                f"prompt; "
                f"pick a key with ctrl or alt, or an F key. {action} keeps "
                f"{_labels(defaults[action])}."
            )
            continue
        wanted[action] = [key for key in normal if key is not None]
    # The keys of the actions not moved, then each moved action's in the table's order.
    taken = {
        key: action for action, keys in defaults.items() if action not in wanted for key in keys
    }
    for action, keys in wanted.items():
        path = table[action][1]
        clash = next(((key, taken[key]) for key in keys if key in taken), None)
        built_in = next(((key, built_ins[key]) for key in keys if key in built_ins), None)
        if clash is not None:
            key, other = clash
            moved = other in wanted
            result.problems.append(
                f"[keys] {action} = {', '.join(keys)!r} in {path}: {_labels([key])} is "
                f"{other}'s key{' in [keys] too' if moved else ''}; give one of them "
                f"another key{'' if moved else f' (or move {other} too)'}. {action} keeps "
                f"{_labels(defaults[action])}."
            )
        elif built_in is not None:
            key, what = built_in
            result.problems.append(
                f"[keys] {action} = {', '.join(keys)!r} in {path}: {_labels([key])} {what}; "
                f"pick another key. {action} keeps {_labels(defaults[action])}."
            )
        else:
            result.keymap[action] = ",".join(keys)
            taken.update(dict.fromkeys(keys, action))
            continue
        for key in defaults[action]:  # left out: the action keeps its own keys
            taken.setdefault(key, action)
    return result
