"""The delivery's ``gh`` and ``git`` processes, each bounded in time as a whole process group,
with an environment of their own (:func:`delivery_env`).

Every process starts in its own session (``start_new_session``: no ``preexec_fn``). When it
does not finish in time, its whole process group is killed, so nothing it started (a
credential helper, an ssh, a pager) is left running on the runner, and the delivery ends with
a :class:`DeliveryError`: one clean ``::error`` line, outputs still written, never a traceback.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from agentci.delivery.context import DeliveryError
from agentci.hostprog import safe_path

GH_TIMEOUT = 120.0  # seconds for one gh call
GIT_TIMEOUT = 300.0  # seconds for one git command (a push of a large change)

#: What the delivery's processes take from the job's environment: where they live, their
#: language, the runner's proxy and certificates, gh's config folder.
KEPT: tuple[str, ...] = (
    "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ",
    "TMPDIR", "XDG_CONFIG_HOME", "GH_CONFIG_DIR", "CI", "GITHUB_ACTIONS",
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
    "http_proxy", "https_proxy", "no_proxy", "all_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR",
)  # fmt: skip


def delivery_env() -> dict[str, str]:
    """The environment the delivery's ``gh`` and ``git`` start from: :data:`KEPT` of the job's,
    and its ``PATH`` without the workspace's folders (:func:`agentci.hostprog.safe_path`).

    The delivery runs after the agent had the workspace, with the GitHub token: gh runs
    ``git`` from its ``PATH`` (``pr create`` lists the remotes), and a job that put the
    project's ``.venv/bin`` on ``PATH`` would have it run a ``git`` the agent wrote there. The
    job's other secrets (the model's key, cloud credentials, the OIDC request token, the token
    under its input's name) are not passed: the processes that need the token get it as
    ``GH_TOKEN`` alone."""
    env = {name: os.environ[name] for name in KEPT if name in os.environ}
    env["PATH"] = safe_path() or os.defpath
    return env


def timeout_for(default: float) -> float:
    """``default``, or the seconds ``AGENTCI_DELIVERY_TIMEOUT`` gives every process."""
    raw = os.environ.get("AGENTCI_DELIVERY_TIMEOUT", "")
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if value > 0 else default


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def run_bounded(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    timeout: float,
    what: str,
    cwd: Path | None = None,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` (output captured) in a new session; ``what`` names it in errors. A process
    that cannot start or does not end within ``timeout`` seconds is a :class:`DeliveryError`;
    a non-zero exit is returned as it is."""
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise DeliveryError(f"{what} could not start: {exc}") from None
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        raise DeliveryError(
            f"{what} did not finish in {timeout:g} s: stopped, with every process it started"
        ) from None
    finally:
        _kill_group(proc.pid)  # whatever it left behind in its group
    return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)
