"""Glob patterns the model writes, matched in linear time.

A model-chosen glob is untrusted input: Python's ``re`` backtracks, so a pattern such as
``*a*a*a*a*a*a*a*a*a*b`` against a long file name can hold the interpreter (and its GIL)
for minutes. Patterns here follow ``.gitignore`` rules (pathspec translates them to a
regular expression) and are compiled with RE2, whose matching time is linear in the name.
``{a,b}`` alternatives are expanded first (at most :data:`MAX_ALTERNATIVES`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pathspec.util
import re2  # type: ignore[import-untyped]

from agentci.errors import ToolFailure

MAX_ALTERNATIVES = 64
MAX_GLOB_CHARS = 1000
_GLOB_CHARS = re.compile(r"[*?\[\]{}\\!]")
#: A file name glob whose meaning is the same for every engine's name filter and for
#: ``.gitignore`` rules: letters, digits, ``._-`` and the wildcards ``*`` and ``?``.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9._*?-]+")


def re2_options() -> re2.Options:
    """RE2 options for untrusted patterns (errors are returned, not logged to stderr)."""
    opts = re2.Options()
    opts.log_errors = False
    return opts


def expand_braces(pattern: str) -> list[str]:
    """``*.{ts,tsx}`` → ``*.ts``, ``*.tsx`` (innermost groups first, bounded)."""
    out, todo = [], [pattern]
    while todo:
        p = todo.pop()
        group = _inner_group(p)
        if group is None:
            out.append(p)
        else:
            start, end = group
            todo.extend(p[:start] + alt + p[end + 1 :] for alt in p[start + 1 : end].split(","))
        if len(out) + len(todo) > MAX_ALTERNATIVES:
            raise ToolFailure(f"the pattern expands to more than {MAX_ALTERNATIVES} alternatives")
    return sorted(set(out))


def _inner_group(pattern: str) -> tuple[int, int] | None:
    """The first innermost ``{…,…}`` group (index of ``{`` and ``}``), or None."""
    end = pattern.find("}")
    while end != -1:
        start = pattern.rfind("{", 0, end)
        if start != -1 and "," in pattern[start:end]:
            return start, end
        end = pattern.find("}", end + 1)
    return None


def gitignore_regex(line: str) -> tuple[str | None, bool | None]:
    """pathspec's translation of one ``.gitignore`` line: (regex or None, include)."""
    pattern_class: Any = pathspec.util.lookup_pattern("gitignore")
    regex, include = pattern_class.pattern_to_regex(line)
    return (regex if isinstance(regex, str) or regex is None else regex.decode()), include


def compile_re2(regex: str) -> re2._Regexp:
    """Compile a regex with RE2; a pattern RE2 refuses is a tool failure."""
    try:
        return re2.compile(regex, re2_options())
    except re2.error as exc:
        raise ToolFailure(f"invalid pattern: {exc}") from None


@dataclass(frozen=True)
class PathGlob:
    """A glob as the ``glob`` tool and ``include_pattern`` take it.

    A pattern without ``/`` matches a file name at any depth below ``rel_base``; one with a
    ``/`` (or starting with ``**``) is taken from ``rel_base``. Paths are workspace-relative.
    """

    pattern: str
    rel_base: str = "."

    def __post_init__(self) -> None:
        if len(self.pattern) > MAX_GLOB_CHARS:
            raise ToolFailure(f"the pattern is longer than {MAX_GLOB_CHARS} characters")
        rxs = []
        for alt in expand_braces(self.pattern):
            regex, include = gitignore_regex(self._anchor(alt))
            if regex is not None and include:
                rxs.append(compile_re2(regex))
        object.__setattr__(self, "_rxs", tuple(rxs))

    def _anchor(self, pattern: str) -> str:
        if "/" in pattern.strip("/") or pattern.startswith("**"):
            prefix = "" if self.rel_base == "." else self.rel_base + "/"
            return "/" + prefix + pattern.lstrip("/")
        return pattern

    def match(self, rel: str) -> bool:
        """Whether the workspace-relative path ``rel`` matches."""
        return any(rx.search(rel) for rx in self._rxs)  # type: ignore[attr-defined]

    def roots(self) -> list[str]:
        """Workspace-relative directories the matches must lie under (literal prefixes)."""
        out = set()
        for alt in expand_braces(self.pattern):
            anchored = self._anchor(alt)
            if not anchored.startswith("/"):
                out.add(self.rel_base)
                continue
            parts = anchored.strip("/").split("/")[:-1]
            literal = []
            for part in parts:
                if _GLOB_CHARS.search(part) or part in ("", ".", ".."):
                    break
                literal.append(part)
            out.add("/".join(literal) or ".")
        return sorted(_outermost(out))

    def names_suffice(self) -> bool:
        """True when every file under :meth:`roots` whose name matches one of
        :meth:`name_globs` matches the pattern (each alternative is a plain name glob, at any
        depth: ``*.py``, ``**/test_*.py``): the engine's name filter is then the whole match,
        and no path needs :meth:`match`."""
        for alt in expand_braces(self.pattern):
            name = alt[3:] if alt.startswith("**/") else alt
            if not _PLAIN_NAME.fullmatch(name) or "**" in name or not name.strip("."):
                return False
        return self.name_globs() is not None

    def name_globs(self) -> list[str] | None:
        """Globs one of which every matching file's name matches (None: no such list)."""
        names = set()
        for alt in expand_braces(self.pattern):
            last = alt.rsplit("/", 1)[-1]
            if alt.endswith("/") or "**" in last or last.startswith("!") or not last:
                return None
            names.add(last)
        return sorted(names)


def _outermost(dirs: set[str]) -> set[str]:
    """Drop directories that lie inside another one of the set."""
    if "." in dirs:
        return {"."}
    keep: set[str] = set()
    for d in sorted(dirs):
        if not any(d.startswith(k + "/") for k in keep):
            keep.add(d)
    return keep


class NameGlobs:
    """Globs matched against one name (``list_directory``'s ``ignore``), in linear time."""

    def __init__(self, patterns: list[str] | None) -> None:
        self._globs = [PathGlob(p) for p in patterns or () if p]

    def match(self, name: str) -> bool:
        """Whether ``name`` matches any of the globs."""
        return any(g.match(name) for g in self._globs)
