"""The one way agentci runs git: never with the workspace's config, hooks or attributes.

Every git process agentci itself starts (the patch baseline, the workspace's worktree or copy,
guards, file listing for ``glob``/``grep``) goes through :func:`git_argv` and :func:`git_env`
(or :func:`run_git`, which uses both). The agent can write a repository's ``.git/config``
(``git init`` then ``git config core.fsmonitor 'sh payload.sh'``); git would run that command
on agentci's next ``git status`` or ``ls-files`` — on the host, outside the sandbox, with
agentci's secrets in reach. So agentci's git:

* reads no system or global config (``GIT_CONFIG_NOSYSTEM=1``, ``GIT_CONFIG_GLOBAL=/dev/null``)
  and no system attributes (``GIT_ATTR_NOSYSTEM=1``); no inherited ``GIT_*`` variable (a
  ``GIT_DIR`` or ``GIT_CONFIG_PARAMETERS`` from the job) gets through;
* overrides, with ``-c`` (the highest-priority config layer), every key of the repository's
  own config that makes git start a program: ``core.fsmonitor``, ``core.hooksPath`` (hooks),
  ``core.attributesFile``, ``core.pager``/``core.editor``/``core.askPass``/``core.sshCommand``,
  ``diff.external``, ``credential.helper``, ``gpg.program``, ``protocol.allow`` …;
* neutralises the per-name drivers a repository config may define (``filter.<x>.clean``/
  ``smudge``/``process``, ``diff.<x>.textconv``/``command``, ``merge.<x>.driver``): pass the
  repository's git dir as ``repo`` and each one found is overridden with a harmless value
  (``cat`` for filters and textconv, ``false`` otherwise), whatever attributes select it.

The same keys also go in the environment (``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/
``GIT_CONFIG_VALUE_n``, :func:`config_env`), so a git that git itself starts gets them too; and
:func:`run_git` given a repository's git dir pins git to it (``GIT_DIR``/``GIT_WORK_TREE``):
it never discovers a repository from its working directory. The model's read-only git
commands get :data:`TOOL_CONFIG` the same way (:mod:`agentci.policy.gitpin`).

Callers that work in a private git dir of their own (:mod:`agentci.change.patch`) need no
``repo`` scan: that config is agentci's, and only the working tree is the agent's.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from agentci.hostprog import host_program

#: ``-c`` overrides on every git call agentci makes.
SAFE_CONFIG: tuple[str, ...] = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.attributesFile=/dev/null",
    "core.excludesFile=/dev/null",
    "core.untrackedCache=false",
    "core.pager=cat",
    "core.editor=true",
    "core.askPass=true",
    "core.sshCommand=false",
    "core.gitProxy=false",
    "core.alternateRefsCommand=true",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "credential.helper=",
    "diff.external=false",  # fails loudly: diff callers pass --no-ext-diff
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "protocol.allow=never",
    "submodule.recurse=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "color.ui=false",
)

#: Keys of :data:`SAFE_CONFIG` that change no output a reader of the repository expects: the
#: model's read-only git commands get these (an external diff, line-ending conversion, the
#: user's excludes and colours stay as the repository has them).
TOOL_CONFIG: tuple[str, ...] = tuple(
    item
    for item in SAFE_CONFIG
    if item.split("=", 1)[0]
    not in {"diff.external", "core.autocrlf", "core.safecrlf", "core.excludesFile", "color.ui"}
)

#: Environment variables forced on every git call agentci makes.
FORCED_ENV: dict[str, str] = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_ASKPASS": "true",
    "GIT_PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "LC_ALL": "C",
}

_DRIVER = re.compile(
    r"^(filter\..+\.(?:clean|smudge|process|required)"
    r"|diff\..+\.(?:textconv|command)"
    r"|merge\..+\.(?:driver|recursive))$",
    re.I,
)


def config_env(items: Sequence[str]) -> dict[str, str]:
    """``key=value`` items as ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``:
    config of the command-line level that every git process started with it (and every git
    those start) reads, above the repository's own config."""
    env = {"GIT_CONFIG_COUNT": str(len(items))}
    for n, item in enumerate(items):
        key, _, value = item.partition("=")
        env[f"GIT_CONFIG_KEY_{n}"] = key
        env[f"GIT_CONFIG_VALUE_{n}"] = value
    return env


