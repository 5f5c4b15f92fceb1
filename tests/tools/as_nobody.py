"""Running agentci as the unprivileged user ``nobody`` (uid 65534) from a root test.

The test's interpreter may be one that user cannot load: a pyenv Python under ``/root`` (mode
0700, the usual Docker CI layout) fails with ``libpython….so: cannot open``, or a virtualenv
whose base is there runs another Python without agentci. :func:`why_nobody_cannot_run` tries it
once and says why, so such a test is skipped for that reason instead of failing.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

NOBODY = 65534
#: The command prefix that runs the rest as ``nobody``, without supplementary groups.
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]


@functools.cache
def why_nobody_cannot_run(python: str = sys.executable) -> str | None:
    """Why ``nobody`` cannot import agentci with ``python`` (None: it can)."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or not shutil.which("setpriv"):
        return "needs root and setpriv on Linux"
    probe = [*AS_NOBODY, python, "-c", "import agentci"]
    done = subprocess.run(probe, cwd="/", capture_output=True, text=True, timeout=60)
    if done.returncode == 0:
        return None
    last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return f"user nobody cannot run agentci with {python}: {last}"
