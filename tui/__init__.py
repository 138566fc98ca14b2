"""Front ends of the engine: the command line, headless mode and the Textual app."""