def git_env(
    extra: Mapping[str, str] | None = None, *, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """agentci's environment (or ``base``) without any ``GIT_*`` variable, plus
    :data:`FORCED_ENV`, :data:`SAFE_CONFIG` (:func:`config_env`) and ``extra`` (e.g.
    ``GIT_DIR``/``GIT_WORK_TREE``/``GIT_INDEX_FILE`` of a private git dir)."""
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if not k.startswith("GIT_")}
    env.update(FORCED_ENV)
    env.update(config_env(SAFE_CONFIG))
    if extra:
        env.update(extra)
    return env


def _config_files(git_dir: Path) -> list[Path]:
    files = [git_dir / "config", git_dir / "config.worktree"]
    common = git_dir / "commondir"
    if common.is_file():
        base = (git_dir / common.read_text().strip()).resolve()
        files += [base / "config", base / "config.worktree"]
    return [f for f in files if f.is_file()]


#: The key names of config files read so far, by path and exact content (files without an
#: include only; :func:`_config_names`).
_NAMES: dict[tuple[str, bytes], list[str]] = {}
_NAMES_KEPT = 64


def _read(path: Path, limit: int = 1 << 20) -> bytes | None:
    """The bytes of the regular file ``path`` (None: not one, unreadable or over ``limit``)."""
    try:
        with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NONBLOCK)) as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            data = fh.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def _config_names(path: Path) -> list[str]:
    """The key names git lists for the config file ``path`` (its includes followed). A file
    read before with the same bytes, and including no other file, is not read by git again:
    a batch's tasks ask for the same repository's config over and over (several git processes
    a task)."""
    before = _read(path)
    cacheable = before is not None and b"include" not in before.lower()
    key = (str(path), before or b"")
    if cacheable and key in _NAMES:
        return _NAMES[key]
    done = subprocess.run(
        [git_program(), "config", "--file", str(path), "--includes", "--name-only", "--list"],
        env=git_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    names = done.stdout.splitlines()
    if cacheable and done.returncode == 0 and _read(path) == before:  # unchanged meanwhile
        if len(_NAMES) >= _NAMES_KEPT:
            _NAMES.clear()
        _NAMES[key] = names
    return names


def driver_overrides(git_dir: Path) -> list[str]:
    """``-c`` values neutralising every filter, diff and merge driver ``git_dir``'s config
    files (and the files they include) define. Reading a config file runs nothing."""
    out: list[str] = []
    for f in _config_files(git_dir):
        for name in _config_names(f):
            if not _DRIVER.match(name):
                continue
            key = name.rsplit(".", 1)[1].lower()
            value = {"clean": "cat", "smudge": "cat", "textconv": "cat", "required": "false"}
            item = f"{name}={value.get(key, 'false')}"
            if key == "process":
                item = f"{name}="
            if item not in out:
                out.append(item)
    return out


def git_program() -> str:
    """The git agentci runs: :func:`agentci.hostprog.host_program` — never from a relative
    ``PATH`` entry nor from a folder inside the workspace (a ``git`` an earlier agent left in a
    ``tools/bin`` on ``PATH`` is not the next run's git). ``"git"`` when there is none (the
    call then fails as it would have)."""
    return host_program("git") or "git"


def git_argv(args: Sequence[str], *, repo: Path | None = None) -> list[str]:
    """``git`` (:func:`git_program`) with :data:`SAFE_CONFIG` (and, for ``repo``'s git dir,
    its drivers neutralised) before ``args``."""
    argv = [git_program()]
    for item in SAFE_CONFIG:
        argv += ["-c", item]
    if repo is not None:
        for item in driver_overrides(repo):
            argv += ["-c", item]
    return [*argv, *args]


def run_git(
    args: Sequence[str],
    *,
    cwd: Path,
    repo: Path | None = None,
    extra_env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run agentci's own git (see the module doc): stdin closed, output captured, never
    raises for a non-zero exit. ``repo`` is the git dir of a repository agentci does not own
    (the user's or the agent's), whose drivers are neutralised; git is then pinned to it, with
    ``cwd`` as its work tree (``GIT_DIR``/``GIT_WORK_TREE``, unless ``extra_env`` names its
    own), so nothing in ``cwd`` can make git discover another repository. Raises
    ``FileNotFoundError`` when git is not installed."""
    pin: dict[str, str] = {}
    if repo is not None:
        pin = {"GIT_DIR": str(repo), "GIT_WORK_TREE": str(cwd)}
    return subprocess.run(
        git_argv(args, repo=repo),
        cwd=cwd,
        env=git_env({**pin, **(extra_env or {})}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        timeout=timeout,
    )
