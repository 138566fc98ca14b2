"""Context window management: the token ledger, thinning, the inspector's actions,
compaction and its loop guard, on real fragment files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.context.window import (
    CompactionGuard,
    CompactionLoop,
    ContextError,
    ContextManager,
    TokenLedger,
)
from agent_tui.core.providers.base import ToolCallRequest
from agent_tui.core.sessions.history import DEHYDRATED_PREFIX, SUMMARY_PREFIX, kind_of
from agent_tui.core.text_protocol import results_message

Message = dict[str, Any]


class CountingCounter:
    """A deterministic counter (a quarter token per JSON character) that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, messages: list[Message]) -> int:
        self.calls += 1
        return sum(len(json.dumps(m)) // 4 for m in messages)


def system() -> Message:
    return {"role": "system", "content": "You are a coding agent."}


def prompt(text: str) -> Message:
    return {"role": "user", "content": text}


def exchange(n: int, size: int = 5000, *, name: str = "read_file",
             args: dict[str, Any] | None = None) -> list[Message]:
    """An assistant tool call and its result of about ``size // 4`` tokens."""
    call_id = f"call_{n}"
    arguments = json.dumps(args if args is not None else {"file_path": f"src/f{n}.py"})
    return [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": name, "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": call_id, "content": f"output {n}: " + "x" * size},
    ]


def grow_to(manager: ContextManager, messages: list[Message], percent: float) -> None:
    """Add ~1,250-token exchanges until the context holds ``percent`` of the window."""
    n = len(messages)
    while manager.ledger.count(messages) * 100 < percent * manager.window:
        messages.extend(exchange(n))
        n += 2


def assert_valid(messages: list[Message]) -> None:
    """Every tool call is answered and every tool result answers an earlier call."""
    open_calls: set[str] = set()
    for m in messages:
        if m["role"] == "assistant":
            assert not open_calls, f"unanswered calls {open_calls}"
            open_calls = {c["id"] for c in m.get("tool_calls") or []}
        elif m["role"] == "tool":
            assert m["tool_call_id"] in open_calls, f"orphan result {m['tool_call_id']}"
            open_calls.discard(m["tool_call_id"])
    assert not open_calls


@pytest.fixture
def counter() -> CountingCounter:
    return CountingCounter()


@pytest.fixture
def manager(tmp_path: Path, counter: CountingCounter) -> ContextManager:
    return ContextManager(20_000, counter, tmp_path / "session" / "fragments")


# -- the ledger ------------------------------------------------------------------------


def test_ledger_counts_each_message_once(counter):
    ledger = TokenLedger(counter)
    messages = [system()] + [prompt(f"message {i} " + "y" * 40) for i in range(999)]
    total = ledger.count(messages)
    assert counter.calls == 1 + 1000  # the empty-list calibration, then each message
    assert total == counter(messages) - 0
    counter.calls = 0

    messages.append(prompt("one more"))
    assert ledger.count(messages) == total + len(json.dumps(messages[-1])) // 4
    assert counter.calls == 1

    messages[10]["content"] = "edited in place"
    messages[20] = prompt("a new dict")
    ledger.count(messages)
    assert counter.calls == 3


def test_ledger_adds_overhead_and_tool_schemas(counter):
    ledger = TokenLedger(counter, overhead=3)
    messages = [system(), prompt("hi")]
    schemas = [{"type": "function", "function": {"name": "read_file", "parameters": {}}}]
    assert ledger.count(messages) == counter(messages) + 6
    tokens = ledger.schema_tokens(schemas)
    assert tokens > 0
    calls = counter.calls
    assert ledger.schema_tokens(schemas) == tokens and counter.calls == calls


def test_ledger_matches_litellm_on_the_whole_transcript():
    from agent_tui.core.config import Settings
    from agent_tui.core.providers.litellm import LitellmProvider, load_litellm

    # Before litellm is imported, a provider without a key counts by characters (its call
    # would fail anyway); this test is about litellm's own counter.
    load_litellm()
    provider = LitellmProvider(Settings(model="openai/gpt-4o"))
    messages = [system(), prompt("Read src/app.py and fix the failing test."),
                {"role": "assistant", "content": "I will look at the file first."},
                prompt("Thanks; also keep the public API as it is.")]
    ledger = TokenLedger(provider.count_tokens)
    assert ledger.count(messages) == provider.count_tokens(messages)


# -- thinning --------------------------------------------------------------------------


@pytest.mark.parametrize("level", [50, 60, 70, 80])
def test_thinning_at_each_threshold(manager, level):
    messages = [system(), prompt("do the task")]
    grow_to(manager, messages, level + 2)
    originals = {i: m["content"] for i, m in enumerate(messages) if m["role"] == "tool"}

    report = manager.after_turn(messages)

    assert report.level == level
    assert report.tokens_before * 100 >= level * manager.window
    assert report.tokens * 100 < (level - manager.margin) * manager.window
    assert report.thinned and not report.needs_compaction
    stubbed = [i for i in originals if messages[i]["content"].startswith(DEHYDRATED_PREFIX)]
    assert stubbed == sorted(originals)[: len(stubbed)]  # oldest first
    last = max(originals)
    assert messages[last]["content"] == originals[last]  # the newest results stay
    for fragment_id, index in zip(report.thinned, stubbed, strict=True):
        saved = json.loads((manager.fragments.directory / f"{fragment_id}.json").read_text())
        assert saved["content"] == originals[index]
        assert saved["tool_call_id"] == messages[index]["tool_call_id"]
        assert saved["tool_name"] == "read_file"
        assert messages[index]["content"] == (
            f"[DEHYDRATED CONTEXT: fragment {fragment_id}, {saved['tokens']} tokens of "
            f'read_file output; call rehydrate with fragment_id="{fragment_id}" to bring it '
            "back]")
    assert_valid(messages)


def test_below_the_first_threshold_nothing_changes(manager, counter):
    messages = [system(), prompt("do the task")]
    grow_to(manager, messages, 40)
    before = [dict(m) for m in messages]
    report = manager.after_turn(messages)
    assert report.level == 0 and report.thinned == [] and messages == before
    assert not manager.fragments.directory.exists()


def test_pinned_and_small_results_are_not_thinned(manager):
    messages = [system(), prompt("do the task"), *exchange(2, size=400)]
    grow_to(manager, messages, 62)
    manager.pin(messages, 5)  # the oldest big result
    report = manager.after_turn(messages)
    assert report.thinned
    assert messages[3]["content"].startswith("output 2")  # small
    assert messages[5]["content"].startswith("output 4")  # pinned
    assert messages[7]["content"].startswith(DEHYDRATED_PREFIX)


def test_when_only_the_newest_results_are_big_compaction_is_needed(manager):
    messages = [system(), prompt("do the task"), *exchange(2, size=80_000)]
    report = manager.after_turn(messages)
    assert report.level == 80 and report.thinned == [] and report.needs_compaction
    assert not messages[3]["content"].startswith(DEHYDRATED_PREFIX)


def test_text_protocol_results_are_thinned_whole(manager):
    messages = [system(), prompt("do the task")]
    for n in range(12):
        call = ToolCallRequest(f"t{n}_0", "shell", json.dumps({"command": "make"}))
        messages.append({"role": "assistant",
                         "content": '{"tool": "shell", "args": {"command": "make"}}'})
        messages.append(results_message([(call, "z" * 5000, True)]))
    report = manager.after_turn(messages)
    assert report.thinned
    first = messages[3]
    assert first["role"] == "user" and first["content"].startswith("Tool results:")
    assert DEHYDRATED_PREFIX in first["content"] and kind_of(messages, 3) == "tool_result"
    saved = json.loads(manager.fragments.path(report.thinned[0]).read_text())
    assert saved["tool_name"] == "shell" and saved["tool_call_id"] == "t0_0"
    assert "z" * 5000 in saved["content"]
    assert "z" * 5000 in messages[-1]["content"]


# -- the inspector ---------------------------------------------------------------------


def test_items_list_every_item_with_its_tokens(manager):
    messages = [system(), prompt("do the task"), *exchange(2)]
    manager.pin(messages, 1)
    manager.dehydrate(messages, 3)
    schemas = [{"type": "function", "function": {"name": "read_file", "parameters": {}}}]
    items = manager.items(messages, schemas)
    assert [i.kind for i in items] == ["system", "tools", "user", "assistant", "tool_result"]
    assert [i.index for i in items] == [0, -1, 1, 2, 3]
    assert items[2].pinned and items[4].dehydrated and not items[4].pinned
    assert "read_file" in items[1].preview and "read_file" in items[3].preview
    assert sum(i.tokens for i in items) == manager.ledger.count(messages) + items[1].tokens


def test_drop_keeps_calls_and_results_paired(manager):
    messages = [system(), prompt("do the task"), *exchange(2), *exchange(4), prompt("next")]
    freed = manager.drop(messages, 2)  # a call: its result goes too
    assert freed > 1000
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "user"]
    assert_valid(messages)

    manager.drop(messages, 3)  # a result alone: its call still gets an answer
    assert messages[3]["role"] == "tool" and "removed" in messages[3]["content"]
    assert_valid(messages)

    manager.drop(messages, 4)
    assert messages[-1]["role"] == "tool"
    with pytest.raises(ContextError, match="system prompt"):
        manager.drop(messages, 0)
    with pytest.raises(ContextError, match="no item 9"):
        manager.drop(messages, 9)


