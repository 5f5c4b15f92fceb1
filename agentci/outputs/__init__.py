"""What a run leaves behind: events, patch, JUnit, result.json, summary (DESIGN §7)."""
