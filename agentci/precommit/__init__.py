"""agentci as a pre-commit hook: a recipe run on the files being committed (docs/pre-commit.md)."""
