"""Credentials a checkout keeps in its git config, kept from the model.

``actions/checkout`` (unless ``persist-credentials: false``) writes the job's ``GITHUB_TOKEN``
into ``.git/config`` as ``http.https://github.com/.extraheader = AUTHORIZATION: basic …``.
The agent may read files of the workspace, so without care the token is one ``read_file`` or
``cat .git/config`` away — and redaction cannot catch every re-encoding of it. It is not
only there: with ``submodules: true`` each ``.git/modules/<name>/config`` holds it too, and
checkout v6 keeps it in ``$RUNNER_TEMP/git-credentials-*.config``, which ``.git/config``
includes (``includeIf.gitdir:….path``). :func:`config_files` lists all of these. So:

* ``read_file`` of a repository config file returns :func:`sanitise` d text (values of
  credential-bearing keys and passwords in URLs replaced with ``***``);
* inside the sandbox, each such file is covered with a sanitised read-only copy
  (:func:`sanitised_copies`), so no command of the agent reads the original;
* ``grep_search`` and ``glob`` never look inside a git dir (agentci.tools.search): whether a
  pattern matches a masked line would tell the value one bit at a time;
* at the start of each task, each of the :func:`credential_warnings` is a ``warning`` event of
  kind ``credentials_in_git_config`` (also on the console) telling the user to set
  ``persist-credentials: false``.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from agentci.policy.paths import git_dirs

if TYPE_CHECKING:  # a type only: the file readers stay unloaded where no file is read
    from agentci import workspace_io

MASK = "***"
CONFIG_NAMES = ("config", "config.worktree")
#: How deep includes are followed (git's own limit is 10).
MAX_INCLUDE_DEPTH = 10
#: Bytes of a config file read (a checkout's are a few hundred).
MAX_CONFIG_BYTES = 1 << 20
#: Folders of a git dir that hold no repository (not walked looking for configs).
_NOT_REPOSITORIES = frozenset({"objects", "refs", "logs", "hooks", "info", "lfs", "rr-cache"})
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
    """Every config file of the workspace's repository that can hold a checkout credential,
    as real paths: ``config`` and ``config.worktree`` of its git dir, of each linked worktree
    (``worktrees/*/``) and of each submodule (``modules/**/``: ``actions/checkout`` with
    ``submodules: true`` writes the token there), and every file one of them includes
    (``include.path``, ``includeIf.*.path`` whatever the condition, relative paths against the
    including file's folder, as deep as git follows): ``actions/checkout`` v6 keeps the token
    in ``$RUNNER_TEMP/git-credentials-*.config``, included from ``.git/config``."""
    out: list[Path] = []
    for d in git_dirs(workspace):
        for f in _repo_configs(d):
            _with_includes(f, out, 0)
    return out


def _repo_configs(git_dir: Path) -> list[Path]:
    """``config``/``config.worktree`` of ``git_dir`` and of the repositories git keeps inside
    it (``worktrees/``, ``modules/``, nested), object stores and logs not walked."""
    found = [git_dir / name for name in CONFIG_NAMES]
    for sub in ("worktrees", "modules"):
        for top, dirs, _ in os.walk(git_dir / sub):  # links to folders are not followed
            dirs[:] = sorted(d for d in dirs if d not in _NOT_REPOSITORIES)
            found += [Path(top) / name for name in CONFIG_NAMES]
    return found


def _with_includes(f: Path, out: list[Path], depth: int) -> None:
    """Add ``f`` (when a regular file) and, recursively, the files it includes to ``out``."""
    real = Path(os.path.realpath(f))
    if real in out or depth > MAX_INCLUDE_DEPTH or not real.is_file():
        return
    out.append(real)
    for target in included(_read(real), f.parent):
        _with_includes(target, out, depth + 1)


def included(text: str, folder: Path) -> list[Path]:
    """The files a config text includes (``include.path``, ``includeIf.<condition>.path``),
    relative ones resolved against ``folder`` (the including file's, as git does)."""
    out: list[Path] = []
    section = ""
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            section = m.group(1).lower()
            if m.group(2) is not None:
                section += "." + m.group(2)
            line = m.group(3)
        e = _ENTRY.match(line)
        if not e or e.group(2).lower() != "path" or e.group(3).strip() != "=":
            continue
        if section != "include" and not section.startswith("includeif."):
            continue
        value = _value(e.group(4))
        if not value:
            continue
        path = Path(os.path.expanduser(value))
        out.append(path if path.is_absolute() else folder / path)
    return out


def _value(raw: str) -> str:
    """A config value as git reads it: quotes removed, escapes undone, comments dropped."""
    out: list[str] = []
    quoted = False
    chars = iter(raw.strip())
    for c in chars:
        if c == "\\":
            nxt = next(chars, "")
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(nxt, nxt))
        elif c == '"':
            quoted = not quoted
        elif c in "#;" and not quoted:
            break
        else:
            out.append(c)
    return "".join(out).strip()


def _read(f: Path) -> str:
    """The start of a config file as text ('' when it cannot be read)."""
    try:
        with open(f, "rb") as fh:
            return fh.read(MAX_CONFIG_BYTES).decode(errors="replace")
    except OSError:
        return ""


def is_config_file(workspace: Path, real: Path) -> bool:
    """Whether ``real`` is a config file of a repository (read_file, context files): one of
    :func:`config_files`, or a ``config``/``config.worktree`` in a ``.git`` folder or next to
    a ``HEAD``."""
    if real.name.lower() in CONFIG_NAMES:
        parent = real.parent.name.lower()
        if parent == ".git" or (real.parent / "HEAD").is_file():
            return True
    return real in config_files(workspace)


def sanitised_copies(workspace: Path) -> list[tuple[Path, Path]]:
    """For each config file holding credentials: (a private sanitised copy, the original).

    The copies live in a fresh temporary folder; the caller removes them.
    """
    pairs: list[tuple[Path, Path]] = []
    for f in config_files(workspace):
        text, found = sanitise(_read(f))
        if not found:
            continue
        fd, name = tempfile.mkstemp(prefix="agentci-gitconfig-")
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        pairs.append((Path(name), f))
    return pairs


def credential_warnings(workspace: Path) -> list[str]:
    """One warning per git config file of the workspace that holds credentials (the keys are
    named, the values never shown); the task emits each as a ``credentials_in_git_config``
    event."""
    warnings = []
    for f in config_files(workspace):
        _, found = sanitise(_read(f))
        if found:
            warnings.append(WARNING.format(keys=", ".join(sorted(set(found))), file=f))
    return warnings


def mask_for_model(root: workspace_io.Root, rel: str, text: str) -> str:
    """``text`` read from ``rel`` as ``read_file`` shows it to the model: a repository config
    file (``.git/config``, a planted ``x/config`` beside ``x/HEAD``) without its credentials."""
    if isinstance(root, int) or Path(rel).name.lower() not in ("config", "config.worktree"):
        return text
    base = Path(os.path.realpath(root))
    if is_config_file(base, base / rel):
        return sanitise(text)[0]
    return text
