"""A count with its noun in the right number."""

from agent_tui.core.text.counts import counted


def test_one_is_singular_and_the_rest_plural() -> None:
    assert counted(1, "memory") == "1 memory"
    assert counted(2, "memory") == "2 memories"
    assert counted(0, "turn") == "0 turns"
    assert counted(1, "turn") == "1 turn"
    assert counted(3, "match") == "3 matches"
    assert counted(2, "day") == "2 days"
    assert counted(1_024, "file") == "1,024 files"
    assert counted(2, "child", "children") == "2 children"
