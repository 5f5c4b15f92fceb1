"""pytest's collection settings in a project's configuration files, read as data.

:func:`collection_settings` reads the settings that decide which tests pytest collects and runs
from one file's text: ``[pytest]`` in ``pytest.ini`` / ``tox.ini``, ``[tool:pytest]`` in
``setup.cfg``, ``[tool.pytest.ini_options]`` (and pytest 9's ``[tool.pytest]``) in
``pyproject.toml``. :func:`weakening_changes` says which of them a change made weaker:

* ``addopts`` gaining an option other than output ones (``-v``, ``-q``, ``-r…``, ``--tb``,
  ``--strict-markers``, ``-W``…), such as ``-k``, ``-m``, ``--deselect``, ``--ignore``, ``-p``;
* ``testpaths``, ``norecursedirs``, ``python_files``, ``python_classes``, ``python_functions``
  changed in any way, and ``xfail_strict`` turned off.
"""

from __future__ import annotations

import configparser
import shlex
import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found,no-redef,unused-ignore]

#: The files pytest reads its settings from (by base name).
CONFIG_FILES = ("pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")
#: Settings whose every change alters what is collected.
COLLECTION_KEYS = ("testpaths", "norecursedirs", "python_files", "python_classes",
                   "python_functions")  # fmt: skip
#: addopts options that only change what pytest prints or how strict it is.
HARMLESS = ("-v", "-q", "-r", "-l", "-s", "-W", "--tb", "--strict", "--color", "--durations",
            "--showlocals", "--verbose", "--quiet", "--capture", "--runxfail", "-x", "--maxfail",
            "--import-mode", "--doctest", "--code-highlight", "--no-header", "--no-summary")  # fmt: skip

#: addopts options whose value is the next word.
TAKES_VALUE = ("-k", "-m", "-p", "-c", "-o", "-W", "-r", "--deselect", "--ignore", "--ignore-glob",
               "--tb", "--maxfail", "--durations", "--rootdir", "--confcutdir", "--import-mode",
               "--capture", "--color", "--junitxml", "--override-ini", "--basetemp")  # fmt: skip


def collection_settings(name: str, text: str) -> dict[str, str]:
    """The pytest settings in one configuration file (base name ``name``); {} when the file
    has no pytest section or does not parse."""
    if name == "pyproject.toml":
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, ValueError):
            return {}
        tool = data.get("tool", {}) if isinstance(data.get("tool"), dict) else {}
        pytest = tool.get("pytest", {}) if isinstance(tool.get("pytest"), dict) else {}
        section: dict[str, Any] = dict(pytest)
        ini = section.pop("ini_options", None)
        if isinstance(ini, dict):
            section = {**section, **ini}
        return {k: _text(v) for k, v in section.items()}
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    wanted = "tool:pytest" if name == "setup.cfg" else "pytest"
    if not parser.has_section(wanted):
        return {}
    return {k: v.strip() for k, v in parser.items(wanted)}


def _text(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return str(value)


def _options(addopts: str) -> list[str]:
    """``addopts`` as options, each with the value that follows it (``-k "not slow"`` is one);
    a path on its own (which narrows the run to it) is one too."""
    try:
        words = shlex.split(addopts)
    except ValueError:
        words = addopts.split()
    out: list[str] = []
    for word in words:
        if out and out[-1] in TAKES_VALUE:
            out[-1] = f"{out[-1]} {word}"
        else:
            out.append(word)
    return out


def weakening_changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What the change did to the settings that can hide tests, one sentence each."""
    found = []
    old = _options(before.get("addopts", ""))
    added = [o for o in _options(after.get("addopts", "")) if o not in old]
    narrowing = [o for o in added if not o.startswith(HARMLESS)]
    if narrowing:
        found.append(f"addopts gained {' '.join(narrowing)}")
    for key in COLLECTION_KEYS:
        if before.get(key, "") != after.get(key, ""):
            found.append(f"{key} changed from {before.get(key, '')!r} to {after.get(key, '')!r}")
    if _truthy(before.get("xfail_strict")) and not _truthy(after.get("xfail_strict")):
        found.append("xfail_strict turned off")
    return found


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("true", "1", "yes", "on")
