"""The environment of one verify run, importable without the verify machinery (the pre-commit
hook's clean path, :mod:`agentci.precommit.quick`, builds it too)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path


def verify_env(
    base: Mapping[str, str], runner: str | None, junit_path: Path | None
) -> dict[str, str]:
    """``base`` (the tools' allowlisted environment) with no caches written (bytecode, ruff,
    mypy) and, for ``runner: pytest`` with ``junit_path``, pytest's JUnit report asked for."""
    env = dict(base)
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    env.setdefault("RUFF_NO_CACHE", "true")
    env.setdefault("MYPY_CACHE_DIR", os.devnull)  # no cache: none in the workspace, none stale
    if runner == "pytest" and junit_path is not None:
        extra = f"--junitxml={shlex.quote(str(junit_path))} -p no:cacheprovider"
        env["PYTEST_ADDOPTS"] = f"{env.get('PYTEST_ADDOPTS', '')} {extra}".strip()
    return env
