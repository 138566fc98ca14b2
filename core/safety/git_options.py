"""git's own option tables for the subcommands agent-tui counts as read-only.

Taken from git 2.39's ``git <sub> --help-all`` and its manual pages (``git-log(1)`` lists the
revision and diff options too). git reads most options with parse-options, which accepts any
unique prefix of a long option (``git grep --open`` is ``--open-files-in-pager``) and
``--no-`` in front of any of them; the revision and diff options of ``log`` and ``diff`` take
exact names only today, but a newer git may read them the same way, so every table is read
as parse-options would read it. A table is complete: an option it does not hold asks.
"""

from __future__ import annotations

from dataclasses import replace

from .shell_options import OptionTable


def _table(short: str = "", short_takes: str = "", short_optional: str = "", long: str = "",
           long_takes: str = "", long_optional: str = "") -> OptionTable:
    """A complete table; ``--no-`` is accepted in front of every long option, as
    parse-options accepts it, and a short option's optional value comes attached
    (``-M50%``, ``-Oless``)."""
    flags = frozenset(long.split())
    takes = frozenset(long_takes.split())
    optional = frozenset(long_optional.split())
    negated = frozenset(f"no-{name}" for name in flags | takes | optional
                        if not name.startswith("no-")) - takes - optional
    return OptionTable(short=short + "h", short_takes=short_takes, long=flags | negated,
                       long_takes=takes, long_optional=optional, complete=True,
                       short_optional=short_optional)


