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
* reaches no remote: ``GIT_ALLOW_PROTOCOL`` allows no protocol and ``GIT_NO_LAZY_FETCH``
  stops lazy fetches (:data:`FORCED_ENV`). A repository's ``protocol.ext.allow=always`` would
  outrank ``protocol.allow=never``, and a missing object in a repository whose config names a
  promisor remote makes even ``git cat-file -e`` fetch, running an ``ext::`` URL's command;
* overrides, with ``-c`` (the highest-priority config layer), every key of the repository's
  own config that makes git start a program: ``core.fsmonitor``, ``core.hooksPath`` (hooks),
  ``core.attributesFile``, ``core.pager``/``core.editor``/``core.askPass``/``core.sshCommand``,
  ``diff.external``, ``credential.helper``, ``gpg.program``, ``protocol.allow`` …;
* neutralises the per-name drivers a repository config may define (``filter.<x>.clean``/
  ``smudge``/``process``, ``diff.<x>.textconv``/``command``, ``merge.<x>.driver``) and a
  ``diff.external`` it sets: pass the repository's git dir as ``repo`` and each one that its
  config files or *any* file they include (``include.path``, ``includeIf`` whatever its
  condition: :mod:`agentci.gitdrivers`) defines is overridden with a harmless value (no
  filter, ``cat`` for textconv, ``false`` otherwise), whatever attributes select it. These
  go in the environment only, as (key, value) pairs: a driver named ``a=b`` is a key
  ``filter.a=b.smudge`` there, where ``-c filter.a=b.smudge=cat`` would set ``filter.a``.

The same keys also go in the environment (``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/
``GIT_CONFIG_VALUE_n``, :func:`config_env`), so a git that git itself starts gets them too; and
:func:`run_git` given a repository's git dir pins git to it (``GIT_DIR``/``GIT_WORK_TREE``):
it never discovers a repository from its working directory. The model's read-only git
commands and hooks get :data:`TOOL_CONFIG` and the drivers neutralised the same way
(:mod:`agentci.policy.gitpin`, :mod:`agentci.hooks.env`).