def test_dehydrate_refuses_what_it_cannot_take(manager):
    messages = [system(), prompt("do the task"), *exchange(2)]
    with pytest.raises(ContextError, match="only tool results"):
        manager.dehydrate(messages, 1)
    manager.pin(messages, 3)
    with pytest.raises(ContextError, match="unpin"):
        manager.dehydrate(messages, 3)
    manager.unpin(messages, 3)
    manager.dehydrate(messages, 3)
    with pytest.raises(ContextError, match="already"):
        manager.dehydrate(messages, 3)


# -- compaction ------------------------------------------------------------------------


def history_with_work() -> list[Message]:
    return [
        system(),
        prompt("Add a --verbose flag to the CLI."),
        *exchange(2, 100, args={"file_path": "README.md"}),
        *exchange(4, 100, name="write_file", args={"file_path": "src/cli.py", "content": "x"}),
        *exchange(6, 100, name="todo_write",
                  args={"content": "- [x] add the flag\n- [ ] write tests for --verbose\n"}),
        {"role": "assistant", "content": "The flag is in; tests are next."},
        prompt("Also document it."),
        *exchange(10, 100, name="read_many_files", args={"paths": ["docs/cli.md"]}),
        {"role": "assistant", "content": "Documented."},
        prompt("Now run the tests."),
        *exchange(14, 100, name="shell", args={"command": "pytest"}),
    ]