OPTIONS: dict[str, OptionTable] = {
    "status": _table(
        short="Mbsuvz", short_optional="u",
        long=("ahead-behind branch long no-ahead-behind no-column no-renames null renames "
              "short show-stash verbose"),
        long_optional=("column find-renames ignore-submodules ignored porcelain "
                       "untracked-files"),
    ),
    "log": _table(
        short="0123456789BCDEFMPRWXabcgimpqstuwz", short_takes="GILOSUln", short_optional="BCMX",
        long=("abbrev-commit all all-match alternate-refs author-date-order base basic-regexp "
              "binary bisect bisect-all bisect-vars boundary cc check cherry cherry-mark "
              "cherry-pick children clear-decorations combined-all-paths commit-header "
              "compact-summary count cumulative date-order dense do-walk "
              "exclude-first-parent-only exclude-promisor-objects exit-code ext-diff "
              "extended-regexp filter-print-omitted filter-provided-objects "
              "find-copies-harder first-parent fixed-strings follow full-diff full-history "
              "full-index function-context graph header histogram ignore-all-space "
              "ignore-blank-lines ignore-cr-at-eol ignore-missing ignore-space-at-eol "
              "ignore-space-change in-commit-order indent-heuristic indexed-objects "
              "invert-grep irreversible-delete ita-invisible-in-index left-only left-right "
              "log-size mailmap merge merges minimal name-only name-status no-abbrev-commit "
              "no-color no-color-moved no-color-moved-ws no-commit-header no-decorate "
              "no-diff-merges no-expand-tabs no-ext-diff no-filter no-indent-heuristic "
              "no-mailmap no-max-parents no-merges no-min-parents no-notes no-object-names "
              "no-patch no-prefix no-relative no-rename-empty no-renames no-standard-notes "
              "no-textconv no-use-mailmap not numstat object-names objects objects-edge "
              "objects-edge-aggressive oneline ours parents patch patch-with-raw "
              "patch-with-stat patience perl-regexp pickaxe-all pickaxe-regex quiet raw "
              "reflog regexp-ignore-case relative-date remerge-diff remove-empty rename-empty "
              "reverse right-only shortstat show-pulls show-signature simplify-by-decoration "
              "simplify-merges single-worktree source sparse standard-notes stdin summary "
              "text textconv theirs timestamp topo-order unpacked use-bitmap-index "
              "use-mailmap walk-reflogs"),
        long_takes=("after anchored author before color-moved-ws committer date decorate-refs "
                    "decorate-refs-exclude diff-algorithm diff-filter diff-merges dst-prefix "
                    "encoding exclude exclude-hidden filter find-object format glob grep "
                    "grep-reflog ignore-matching-lines inter-hunk-context line-prefix max-age "
                    "max-count max-parents min-age min-parents missing output "
                    "output-indicator-context output-indicator-new output-indicator-old "
                    "progress rotate-to since since-as-filter skip skip-to src-prefix unified "
                    "until word-diff-regex ws-error-highlight"),
        long_optional=("abbrev ancestry-path branches break-rewrites color color-moved "
                       "color-words decorate dirstat dirstat-by-file disk-usage expand-tabs "
                       "find-copies find-renames ignore-submodules no-walk notes pretty "
                       "relative remotes show-linear-break show-notes stat submodule tags "
                       "word-diff"),
    ),
    "diff": _table(
        short="0123BCDMRWXabpsuwz", short_takes="GIOSUl", short_optional="BCMX",
        long=("base binary check compact-summary cumulative exit-code ext-diff "
              "find-copies-harder full-index function-context histogram ignore-all-space "
              "ignore-blank-lines ignore-cr-at-eol ignore-space-at-eol ignore-space-change "
              "indent-heuristic irreversible-delete ita-invisible-in-index minimal name-only "
              "name-status no-color no-color-moved no-color-moved-ws no-ext-diff "
              "no-indent-heuristic no-patch no-prefix no-relative no-rename-empty no-renames "
              "no-textconv numstat ours patch patch-with-raw patch-with-stat patience "
              "pickaxe-all pickaxe-regex quiet raw rename-empty shortstat summary text "
              "textconv theirs"),
        long_takes=("anchored color-moved-ws diff-algorithm diff-filter dst-prefix "
                    "find-object ignore-matching-lines inter-hunk-context line-prefix output "
                    "output-indicator-context output-indicator-new output-indicator-old "
                    "rotate-to skip-to src-prefix unified word-diff-regex ws-error-highlight"),
        long_optional=("abbrev break-rewrites color color-moved color-words dirstat "
                       "dirstat-by-file find-copies find-renames ignore-submodules relative "
                       "stat submodule word-diff"),
    ),
    "diff-files": _table(
        short="0123BCDMRWXabcpqsuwz", short_takes="GIOSUl", short_optional="BCMX",
        long=("base binary cc check compact-summary cumulative exit-code ext-diff "
              "find-copies-harder full-index function-context histogram ignore-all-space "
              "ignore-blank-lines ignore-cr-at-eol ignore-space-at-eol ignore-space-change "
              "indent-heuristic irreversible-delete ita-invisible-in-index minimal name-only "
              "name-status no-color no-color-moved no-color-moved-ws no-ext-diff "
              "no-indent-heuristic no-patch no-prefix no-relative no-rename-empty no-renames "
              "no-textconv numstat ours patch patch-with-raw patch-with-stat patience "
              "pickaxe-all pickaxe-regex quiet raw rename-empty shortstat summary text "
              "textconv theirs"),
        long_takes=("anchored color-moved-ws diff-algorithm diff-filter dst-prefix "
                    "find-object ignore-matching-lines inter-hunk-context line-prefix output "
                    "output-indicator-context output-indicator-new output-indicator-old "
                    "rotate-to skip-to src-prefix unified word-diff-regex ws-error-highlight"),
        long_optional=("abbrev break-rewrites color color-moved color-words dirstat "
                       "dirstat-by-file find-copies find-renames ignore-submodules relative "
                       "stat submodule word-diff"),
    ),
    "diff-index": _table(
        short="0123BCDMRWXabmpsuwz", short_takes="GIOSUl", short_optional="BCMX",
        long=("base binary cached check compact-summary cumulative exit-code ext-diff "
              "find-copies-harder full-index function-context histogram ignore-all-space "
              "ignore-blank-lines ignore-cr-at-eol ignore-space-at-eol ignore-space-change "
              "indent-heuristic irreversible-delete ita-invisible-in-index merge-base minimal "
              "name-only name-status no-color no-color-moved no-color-moved-ws no-ext-diff "
              "no-indent-heuristic no-patch no-prefix no-relative no-rename-empty no-renames "
              "no-textconv numstat ours patch patch-with-raw patch-with-stat patience "
              "pickaxe-all pickaxe-regex quiet raw rename-empty shortstat summary text "
              "textconv theirs"),
        long_takes=("anchored color-moved-ws diff-algorithm diff-filter dst-prefix "
                    "find-object ignore-matching-lines inter-hunk-context line-prefix output "
                    "output-indicator-context output-indicator-new output-indicator-old "
                    "rotate-to skip-to src-prefix unified word-diff-regex ws-error-highlight"),
        long_optional=("abbrev break-rewrites color color-moved color-words dirstat "
                       "dirstat-by-file find-copies find-renames ignore-submodules relative "
                       "stat submodule word-diff"),
    ),
    "diff-tree": _table(
        short="0123BCDMRWXabcmprstuvwz", short_takes="GIOSUl", short_optional="BCMX",
        long=("abbrev-commit always base binary cc check combined-all-paths compact-summary "
              "cumulative exit-code ext-diff find-copies-harder full-index function-context "
              "histogram ignore-all-space ignore-blank-lines ignore-cr-at-eol "
              "ignore-space-at-eol ignore-space-change indent-heuristic irreversible-delete "
              "ita-invisible-in-index merge-base minimal name-only name-status "
              "no-abbrev-commit no-color no-color-moved no-color-moved-ws no-commit-id "
              "no-expand-tabs no-ext-diff no-indent-heuristic no-notes no-patch no-prefix "
              "no-relative no-rename-empty no-renames no-standard-notes no-textconv numstat "
              "oneline ours patch patch-with-raw patch-with-stat patience pickaxe-all "
              "pickaxe-regex quiet raw rename-empty root shortstat show-signature "
              "standard-notes stdin summary text textconv theirs"),
        long_takes=("anchored color-moved-ws diff-algorithm diff-filter dst-prefix encoding "
                    "find-object format ignore-matching-lines inter-hunk-context line-prefix "
                    "output output-indicator-context output-indicator-new "
                    "output-indicator-old rotate-to skip-to src-prefix unified "
                    "word-diff-regex ws-error-highlight"),
        long_optional=("abbrev break-rewrites color color-moved color-words dirstat "
                       "dirstat-by-file expand-tabs find-copies find-renames "
                       "ignore-submodules notes pretty relative show-notes stat submodule "
                       "word-diff"),
    ),
    "blame": _table(
        short="0123456789CEFMPbcefghilpstw", short_takes="LSn", short_optional="CM",
        long=("abbrev-commit all all-match alternate-refs author-date-order basic-regexp "
              "bisect bisect-all bisect-vars boundary cherry cherry-mark cherry-pick children "
              "color-by-age color-lines commit-header count date-order dense do-walk "
              "exclude-first-parent-only exclude-promisor-objects extended-regexp "
              "filter-print-omitted filter-provided-objects first-parent fixed-strings "
              "full-history graph header ignore-missing in-commit-order incremental "
              "indexed-objects invert-grep left-only left-right line-porcelain merge merges "
              "minimal no-abbrev-commit no-commit-header no-expand-tabs no-filter "
              "no-max-parents no-merges no-min-parents no-object-names no-progress not "
              "object-names objects objects-edge objects-edge-aggressive oneline parents "
              "perl-regexp porcelain quiet reflog regexp-ignore-case relative-date "
              "remove-empty right-only root score-debug show-email show-name show-number "
              "show-pulls show-signature show-stats simplify-by-decoration simplify-merges "
              "single-worktree sparse stdin timestamp topo-order unpacked use-bitmap-index "
              "walk-reflogs"),
        long_takes=("after author before committer contents date encoding exclude "
                    "exclude-hidden filter format glob grep grep-reflog ignore-rev "
                    "ignore-revs-file max-age max-count max-parents min-age min-parents "
                    "missing since since-as-filter skip until"),
        long_optional=("abbrev ancestry-path branches disk-usage expand-tabs no-walk pretty "
                       "progress remotes reverse show-linear-break tags"),
    ),
    "shortlog": _table(
        short="0123456789EFPcegisw", short_takes="n", short_optional="w",
        long=("abbrev-commit all all-match alternate-refs author-date-order basic-regexp "
              "bisect bisect-all bisect-vars boundary cherry cherry-mark cherry-pick children "
              "commit-header count date-order dense do-walk email exclude-first-parent-only "
              "exclude-promisor-objects extended-regexp filter-print-omitted "
              "filter-provided-objects first-parent fixed-strings full-history graph header "
              "ignore-missing in-commit-order indexed-objects invert-grep left-only "
              "left-right merge merges no-abbrev-commit no-commit-header no-expand-tabs "
              "no-filter no-max-parents no-merges no-min-parents no-object-names not numbered "
              "object-names objects objects-edge objects-edge-aggressive oneline parents "
              "perl-regexp quiet reflog regexp-ignore-case relative-date remove-empty reverse "
              "right-only show-pulls show-signature simplify-by-decoration simplify-merges "
              "single-worktree sparse stdin summary timestamp topo-order unpacked "
              "use-bitmap-index walk-reflogs"),
        long_takes=("abbrev after author before date encoding exclude exclude-hidden filter "
                    "glob grep grep-reflog group max-age max-count max-parents min-age "
                    "min-parents missing progress since since-as-filter skip until"),
        long_optional=("ancestry-path branches committer disk-usage expand-tabs format "
                       "no-walk pretty remotes show-linear-break tags"),
    ),
    "rev-list": _table(
        short="0123456789EFPgi", short_takes="n",
        long=("abbrev-commit all all-match alternate-refs author-date-order basic-regexp "
              "bisect bisect-all bisect-vars boundary cherry cherry-mark cherry-pick children "
              "commit-header count date-order dense do-walk exclude-first-parent-only "
              "exclude-promisor-objects extended-regexp filter-print-omitted "
              "filter-provided-objects first-parent fixed-strings full-history graph header "
              "ignore-missing in-commit-order indexed-objects invert-grep left-only "
              "left-right merge merges no-abbrev-commit no-commit-header no-expand-tabs "
              "no-filter no-max-parents no-merges no-min-parents no-object-names not "
              "object-names objects objects-edge objects-edge-aggressive oneline parents "
              "perl-regexp quiet reflog regexp-ignore-case relative-date remove-empty reverse "
              "right-only show-pulls show-signature simplify-by-decoration simplify-merges "
              "single-worktree sparse stdin timestamp topo-order unpacked use-bitmap-index "
              "walk-reflogs"),
        long_takes=("abbrev after author before committer date encoding exclude "
                    "exclude-hidden filter format glob grep grep-reflog max-age max-count "
                    "max-parents min-age min-parents missing progress since since-as-filter "
                    "skip until"),
        long_optional=("ancestry-path branches disk-usage expand-tabs no-walk pretty remotes "
                       "show-linear-break tags"),
    ),
    "ls-files": _table(
        short="cdfikmostuvz", short_takes="Xx",
        long=("cached debug deduplicate deleted directory empty-directory eol error-unmatch "
              "exclude-standard full-name ignored killed modified no-empty-directory others "
              "recurse-submodules resolve-undo sparse stage unmerged"),
        long_takes="exclude exclude-from exclude-per-directory format with-tree",
        long_optional="abbrev",
    ),
    "describe": _table(
        long="all always contains debug exact-match first-parent long tags",
        long_takes="candidates exclude match",
        long_optional="abbrev broken dirty",
    ),
    "grep": _table(
        short="0123456789EFGHILOPWachilnopqrvwz", short_takes="ABCefm", short_optional="O",
        long=("all-match and basic-regexp break cached column count exclude-standard ext-grep "
              "extended-regexp files-with-matches files-without-match fixed-strings full-name "
              "function-context heading ignore-case invert-match line-number name-only "
              "no-color no-exclude-standard no-index no-recursive no-textconv not null "
              "only-matching or perl-regexp quiet recurse-submodules recursive show-function "
              "text textconv untracked word-regexp"),
        long_takes="after-context before-context context max-count max-depth threads",
        long_optional="color open-files-in-pager",
    ),
    "cat-file": _table(
        short="epstz",
        long=("allow-unknown-type batch-all-objects buffer filters follow-symlinks mailmap "
              "no-mailmap no-use-mailmap textconv unordered use-mailmap"),
        long_takes="path",
        long_optional="batch batch-check batch-command",
    ),
    "ls-tree": _table(
        short="dlrtz",
        long="full-name full-tree long name-only name-status object-only",
        long_takes="format",
        long_optional="abbrev",
    ),
    "show-ref": _table(
        short="dhqs",
        long="dereference head heads quiet tags verify",
        long_optional="abbrev exclude-existing hash",
    ),
    "name-rev": _table(
        long="all always annotate-stdin name-only no-undefined peel-tag stdin tags undefined",
        long_takes="exclude refs",
    ),
    "merge-base": _table(
        short="a",
        long="all fork-point independent is-ancestor octopus",
    ),
    "cherry": _table(
        short="v",
        long="verbose",
        long_optional="abbrev",
    ),
    "count-objects": _table(
        short="Hv",
        long="human-readable verbose",
    ),
    "for-each-ref": _table(
        short="ps",
        long="ignore-case perl python shell tcl",
        long_takes="count format points-at sort",
        long_optional="color contains merged no-contains no-merged",
    ),
    "var": _table(
        short="l",
    ),
    "version": _table(
        long="build-options",
    ),
    "check-ignore": _table(
        short="nqvz",
        long="no-index non-matching quiet stdin verbose",
    ),
    "check-attr": _table(
        short="az",
        long="all cached stdin",
    ),
    "show-branch": _table(
        short="agr",
        long=("all current date-order independent list merge-base no-color no-name remotes "
              "sha1-name sparse topics topo-order"),
        long_optional="color more reflog",
    ),
    "config": _table(
        short="eltz", short_takes="f",
        long=("add bool bool-or-int bool-or-str edit expiry-date fixed-value get get-all "
              "get-color get-colorbool get-regexp global includes int list local name-only "
              "no-includes no-type null path remove-section rename-section replace-all "
              "show-origin show-scope system unset unset-all worktree"),
        long_takes="blob default file type",
        long_optional="get-urlmatch",
    ),
}
_MODES = frozenset({"cached", "staged", "no-index", "merge-base"})
"""``git diff``'s own modes, which its manual gives in the synopsis only."""
for _name in ("diff", "diff-index"):
    OPTIONS[_name] = replace(OPTIONS[_name], long=OPTIONS[_name].long | _MODES)
# show, whatchanged and reflog take log's revision and diff options
OPTIONS["show"] = OPTIONS["whatchanged"] = OPTIONS["reflog"] = OPTIONS["stash list"] = (
    OPTIONS["log"])
OPTIONS["annotate"] = OPTIONS["blame"]
OPTIONS["stash show"] = OPTIONS["diff"]
OPTIONS["worktree list"] = _table(short="vz", long="porcelain verbose", long_takes="expire")
"""Options by subcommand (``stash show``, ``worktree list`` for those two words)."""
