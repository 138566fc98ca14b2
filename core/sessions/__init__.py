"""Sessions: what a conversation leaves on disk and how it comes back.

Entry points: :mod:`.log` (``SessionStore``, ``SessionLog``: the append-only JSONL log, read
back as typed events), :mod:`.index` (``SessionIndex``: the SQLite index for listing and
search, of the summaries :mod:`.summary` reads from each log), :mod:`.start`
(``open_session``/``close_session``), :mod:`.resume` (a session's conversation and notes
restored), :mod:`.history` (prompt history), :mod:`.export` and :mod:`.replay`.
"""
