"""Command-line options read the way GNU ``getopt_long`` reads them.

The policy must see a command's options as the program will: short options cluster
(``sort -ro FILE`` is ``-r -o FILE``), a short option's value may be attached (``-oFILE``),
and a long option may be abbreviated to any unambiguous prefix (``sort --ou=FILE`` is
``--output=FILE``). :func:`parse` resolves all of that against an :class:`OptSpec`; an option
the spec does not list, or an ambiguous abbreviation, is an error, so the caller can deny
what it does not know.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class OptSpec:
    """The options a program accepts.

    ``flags``/``values``/``optional``: short option letters without a value, with a
    required value, with an optional attached value. ``long_flags``/``long_values``/
    ``long_optional``: the same for long option names (without ``--``). ``permute``: GNU
    style, options may follow operands (until ``--``); else the first operand ends them.
    """

    flags: str = ""
    values: str = ""
    optional: str = ""
    long_flags: frozenset[str] = frozenset()
    long_values: frozenset[str] = frozenset()
    long_optional: frozenset[str] = frozenset()
    permute: bool = True

    @property
    def long_names(self) -> frozenset[str]:
        return self.long_flags | self.long_values | self.long_optional


@dataclass
class Parsed:
    """Options (canonical name such as ``-o`` or ``--output``, value or None) and operands.

    ``end`` is the index in the parsed words where operands start when ``permute`` is off.
    """

    options: list[tuple[str, str | None]] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)
    error: str | None = None
    end: int = 0

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.options)


def long_name(spec: OptSpec, word: str) -> str | None:
    """The full long option ``word`` (``--name`` or a prefix, ``=value`` allowed) stands for."""
    name = word[2:].split("=", 1)[0]
    if name in spec.long_names:
        return name
    hits = [n for n in spec.long_names if n.startswith(name)]
    return hits[0] if len(hits) == 1 and name else None


def parse(words: list[str], spec: OptSpec) -> Parsed:
    """Parse ``words`` (a command's arguments) against ``spec``."""
    out = Parsed()
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == "--":
            out.operands += words[i:]
            out.end = i
            return out
        if w.startswith("--"):
            name = long_name(spec, w)
            if name is None:
                out.error = f"unknown or ambiguous option {w.split('=', 1)[0]}"
                return out
            value = w.split("=", 1)[1] if "=" in w else None
            if name in spec.long_values and value is None:
                if i >= len(words):
                    out.error = f"option --{name} needs a value"
                    return out
                value = words[i]
                i += 1
            elif name in spec.long_flags and value is not None:
                out.error = f"option --{name} takes no value"
                return out
            out.options.append((f"--{name}", value))
        elif w.startswith("-") and w != "-":
            j = 1
            while j < len(w):
                c = w[j]
                j += 1
                if c in spec.flags:
                    out.options.append((f"-{c}", None))
                elif c in spec.optional:
                    out.options.append((f"-{c}", w[j:] or None))
                    break
                elif c in spec.values:
                    value = w[j:]
                    if not value:
                        if i >= len(words):
                            out.error = f"option -{c} needs a value"
                            return out
                        value = words[i]
                        i += 1
                    out.options.append((f"-{c}", value))
                    break
                else:
                    out.error = f"unknown option -{c}"
                    return out
        elif spec.permute:
            out.operands.append(w)
        else:
            i -= 1
            break
    out.end = i
    if not spec.permute:
        out.operands += words[i:]
    return out
