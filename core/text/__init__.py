"""Text as agent-tui reads, writes, matches and shows it.

Entry points: :mod:`.text_files` (decoding, binary sniffing, encodings, line endings, atomic
text writes), :mod:`.durable` (``write_atomically``: the one durable write of every file),
:mod:`.glob_patterns` (the one glob language of rules, ``read_many_files``, ``glob_files``
and ``grep``), :mod:`.frontmatter` (Markdown files with a YAML front matter: skills, custom
commands, personas), :mod:`.visible_text` (text made safe for a terminal) and
:mod:`.counts` (a count with its noun).
"""
