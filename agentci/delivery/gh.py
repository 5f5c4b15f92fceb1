"""The ``gh`` command (on GitHub-hosted runners), with the token in its environment only."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any

from agentci.delivery.context import DeliveryError

GH_TIMEOUT = 120  # seconds per call: a delivery never hangs the job


class Gh:
    """Runs ``gh`` with ``GH_TOKEN`` set to ``token`` and no prompts."""

    def __init__(self, token: str, repository: str) -> None:
        exe = shutil.which("gh")
        if exe is None:
            raise DeliveryError("the gh command is not installed (GitHub-hosted runners have it)")
        if not token:
            raise DeliveryError("no github-token: set the action's github-token input")
        self.exe = exe
        self.repository = repository
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GH_HOST")},
            "GH_TOKEN": token,
            "GH_PROMPT_DISABLED": "1",
            "GH_NO_UPDATE_NOTIFIER": "1",
            "NO_COLOR": "1",
        }

    def run(self, *args: str, stdin: str | None = None) -> str:
        """``gh ARGS``'s stdout; a failure is a :class:`DeliveryError` with gh's message."""
        try:
            done = subprocess.run(
                [self.exe, *args],
                input=stdin,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=GH_TIMEOUT,
                stdin=None if stdin is not None else subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise DeliveryError(f"gh {args[0]} did not answer in {GH_TIMEOUT} s") from None
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()
            raise DeliveryError(
                f"gh {' '.join(args[:2])} failed: {said[-1] if said else done.returncode}"
            )
        return done.stdout

    def json(self, *args: str, stdin: str | None = None) -> Any:
        """``gh ARGS``'s stdout parsed as JSON."""
        out = self.run(*args, stdin=stdin)
        try:
            return json.loads(out) if out.strip() else None
        except ValueError:
            raise DeliveryError(
                f"gh {' '.join(args[:2])} answered no JSON: {out[:200]!r}"
            ) from None
