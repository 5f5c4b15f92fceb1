"""The MCP tests reuse the end-to-end helpers (readiness waits, leftover processes)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
