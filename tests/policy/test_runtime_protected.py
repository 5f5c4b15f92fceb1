"""agentci's own installation, when the workspace holds it, is a protected path.

The workspace here is the folder holding the ``agentci`` package this test imports (a source
checkout or an editable install; site-packages otherwise): the host imports that package's
modules after the agent worked, so the agent may not write them.
"""

from __future__ import annotations

import os
from pathlib import Path

import agentci
from agentci.policy.paths import Protected
from agentci.policy.runtime import host_path

PACKAGE = Path(os.path.realpath(agentci.__file__)).parent


def test_the_agentci_package_in_the_workspace_is_never_writable() -> None:
    guard = Protected(PACKAGE.parent)
    why = guard.why(PACKAGE / "cli" / "__init__.py")
    assert why == "agentci/"
    assert guard.explain(why) == "; it is agentci's own installation, which the host runs"
    assert PACKAGE in guard.sandbox_readonly()


def test_an_ordinary_workspace_file_stays_writable() -> None:
    guard = Protected(PACKAGE.parent)
    assert guard.why(PACKAGE.parent / "NOTES.md") == ""
    assert guard.explain("") == ""


def test_hosts_path_keeps_agentcis_own_folders_and_drops_the_workspaces_others() -> None:
    ws = PACKAGE.parent
    value = os.pathsep.join([f"{ws}/node_modules/.bin", str(PACKAGE), "", "bin", "/usr/bin"])
    assert host_path(value, ws) == os.pathsep.join([str(PACKAGE), "/usr/bin"])