What stays open: a config file changed between agentci listing it and git reading it (no
agent runs while agentci's own git does, but a batch's other tasks do; a repository config
that includes a file in another task's workspace could change under it).

Callers that work in a private git dir of their own (:mod:`agentci.change.patch`) need no
``repo`` scan: that config is agentci's, and only the working tree is the agent's.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from agentci.gitdrivers import driver_names
from agentci.hostprog import host_program

#: A config key and its value, carried as a pair from end to end: a driver's name may hold
#: ``=`` (``[filter "a=b"]``), so ``key=value`` text cannot be split back.
ConfigItem = tuple[str, str]

#: Overrides on every git call agentci makes (``-c`` and ``GIT_CONFIG_*``).
SAFE_CONFIG: tuple[ConfigItem, ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.attributesFile", "/dev/null"),
    ("core.excludesFile", "/dev/null"),
    ("core.untrackedCache", "false"),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("core.askPass", "true"),
    ("core.sshCommand", "false"),
    ("core.gitProxy", "false"),
    ("core.alternateRefsCommand", "true"),
    ("core.autocrlf", "false"),
    ("core.safecrlf", "false"),
    ("credential.helper", ""),
    ("diff.external", "false"),  # fails loudly: diff callers pass --no-ext-diff
    ("gpg.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("protocol.allow", "never"),
    ("submodule.recurse", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("color.ui", "false"),
)

#: Keys of :data:`SAFE_CONFIG` that change no output a reader of the repository expects: the
#: model's read-only git commands and hooks get these (line-ending conversion, the user's
#: excludes and colours stay as the repository has them). ``diff.external`` is left out too:
#: no value of it means "none", so it is overridden (:func:`driver_overrides`) only where a
#: repository's config sets it, and a plain ``git diff`` elsewhere keeps working.
TOOL_CONFIG: tuple[ConfigItem, ...] = tuple(
    item
    for item in SAFE_CONFIG
    if item[0]
    not in {"diff.external", "core.autocrlf", "core.safecrlf", "core.excludesFile", "color.ui"}
)

#: Environment variables forced on every git call agentci makes. ``GIT_ALLOW_PROTOCOL`` names
#: no protocol git has (it outranks every ``protocol.*`` key of every config, a repository's
#: ``protocol.ext.allow=always`` too, and each git that git starts inherits it), so no fetch,
#: push, clone or remote helper can start: a repository whose config names a promisor remote
#: (``remote.<r>.promisor``) with an ``ext::sh payload`` URL, an ``uploadpack`` command or a
#: ``remote.<r>.vcs`` helper makes git's lazy fetch of a missing object fail ("transport 'ext'
#: not allowed") instead of running it. The value is not empty (each ``:``-separated entry
#: is a name allowed, and a remote helper may be named "") and holds a ``/``: no remote helper
#: ``git-remote-none/`` can exist. ``GIT_NO_LAZY_FETCH=1`` (git 2.45 and later; ignored
#: before) stops a lazy fetch before it looks for a transport. Delivery's push allows its one
#: protocol, in its own scratch repository only (:mod:`agentci.delivery.pull_request`).
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
    "GIT_ALLOW_PROTOCOL": "none/",
    "GIT_NO_LAZY_FETCH": "1",
    "LC_ALL": "C",
}

#: The variables of :data:`FORCED_ENV` that keep git from reaching any remote.
NO_REMOTE: tuple[str, ...] = ("GIT_ALLOW_PROTOCOL", "GIT_NO_LAZY_FETCH")


def config_env(items: Sequence[ConfigItem]) -> dict[str, str]:
    """(key, value) items as ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``:
    config of the command-line level that every git process started with it (and every git
    those start) reads, above the repository's own config. git takes each key and value
    verbatim (a key with ``=``, quotes or spaces in its subsection too; one git cannot take,
    with a newline, makes git stop with an error: nothing runs)."""
    env = {"GIT_CONFIG_COUNT": str(len(items))}
    for n, (key, value) in enumerate(items):
        env[f"GIT_CONFIG_KEY_{n}"] = key
        env[f"GIT_CONFIG_VALUE_{n}"] = value
    return env


def git_env(
    extra: Mapping[str, str] | None = None,
    *,
    base: Mapping[str, str] | None = None,
    repo: Path | None = None,
) -> dict[str, str]:
    """agentci's environment (or ``base``) without any ``GIT_*`` variable, plus
    :data:`FORCED_ENV`, :data:`SAFE_CONFIG` (:func:`config_env`), for the git dir ``repo``
    its drivers neutralised (:func:`driver_overrides`), and ``extra`` (e.g.
    ``GIT_DIR``/``GIT_WORK_TREE``/``GIT_INDEX_FILE`` of a private git dir)."""
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if not k.startswith("GIT_")}
    env.update(FORCED_ENV)
    items = list(SAFE_CONFIG)
    if repo is not None:
        items += driver_overrides(repo)
    env.update(config_env(items))
    if extra:
        env.update(extra)
    return env


def _program(name: str) -> str:
    """``name``'s absolute path (:func:`host_program`), quoted for the shell git may use."""
    return shlex.quote(host_program(name) or name)


def driver_overrides(git_dir: Path) -> list[ConfigItem]:
    """(key, value) overrides neutralising every filter, diff and merge driver (and a
    ``diff.external``) that ``git_dir``'s config files, or any file they include under any
    condition, define (:func:`agentci.gitdrivers.driver_names`): filters do nothing (an empty
    command: the bytes pass unchanged), textconv is ``cat``, a diff command, external diff or
    merge driver is ``false`` (git reports it failed). Reading config runs nothing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(FORCED_ENV)
    out: list[ConfigItem] = []
    for name in driver_names(git_dir, git=git_program(), env=env):
        kind = name.rsplit(".", 1)[1].lower()
        if kind in ("clean", "smudge", "process"):
            value = ""
        elif kind == "textconv":
            value = _program("cat")
        else:  # required, command, external, driver, recursive
            value = _program("false") if kind != "required" else "false"
        out.append((name, value))
    return out


def git_program() -> str:
    """The git agentci runs: :func:`agentci.hostprog.host_program` — never from a relative
    ``PATH`` entry nor from a folder inside the workspace (a ``git`` an earlier agent left in a
    ``tools/bin`` on ``PATH`` is not the next run's git). ``"git"`` when there is none (the
    call then fails as it would have)."""
    return host_program("git") or "git"


def git_argv(args: Sequence[str]) -> list[str]:
    """``git`` (:func:`git_program`) with :data:`SAFE_CONFIG` as ``-c`` options before
    ``args``. A repository's drivers are neutralised in the environment (``git_env(...,
    repo=...)``): a driver's name may hold ``=``, which ``-c`` cannot carry."""
    argv = [git_program()]
    for key, value in SAFE_CONFIG:
        argv += ["-c", f"{key}={value}"]
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
        git_argv(args),
        cwd=cwd,
        env=git_env({**pin, **(extra_env or {})}, repo=repo),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        timeout=timeout,
    )
