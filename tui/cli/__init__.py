"""The ``agent-tui`` command and the front ends that run without the workbench.

Entry points: :func:`.main.main` (the console script; it dispatches the subcommands named in
:data:`.cli_parser.SUBCOMMANDS`), :mod:`.headless` (``-p``), :mod:`.planning_run` and
:mod:`.autonomous_run` (``--planning``, ``--autonomous``), :mod:`.batch_cli`,
:mod:`.studio_cli`, :mod:`.sessions_cli`, :mod:`.agents_cli` and :mod:`.serve` (the
subcommands). This file imports nothing, so each front end loads only what it needs.
"""
