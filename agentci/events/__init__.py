"""Typed events: one pydantic union feeds the JSONL log, the console and GitHub annotations."""
