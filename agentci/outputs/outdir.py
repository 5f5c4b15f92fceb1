"""The output folder: every run starts with a clean one.

Choice (issue 5): a run never mixes its files with an earlier run's. When the output folder
already holds something, :func:`prepare_out_dir` **moves it aside** to ``<dir>.prev`` (replacing
an older ``.prev``) rather than refusing to run — in CI the same path is reused on every run, and
the previous outputs stay available for one more run. Temp files that a killed run left behind
(``.<name>.tmp-…``) are removed from the moved folder.

For safety, a non-empty folder is only moved when it looks like agentci's: it has the
:data:`MARKER` file or one of agentci's output files, and it is not a git repository, the home
folder or the current directory (or one of its parents). Otherwise it is ``invalid_input``.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from agentci.errors import InvalidInput
from agentci.outputs.atomic import is_temp_file

MARKER = ".agentci-out"
KNOWN_OUTPUTS = frozenset(
    {MARKER, "events.jsonl", "patch.diff", "junit.xml", "result.json", "summary.md", "tasks"}
)


def _looks_like_ours(path: Path) -> bool:
    names = {p.name for p in path.iterdir()}
    return bool(names & KNOWN_OUTPUTS) or all(is_temp_file(path / n) for n in names)


def _remove_temp_files(path: Path) -> None:
    for p in path.rglob(".*"):
        if p.is_file() and is_temp_file(p):
            with contextlib.suppress(OSError):
                p.unlink()


def prepare_out_dir(path: Path) -> Path:
    """Make ``path`` an empty output folder (see the module docstring); return it resolved."""
    path = Path(path).absolute()
    if path.exists() and not path.is_dir():
        raise InvalidInput(f"outputs.dir {path} exists and is not a folder")
    if path.is_dir() and any(path.iterdir()):
        resolved = path.resolve()
        cwd = Path.cwd().resolve()
        if (
            (resolved / ".git").exists()
            or resolved == Path.home().resolve()
            or resolved == cwd
            or resolved in cwd.parents
            or not _looks_like_ours(resolved)
        ):
            raise InvalidInput(
                f"outputs.dir {path} is not empty and does not look like an agentci output "
                "folder; choose an empty or new folder (agentci moves old outputs to <dir>.prev)"
            )
        prev = path.with_name(path.name + ".prev")
        if prev.is_symlink() or prev.is_file():
            prev.unlink()
        elif prev.exists():
            shutil.rmtree(prev)
        path.rename(prev)
        _remove_temp_files(prev)
    path.mkdir(parents=True, exist_ok=True)
    (path / MARKER).write_text("agentci output folder; moved to .prev by the next run\n")
    return path.resolve()
