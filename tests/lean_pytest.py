"""Verify's pytest without the suite's own pytest plugins.

The suite's venv holds pytest plugins the small repositories' tests never use (hypothesis,
anyio, xdist, timeout); a verify pytest spent about 1.5 s of CPU loading them per run (the
hypothesis plugin imports all of hypothesis at the end of every session). A recipe whose
``policy`` is :func:`without_plugin_autoload`, run with :data:`NO_PLUGIN_AUTOLOAD` in agentci's
environment, passes the variable on to verify and the model's commands; the plugins agentci
loads with ``-p`` still load.
"""

from __future__ import annotations

from typing import Any

NO_PLUGIN_AUTOLOAD = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def without_plugin_autoload(policy: dict[str, Any] | None) -> dict[str, Any]:
    """``policy`` (a recipe's, or none) that also passes NO_PLUGIN_AUTOLOAD to verify."""
    policy = dict(policy or {})
    policy["env_passthrough"] = [*policy.get("env_passthrough", []), *NO_PLUGIN_AUTOLOAD]
    return policy
