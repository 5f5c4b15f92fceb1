"""Keep secrets out of every output, and tool output from steering the CI runner.

:class:`Redactor` replaces with ``***``:

* the values of environment variables whose *names* look secret — they contain KEY, TOKEN,
  SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH (not AUTHOR) or PRIVATE — plus the variables named in
  ``extra_names`` (the recipe's list). Values shorter than 6 characters are not used (they would
  destroy logs); multi-line values are also matched line by line, and their URL-encoded form too.
* known token shapes, whatever their source: GitHub (``ghp_…``, ``gho_…``, ``ghu_…``, ``ghs_…``,
  ``ghr_…``, ``github_pat_…``), Google API keys (``AIza…``), AWS access key ids (``AKIA…``,
  ``ASIA…``), Slack (``xox?-…``), OpenAI/Anthropic-style ``sk-…`` keys, private-key PEM blocks,
  JWTs, ``Authorization: Bearer …`` values, and the password in ``scheme://user:password@host``
  (the user is kept).

Everything is one compiled regular expression, built once; :meth:`Redactor.redact` is one
``re.sub`` pass. :func:`neutralise_workflow_commands` is the console side: tool output must not be
able to run GitHub workflow commands (``::add-mask::``, ``::stop-commands::``, ``::set-output``,
any ``::name::`` at a line start, the legacy ``##[name]``) nor move the cursor with ANSI escapes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from agentci.events.workflow_commands import neutralise_workflow_commands

__all__ = ["Redactor", "neutralise_workflow_commands", "secret_names"]

MASK = "***"
MIN_SECRET_LENGTH = 6

SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH(?!OR)|PRIVATE", re.IGNORECASE
)
# Names that match SECRET_NAME but hold locations, not secrets.
_NOT_SECRET_NAME = re.compile(r"(_SOCK|_PATH|_DIR)$", re.IGNORECASE)

_SHAPES = [
    r"\bgh[pousr]_[A-Za-z0-9]{30,255}\b",
    r"\bgithub_pat_[A-Za-z0-9_]{22,255}",
    r"\bAIza[0-9A-Za-z_\-]{35}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}",
    r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
    r"(?s:-----BEGIN[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\Z))",
]
# Alternatives whose start is kept (a named group ``keep``) and only the rest is masked.
_KEEP_SHAPES = [
    r"(?P<keep1>[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@'\"]+:)[^/\s@'\"]+(?=@)",
    r"(?P<keep2>(?i:\bauthorization\b[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token)\s+))[A-Za-z0-9._~+/=\-]{6,}",
]


def secret_names(environ: Mapping[str, str], extra_names: Iterable[str] = ()) -> list[str]:
    """The variable names whose values are treated as secrets."""
    extra = set(extra_names)
    return sorted(
        n
        for n in environ
        if n in extra or (SECRET_NAME.search(n) and not _NOT_SECRET_NAME.search(n))
    )


class Redactor:
    """Replaces known secret values and secret shapes with ``***`` (see the module docstring)."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        found: set[str] = set()
        for value in values:
            for candidate in _variants(value):
                if len(candidate) >= MIN_SECRET_LENGTH:
                    found.add(candidate)
        self.values: tuple[str, ...] = tuple(sorted(found, key=lambda v: (-len(v), v)))
        literal = [re.escape(v) for v in self.values]
        self._pattern = re.compile("|".join(literal + _KEEP_SHAPES + _SHAPES))

    @classmethod
    def from_environ(
        cls, extra_names: Iterable[str] = (), environ: Mapping[str, str] | None = None
    ) -> Redactor:
        """A redactor for the secret-looking variables of ``environ`` (default ``os.environ``)."""
        env = os.environ if environ is None else environ
        return cls(env[n] for n in secret_names(env, extra_names))

    @staticmethod
    def _replace(m: re.Match[str]) -> str:
        keep = m.group("keep1") or m.group("keep2")
        return keep + MASK if keep else MASK

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``***``."""
        if not text:
            return text
        return self._pattern.sub(self._replace, text)

    def redact_obj(self, obj: Any) -> Any:
        """A copy of JSON-able ``obj`` with every string (keys too) redacted."""
        if isinstance(obj, str):
            return self.redact(obj)
        if isinstance(obj, Mapping):
            return {
                (self.redact(k) if isinstance(k, str) else k): self.redact_obj(v)
                for k, v in obj.items()
            }
        if isinstance(obj, (list, tuple)):
            return [self.redact_obj(v) for v in obj]
        return obj


def _variants(value: str) -> list[str]:
    value = value.strip()
    out = [value]
    quoted = quote(value, safe="")
    if quoted != value:
        out.append(quoted)
    if "\n" in value:
        out.extend(line.strip() for line in value.splitlines())
    return out
