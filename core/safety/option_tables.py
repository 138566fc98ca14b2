"""The options of the programs on the read-only allowlist, as their own ``--help`` lists them.

Taken from the programs installed here (GNU coreutils 9.1, grep 3.8, diffutils 3.8, file
5.44, util-linux 2.38, binutils strings, procps-ng 4, ripgrep 13, fd 8.6, tree 2.1, less 590,
man-db 2.11, jq 1.6, the_silver_searcher 2.2). A table is complete: an option it does not
list makes the command ask (see :mod:`.shell_options`). Hidden options a program accepts
without listing them therefore ask too; that costs a question, never a wrong answer.

Which options read, write or run something is not here but in :mod:`.shell_policy`.
"""

from __future__ import annotations

from .shell_options import OptionTable

_DIGITS = "0123456789"


def _table(short: str = "", takes: str = "", long: str = "", long_takes: str = "",
           optional: str = "", short_optional: str = "", *, complete: bool = True) -> OptionTable:
    """An option table from space-separated long names."""
    return OptionTable(short=short, short_takes=takes, long=frozenset(long.split()),
                       long_takes=frozenset(long_takes.split()),
                       long_optional=frozenset(optional.split()), complete=complete,
                       short_optional=short_optional)


_CHECKSUM = _table(
    short="bctwz",
    long="binary check help ignore-missing quiet status strict tag text version warn zero",
)
_AG_TYPES = (
    "actionscript ada asciidoc apl asm asp aspx batch bazel bitbake cc cfmx chpl clojure coffee"
    " config coq cpp crystal csharp cshtml css cython delphi dlang dot dts ebuild elisp elixir"
    " elm erlang factor fortran fsharp gettext glsl go gradle groovy haml handlebars haskell"
    " haxe hh html idris ini ipython isabelle j jade java jinja2 js json jsp julia kotlin less"
    " liquid lisp log lua m4 make mako markdown mason matlab mathematica md mercury naccess nim"
    " nix objc objcpp ocaml octave org parrot pdb perl php pike plist plone powershell proto"
    " ps1 pug puppet python qml racket rake razor restructuredtext rs r rdoc ruby rust salt"
    " sass scala scheme shell smalltalk sml sql stata stylus swift tcl terraform tex thrift tla"
    " tt toml ts twig vala vb velocity verilog vhdl vim vue wix wsdl wadl xml yaml zeek zephir")

