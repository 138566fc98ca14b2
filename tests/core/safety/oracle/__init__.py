"""The shell judge's executable oracle: a corpus of commands with the verdict agent-tui must
give, a real project to judge and run them in, and a sandboxed runner that shows what a
command the judge lets through really does."""
