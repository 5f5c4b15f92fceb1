"""Keep secrets out of every output, and tool output from steering the CI runner.

:class:`Redactor` replaces with ``***``:

* the values of environment variables whose *names* look secret — they contain KEY, TOKEN,
  SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH (not AUTHOR), PRIVATE or COOKIE — plus the variables named in
  ``extra_names`` (the recipe's list). Values shorter than 6 characters are not used (they would
  destroy logs); multi-line values are also matched line by line, and their URL-encoded, base64,
  base64url and hex forms too (best effort: the part of a base64 text that encodes the value
  whatever its offset, so ``echo $TOKEN | base64`` is caught).
* known token shapes, whatever their source: GitHub (``ghp_…``, ``gho_…``, ``ghu_…``, ``ghs_…``,
  ``ghr_…``, ``github_pat_…``), Google API keys (``AIza…``), AWS access key ids (``AKIA…``,
  ``ASIA…``), Slack (``xox?-…``), OpenAI/Anthropic-style ``sk-…`` keys, private-key PEM blocks,
  JWTs, ``Authorization: Bearer …`` values, and the password in ``scheme://user:password@host``
  (the user is kept).

Everything is one compiled regular expression, built once; :meth:`Redactor.redact` is one
``re.sub`` pass of the alternatives whose literal anchors the text holds (a prefilter: most tool
output holds none, and is returned after a few substring searches), in linear time (no alternative can rescan a long run of characters from every
position of it). :meth:`Redactor.redact_patch` redacts a unified diff's added lines only, so the
patch still applies (see docs/outputs.md). :func:`neutralise_workflow_commands` (re-exported
from :mod:`agentci.events.workflow_commands`) is the console side: tool output must not be able
to run GitHub workflow commands nor move the cursor with ANSI escapes.
"""

from __future__ import annotations

import base64
import json
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
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH(?!OR)|PRIVATE|COOKIE", re.IGNORECASE
)
# Names that match SECRET_NAME but hold locations, not secrets.
_NOT_SECRET_NAME = re.compile(r"(_SOCK|_PATH|_DIR)$", re.IGNORECASE)

