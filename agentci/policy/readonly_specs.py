"""The options agentci knows for the read-only commands that have dangerous ones.

``sort``, ``uniq``, ``tree`` and ``awk`` can write files or run programs through some of their
options, so they are read through an allowlist: every option they are given must be listed
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
    "md5sum sha1sum sha256sum od hexdump du echo true false test [ diff cmp comm"
)
