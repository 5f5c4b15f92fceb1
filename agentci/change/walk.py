"""One walk of the work tree per snapshot: ``git status`` read once, the private index updated
from it.

A snapshot used to run ``git add -A`` (a walk) and then ``git ls-files -o -i`` (a second walk,
for the ignored files), after a third walk in Python that looked for named pipes. Now one
``git status --porcelain=v2 -z --ignored=matching -uall`` lists, in one pass, what changed in
the work tree since the private index (the last snapshot), what is new, and what is ignored;
the changed and new paths go to ``git update-index --add --remove --replace -z --stdin`` and
the index then holds what ``git add -A`` would have put there.

The private index is a split index (``git update-index --split-index`` at the baseline): the
entries of the baseline stay in a shared index file and each later write of the index
(``update-index``, ``write-tree``) writes only the entries that changed since, not all of a
large tree's entries again.

The private git dir's ``HEAD`` is a commit of the index's tree (:func:`set_head`, written by
agentci as a loose object: no git process), so that the status's index-vs-HEAD half is empty and
cheap. A nested repository shows as an untracked
folder (``? lib/``): it is never added (the baseline adopts the user's own clones, see
:mod:`~agentci.change.submodules`). Anything ``update-index`` refuses (an unreadable file, a
path beyond a link, a named pipe or socket where a tracked file was) makes the caller fall back
to ``git add -A --ignore-errors``, which reports each such file by name.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zlib
from dataclasses import dataclass, field

from agentci.change.privgit import GitFailed, PrivateGit, encode_paths

#: Fields of a porcelain v2 record before its path: ordinary (``1``), renamed (``2``), unmerged.
_FIELDS = {"1": 8, "2": 9, "u": 10}

#: (name, email, date) of the author and committer of the commits that carry a snapshot's tree
#: as the private ``HEAD``.
AUTHOR = ("agentci", "agentci@localhost", "1700000000 +0000")
IDENTITY = f"{AUTHOR[0]} <{AUTHOR[1]}> {AUTHOR[2]}"
#: Their message.
MESSAGE = "agentci snapshot"


@dataclass
class Walk:
    """What one ``git status`` saw (work-tree paths)."""

    changed: list[str] = field(default_factory=list)  # in the index, differing on disk
    new: list[str] = field(default_factory=list)  # untracked, not ignored
    nested: list[str] = field(default_factory=list)  # untracked folders: repositories
    ignored: list[str] = field(default_factory=list)  # ignored files and folders ("x/")

    @property
    def rules_touched(self) -> bool:
        """True when a ``.gitignore`` changed, appeared or went since the last snapshot."""
        return any(p.rsplit("/", 1)[-1] == ".gitignore" for p in [*self.changed, *self.new])


def status(pg: PrivateGit, specs: list[str]) -> Walk:
    """One ``git status`` of the work tree against the private index (see the module)."""
    out = pg.out(["status", "--porcelain=v2", "-z", "--ignored=matching", "-uall",
                  "--no-renames", "--ignore-submodules=dirty", "--", *specs])  # fmt: skip
    return parse(out)


def parse(out: bytes) -> Walk:
    """:class:`Walk` of ``git status --porcelain=v2 -z`` output."""
    walk = Walk()
    records = out.split(b"\0")
    skip = False
    for raw in records:
        if skip:  # a rename's original path
            skip = False
            continue
        if not raw:
            continue
        record = raw.decode("utf-8", "surrogateescape")
        kind = record[:1]
        if kind == "?":
            path = record[2:]
            (walk.nested if path.endswith("/") else walk.new).append(path.rstrip("/"))
        elif kind == "!":
            walk.ignored.append(record[2:])
        elif kind in _FIELDS:
            parts = record.split(" ", _FIELDS[kind])
            if kind == "u" or parts[1][1] != ".":
                walk.changed.append(parts[-1])
            skip = kind == "2"
    return walk


def update_index(pg: PrivateGit, walk: Walk, *, split: bool = False) -> bool:
    """Put the walk's changed and new paths into the private index. False when git refused a
    path (nothing is written then: the caller falls back to ``git add -A``). ``split`` (the
    baseline): write the index as a split index (see the module), even when no path changed."""
    paths = [*walk.changed, *walk.new]
    if not paths and not split:
        return True
    flags = ["--split-index"] if split else []
    try:
        pg.run(["update-index", *flags, "--add", "--remove", "--replace", "-z", "--stdin"],
               stdin=encode_paths(paths))  # fmt: skip
    except GitFailed:
        return False
    return True


def commit_object(tree: str) -> bytes:
    """The bytes of the commit :func:`set_head` stores for ``tree`` (what ``git commit-tree
    TREE -m 'agentci snapshot'`` makes with :data:`IDENTITY` as author and committer)."""
    body = f"tree {tree}\nauthor {IDENTITY}\ncommitter {IDENTITY}\n\n{MESSAGE}\n".encode()
    return b"commit %d\0" % len(body) + body


def set_head(pg: PrivateGit, tree: str) -> None:
    """Make the private ``HEAD`` a commit of ``tree`` (the status's index half is then empty).
    The commit is written here as a loose object, hashed as the tree's id is (SHA-1, or
    SHA-256 for a 64-digit id): a git process would cost more than the object."""
    data = commit_object(tree)
    oid = (hashlib.sha256 if len(tree) == 64 else hashlib.sha1)(data).hexdigest()
    folder = pg.git_dir / "objects" / oid[:2]
    path = folder / oid[2:]
    if not path.exists():
        folder.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix="tmp_obj_", dir=folder)
        with os.fdopen(fd, "wb") as out:
            out.write(zlib.compress(data))
        os.replace(tmp, path)
    (pg.git_dir / "HEAD").write_text(oid + "\n")