def test_compaction_request_names_files_todos_and_the_kept_turns(manager):
    messages = history_with_work()
    request = manager.build_compaction_request(messages, keep_recent_turns=2)
    assert [m["role"] for m in request] == ["system", "user"]
    text = request[1]["content"]
    assert "changed: src/cli.py" in text
    assert "README.md" in text and "docs/cli.md" in text
    assert "- [ ] write tests for --verbose" in text and "add the flag" in text
    assert "latest 2 request(s) and all that followed" in text and "verbatim" in text
    assert "Add a --verbose flag" in text  # the task is in the part summarized
    assert "Now run the tests." not in text  # the kept turns are not


def test_compaction_request_takes_the_todo_list_it_is_given(manager):
    request = manager.build_compaction_request(history_with_work(), todos="- [ ] ship it\n")
    assert "- [ ] ship it" in request[1]["content"]
    assert "write tests for --verbose" not in request[1]["content"].split("## Open todos")[1]


def test_apply_compaction_keeps_system_pins_summary_and_recent_turns(manager):
    messages = history_with_work()
    manager.pin(messages, 5)  # the write_file result: its call must come along
    compacted = manager.apply_compaction(messages, "  The CLI has --verbose.  ", 2)

    assert compacted[0] is messages[0]
    assert compacted[1] is messages[4] and compacted[2] is messages[5]
    assert compacted[3] == {"role": "user",
                            "content": f"{SUMMARY_PREFIX}\n\nThe CLI has --verbose."}
    recent = messages[messages.index(prompt("Also document it.")):]
    assert compacted[4:] == recent and all(a is b for a, b in zip(compacted[4:], recent,
                                                                  strict=True))
    assert_valid(compacted)
    assert manager.pinned_indices(compacted) == [2]


def test_one_huge_turn_keeps_its_prompt_and_newest_steps(manager):
    messages = [system(), prompt("Refactor everything.")]
    for n in range(2, 40, 2):
        messages.extend(exchange(n, 2000))
    compacted = manager.apply_compaction(messages, "Refactored half.", 2)
    assert compacted[1]["content"].startswith(SUMMARY_PREFIX)
    assert compacted[2] is messages[1]
    assert compacted[-2:] == messages[-2:]
    assert manager.ledger.count(compacted) <= manager.window * manager.recent_percent / 100 + 200
    assert_valid(compacted)


def test_a_previous_summary_is_summarized_again_not_kept(manager):
    messages = manager.apply_compaction(history_with_work(), "First summary.", 2)
    messages += [{"role": "assistant", "content": "Tests pass."}, prompt("Release it.")]
    request = manager.build_compaction_request(messages, keep_recent_turns=1)
    assert "First summary." in request[1]["content"]


def test_nothing_to_summarize_says_what_to_do(manager):
    messages = [system(), prompt("x" * 90_000)]
    with pytest.raises(CompactionLoop, match="new session"):
        manager.build_compaction_request(messages)


def test_guard_stops_repeated_compactions():
    guard = CompactionGuard(max_compactions=3, within_turns=5)
    for turn in (1, 2, 3):
        guard.check(turn)
        guard.record(turn)
    with pytest.raises(CompactionLoop, match="compacted 3 times in the last 5 turns"):
        guard.check(4)
    guard.check(9)  # the old ones have aged out


def test_manager_stops_compacting_when_it_cannot_get_under_the_window(tmp_path, counter):
    manager = ContextManager(8_000, counter, tmp_path / "fragments")
    messages = [system(), prompt("do the task")]
    with pytest.raises(CompactionLoop) as caught:
        for n in range(2, 40, 2):
            # Each turn brings more than compaction can take away: a pinned giant result.
            messages.extend(exchange(n, 30_000))
            manager.pin(messages, len(messages) - 1)
            report = manager.after_turn(messages)
            if report.needs_compaction:
                manager.build_compaction_request(messages)
                messages = manager.apply_compaction(messages, "summary")
    message = str(caught.value)
    assert "--context-window" in message and "/context" in message
    assert "8,000" in message
