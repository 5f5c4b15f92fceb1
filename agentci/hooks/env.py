"""The environment of a hook: the tools' allowlist, agentci's variables, and git pinned.

A hook may run git (``git diff`` to look at the change). git must not discover a repository the
agent planted (a folder with ``HEAD``, ``config`` with ``core.fsmonitor``, ``objects/`` and
``refs/``: git would run the monitor command on the host), nor take a program from the
workspace's own config. So every hook gets:

* ``GIT_DIR``/``GIT_WORK_TREE`` pinned to the repository the workspace is in, when there is
  one (:func:`agentci.policy.gitpin.find_repo`: git in the hook works on it, wherever the
  hook's working directory is);
* ``GIT_CEILING_DIRECTORIES`` above the hook's folder and the workspace, and
  ``safe.bareRepository=explicit``: no discovery above them, no bare repository found by
  walking into it;
* the keys the model's read-only git gets (:data:`agentci.gitenv.TOOL_CONFIG`:
  ``core.fsmonitor=false``, no hooks, pager, editor, gpg, credential helper, …) and every
  filter, diff and merge driver and ``diff.external`` that the repository's config, or any
  file it includes under any condition, defines neutralised
  (:func:`agentci.gitenv.driver_overrides`: a ``git diff`` in a repository whose config sets
  ``diff.external`` fails instead of running it), through ``GIT_CONFIG_COUNT``/
  ``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>`` (:func:`agentci.gitenv.config_env`, keys
  and values as pairs: a driver named ``a=b`` is overridden too), which outrank every config
  file; no system or global config.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from agentci.gitenv import FORCED_ENV, TOOL_CONFIG, ConfigItem, config_env, driver_overrides
from agentci.policy.gitpin import find_repo
from agentci.policy.runtime import host_path

#: Keys every hook's git gets on top of :data:`agentci.gitenv.TOOL_CONFIG`.
HOOK_GIT_CONFIG: tuple[ConfigItem, ...] = (("safe.bareRepository", "explicit"),)


def git_pins(workspace: Path, home: Path) -> dict[str, str]:
    """The ``GIT_*`` variables of a hook whose working directory is ``home``."""
    real = Path(os.path.realpath(workspace))
    env = {k: v for k, v in FORCED_ENV.items() if k != "LC_ALL"}
    env["GIT_CEILING_DIRECTORIES"] = os.pathsep.join(
        str(p) for p in dict.fromkeys((Path(os.path.realpath(home)).parent, real.parent))
    )
    items: list[ConfigItem] = [*TOOL_CONFIG, *HOOK_GIT_CONFIG]
    repo = find_repo(real)
    if repo is not None:
        env["GIT_DIR"], env["GIT_WORK_TREE"] = str(repo.git_dir), str(repo.work_tree)
        items += driver_overrides(repo.git_dir)
    env.update(config_env(items))
    return env


def hook_env(base: Mapping[str, str], workspace: Path, home: Path) -> dict[str, str]:
    """``base`` (the tools' allowlist) without any ``GIT_*`` variable, plus agentci's
    variables (``AGENTCI_RECIPE_DIR`` is the private copy), ``PYTHONSAFEPATH=1`` and the git
    pins of :func:`git_pins`. ``PATH`` loses the workspace's folders (the agent may have
    written a ``git`` or a ``python`` there; :func:`agentci.policy.runtime.host_path`)."""
    env = {k: v for k, v in base.items() if not k.startswith("GIT_")}
    if "PATH" in env:
        env["PATH"] = host_path(env["PATH"], workspace)
    env.update(
        {
            "AGENTCI_WORKSPACE": str(workspace),
            "AGENTCI_RECIPE_DIR": str(home),
            "PYTHONSAFEPATH": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    env.update(git_pins(workspace, home))
    return env
