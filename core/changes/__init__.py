"""What the agent changed, and putting it back.

Entry points: :mod:`.checkpoints` (``Checkpoints``: a snapshot per turn in a shadow git
repository, :mod:`.shadow_git`), :mod:`.hunks` (a change split into hunks), and
:mod:`.file_review` (accepting or rejecting hunks of a file).
"""
