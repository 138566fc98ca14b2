"""A rule's path pattern is a glob in the same language glob_files and read_many_files read:
on a real project, a ``read_file(PATTERN)`` deny rule covers exactly the files glob_files
lists for PATTERN (with rg and without), read_many_files reads exactly those, and every way
of reading one of them is refused."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.safety.permission_rules import Rule, RuleSet, parse_rules
from agent_tui.core.safety.permissions import Verdict, decide
from agent_tui.core.safety.workspace import Workspace
from agent_tui.core.text.glob_patterns import escape, has_magic
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.read_many import ReadManyFilesTool
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.search import GlobFilesTool

needs_rg = pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep (rg) is not installed")
BACKENDS = [pytest.param("rg", marks=needs_rg), "python"]

TREE = [
    ".env", ".github/ci.yml", "config/prod.env", "config/prod.env.bak", "certs/site.pem",
    "certs/site.pem.txt", "env.txt", "secrets/a.txt", "secrets/b.txt", "secrets/c.txt",
    "secrets/[ab].txt", "secrets/a/key.txt", "src/app.py", "src/.hidden.py", "src/pkg/mod.py",
    "src/pkg/test_mod.py", "tests/test_app.py", "tests/unit/test_x.py", "test_top.py",
    "setup.py", "a/b", "a/x/y/b", "a/xb", "a/b.txt", "names/x[1].txt", "names/x1.txt",
    "names/{a}.txt", "names/odd,name.py", "docs/readme.md",
]

PATTERNS = [
    "**/*.{env,pem}", "secrets/[ab].txt", "src/**", "*.py", "**/test_*.py", "a/**/b",
    "secrets/[!a].txt", "names/x\\[1\\].txt", "names/x[0-9].txt", "{secrets,names}/*",
    "**/.*", "{src,tests}/**/test_*.py", "names/\\{a\\}.txt", "**/*,*", "secrets/{a,b}/**",
]


@pytest.fixture(params=["git", "plain"])
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The project tree, in a git repository (files untracked) or a plain folder."""
    root = tmp_path / "proj"
    for name in TREE:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"contents of {name}\n")
    if request.param == "git":
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.fixture
def ctx(project: Path, tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=project, output_dir=tmp_path / "out")


def covered(pattern: str, project: Path) -> list[str]:
    rule = Rule.parse(f"read_file({pattern})")
    workspace = Workspace(project)
    return sorted(name for name in TREE if rule.matches_path(workspace.root / name, workspace))


async def listed(pattern: str, ctx: ToolContext, backend: str) -> list[str]:
    result = await GlobFilesTool(backend).build({"pattern": pattern}, ctx).execute()
    assert result.ok, result.error
    return [] if result.llm_content.startswith("No files match") else (
        result.llm_content.splitlines()[1:])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("pattern", PATTERNS)
async def test_a_deny_rule_covers_exactly_what_glob_files_lists(
        pattern: str, backend: str, project: Path, ctx: ToolContext) -> None:
    expected = covered(pattern, project)

    assert expected, "every pattern here covers some file"
    assert await listed(pattern, ctx, backend) == expected


@pytest.mark.parametrize("pattern", PATTERNS)
async def test_read_many_files_reads_exactly_the_covered_files(
        pattern: str, project: Path, ctx: ToolContext) -> None:
    result = await ReadManyFilesTool().build({"paths": [pattern]}, ctx).execute()

    assert result.ok, result.error
    read = [line[4:-4] for line in result.llm_content.splitlines() if line.startswith("--- ")]
    assert sorted(read) == covered(pattern, project)


@pytest.fixture
def build(project: Path, tmp_path: Path):
    registry = ToolRegistry(builtin_tools())
    ctx = ToolContext(workdir=project, output_dir=tmp_path / "out")

    def _build(tool: str, **args: object):
        return registry.build(tool, args, ctx)

    return _build


def deny(*patterns: str) -> RuleSet:
    return RuleSet(deny=parse_rules(f"read_file({pattern})" for pattern in patterns))


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_read_of_a_covered_file_is_denied(pattern: str, project: Path, build) -> None:
    rules = deny(pattern)
    for name in covered(pattern, project):
        calls = {
            "read_file": build("read_file", file_path=name),
            "read_many_files": build("read_many_files", paths=[escape(name)]),
        }
        if not has_magic(name):  # see test_cat_of_a_quoted_name_like_a_glob_is_denied
            calls["cat"] = build("shell", command=f"cat {shlex.quote(name)}")
        for how, call in calls.items():
            decision = decide(call, "default", project, rules)
            assert decision.verdict == Verdict.DENY, (how, name, decision.reason)
            assert f"read_file({pattern})" in decision.reason


@pytest.mark.parametrize("pattern", PATTERNS)
def test_files_the_rule_does_not_cover_are_read(pattern: str, project: Path, build) -> None:
    rules = deny(pattern)
    for name in sorted(set(TREE) - set(covered(pattern, project))):
        decision = decide(build("read_file", file_path=name), "default", project, rules)
        assert decision.verdict == Verdict.ALLOW, (name, decision.reason)


def test_cat_of_a_quoted_name_like_a_glob_is_denied(project: Path, build) -> None:
    decision = decide(build("shell", command="cat 'names/x[1].txt'"), "default", project,
                      deny("names/x\\[1\\].txt"))

    assert decision.verdict == Verdict.DENY, decision.reason


def test_read_many_files_with_a_brace_glob_over_a_denied_file_does_not_run(
        project: Path, build) -> None:
    decision = decide(build("read_many_files", paths=["secrets/{a,c}.txt"]), "default", project,
                      deny("secrets/a.txt"))

    assert decision.verdict != Verdict.ALLOW, decision.reason


@pytest.mark.parametrize(("pattern", "folder", "asks"), [
    ("secrets/{a,b}/**", "secrets/a", True), ("secrets/{a,b}/**", "secrets", True),
    ("secrets/{a,b}/**", "src", False), ("secrets/[ab].txt", "secrets", True),
    ("secrets/[ab].txt", "names", False), ("{src,tests}/**/test_*.py", "tests/unit", True),
    ("{src,tests}/**/test_*.py", "docs", False), ("**/*.{env,pem}", "docs", True),
    ("{config/*,certs/site.pem}", "certs", True), ("{config/*,certs/site.pem}", "a", False),
])
def test_a_search_of_a_folder_the_rule_may_cover_does_not_run(
        pattern: str, folder: str, asks: bool, project: Path, build) -> None:
    rules = deny(pattern)
    for call in (build("grep", pattern="contents", path=folder),
                 build("shell", command=f"grep -r contents {folder}")):
        decision = decide(call, "default", project, rules)
        # It asks, or is denied outright when the rule covers the folder itself.
        assert (decision.verdict != Verdict.ALLOW) is asks, decision.reason
        if asks:
            assert f"read_file({pattern})" in decision.reason


def test_a_star_in_a_tool_name_covers_every_tool_it_matches() -> None:
    from agent_tui.core.safety.permission_rules import RuleSet, parse_rules

    rules = RuleSet(allow=parse_rules(["mcp__github__*"]), deny=parse_rules(["mcp__*__delete*"]))

    assert rules.call("allow", "mcp__github__create_issue", None) is not None
    assert rules.call("allow", "mcp__gitlab__create_issue", None) is None
    assert rules.call("deny", "mcp__github__delete_repo", None) is not None
    assert rules.call("allow", "web_search", "x") is None