TABLES: dict[str, OptionTable] = {
    "cat": _table(
        short="AETbenstuv",
        long="help number number-nonblank show-all show-ends show-nonprinting show-tabs squeeze-blank version",
    ),
    "wc": _table(
        short="Lclmw",
        long="bytes chars help lines max-line-length version words",
        long_takes="files0-from",
    ),
    "rev": _table(
        short="Vh",
        long="help version",
    ),
    "comm": _table(
        short="123z",
        long="check-order help nocheck-order total version zero-terminated",
        long_takes="output-delimiter",
    ),
    "tac": _table(
        short="br",
        takes="s",
        long="before help regex version",
        long_takes="separator",
    ),
    "md5sum": _table(
        short="bctwz",
        long="binary check help ignore-missing quiet status strict tag text version warn zero",
    ),
    "base64": _table(
        short="di",
        takes="w",
        long="decode help ignore-garbage version",
        long_takes="wrap",
    ),
    "base32": _table(
        short="di",
        takes="w",
        long="decode help ignore-garbage version",
        long_takes="wrap",
    ),
    "expand": _table(
        short="i",
        takes="t",
        long="help initial version",
        long_takes="tabs",
    ),
    "unexpand": _table(
        short="a",
        takes="t",
        long="all first-only help version",
        long_takes="tabs",
    ),
    "paste": _table(
        short="sz",
        takes="d",
        long="help serial version zero-terminated",
        long_takes="delimiters",
    ),
    "fold": _table(
        short="bs0123456789",
        takes="w",
        long="bytes help spaces version",
        long_takes="width",
    ),
    "column": _table(
        short="JLVdehtx",
        takes="EHNORTWcilnoprs",
        long="fillrows help json keep-empty-lines table table-header-repeat table-noheadings version",
        long_takes="output-separator output-width separator table-columns table-columns-limit table-hide table-name table-noextreme table-order table-right table-truncate table-wrap tree tree-id tree-parent",
    ),
    "od": _table(
        short="abcdfilosvx",
        takes="ANSjt",
        long="help output-duplicates traditional version",
        long_takes="address-radix endian format read-bytes skip-bytes",
        optional="strings width",
        short_optional="w",
    ),
    "hexdump": _table(
        short="CLVbcdhovx",
        takes="efns",
        long="canonical help no-squeezing one-byte-char one-byte-octal two-bytes-decimal two-bytes-hex two-bytes-octal version",
        long_takes="format format-file length skip",
        optional="color",
    ),
    "nl": _table(
        short="p",
        takes="bdfhilnsvw",
        long="help no-renumber version",
        long_takes="body-numbering footer-numbering header-numbering join-blank-lines line-increment number-format number-separator number-width section-delimiter starting-line-number",
    ),
    "cmp": _table(
        short="blsv",
        takes="in",
        long="help print-bytes quiet silent verbose version",
        long_takes="bytes ignore-initial",
    ),
    "stat": _table(
        short="Lft",
        long="dereference file-system help terse version",
        long_takes="cached format printf",
        takes="c",
    ),
    "head": _table(
        short="qvz0123456789",
        takes="cn",
        long="help quiet silent verbose version zero-terminated",
        long_takes="bytes lines",
    ),
    "tail": _table(
        short="Ffqvz0123456789",
        takes="cns",
        long="help quiet retry silent verbose version zero-terminated",
        long_takes="bytes lines max-unchanged-stats pid sleep-interval",
        optional="follow",
    ),
    "cut": _table(
        short="Mnsz",
        takes="bcdf",
        long="complement help only-delimited version zero-terminated",
        long_takes="bytes characters delimiter fields output-delimiter",
    ),
    "ls": _table(
        short="1ABCDFGHLNQRSUXZabcdfghiklmnopqrstuvx",
        takes="ITw",
        long="all almost-all author context dereference dereference-command-line dereference-command-line-symlink-to-dir directory dired escape file-type full-time group-directories-first help hide-control-chars human-readable ignore-backups inode kibibytes literal no-group numeric-uid-gid quote-name recursive reverse show-control-chars si size version zero",
        long_takes="block-size format hide ignore indicator-style quoting-style sort tabsize time time-style width",
        optional="classify color hyperlink",
    ),
    "du": _table(
        short="0DHLPSabchklmsx",
        takes="BXdt",
        long="all apparent-size bytes count-links dereference dereference-args help human-readable inodes no-dereference null one-file-system separate-dirs si summarize total version",
        long_takes="block-size exclude exclude-from files0-from max-depth threshold time-style",
        optional="time",
    ),
    "sort": _table(
        short="CMRVbcdfghimnrsuz",
        takes="STkot",
        long="debug dictionary-order general-numeric-sort help human-numeric-sort ignore-case ignore-leading-blanks ignore-nonprinting merge month-sort numeric-sort random-sort reverse stable unique version version-sort zero-terminated",
        long_takes="batch-size buffer-size compress-program field-separator files0-from key output parallel random-source sort temporary-directory",
        optional="check",
    ),
    "uniq": _table(
        short="Dcdiuz0123456789",
        takes="fsw",
        long="count help ignore-case repeated unique version zero-terminated",
        long_takes="check-chars skip-chars skip-fields",
        optional="all-repeated group",
    ),
    "diff": _table(
        short="BENTZabcdeilnpqrstuvwy",
        takes="CDFISUWXx",
        long="brief ed expand-tabs help ignore-all-space ignore-blank-lines ignore-case ignore-file-name-case ignore-space-change ignore-tab-expansion ignore-trailing-space initial-tab left-column minimal new-file no-dereference no-ignore-file-name-case normal paginate rcs recursive report-identical-files show-c-function side-by-side speed-large-files strip-trailing-cr suppress-blank-empty suppress-common-lines text unidirectional-new-file version",
        long_takes="old-group-format new-group-format unchanged-group-format changed-group-format old-line-format new-line-format unchanged-line-format exclude exclude-from from-file horizon-lines ifdef ignore-matching-lines label line-format palette show-function-line starting-file tabsize to-file width",
        optional="color context unified",
    ),
    "grep": _table(
        short="EFGHILNPRTUVZabchilnoqrsvwxyz0123456789",
        takes="ABCDdefm",
        long="basic-regexp binary byte-offset count dereference-recursive extended-regexp files-with-matches files-without-match fixed-strings help ignore-case initial-tab invert-match line-buffered line-number line-regexp no-filename no-group-separator no-ignore-case no-messages null null-data only-matching perl-regexp quiet recursive silent text version with-filename word-regexp",
        long_takes="after-context before-context binary-files context devices directories exclude exclude-dir exclude-from file group-separator include label max-count regexp",
        optional="color colour",
    ),
    "numfmt": _table(
        short="Mz",
        takes="d",
        long="debug grouping help version zero-terminated",
        long_takes="delimiter field format from from-unit invalid padding round suffix to to-unit",
        optional="header",
    ),
    "date": _table(
        short="Ru",
        takes="dfrs",
        long="debug help resolution rfc-email universal utc version",
        long_takes="date file reference rfc-3339 set",
        optional="iso-8601",
        short_optional="I",
    ),
    "realpath": _table(
        short="LPemqsz",
        long="canonicalize-existing canonicalize-missing help logical no-symlinks physical quiet strip version zero",
        long_takes="relative-base relative-to",
    ),
    "readlink": _table(
        short="efmnqsvz",
        long="canonicalize canonicalize-existing canonicalize-missing help no-newline quiet silent verbose version zero",
    ),
    "df": _table(
        short="HPTahiklv",
        takes="Btx",
        long="all help human-readable inodes local no-sync portability print-type si sync total version",
        long_takes="block-size exclude-type type",
        optional="output",
    ),
    "free": _table(
        short="Vbghklmtvw",
        takes="cs",
        long="bytes committed gibi giga help human kibi kilo lohi mebi mega pebi peta si tebi tera total version wide",
        long_takes="count seconds",
    ),
    "uname": _table(
        short="aimnoprsv",
        long="all hardware-platform help kernel-name kernel-release kernel-version machine nodename operating-system processor version",
    ),
    "id": _table(
        short="GZagnruz",
        long="context group groups help name real user version zero",
    ),
    "env": _table(
        short="0iv",
        takes="CSu",
        long="debug help ignore-environment list-signal-handling null version",
        long_takes="chdir split-string unset",
        optional="block-signal default-signal ignore-signal",
    ),
    "printenv": _table(
        short="0",
        long="help null version",
    ),
    "seq": _table(
        short="w.0123456789",
        takes="fs",
        long="equal-width help version",
        long_takes="format separator",
    ),
    "tr": _table(
        short="Ccdst",
        long="complement delete help squeeze-repeats truncate-set1 version",
    ),
    "basename": _table(
        short="az",
        takes="s",
        long="help multiple version zero",
        long_takes="suffix",
    ),
    "dirname": _table(
        short="z",
        long="help version zero",
    ),
    "whoami": _table(
        long="help version",
    ),
    "groups": _table(
        long="help version",
    ),
    "nproc": _table(
        long="all help version",
        long_takes="ignore",
    ),
    "arch": _table(
        long="help version",
    ),
    "uptime": _table(
        short="Vhps",
        long="help pretty since version",
    ),
    "tty": _table(
        short="s",
        long="help quiet silent version",
    ),
    "locale": _table(
        short="Vackmv",
        long="all-locales category-name charmaps help keyword-name usage verbose version",
    ),
    "sleep": _table(
        long="help version",
    ),
    "pwd": _table(
        short="LP",
    ),
    "strings": _table(
        short="Vadfhovw0123456789",
        takes="TUenst",
        long="all data help print-file-name include-all-whitespace version",
        long_takes="bytes encoding output-separator radix target unicode",
    ),
    "file": _table(
        short="0CLNSZbcdhiklnprsvz",
        takes="FPefm",
        long="apple brief checking-printout compile debug dereference extension help keep-going list mime mime-encoding mime-type no-buffer no-dereference no-pad no-sandbox preserve-date print0 raw special-files uncompress uncompress-noreport version",
        long_takes="exclude exclude-quiet files-from magic-file parameter separator",
    ),
    "rm": _table(
        short="IRdfirv",
        long="dir force help no-preserve-root one-file-system recursive verbose version",
        optional="interactive preserve-root",
    ),
    "chmod": _table(
        short="Rcfv",
        long="changes help no-preserve-root preserve-root quiet recursive silent verbose version",
        long_takes="reference",
    ),
    "chown": _table(
        short="HLPRcfhv",
        long="changes dereference help no-dereference no-preserve-root preserve-root quiet recursive silent verbose version",
        long_takes="from reference",
    ),
    "chgrp": _table(
        short="HLPRcfhv",
        long="changes dereference help no-dereference no-preserve-root preserve-root quiet recursive silent verbose version",
        long_takes="reference",
    ),
    **{name: _CHECKSUM for name in ("md5sum", "sha1sum", "sha224sum", "sha256sum",
                                    "sha384sum", "sha512sum")},
    "b2sum": _table(
        short="bctwz", takes="l",
        long="binary check help ignore-missing quiet status strict tag text version warn zero",
        long_takes="length",
    ),
    "cksum": _table(
        short="cwz", takes="al",
        long="base64 check debug help ignore-missing quiet raw status strict tag untagged "
             "version warn zero",
        long_takes="algorithm length",
    ),
    "hostname": _table(
        short="AFIVabdfhisy",
        long="alias all-fqdns all-ip-addresses boot domain file fqdn help ip-address long nis "
             "short version yp",
    ),
    "which": _table(short="as"),
    "ps": _table(
        short="AFHLMNPTVZacdefjlmwyx",
        takes="CGOUgopqstuk",
        long="context deselect forest headers help info no-headers version",
        long_takes="Group User cols columns format group lines pid ppid quick-pid rows sid "
                   "sort tty user width",
    ),
    "tree": _table(
        short="ACDFJNQRSUXacdfghilnpqrstuvx",
        takes="HILPTo",
        long="dirsfirst du fflinks filesfirst fromfile gitignore help ignore-case info inodes "
             "device matchdirs metafirst noreport nolinks prune si version",
        long_takes="charset filelimit gitfile hintro houtro infofile sort timefmt",
    ),
    "rg": _table(
        short=".0FHILNPSUVabcehilnopqsuvwxz",
        takes="ABCEMTdefgjmrt",
        long="auto-hybrid-regex binary block-buffered byte-offset case-sensitive column count "
             "count-matches crlf debug files files-with-matches files-without-match "
             "fixed-strings follow glob-case-insensitive heading help hidden ignore-case "
             "ignore-file-case-insensitive ignore-messages include-zero invert-match json "
             "line-buffered line-number line-regexp max-columns-preview messages mmap "
             "multiline multiline-dotall no-auto-hybrid-regex no-binary no-block-buffered "
             "no-column no-config no-context-separator no-crlf no-encoding no-filename "
             "no-fixed-strings no-follow no-glob-case-insensitive no-heading no-hidden "
             "no-ignore no-ignore-dot no-ignore-exclude no-ignore-file-case-insensitive "
             "no-ignore-files no-ignore-global no-ignore-messages no-ignore-parent "
             "no-ignore-vcs no-include-zero no-invert-match no-json no-line-buffered "
             "no-line-number no-max-columns-preview no-messages no-mmap no-multiline "
             "no-multiline-dotall no-one-file-system no-pcre2 no-pcre2-unicode no-pre "
             "no-require-git no-search-zip no-stats no-text no-trim no-unicode null "
             "null-data one-file-system only-matching passthru pcre2 pcre2-unicode "
             "pcre2-version pretty quiet search-zip smart-case stats text trace trim "
             "type-list unicode unrestricted version vimgrep with-filename word-regexp",
        long_takes="after-context before-context color colors context context-separator "
                   "dfa-size-limit encoding engine field-context-separator "
                   "field-match-separator file glob iglob ignore-file max-columns max-count "
                   "max-depth max-filesize path-separator pre pre-glob regex-size-limit "
                   "regexp replace sort sortr threads type type-add type-clear type-not",
    ),
    "ag": _table(
        short="0DFHLQRSUVacfhilnorstuvwz",
        takes="ABCGWgmp",
        long="ackmate affinity all-text all-types break case-sensitive color "
             "color-line-number color-match color-path column count debug filename "
             "files-with-matches files-without-matches fixed-strings follow group heading "
             "help hidden ignore-case list-file-types literal mmap multiline noaffinity "
             "nobreak nocolor nofilename nogroup noheading nommap nomultiline nonumbers "
             "nopager norecurse null numbers one-device only-matching passthrough passthru "
             "print-all-files print-long-lines print0 recurse search-binary search-zip "
             "silent skip-vcs-ignores smart-case stats stats-only unrestricted version "
             "vimgrep word-regexp " + _AG_TYPES,
        long_takes="ackmate-dir-filter depth file-search-regex filename-pattern ignore "
                   "ignore-dir max-count pager path-to-ignore width workers",
        optional="after before context parallel",
    ),
    "fd": _table(
        short="0FHILSVaghilpqsuxX",
        takes="EScdejotxX",
        long="absolute-path case-sensitive fixed-strings follow full-path glob help hidden "
             "ignore-case list-details no-ignore no-ignore-parent no-ignore-vcs "
             "one-file-system print0 prune quiet regex show-errors strip-cwd-prefix "
             "unrestricted version",
        long_takes="and base-directory batch-size change-newer-than change-older-than "
                   "changed-after changed-before changed-within color exact-depth exclude "
                   "exec exec-batch extension ignore-file max-depth max-results min-depth "
                   "newer older owner path-separator search-path size threads type",
    ),
    "less": _table(
        short="?AaBcdEeFfGgIiJKLMmNnQqRrSsUuVWwX~" + _DIGITS,
        takes="DPTbhjkoOptxyz\"#",
        long="auto-buffers chop-long-lines clear-screen dumb file-size follow-name force "
             "help HILITE-SEARCH hilite-search HILITE-UNREAD hilite-unread IGNORE-CASE "
             "ignore-case incsearch LINE-NUMBERS line-numbers LONG-PROMPT long-prompt mouse "
             "no-histdups no-init no-keypad no-lessopen QUIET quiet quit-at-eof QUIT-AT-EOF "
             "quit-if-one-screen quit-on-intr RAW-CONTROL-CHARS raw-control-chars save-marks "
             "SEARCH-SKIP-SCREEN search-skip-screen SILENT silent squeeze-blank-lines "
             "status-column tilde UNDERLINE-SPECIAL underline-special use-backslash "
             "use-color version",
        long_takes="buffers color jump-target lesskey-file lesskey-src LOG-FILE log-file "
                   "line-num-width max-back-scroll max-forw-scroll pattern prompt quotes "
                   "rscroll shift status-col-width tabs tag tag-file wheel-lines window",
    ),
    "more": _table(
        short="cdeflpsuhV" + _DIGITS,
        takes="n",
        long="clean-print exit-on-eof help logical no-pause plain print-over silent squeeze "
             "version",
        long_takes="lines",
    ),
    "man": _table(
        short="7?DIKVWacdfhikluwtZ",
        takes="CELMPRSemprs",
        long="all apropos ascii catman debug default ditroff global-apropos help "
             "ignore-case local-file location location-cat match-case names-only "
             "nh no-hyphenation no-justification nj no-subpages path regex troff update "
             "usage version whatis where where-cat wildcard",
        long_takes="config-file encoding extension locale manpath pager preprocessor prompt "
                   "recode sections systems",
        optional="gxditview html troff-device warnings",
        short_optional="HTX",
    ),
}
TABLES["sed"] = _table(
    short="nrsuzE", takes="efl", short_optional="i",
    long="quiet silent debug follow-symlinks posix regexp-extended separate sandbox "
         "unbuffered null-data help version",
    long_takes="expression file line-length", optional="in-place",
)
TABLES["egrep"] = TABLES["fgrep"] = TABLES["grep"]
TABLES["fdfind"] = TABLES["fd"]
