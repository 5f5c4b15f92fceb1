"""The tools the model sees (DESIGN §4) and the scheduler that runs one turn's calls."""
