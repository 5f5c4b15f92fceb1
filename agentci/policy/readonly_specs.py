"""The options agentci knows for the read-only commands that have dangerous ones.

``sort``, ``uniq``, ``tree`` and ``awk`` can write files or run programs through some of their
options, and ``date`` and ``hostname`` can set the clock or the host name, so they are read
through an allowlist: every option they are given must be listed
here (a long option may be abbreviated, as GNU programs allow, but only to one of these);
:mod:`agentci.policy.readonly` then refuses the dangerous ones by their full name.
"""

from __future__ import annotations

from agentci.policy.getopt import OptSpec


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


SORT = OptSpec(
    flags="bdfghiMnRrVcCmsuz",
    values="ktSTo",
    long_flags=_names(
        "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort "
        "ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort reverse "
        "version-sort merge stable unique zero-terminated debug help version"
    ),
    long_values=_names(
        "random-source sort key field-separator buffer-size temporary-directory parallel "
        "batch-size files0-from output compress-program"
    ),
    long_optional=_names("check"),
)
SORT_BAD = {"-o": "writes a file", "--output": "writes a file", "--compress-program": "runs it"}

UNIQ = OptSpec(
    flags="cdiuz",
    values="fsw",
    optional="D",
    long_flags=_names("count repeated ignore-case unique zero-terminated help version"),
    long_values=_names("skip-fields skip-chars check-chars"),
    long_optional=_names("all-repeated group"),
)

TREE = OptSpec(
    flags="adlfxqNQpugshDFvtcUriASnCXJRo",
    values="LPIHT",
    long_flags=_names(
        "noreport inodes device dirsfirst filesfirst si du prune nolinks gitignore matchdirs "
        "metafirst ignore-case info fromfile fromtabfile help version"
    ),
    long_values=_names("charset filelimit timefmt sort gitfile infofile hintro houtro"),
)
TREE_BAD = {"-o": "writes a file", "-R": "writes 00Tree.html files"}

DATE = OptSpec(
    flags="uR",
    values="dfrs",
    optional="I",
    long_flags=_names("utc universal rfc-email resolution debug help version"),
    long_values=_names("date file reference set rfc-3339"),
    long_optional=_names("iso-8601"),
)
DATE_BAD = {"-s": "sets the system clock", "--set": "sets the system clock"}

HOSTNAME = OptSpec(
    flags="aAbdfhiIsvVy",
    values="F",
    long_flags=_names(
        "alias all-fqdns boot domain fqdn long ip-address all-ip-addresses short yp nis "
        "verbose help version"
    ),
    long_values=_names("file"),
)
HOSTNAME_BAD = {
    "-b": "sets a default host name",
    "--boot": "sets a default host name",
    "-F": "sets the host name from a file",
    "--file": "sets the host name from a file",
}

#: The commands read through these allowlists: name -> (options, the dangerous ones and why).
OPTIONS: dict[str, tuple[OptSpec, dict[str, str]]] = {
    "sort": (SORT, SORT_BAD),
    "uniq": (UNIQ, {}),
    "tree": (TREE, TREE_BAD),
    "date": (DATE, DATE_BAD),
    "hostname": (HOSTNAME, HOSTNAME_BAD),
}

AWK = OptSpec(
    flags="bcCkMNnOPrsStV",
    values="Fv",
    long_flags=_names(
        "characters-as-bytes traditional copyright csv bignum use-lc-numeric "
        "non-decimal-data optimize posix re-interval no-optimize sandbox lint-old help version"
    ),
    long_values=_names("field-separator assign"),
    long_optional=_names("lint"),
    permute=False,
)

#: Long options of the read-only git commands that run programs or write files; an option
#: is refused when its name is one of these or a prefix of one (git accepts abbreviations).
GIT_BAD_LONG = ("ext-diff", "output", "output-directory", "open-files-in-pager", "exec")

#: Commands that stay read-only whatever words ``xargs`` appends to them from its input.
XARGS_SAFE = _names(
    "ls cat head tail wc grep egrep fgrep stat basename dirname realpath readlink nl cut "
    "md5sum sha1sum sha256sum od hexdump du echo true false test [ diff cmp comm "
    "sleep seq id nproc printenv tac"
)