# Each shape with the literals one of which every match of it contains (its anchors): a text
# holding none of a shape's anchors cannot match it, so the shape is left out of that text's
# pattern (the prefilter of :meth:`Redactor.redact`). An anchor that is a compiled pattern is
# searched for (the case-insensitive ``authorization``).
_SHAPES: list[tuple[str, tuple[str | re.Pattern[str], ...]]] = [
    (r"\bgh[pousr]_[A-Za-z0-9]{30,255}\b", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    (r"\bgithub_pat_[A-Za-z0-9_]{22,255}", ("github_pat_",)),
    (r"\bAIza[0-9A-Za-z_\-]{35}", ("AIza",)),
    (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", ("AKIA", "ASIA")),
    (r"\bxox[abposr]-[A-Za-z0-9-]{10,}", ("xox",)),
    (r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}", ("sk-",)),
    (r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*", ("eyJ",)),
    (r"(?s:-----BEGIN[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\Z))",
     ("-----BEGIN",)),
]  # fmt: skip
_AUTHORIZATION = re.compile("(?i:authorization)")
# Alternatives whose start is kept (a named group ``keep``) and only the rest is masked.
_KEEP_SHAPES: list[tuple[str, tuple[str | re.Pattern[str], ...]]] = [
    (r"(?P<keep1>(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@'\"]+:)[^/\s@'\"]+(?=@)",
     ("://",)),
    (r"(?P<keep2>(?i:\bauthorization\b[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token)\s+))[A-Za-z0-9._~+/=\-]{6,}",
     (_AUTHORIZATION,)),
]  # fmt: skip


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
        literal = [(_trie_pattern(self.values), self.values)] if self.values else []
        # the order of the alternatives is the full pattern's (the keep group names stay)
        self._parts = literal + _KEEP_SHAPES + _SHAPES
        self._full: re.Pattern[str] | None = None  # compiled when redact_full first needs it
        # which alternatives never match across a line end (their anchors are all plain text)
        self._local = tuple(
            all(isinstance(a, str) and "\n" not in a for a in anchors) and not p.startswith("(?s")
            for p, anchors in self._parts
        )
        self._subsets: dict[tuple[bool, ...], re.Pattern[str] | None] = {}
        # every anchor, when each one is found in a JSON text wherever a string of it holds it
        # (no character JSON escapes); None otherwise (:meth:`redact_json` then walks the object)
        anchors = [a for _, group in self._parts for a in group]
        self._json_anchors = anchors if all(_json_safe(a) for a in anchors) else None

    def _pattern_for(self, present: tuple[bool, ...]) -> re.Pattern[str] | None:
        """The alternatives of the full pattern that are ``present``, compiled once per such set
        (None: none). Dropping an alternative that matches nowhere in a text changes no match of
        a left-to-right, first-alternative-wins ``re.sub`` on it."""
        if present not in self._subsets:
            chosen = [p for (p, _), hit in zip(self._parts, present, strict=True) if hit]
            self._subsets[present] = re.compile("|".join(chosen)) if chosen else None
        return self._subsets[present]

    @classmethod
    def from_environ(
        cls, extra_names: Iterable[str] = (), environ: Mapping[str, str] | None = None
    ) -> Redactor:
        """A redactor for the secret-looking variables of ``environ`` (default ``os.environ``)."""
        env = os.environ if environ is None else environ
        return cls(env[n] for n in secret_names(env, extra_names))

    @staticmethod
    def _replace(m: re.Match[str]) -> str:
        groups = m.groupdict()
        keep = groups.get("keep1") or groups.get("keep2")
        return keep + MASK if keep else MASK

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``***``.

        A literal prefilter first: only the alternatives whose anchors (a secret value, ``ghp_``,
        ``AIza``, ``://`` …) occur in ``text`` run, a text with none of them is returned as it is,
        and when every alternative left matches within one line (no PEM block, no
        ``Authorization`` header, no multi-line secret), only the lines holding an anchor are
        searched. The result is the full pattern's (:meth:`redact_full`), in less time."""
        if not text:
            return text
        hits = [
            [a for a in anchors if (a.search(text) if isinstance(a, re.Pattern) else a in text)]
            for _, anchors in self._parts
        ]
        present = tuple(bool(h) for h in hits)
        pattern = self._pattern_for(present)
        if pattern is None:
            return text
        if not all(local for local, hit in zip(self._local, present, strict=True) if hit):
            return pattern.sub(self._replace, text)
        anchors = [a for h in hits for a in h if isinstance(a, str)]
        lines = text.split("\n")
        changed = False
        for i, line in enumerate(lines):
            if any(a in line for a in anchors):
                new = pattern.sub(self._replace, line)
                if new != line:
                    lines[i], changed = new, True
        return "\n".join(lines) if changed else text

    def redact_full(self, text: str) -> str:
        """``text`` redacted by the whole pattern, without the prefilter (the reference)."""
        if not text:
            return text
        if self._full is None:
            self._full = re.compile("|".join(p for p, _ in self._parts))
        return self._full.sub(self._replace, text)

    def redact_patch(self, patch: str) -> tuple[str, list[str]]:
        """``patch`` (a ``git diff``) with secrets masked in added lines only.

        Context and removed lines, headers and binary hunks are never altered, so the patch
        still applies to the files it was taken from. Returns the text and the files (their
        ``b/`` path) whose added lines were masked.
        """
        if not patch:
            return patch, []
        out: list[str] = []
        masked: list[str] = []
        current = ""
        old_left = new_left = 0
        for line in patch.splitlines(keepends=True):
            if old_left > 0 or new_left > 0:
                tag = line[:1]
                if tag == "+":
                    new_left -= 1
                    body = self.redact(line[1:])
                    if body != line[1:]:
                        line = "+" + body
                        if current not in masked:
                            masked.append(current)
                elif tag == "-":
                    old_left -= 1
                elif tag == " " or line in ("\n", "\r\n"):
                    old_left -= 1
                    new_left -= 1
                out.append(line)  # "\ No newline at end of file" changes no count
                continue
            hunk = _HUNK.match(line)
            if hunk:
                old_left = int(hunk.group(1) or 1)
                new_left = int(hunk.group(2) or 1)
            elif line.startswith("diff --git "):
                current = _patch_path(line)
            out.append(line)
        return "".join(out), masked

    def redact_json(self, obj: Any) -> Any:
        """:meth:`redact_obj` with one prefilter for the whole object: when no anchor occurs in
        its JSON text, no string in it can be masked and ``obj`` itself comes back, unwalked
        (an event's data: most events hold nothing to mask)."""
        anchors = self._json_anchors
        if anchors is not None and not isinstance(obj, str):
            try:
                text = json.dumps(obj, ensure_ascii=False)
            except (TypeError, ValueError):
                return self.redact_obj(obj)
            if not any(a.search(text) if isinstance(a, re.Pattern) else a in text for a in anchors):
                return obj
        return self.redact_obj(obj)

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


def _json_safe(anchor: str | re.Pattern[str]) -> bool:
    """Whether ``anchor`` occurs in the JSON text of any string holding it: a literal without
    a quote, a backslash or a control character (JSON escapes those), or the
    case-insensitive ``authorization``."""
    if isinstance(anchor, re.Pattern):
        return anchor is _AUTHORIZATION
    return not any(ch in '"\\' or ord(ch) < 0x20 for ch in anchor)


def _trie_pattern(words: Iterable[str]) -> str:
    """One regex matching any of ``words`` (longest first), as a prefix tree: at each position
    the engine follows one branch instead of trying every word."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = True

    def emit(node: dict[str, Any]) -> str:
        end = "" in node
        branches = []
        for ch, child in sorted(node.items()):
            if not ch:
                continue
            run = [ch]
            while len(child) == 1 and "" not in child:  # a chain: no nesting, no recursion
                ((nxt, child),) = child.items()
                run.append(nxt)
            branches.append(re.escape("".join(run)) + emit(child))
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if end else body

    return "(?:" + emit(trie) + ")"


_HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def _patch_path(header: str) -> str:
    """The file a ``diff --git a/X b/X`` header names (its ``b/`` side)."""
    rest = header[len("diff --git ") :].rstrip("\r\n")
    half = len(rest) // 2  # "a/X b/X": both sides are the same path (no renames)
    if rest.startswith('"'):
        return rest[rest.rfind(' "') + 1 :].strip('"')[2:]
    return rest[half + 1 :][2:] if rest[half] == " " else rest.split(" b/", 1)[-1]


def _variants(value: str) -> list[str]:
    value = value.strip()
    out = [value]
    quoted = quote(value, safe="")
    if quoted != value:
        out.append(quoted)
    if "\n" in value:
        out.extend(line.strip() for line in value.splitlines())
    raw = value.encode("utf-8", "surrogateescape")
    if len(raw) >= MIN_SECRET_LENGTH:
        out += [raw.hex(), raw.hex().upper()]
        out += _base64_cores(raw)
    return out


def _base64_cores(raw: bytes) -> list[str]:
    """The base64/base64url characters that encode ``raw`` whatever its offset in a longer text.

    At offset ``s`` (0, 1, 2 bytes into a 3-byte group), the first characters also carry bits of
    the bytes before and the last ones bits of the bytes after: only the middle is kept.
    """
    cores = []
    for shift in range(3):
        enc = base64.b64encode(b"\0" * shift + raw).decode("ascii")
        start = (shift * 8 + 5) // 6
        end = (shift + len(raw)) * 8 // 6
        core = enc[start:end]
        cores.append(core)
        cores.append(core.replace("+", "-").replace("/", "_"))
    return cores
