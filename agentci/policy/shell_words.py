"""The words of a bash command parsed by tree-sitter-bash, as the shell would pass them.

A word is its value with quotes and backslashes removed; None when it expands at run time (a
variable, ``$(…)``, ``{a,b}`` braces); a :class:`GlobWord` when bash would replace it with
matching file names. :mod:`agentci.policy.shell_parse` reads every command's words with these.
"""

from __future__ import annotations

import re

from tree_sitter import Node


def node_text(node: Node) -> str:
    """A syntax node's source text (tree-sitter gives bytes, or None for a missing node)."""
    return node.text.decode("utf-8", "replace") if node.text is not None else ""


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""), flags=re.S)


def literal(node: Node) -> str | None:
    """The value of a word node as the shell would pass it, or None if it expands."""
    t = node.type
    text = node_text(node) if node.text is not None else ""
    if t in ("word", "number"):
        return None if "$" in text or "`" in text else _unescape(text)
    if t == "raw_string":
        return text[1:-1]
    if t == "string":
        out = []
        for c in node.children:
            if c.type == '"':
                continue
            if c.type != "string_content":
                return None
            out.append(_unescape(node_text(c)))
        return "".join(out)
    if t == "concatenation":
        parts = [literal(c) for c in node.children]
        return None if any(p is None for p in parts) else "".join(parts)  # type: ignore[arg-type]
    return None


class GlobWord(str):
    """A word with an unquoted pattern (``*``, ``?``, ``[…]``): bash replaces it with the
    matching file names, which may look like options (a file named ``--output=x``)."""


# A {…} with no brace inside; it expands when it holds a , or a .. (checked on the match: a
# pattern that looks for the , inside the braces is quadratic on "{,,,…").
_BRACE = re.compile(r"\{[^{}]*\}")
_GLOB = re.compile(r"[*?]|\[[^\]\[]*\]")  # no [ inside: "[[[…" stays linear


def _bare(node: Node) -> str:
    """The unquoted characters of a word (quoted or escaped ones replaced by ``_``)."""
    if node.type in ("word", "number"):
        return re.sub(r"\\.", "_", node_text(node), flags=re.S)
    if node.type == "concatenation":
        return "".join(_bare(c) for c in node.children)
    return "_"


def word(node: Node) -> str | None:
    """A word as the shell passes it: None when it expands at run time (variables,
    ``{a,b}`` braces), a :class:`GlobWord` when it is a file name pattern."""
    value = literal(node)
    if value is None:
        return None
    bare = _bare(node)
    if any("," in m[0] or ".." in m[0] for m in _BRACE.finditer(bare)):
        return None
    return GlobWord(value) if _GLOB.search(bare) else value
