"""The agent loop: Runner → Session → Turn → Chat (docs/architecture.md)."""
