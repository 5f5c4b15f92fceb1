"""Context management: what enters the model's history, and how big it may get."""
