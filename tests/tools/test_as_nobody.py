"""The skip guard of the tests that run agentci as ``nobody`` sees an interpreter that user
cannot load (a pyenv Python under a 0700 /root)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from as_nobody import why_nobody_cannot_run

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0, reason="needs root on Linux"
)


def test_an_interpreter_nobody_cannot_load_is_seen() -> None:
    """An interpreter that fails for ``nobody`` as a pyenv Python under a 0700 ``/root`` does
    (whether a private folder alone stops ``setpriv``'s exec depends on the kernel: on some it
    looks the program up before the capabilities are gone)."""
    folder = Path(tempfile.mkdtemp(prefix="agentci-nobody-"))  # /tmp: nobody may look in
    folder.chmod(0o755)
    python = folder / "python"
    python.write_text(
        "#!/bin/sh\n"
        f'[ "$(id -u)" = 0 ] && exec {sys.executable} "$@"\n'
        "echo 'error while loading shared libraries: libpython3.so: cannot open shared object "
        "file: Permission denied' >&2\n"
        "exit 127\n"
    )
    python.chmod(0o755)
    try:
        reason = why_nobody_cannot_run(str(python))
    finally:
        shutil.rmtree(folder)
    assert reason == (
        f"user nobody cannot run agentci with {python}: error while loading shared libraries: "
        "libpython3.so: cannot open shared object file: Permission denied"
    )
