"""Front ends of the engine: the command line, headless mode and the Textual app."""

import os

# Textual draws at most TEXTUAL_FPS frames a second (60 unless set), and a key waits for
# the next frame slot after the last frame: while an answer streams, a frame was just drawn
# about half the time. At 240 (slots 4 ms apart, not 8 at 120) key-to-screen p95 fell from
# 37-46 to 23-36 ms at 200 words/s. Frames are still drawn only when something changed.
# Set before Textual is imported.
os.environ.setdefault("TEXTUAL_FPS", "240")
