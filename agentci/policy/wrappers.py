"""Commands that run another command: ``env``, ``timeout``, ``nice``, ``xargs`` …

:func:`unwrap` peels them off (``env X=1 timeout 5 nice rm f`` runs ``rm f``), reading each
wrapper's options as the program does (:mod:`agentci.policy.getopt`: clusters, attached
values, abbreviated long options). What a wrapper does besides running its command is kept:
``env -C DIR`` and ``sudo -D DIR`` change directory (a ``cd``), ``time -o FILE`` writes a file
(a redirection), ``xargs`` appends words from its input that nobody has seen (``open_args``).
What would make the command invisible is reported as ``hidden``: ``env -S STRING`` (env
splits the string into a command itself), an option agentci does not know, a shell or a
wrapper run by ``xargs``, ``xargs --process-slot-var`` (it sets a variable such as PATH).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agentci.policy.getopt import OptSpec, parse

SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "ash", "busybox"})
EVALS = frozenset({"eval", "source", ".", "exec_fd"})
#: Variables a read-only command may be given (``LC_ALL=C sort``); any other one may point
#: it at a configuration that runs a program (``RIPGREP_CONFIG_PATH=rc rg x``).
HARMLESS_VARS = re.compile(
    r"^(LANG|LANGUAGE|LC_\w+|TZ|NO_COLOR|CLICOLOR\w*|COLUMNS|LINES|TERM|LS_COLORS|GREP_COLORS?"
    r"|TREE_COLORS|TIME_STYLE|QUOTING_STYLE|BLOCK_SIZE|DU_BLOCK_SIZE|POSIXLY_CORRECT)$"
)
DANGEROUS_VARS = re.compile(
    r"^(PATH|LD_\w+|BASH_ENV|ENV|IFS|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|CDPATH|HOME"
    r"|GIT_\w+|PYTHON\w*|PERL5\w*|RUBY\w*|NODE_OPTIONS|DYLD_\w+)$"
)


def _spec(flags: str = "", values: str = "", optional: str = "", **longs: str) -> OptSpec:
    """An option spec; ``longs`` maps long names (``_`` for ``-``) to "flag"/"value"/"opt"."""
    kinds: dict[str, set[str]] = {"flag": {"help", "version"}, "value": set(), "opt": set()}
    for name, kind in longs.items():
        kinds[kind].add(name.replace("_", "-"))
    return OptSpec(
        flags=flags,
        values=values,
        optional=optional,
        long_flags=frozenset(kinds["flag"]),
        long_values=frozenset(kinds["value"]),
        long_optional=frozenset(kinds["opt"]),
        permute=False,
    )


#: Wrapper → (its options, how many operands come before the command).
WRAPPERS: dict[str, tuple[OptSpec, int]] = {
    "env": (
        _spec(
            "0iv",
            "uCS",
            null="flag",
            ignore_environment="flag",
            debug="flag",
            unset="value",
            chdir="value",
            split_string="value",
            block_signal="opt",
            default_signal="opt",
            ignore_signal="opt",
            list_signal_handling="flag",
        ),
        0,
    ),
    "timeout": (
        _spec(
            "v",
            "sk",
            signal="value",
            kill_after="value",
            preserve_status="flag",
            foreground="flag",
            verbose="flag",
        ),
        1,
    ),
    "nice": (_spec("0123456789", "n", adjustment="value"), 0),
    "nohup": (_spec(), 0),
    "command": (_spec("pvV"), 0),
    "builtin": (_spec(), 0),
    "exec": (_spec("cl", "a"), 0),
    "time": (
        _spec(
            "pavqV",
            "fo",
            format="value",
            portability="flag",
            output="value",
            append="flag",
            verbose="flag",
            quiet="flag",
        ),
        0,
    ),
    "stdbuf": (_spec("", "ioe", input="value", output="value", error="value"), 0),
    "sudo": (
        _spec(
            "AbEHKknPSVlv",
            "ugCDhprtU",
            user="value",
            group="value",
            chdir="value",
            preserve_env="opt",
            non_interactive="flag",
        ),
        0,
    ),
    "doas": (_spec("nL", "uC"), 0),
    "setsid": (_spec("cfw", ctty="flag", fork="flag", wait="flag"), 0),
    "ionice": (
        _spec("t", "cnpPu", **{"class": "value"}, classdata="value", ignore="flag"),
        0,
    ),
    "xargs": (
        _spec(
            "0oprtx",
            "adEILnPs",
            "eil",
            arg_file="value",
            delimiter="value",
            eof="opt",
            replace="opt",
            max_lines="opt",
            max_args="value",
            max_procs="value",
            max_chars="value",
            null="flag",
            open_tty="flag",
            interactive="flag",
            no_run_if_empty="flag",
            verbose="flag",
            exit="flag",
            show_limits="flag",
            process_slot_var="value",
        ),
        0,
    ),
}
CHDIR = {"env": ("-C", "--chdir"), "sudo": ("-D", "--chdir")}


@dataclass
class Unwrapped:
    """The command a chain of wrappers runs, and what the wrappers do on the way."""

    words: list[str | None]
    wrappers: list[str] = field(default_factory=list)
    open_args: bool = False
    chdirs: list[str | None] = field(default_factory=list)
    outputs: list[str | None] = field(default_factory=list)
    assignments: list[str] = field(default_factory=list)
    hidden: str | None = None


def unwrap(words: list[str | None]) -> Unwrapped:
    """Strip wrapper commands (``env X=1 timeout 5 nice rm`` → ``rm``)."""
    out = Unwrapped(words=list(words))
    while out.words and out.words[0] is not None:
        base = out.words[0].rsplit("/", 1)[-1]
        if out.open_args and (base in WRAPPERS or base in SHELLS or base in EVALS):
            out.hidden = f"xargs runs `{base}` with words from its input"
            return out
        if base not in WRAPPERS:
            break
        spec, operands = WRAPPERS[base]
        args = out.words[1:]
        known = next((i for i, w in enumerate(args) if w is None), len(args))
        found = parse([w for w in args[:known] if w is not None], spec)
        if found.error:
            out.hidden = f"{base}: {found.error}"
            return out
        if base == "command" and found.has("-v", "-V"):
            return out  # ``command -v x`` names x, it does not run it
        if base == "env" and found.has("-S", "--split-string"):
            out.hidden = "env -S splits a string into a command the policy cannot see"
            return out
        if base == "xargs" and found.has("--process-slot-var"):
            out.hidden = "xargs --process-slot-var sets a variable in the command's environment"
            return out
        out.chdirs += [v for name, v in found.options if name in CHDIR.get(base, ())]
        if base == "time":
            out.outputs += [v for name, v in found.options if name in ("-o", "--output")]
        rest = args[found.end :]
        if base == "env":
            while rest and rest[0] is not None and (rest[0] == "-" or "=" in rest[0]):
                if rest[0] != "-":
                    out.assignments.append(rest[0])
                rest = rest[1:]
        rest = rest[operands:]
        if base == "xargs":
            out.open_args = True
            rest = _replace(rest, found.options)
        out.wrappers.append(out.words[0])  # as written: ./env is not /usr/bin/env
        if not rest:
            out.words = ["echo" if base == "xargs" else base]
            return out
        out.words = rest
    return out


def _replace(words: list[str | None], options: list[tuple[str, str | None]]) -> list[str | None]:
    """Words of ``xargs -I R``: those containing R are filled in from the input (unknown)."""
    marks = [v or "{}" for n, v in options if n in ("-I", "-i", "--replace")]
    if not marks:
        return words
    return [None if w is None or any(m in w for m in marks) else w for w in words]
