"""Credentials a checkout keeps in its git config, kept from the model.

``actions/checkout`` (unless ``persist-credentials: false``) writes the job's ``GITHUB_TOKEN``
into ``.git/config`` as ``http.https://github.com/.extraheader = AUTHORIZATION: basic …``.
The agent may read files of the workspace, so without care the token is one ``read_file`` or
``cat .git/config`` away — and redaction cannot catch every re-encoding of it. So:

* ``read_file`` of a repository config file returns :func:`sanitise` d text (values of
  credential-bearing keys and passwords in URLs replaced with ``***``);
* inside the sandbox, each such file is covered with a sanitised read-only copy
  (:func:`sanitised_copies`), so no command of the agent reads the original;
* at the start of each task, :func:`warn_credentials` writes an ``error`` event of kind
  ``credentials_in_git_config`` (also on the console) telling the user to set
  ``persist-credentials: false``.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from agentci.events import types as ev
from agentci.policy.paths import git_dirs

MASK = "***"
#: Keys (``section.subsection.name``, lower case) whose values are credentials.
_SECRET_KEY = re.compile(
    r"^(http\..*\.?extraheader|http\.extraheader|credential\..*|.*\.(password|token|pass)"
    r"|http\..*\.?(cookiefile|proxyauthmethod))$",
    re.I,
)
_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_ENTRY = re.compile(r"^(\s*)([A-Za-z][A-Za-z0-9-]*)(\s*=\s*|\s*$)(.*)$")
# The scheme starts where no scheme character comes before it (``\b`` would try every letter
# of a long dotted word again, which is quadratic).
_USERINFO = re.compile(r"(?i)(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*://)[^/@\s\"']+@")

WARNING = (
    "set `persist-credentials: false` on actions/checkout: the workspace's git config holds "
    "credentials ({keys}, in {file}); agentci hides them from the agent's tools, but a "
    "checkout an agent works in should not keep them"
)


def sanitise(text: str) -> tuple[str, list[str]]:
    """``text`` (a git config file) with credential values masked, and the keys masked."""
    out: list[str] = []
    found: list[str] = []
    section = ""
    for line in text.splitlines(keepends=True):
        prefix = ""
        m = _SECTION.match(line)
        if m:
            name, sub, rest = m.group(1), m.group(2), m.group(3)
            section = f"{name}.{sub}" if sub is not None else name
            if not rest.strip():
                out.append(line)
                continue
            prefix = line[: line.index("]") + 1] + " "  # `[http] extraheader = …`
            line = rest + line[len(line.rstrip("\r\n")) :]
        e = _ENTRY.match(line.rstrip("\r\n"))
        if e and e.group(3).strip() == "=" and _SECRET_KEY.match(f"{section}.{e.group(2)}"):
            found.append(f"{section}.{e.group(2)}".lower())
            end = line[len(line.rstrip("\r\n")) :]
            line = f"{e.group(1)}{e.group(2)}{e.group(3)}{MASK}{end}"
        masked = _USERINFO.sub(lambda u: u.group(1) + MASK + "@", line)
        if masked != line:
            found.append(f"{section} (a URL with credentials)")
        out.append(prefix + masked)
    return "".join(out), found


def config_files(workspace: Path) -> list[Path]:
    """The config files of the workspace's repository (``config``, ``config.worktree``)."""
    out: list[Path] = []
    for d in git_dirs(workspace):
        for name in ("config", "config.worktree"):
            p = d / name
            if p.is_file() and p not in out:
                out.append(p)
    return out


def is_config_file(workspace: Path, real: Path) -> bool:
    """Whether ``real`` is one of the workspace repository's config files (read_file)."""
    if real.name.lower() not in ("config", "config.worktree"):
        return False
    if real in config_files(workspace):
        return True
    parent = real.parent.name.lower()
    return parent == ".git" or (real.parent / "HEAD").is_file()


def sanitised_copies(workspace: Path) -> list[tuple[Path, Path]]:
    """For each config file holding credentials: (a private sanitised copy, the original).

    The copies live in a fresh temporary folder; the caller removes them.
    """
    pairs: list[tuple[Path, Path]] = []
    for f in config_files(workspace):
        try:
            text, found = sanitise(f.read_text(errors="replace"))
        except OSError:
            continue
        if not found:
            continue
        fd, name = tempfile.mkstemp(prefix="agentci-gitconfig-")
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        pairs.append((Path(name), Path(os.path.realpath(f))))
    return pairs


def warn_credentials(workspace: Path, emit: Callable[[ev.Event], object]) -> list[str]:
    """Emit a ``credentials_in_git_config`` event when the workspace's git config holds
    credentials; returns the keys found (the values are never shown)."""
    keys: list[str] = []
    for f in config_files(workspace):
        try:
            _, found = sanitise(f.read_text(errors="replace"))
        except OSError:
            continue
        if found:
            keys += found
            emit(
                ev.Error(
                    kind="credentials_in_git_config",
                    message=WARNING.format(keys=", ".join(sorted(set(found))), file=f),
                )
            )
    return keys
