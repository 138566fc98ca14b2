"""``agent-tui batch report RESULTS.jsonl [--compare OTHER.jsonl] [--html FILE] [--json]``:
what a batch did, read from its results file. Nothing here imports textual or litellm."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ...core.modes.batch_report import ResultsError, compare, read_results
from ...core.text.durable import write_atomically
from .cli_parser import EXIT_FAILURE, EXIT_OK, CommandParser, say, usage_error


def report_parser() -> CommandParser:
    """The options of ``agent-tui batch report``."""
    parser = CommandParser(
        prog="agent-tui batch report",
        description="Read a batch's results file: pass rate, cost and time (totals and "
        "percentiles), and a line per task. When a task has several lines (a rerun), the "
        "last one counts.",
    )
    parser.add_argument("results", type=Path, help="the results file (JSON lines) a batch wrote")
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="OTHER",
        help="a baseline results file: list the tasks that flipped between it "
        "and RESULTS, and the totals side by side",
    )
    parser.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="also write the report as one self-contained HTML page",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the report as one JSON object instead of text"
    )
    return parser


def report_main(argv: list[str]) -> int:
    """``agent-tui batch report …`` (the arguments after ``report``); the exit code."""
    parser = report_parser()
    args = parser.parse_args(argv)
    try:
        results = read_results(args.results.expanduser())
        baseline = read_results(args.compare.expanduser()) if args.compare else None
    except ResultsError as exc:
        return usage_error(parser, str(exc))
    comparison = compare(baseline, results) if baseline is not None else None
    if args.html is not None:
        from ...core.modes.batch_html import render_html

        page = args.html.expanduser()
        try:
            write_atomically(page, render_html(results, comparison).encode("utf-8"))
        except OSError as exc:
            say(
                f"{parser.prog}: error: cannot write {page}: {exc.strerror or exc}; pass "
                "--html a path in a folder you can write to"
            )
            return EXIT_FAILURE
    if args.json:
        from ...core.modes.batch_report_text import report_json

        sys.stdout.write(
            json.dumps(report_json(results, comparison), ensure_ascii=False, indent=2) + "\n"
        )
    else:
        from ...core.modes.batch_report_text import format_comparison, format_report

        text = format_report(results)
        if comparison is not None:
            text += "\n\n" + format_comparison(comparison)
        sys.stdout.write(text + "\n")
    if args.html is not None:
        say(f"agent-tui batch report: the page is in {args.html.expanduser()}")
    return EXIT_OK
