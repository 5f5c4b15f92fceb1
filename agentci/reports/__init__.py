"""What a run leaves behind, written from its events and its change: patch, JUnit, result.json,
summary.md, report.html, SARIF (docs/outputs.md)."""
