"""The tools the model sees (docs/tools.md) and the scheduler that runs one turn's calls."""
