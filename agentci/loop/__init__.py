"""The agent loop: Runner → Session → Turn → Chat (DESIGN §1)."""
