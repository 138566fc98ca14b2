"""Safety: whether a call may run, and what people and logs may see of secrets.

Entry points:

- :func:`permissions.decide` judges one validated tool call (allow, ask or deny);
  :func:`permissions.decide_command` judges a shell command line part by part.
- :func:`shell_analysis.analyse` splits a command line into the simple commands bash runs;
  ``shell_policy`` and ``git_commands`` say what each one reads, writes or runs.
- ``permission_rules`` parses and matches allow, ask and deny rules; ``workspace`` knows the
  project's boundary and its protected paths.
- ``redaction`` hides secrets from logs and screens; ``subprocess_env`` withholds them from
  the commands the agent runs.
"""
