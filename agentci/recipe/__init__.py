"""Recipes: the YAML that says what the agent does, with which model, policy and budget."""
