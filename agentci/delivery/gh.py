"""The ``gh`` command (on GitHub-hosted runners), with the token in its environment only."""

from __future__ import annotations

import json
from typing import Any

from agentci.delivery.context import DeliveryError
from agentci.delivery.process import GH_TIMEOUT, delivery_env, run_bounded, timeout_for
from agentci.hostprog import host_program


class Gh:
    """Runs ``gh`` with ``GH_TOKEN`` set to ``token``, no prompts and nothing else of the job's
    secrets (:func:`~agentci.delivery.process.delivery_env`); each call bounded in time
    (:mod:`agentci.delivery.process`)."""

    def __init__(self, token: str, repository: str) -> None:
        exe = host_program("gh")
        if exe is None:
            raise DeliveryError("the gh command is not installed (GitHub-hosted runners have it)")
        if not token:
            raise DeliveryError("no github-token: set the action's github-token input")
        self.exe = exe
        self.repository = repository
        self.env = {
            **delivery_env(),
            "GH_TOKEN": token,
            "GH_PROMPT_DISABLED": "1",
            "GH_NO_UPDATE_NOTIFIER": "1",
            "NO_COLOR": "1",
        }

    def run(self, *args: str, stdin: str | None = None) -> str:
        """``gh ARGS``'s stdout; a failure is a :class:`DeliveryError` with gh's message."""
        done = run_bounded(
            [self.exe, *args],
            env=self.env,
            timeout=timeout_for(GH_TIMEOUT),
            what=f"gh {' '.join(args[:2])}",
            stdin=None if stdin is None else stdin.encode(),
        )
        out = done.stdout.decode(errors="replace")
        if done.returncode != 0:
            said = (done.stderr.decode(errors="replace") or out).strip().splitlines()
            raise DeliveryError(
                f"gh {' '.join(args[:2])} failed: {said[-1] if said else done.returncode}"
            )
        return out

    def json(self, *args: str, stdin: str | None = None) -> Any:
        """``gh ARGS``'s stdout parsed as JSON."""
        out = self.run(*args, stdin=stdin)
        try:
            return json.loads(out) if out.strip() else None
        except ValueError:
            raise DeliveryError(
                f"gh {' '.join(args[:2])} answered no JSON: {out[:200]!r}"
            ) from None

    def json_list(self, *args: str) -> list[dict[str, Any]]:
        """``gh ARGS``'s answer as a list of objects (none: empty); another shape is a
        :class:`DeliveryError`."""
        data = self.json(*args)
        if data is None:
            return []
        if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
            raise _shape(args, "a list of objects", data)
        return data

    def json_object(self, *args: str, stdin: str | None = None) -> dict[str, Any]:
        """``gh ARGS``'s answer as one object; another shape is a :class:`DeliveryError`."""
        data = self.json(*args, stdin=stdin)
        if not isinstance(data, dict):
            raise _shape(args, "an object", data)
        return data


def _shape(args: tuple[str, ...], wanted: str, data: Any) -> DeliveryError:
    return DeliveryError(
        f"gh {' '.join(args[:2])} answered JSON of another shape (not {wanted}): "
        f"{json.dumps(data)[:200]}"
    )
