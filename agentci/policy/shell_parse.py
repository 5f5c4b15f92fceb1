"""Shell commands, parsed with tree-sitter-bash into what they would run (docs/policy.md).

:func:`analyze` turns a command line into the simple commands it runs, however they are
joined (``&& || ; | &``, newlines, subshells, ``if``/``for`` bodies, functions, command
substitutions, ``bash -c '…'`` strings, ``find -exec``, ``xargs``), each with its words as
the shell would see them (quotes and backslashes removed) after wrappers such as ``env``,
``timeout``, ``nice``, ``nohup``, ``command`` or ``VAR=x`` are peeled off. It also records
*shapes* the policy treats as risky (``$(…)``, backticks, ``<(…)``, ``eval``, a variable
as the command, heredocs, dangerous variable assignments) and the files output is
redirected to. Anything it cannot parse is an error, and the policy denies it. The words
themselves (quotes, expansions, globs) are read by :mod:`agentci.policy.shell_words`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from agentci.policy.shell_words import literal, node_text, word
from agentci.policy.wrappers import DANGEROUS_VARS, EVALS, SHELLS, unwrap

MAX_COMMAND_CHARS = 20_000
MAX_DEPTH = 4

#: Shapes whose inner commands are visible to the policy (they are parsed and checked).
VISIBLE_SHAPES = frozenset({"command_substitution", "process_substitution", "heredoc"})
#: Shapes that hide what runs; only an explicit rule allows them.
OPAQUE_SHAPES = frozenset(
    {"eval", "dynamic_command", "dynamic_shell", "dangerous_variable", "hidden_command"}
)

PLAIN_WORD = re.compile(r"^[A-Za-z0-9_./+:@%,=-]+$|^\[$")
#: Shapes agentci cannot see into at all.
HIDDEN = "hidden_command"


@dataclass
class SimpleCommand:
    """One command that would run: its words (None where a word is not a literal)."""

    words: list[str | None]
    text: str
    wrappers: list[str] = field(default_factory=list)
    #: run by ``xargs``: more words are appended (or filled in) from its input at run time
    open_args: bool = False
    #: variables set in its environment (``X=1 cmd``, ``env X=1 cmd``)
    env: list[str] = field(default_factory=list)

    @property
    def name(self) -> str | None:
        return self.words[0] if self.words else None


@dataclass
class Redirect:
    """An output redirection: operator and target (None when not a literal)."""

    op: str
    target: str | None


@dataclass
class Analysis:
    """What a command line would do, as far as parsing can tell."""

    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    shapes: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    #: variables set or exported for the rest of the line (``X=1;``, ``export X``)
    variables: set[str] = field(default_factory=set)
    #: files the shell opens for reading (``< FILE``; None when computed at run time)
    inputs: list[str | None] = field(default_factory=list)


@functools.lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_bash.language()))


def analyze(command: str, *, _depth: int = 0) -> Analysis:
    """Parse ``command`` and collect its simple commands, shapes and redirections."""
    result = Analysis()
    if len(command) > MAX_COMMAND_CHARS:
        result.error = f"command longer than {MAX_COMMAND_CHARS} characters"
        return result
    if "\x00" in command:
        result.error = "command contains a NUL byte"
        return result
    tree = _parser().parse(command.encode("utf-8", "surrogateescape"))
    if tree.root_node.has_error:
        result.error = "the command does not parse as bash"
        return result
    result.error = _joined_word(command, tree.root_node)
    if result.error:
        return result
    _walk(tree.root_node, result, _depth)
    return result


#: A backslash-newline that is not itself escaped (an odd run of backslashes before it).
_CONTINUATION = re.compile(rb"(?<!\\)(?:\\\\)*\\\n")
#: Where a backslash-newline is literal text, or removed by agentci's own unquoting.
_LITERAL_CONTEXT = frozenset({"raw_string", "string", "heredoc_body", "comment", "ansi_c_string"})


def _joined_word(command: str, root: Node) -> str | None:
    """An error when a backslash-newline sits inside a word outside quotes.

    bash removes it before splitting words (``tr\\⏎ap`` runs ``trap``), tree-sitter-bash
    splits there, so the two would disagree about what runs.
    """
    data = command.encode("utf-8", "surrogateescape")
    for m in _CONTINUATION.finditer(data):
        at = m.end() - 2
        before = data[at - 1 : at] if at else b" "
        after = data[at + 2 : at + 3] or b" "
        if before.isspace() or after.isspace():
            continue
        node: Node | None = root.descendant_for_byte_range(at, at + 2)
        while node is not None and node.type not in _LITERAL_CONTEXT:
            if node.type in ("command_substitution", "process_substitution"):
                node = None
                break
            node = node.parent
        if node is None:
            return (
                "a backslash-newline inside a word (bash joins the two parts into one word); "
                "write the word on one line"
            )
    return None


def _walk(node: Node, out: Analysis, depth: int) -> None:
    t = node.type
    if t == "command":
        _command(node, out, depth)
    elif t == "command_substitution":
        out.shapes.setdefault("command_substitution", node_text(node))
    elif t == "process_substitution":
        out.shapes.setdefault("process_substitution", node_text(node))
    elif t == "heredoc_redirect":
        out.shapes.setdefault("heredoc", "<<")
    elif t == "file_redirect":
        _redirect(node, out)
    elif t == "variable_assignment" and (node.parent is None or node.parent.type != "command"):
        _assignment(node, out)
        name = node.child_by_field_name("name")
        out.variables.add(name.text.decode("utf-8", "replace") if name and name.text else "?")
    elif t == "declaration_command":
        out.variables.update(node_text(c) for c in node.children if c.type == "variable_name")
    elif t == "for_statement":  # ``for PATH in .; do ls; done`` assigns PATH
        _assignment(node, out, field="variable")
    elif t == "compound_statement" and node.children and node.children[0].type == "((":
        for name in _descendants(node, "variable_name"):
            if DANGEROUS_VARS.match(node_text(name)):
                out.shapes.setdefault("dangerous_variable", node_text(node))
    for child in node.children:
        _walk(child, out, depth)


def _assignment(node: Node, out: Analysis, field: str = "name") -> None:
    name = node.child_by_field_name(field)
    if name is not None and DANGEROUS_VARS.match(node_text(name)):
        out.shapes.setdefault("dangerous_variable", node_text(node))


def _descendants(node: Node, kind: str) -> list[Node]:
    found = [node] if node.type == kind else []
    for child in node.children:
        found += _descendants(child, kind)
    return found


def _redirect(node: Node, out: Analysis) -> None:
    op = ""
    target: Node | None = None
    for c in node.children:
        if c.type == "file_descriptor":
            continue
        if not c.is_named:
            op = c.type
        else:
            target = c
    value = literal(target) if target is not None else None
    if value is not None and any(c in value for c in "*?["):
        value = None  # bash expands a pattern in a redirection target: `> .gi?/config`
    if op == "<":
        out.inputs.append(value)
    if op in ("<", "<&", "<<<"):
        return
    if op in (">&", "<&", "&>") and value is not None and (value.isdigit() or value == "-"):
        return
    out.redirects.append(Redirect(op=op, target=value))


def _command(node: Node, out: Analysis, depth: int) -> None:
    words: list[str | None] = []
    env: list[str] = []
    for c in node.children:
        if c.type == "variable_assignment":
            _assignment(c, out)
            env.append((c.text or b"?").decode("utf-8", "replace").split("=", 1)[0])
        elif c.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
            continue
        elif c.type == "command_name":
            words.append(word(c.children[0]) if c.children else None)
        elif c.is_named:
            words.append(word(c))
    text = node_text(node)
    _add(SimpleCommand(words=words, text=text, env=env), out, depth)


def _add(cmd: SimpleCommand, out: Analysis, depth: int) -> None:
    """Peel wrappers, unwrap ``sh -c`` / ``find -exec``, and record the command."""
    peeled = unwrap(cmd.words)
    for assignment in peeled.assignments:
        if DANGEROUS_VARS.match(assignment.split("=", 1)[0]):
            out.shapes.setdefault("dangerous_variable", assignment)
    if peeled.hidden:
        out.shapes.setdefault(HIDDEN, f"{peeled.hidden} (`{cmd.text[:80]}`)")
    for directory in peeled.chdirs:
        out.commands.append(SimpleCommand(words=["cd", directory], text=cmd.text))
    out.redirects += [Redirect(op="time -o", target=t) for t in peeled.outputs]
    env = cmd.env + [a.split("=", 1)[0] for a in peeled.assignments]
    cmd = SimpleCommand(peeled.words, cmd.text, peeled.wrappers, peeled.open_args, env)
    name = cmd.name
    if not cmd.words:
        return
    if name is None or not PLAIN_WORD.match(name):
        out.shapes.setdefault("dynamic_command", cmd.text)
        out.commands.append(cmd)
        return
    base = name.rsplit("/", 1)[-1]
    if base in EVALS:
        out.shapes.setdefault("eval", cmd.text)
    if base in SHELLS and _shell_script(cmd) is not False:
        script = _shell_script(cmd)
        if not isinstance(script, str) or depth >= MAX_DEPTH:
            out.shapes.setdefault("dynamic_shell", cmd.text)
        else:
            inner = analyze(script, _depth=depth + 1)
            if inner.error:
                out.error = f"inside {base} -c: {inner.error}"
            out.commands.extend(inner.commands)
            out.redirects.extend(inner.redirects)
            out.inputs.extend(inner.inputs)
            out.variables |= inner.variables
            for k, v in inner.shapes.items():
                out.shapes.setdefault(k, v)
            return
    out.commands.append(cmd)
    if base == "find":
        for sub in find_exec(cmd.words):
            _add(SimpleCommand(words=sub, text=cmd.text), out, depth)


def _shell_script(cmd: SimpleCommand) -> str | None | bool:
    """For ``sh -c SCRIPT``: the script (None if not literal); False if there is no ``-c``."""
    words = cmd.words[1:]
    for i, w in enumerate(words):
        if w is None:
            return None
        if w == "--":
            return False
        if w.startswith("-") and not w.startswith("--") and "c" in w[1:]:
            return words[i + 1] if i + 1 < len(words) else None
        if not w.startswith("-") and not w.startswith("+"):
            return False
    return False


def find_exec(words: list[str | None]) -> list[list[str | None]]:
    """The commands ``find … -exec CMD … ;`` would run."""
    subs: list[list[str | None]] = []
    i = 0
    while i < len(words):
        if words[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(words) and words[j] not in (";", "+"):
                j += 1
            if j > i + 1:
                subs.append(words[i + 1 : j])
            i = j
        i += 1
    return subs
