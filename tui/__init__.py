"""Front ends of the engine: the command line, headless mode and the Textual app."""

import os

# Textual draws at most TEXTUAL_FPS frames a second (60 unless set), and a key waits for
# the next frame slot: at 120 a key typed while an answer streams is drawn ~10 ms sooner.
# Frames are still drawn only when something changed. Set before Textual is imported.
os.environ.setdefault("TEXTUAL_FPS", "120")
