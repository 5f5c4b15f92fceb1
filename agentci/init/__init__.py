"""``agentci init``: a starter recipe, a workflow and the ``.gitignore`` line, written into a
repository without asking anything (see :mod:`agentci.init.scaffold`)."""
