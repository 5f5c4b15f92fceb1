"""What the workflow run is about, from the variables and event file the runner provides."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class DeliveryError(Exception):
    """Delivery cannot go on; the message says why (one line for the log)."""


@dataclass
class GitHubContext:
    """The parts of ``github.*`` that delivery needs."""

    repository: str  # owner/name
    event_name: str
    server_url: str = "https://github.com"
    sha: str = ""
    ref_name: str = ""
    event: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_environ(cls, env: Mapping[str, str] | None = None) -> GitHubContext:
        """From ``GITHUB_REPOSITORY``, ``GITHUB_EVENT_NAME``, ``GITHUB_EVENT_PATH``, …"""
        env = os.environ if env is None else env
        event: dict[str, Any] = {}
        path = env.get("GITHUB_EVENT_PATH")
        if path:
            try:
                loaded = json.loads(Path(path).read_text(encoding="utf-8"))
                event = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError) as err:
                raise DeliveryError(f"cannot read the event file {path}: {err}") from None
        repository = env.get("GITHUB_REPOSITORY", "")
        if "/" not in repository:
            raise DeliveryError("GITHUB_REPOSITORY is not set (owner/name): not in GitHub Actions?")
        return cls(
            repository=repository,
            event_name=env.get("GITHUB_EVENT_NAME", ""),
            server_url=env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/"),
            sha=env.get("GITHUB_SHA", ""),
            ref_name=env.get("GITHUB_REF_NAME", ""),
            event=event,
        )

    @property
    def pull_request(self) -> dict[str, Any]:
        """The event's pull request (empty when the event has none)."""
        pr = self.event.get("pull_request")
        return pr if isinstance(pr, dict) else {}

    @property
    def number(self) -> int | None:
        """The pull request or issue the run was triggered from, if any."""
        for holder in (self.pull_request, self.event.get("issue")):
            if isinstance(holder, dict) and isinstance(holder.get("number"), int):
                return holder["number"]
        return None

    def base_branch(self) -> str:
        """Where a pull request of agentci's change goes: the triggering pull request's
        branch (same repository), else the branch the workflow runs on."""
        head = self.pull_request.get("head") or {}
        head_repo = (head.get("repo") or {}).get("full_name")
        if head.get("ref") and head_repo == self.repository:
            return str(head["ref"])
        if self.ref_name and not self.ref_name.endswith("/merge"):
            return self.ref_name
        default = (self.event.get("repository") or {}).get("default_branch")
        if default:
            return str(default)
        raise DeliveryError("cannot tell which branch the pull request should target")


def untrusted_checkout(ctx: GitHubContext, head_sha: str) -> str | None:
    """Why running here would be unsafe, or None.

    On ``pull_request_target`` the workflow has the base repository's secrets and a token that
    can write; the pull request's code is the attacker's. agentci runs the recipe's setup and
    verify commands on the checkout, so the checkout must be the trusted base commit
    (``GITHUB_SHA``), never the pull request's head or merge commit.
    """
    if ctx.event_name != "pull_request_target":
        return None
    if head_sha and ctx.sha and head_sha == ctx.sha:
        return None
    return (
        "refusing to run on pull_request_target with the pull request's code checked out "
        f"(HEAD {head_sha[:12] or '?'} is not the base commit {ctx.sha[:12] or '?'}): its "
        "setup and tests would run with this repository's secrets and a write token. Use "
        "the pull_request event (see docs/github-action.md, Security)"
    )
