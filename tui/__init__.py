"""Front ends of the engine: the command line, headless mode and the Textual app."""

import os

# Textual draws at most TEXTUAL_FPS frames a second (60 unless set), and a key waits for
# the next frame slot after the last frame: while an answer streams, a frame was just drawn
# about half the time. At 240 the slots are closer, and keys reach the screen sooner while
# an answer streams (benchmarks/responsiveness.py). Frames are still drawn only when
# something changed.
# Set before Textual is imported.
os.environ.setdefault("TEXTUAL_FPS", "240")
