"""events.jsonl on a disk that fills up: every line in it is whole (a real 64 KB tmpfs)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agentci.events import types as ev
from agentci.events.sinks import JsonlSink


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"), reason="mounts a tmpfs")
def test_a_full_disk_never_leaves_a_torn_line(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], check=True)
    try:
        sink = JsonlSink(disk / "events.jsonl")
        written = 0
        with pytest.raises(OSError):
            for i in range(1000):
                sink.write(ev.Error(kind="warning", message=f"{i} " + "x" * 3000))
                written += 1
        sink.close()
        text = (disk / "events.jsonl").read_text()
        assert text.endswith("\n")
        lines = [json.loads(line) for line in text.splitlines()]
        assert len(lines) == written and written > 5
    finally:
        subprocess.run(["umount", str(disk)], check=True)
