"""The ways of running the agent besides one conversation: each a subsystem over the loop.

Entry points: :mod:`.autonomous` (g3's coach-player: a player implements requirements, a
coach reviews the work), :mod:`.planning` (requirements refined, approved, implemented and
committed), :mod:`.batch` (the tasks and results files of ``agent-tui batch``) and
:mod:`.studio` (sessions in their own git worktrees, accepted or discarded).
"""
