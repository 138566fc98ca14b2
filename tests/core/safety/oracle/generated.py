"""Generated commands: read-only programs with their options, quoting, expansions, pipes and
redirections, with dangerous words spliced in here and there.

Whatever the judge lets run from these must change nothing; the generator does not know which
ones it will allow, and does not need to.
"""

from __future__ import annotations

import shlex

from hypothesis import strategies as st

_FILES = ("README.md", "notes.txt", "numbers.txt", "src/app.py", "src/util.py", "dates.txt",
          "src/*.py", "src/{app,util}.py", "*.txt", "tests/test_app.py", "src/data.json")

_PROGRAMS: dict[str, tuple[str, ...]] = {
    "ls": ("-l", "-a", "-R", "-1", "--all", "--almost-all", "--classify", "--color=never",
           "--sort=size", "--recursive"),
    "cat": ("-n", "-A", "-s", "--number", "--show-all", "--squeeze-blank"),
    "head": ("-n2", "-n 1", "-c 5", "--lines=2", "--bytes=4", "--quiet"),
    "tail": ("-n1", "-n 2", "-c 5", "--lines=1", "--bytes=3"),
    "wc": ("-l", "-w", "-c", "--lines", "--words", "--bytes"),
    "grep": ("-n", "-i", "-c", "-E", "--count", "-e a", "--regexp=line", "-v", "-H"),
    "sort": ("-n", "-r", "-u", "-k2", "--reverse", "--numeric-sort", "--unique", "-t=",
             "--field-separator=:", "--key=1"),
    "uniq": ("-c", "-d", "-u", "--count", "--repeated"),
    "cut": ("-c1-3", "-d= -f1", "--characters=1-2", "--fields=1 -d' '"),
    "sed": ("-n 1p", "s/a/b/", "-E s/(a)/\\1/", "-n /a/p", "--quiet 2p", "--expression=1d",
            "-e 1q"),
    "nl": ("-ba", "--body-numbering=a"),
    "od": ("-c", "-An -tx1"),
    "stat": ("-c %s", "--format=%n", "-L"),
    "file": ("-b", "--mime-type", "-L"),
    "md5sum": ("-b", "--tag"),
    "du": ("-s", "-h", "--summarize", "--apparent-size"),
    "find": ("-name '*.py'", "-type f", "-maxdepth 1", "-newer README.md", "-print"),
    "rg": ("-n", "--files", "-i", "--count", "-l", "--no-ignore"),
    "tr": ("a-z A-Z", "-d a", "--delete a", "-s ' '"),
    "echo": ("-n", "-e", "-E"),
    "printf": ("'%s\\n'", "'%d\\n' 3", "-v x %s"),
    "date": ("+%s", "-u", "--utc", "-d @0", "--date=@1", "-I", "-R"),
}
_GIT = ("status --short", "status", "log --oneline -1", "log -1 --format=%H", "diff --stat",
        "diff HEAD~1", "show --stat HEAD", "branch -a", "branch --list", "grep -n add",
        "ls-files", "rev-parse HEAD", "tag -l", "blame README.md", "log -p -1 --", "describe",
        "config --get core.checkStat", "remote -v", "stash list", "cat-file -p HEAD")

_DANGER = (
    "rm -f notes.txt", "tee out.txt", "touch PWNED", "> out.txt", ">> notes.txt", "-o out.txt",
    "--output=out.txt", "--out=out.txt", "sed -i s/a/b/ notes.txt", "git config core.pager cat",
    "$(touch PWNED)", "`touch PWNED`", "mkdir made", "cp README.md copy.md",
    "sort -o sorted.txt notes.txt", "git branch made", "find . -delete", "xargs rm -f",
    "--in-place", "-i", "git config --unset core.checkStat", "git tag made",
    "'$(touch PWNED)'", "\"$(touch PWNED)\"", "${x@P}",
)

_EXPANSIONS = ("$HOME", "~", "${HOME}", "$((1+1))", "${#HOME}", "{1,2}", "src/*", "${x@P}",
               "$PWD", "\"$(echo README.md)\"", "${x:-notes.txt}", "$'a\\tb'", "*.md")


def _prefix(option: str) -> st.SearchStrategy[str]:
    """The option, or one of its abbreviations when it is a long option."""
    if not option.startswith("--") or len(option) < 5:
        return st.just(option)
    name, eq, value = option[2:].partition("=")
    return st.integers(1, len(name)).map(lambda n: f"--{name[:n]}{eq}{value}")


def _quoted(word: str) -> st.SearchStrategy[str]:
    """``word`` as written, or quoted in one of bash's ways."""
    plain = st.just(word)
    if not word or any(c in word for c in " '\"$`\\*{}?"):
        return plain
    return st.sampled_from([
        word, f"'{word}'", f'"{word}"', f"\\{word}", f"{word[0]}''{word[1:]}",
        f"$'{word}'", f'{word[:1]}"{word[1:]}"',
    ])


@st.composite
def simple_command(draw: st.DrawFn) -> str:
    """One read-only program with options and operands, perhaps with a dangerous word."""
    if draw(st.integers(0, 5)) == 0:
        words = ["git", *draw(st.sampled_from(_GIT)).split()]
    else:
        program = draw(st.sampled_from(sorted(_PROGRAMS)))
        options = draw(st.lists(st.sampled_from(_PROGRAMS[program]), max_size=3, unique=True))
        words = [program]
        for option in options:
            words += [draw(_prefix(part)) for part in shlex.split(option)]
        words += draw(st.lists(st.sampled_from(_FILES), max_size=2))
    words = [draw(_quoted(w)) if i == 0 else w for i, w in enumerate(words)]
    if draw(st.booleans()):
        words.insert(draw(st.integers(1, len(words))), draw(st.sampled_from(_EXPANSIONS)))
    if draw(st.integers(0, 3)) == 0:
        words.insert(draw(st.integers(1, len(words))), draw(st.sampled_from(_DANGER)))
    if draw(st.integers(0, 4)) == 0:
        words.append(draw(st.sampled_from(("2>/dev/null", "< notes.txt", "2>&1",
                                           "> out.txt", ">> notes.txt", ">/dev/null"))))
    return " ".join(words)


def _wrapped(inner: str) -> st.SearchStrategy[str]:
    """``inner`` as written or handed to a shell, eval, a subshell or a group."""
    quoted = shlex.quote(inner)
    return st.sampled_from([
        inner, f"bash -c {quoted}", f"sh -c {quoted}", f"eval {quoted}", f"( {inner} )",
        f"{{ {inner}; }}", f"echo $({inner})", f"bash -c \"true\n{inner}\"",
        f"eval \"true\n{inner}\"", f"x='$(touch PWNED)'; {inner}", f"timeout 5 {inner}",
        f"env {inner}", f"xargs {inner} < /dev/null",
    ])


@st.composite
def command_line(draw: st.DrawFn) -> str:
    """One to three simple commands joined by pipes, lists and newlines, some wrapped."""
    parts = [draw(simple_command().flatmap(_wrapped) if draw(st.booleans())
                  else simple_command()) for _ in range(draw(st.integers(1, 3)))]
    line = parts[0]
    for part in parts[1:]:
        line += draw(st.sampled_from((" | ", " && ", " || ", "; ", "\n"))) + part
    return line
