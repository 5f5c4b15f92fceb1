"""What a run leaves behind: events, patch, JUnit, result.json, summary (docs/outputs.md)."""
