"""Reading the model's answers in planning mode."""

from __future__ import annotations

from agent_tui.core.modes.planning import (
    SUBJECT_LIMIT,
    commit_message,
    commit_prompt,
    refined_requirements,
    refiner_persona,
)


def test_a_refinement_in_a_code_fence_is_unwrapped():
    assert refined_requirements("```markdown\n# T\n\n1. x\n```\n") == "# T\n\n1. x\n"
    assert refined_requirements("# T\n\n1. x") == "# T\n\n1. x\n"


def test_a_commit_message_has_a_short_subject_a_blank_line_and_a_body():
    assert commit_message("Add answer()\n\nIt returns 2.", "") == "Add answer()\n\nIt returns 2.\n"
    assert commit_message("```\nAdd answer()\n```", "") == "Add answer()\n"
    long = "Add " + "word " * 30
    message = commit_message(long, "")
    subject, blank, body = message.split("\n", 2)
    assert len(subject) <= SUBJECT_LIMIT and not subject.endswith(" ") and blank == ""
    assert body.startswith("…word")


def test_without_an_answer_the_subject_comes_from_the_requirements():
    assert commit_message("", "# Answer returns 2\n\n1. x") == (
        "Implement the plan: Answer returns 2\n")
    assert commit_message("  \n", "") == "Implement the planned requirements\n"


def test_the_prompts_carry_what_the_model_needs():
    prompt = commit_prompt("1. x", ["a.py", "b.py"], " a.py | 2 +-\n")
    assert "1. x" in prompt and "a.py\nb.py" in prompt and "a.py | 2 +-" in prompt
    planner = refiner_persona()
    assert planner.offers("read_file") and not planner.offers("write_file")
    assert not planner.offers("shell")
