"""Ignored files: the baseline's ignore rules, frozen, and fingerprints of the files they ignore.

An agent that edits a ``.gitignore`` changes nothing about which files are the change
(:func:`freeze_rules`); files the baseline's rules ignore are fingerprinted, never stored
(:func:`scan_ignored`), so that writes to them are reported and never published.

The scan fingerprints at most :func:`scan_limit` files (:data:`MAX_IGNORED_SCAN`, or the
``AGENTCI_IGNORED_SCAN_LIMIT`` environment variable), always in the same order
(:func:`scan_order`: path by path, names sorted), so a scan that is cut short stops at a known
place. A file the baseline's scan did not reach cannot be told from one the agent made
(:func:`beyond_baseline_scan`): it is never counted as the agent's, so never deleted.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from operator import attrgetter
from pathlib import Path

from agentci.change.baseline import MAX_IGNORED_SCAN, Baseline, Fingerprint
from agentci.change.privgit import GITLINK, PrivateGit, encode_paths, split_z
from agentci.errors import InvalidInput


def remove_paths(pg: PrivateGit, paths: list[str]) -> None:
    if paths:
        pg.run(["update-index", "--force-remove", "-z", "--stdin"], stdin=encode_paths(paths))


def _not_excluded(b: Baseline, entries: list[str]) -> list[str]:
    """``entries`` minus the excluded folders (agentci's own). ``git ls-files --directory``
    still lists an ignored folder inside an ``:(exclude)`` pathspec, collapsed to its name."""
    pre = b.prefix + "/" if b.prefix else ""
    excluded = [pre + ex.strip("/") for ex in b.exclude if ex.strip("/")]
    return [
        e for e in entries if not any(e.rstrip("/") == x or e.startswith(x + "/") for x in excluded)
    ]


def _rules_dir(b: Baseline, pg: PrivateGit) -> Path:
    """A folder holding the baseline's ``.gitignore`` files (nothing else), made once."""
    if b.rules_dir is None:
        rules = b.git_dir / "rules"
        rules.mkdir()
        for line in split_z(pg.out(["ls-tree", "-r", "-z", "--full-tree", b.raw])):
            meta, path = line.split("\t", 1)
            if path.rsplit("/", 1)[-1] == ".gitignore" and meta.split()[1] == "blob":
                target = rules / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(pg.out(["cat-file", "blob", meta.split()[2]]))
        b.rules_dir = rules
    return b.rules_dir


def _baseline_ignored(b: Baseline, pg: PrivateGit, paths: list[str]) -> set[str]:
    """Which of ``paths`` the baseline's ignore rules ignore."""
    if not paths:
        return set()
    rules = _rules_dir(b, pg)
    out = pg.out(["check-ignore", "--no-index", "--stdin", "-z"], work_tree=rules, ok=(0, 1),
                 stdin=encode_paths(paths))  # fmt: skip
    return set(split_z(out))


def freeze_rules(
    b: Baseline, pg: PrivateGit, changes: list[tuple[str, ...]], specs: list[str]
) -> tuple[list[str], set[str]]:
    """The agent changed a ``.gitignore``: undo its effect on the index. Returns the paths
    dropped (ignored at the baseline) and those forced in (ignored only by the new rules)."""
    added = [c[3] for c in changes if c[2] == "A" and c[1] != GITLINK]
    dropped = sorted(_baseline_ignored(b, pg, added))
    remove_paths(pg, dropped)
    entries = _not_excluded(b, split_z(pg.out(["ls-files", "-o", "-i", "--exclude-standard",
                                                "--directory", "-z", "--", *specs])))  # fmt: skip
    base = _baseline_ignored(b, pg, entries)
    forced: list[str] = []
    for entry in entries:
        if entry in base:
            continue
        if entry.endswith("/"):
            inner = split_z(pg.out(["ls-files", "-o", "-i", "--exclude-standard", "-z", "--",
                                    entry], literal=True))  # fmt: skip
            keep = _baseline_ignored(b, pg, inner)
            forced += [p for p in inner if p not in keep]
        else:
            forced.append(entry)
    if forced:
        pg.run(["add", "-f", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"],
               stdin=encode_paths(forced), literal=True, ok=(0, 1))  # fmt: skip
    return dropped, set(forced)


#: The environment variable that sets how many ignored files a scan fingerprints at most.
SCAN_LIMIT_ENV = "AGENTCI_IGNORED_SCAN_LIMIT"


def scan_limit() -> int:
    """Ignored files fingerprinted per snapshot, at most: ``AGENTCI_IGNORED_SCAN_LIMIT`` when
    set (a whole number, 1 or more), else :data:`MAX_IGNORED_SCAN`."""
    raw = os.environ.get(SCAN_LIMIT_ENV, "").strip()
    if not raw:
        return MAX_IGNORED_SCAN
    if not raw.isdigit() or int(raw) < 1:
        raise InvalidInput(f"{SCAN_LIMIT_ENV}={raw!r}: expected a whole number of files, 1 or more")
    return int(raw)


def scan_order(path: str) -> tuple[str, ...]:
    """The order :func:`scan_ignored` visits work-tree paths in (a folder's files come at the
    folder's place among its siblings)."""
    return tuple(path.split("/"))


def beyond_baseline_scan(b: Baseline, paths: Iterable[str]) -> set[str]:
    """Those of ``paths`` (work-tree paths, not in the baseline's fingerprints) that the
    baseline's scan never reached because it was cut short: nobody can say whether the agent
    made them."""
    if not b.ignored_truncated or not b.ignored_ref:
        return set()
    cut = max(scan_order(p) for p in b.ignored_ref)
    return {p for p in paths if p not in b.ignored_ref and scan_order(p) > cut}


def gone_since_baseline(b: Baseline, now: dict[str, Fingerprint], now_truncated: bool) -> list[str]:
    """The work-tree paths the baseline fingerprinted that a later scan (``now``) no longer
    finds: deleted (or replaced by a folder). When the later scan was cut short, only paths
    before the place it stopped count: nobody knows about those after it."""
    if not b.ignored_ref:
        return []
    cut = max((scan_order(p) for p in now), default=()) if now_truncated else None
    return sorted(p for p in b.ignored_ref if p not in now and (cut is None or scan_order(p) < cut))


def scan_ignored(
    b: Baseline, listed: list[str], dropped: list[str], forced: set[str]
) -> tuple[dict[str, Fingerprint], bool]:
    """Fingerprints of the files the baseline's rules ignore, visited in :func:`scan_order`,
    and whether the scan was cut short at :func:`scan_limit` files. ``listed``: the ignored
    files and folders (``x/``) the snapshot's walk saw, by the rules on disk; ``dropped`` and
    ``forced``: what :func:`freeze_rules` changed of that.

    A fingerprint equal to the baseline's is the baseline's own object: a later snapshot of a
    big ignored tree holds its paths and references, not a second copy of every fingerprint."""
    entries = _not_excluded(b, listed)
    scan = _Scan(os.fspath(b.work_tree), forced, scan_limit(), b.ignored_ref)
    tops = sorted({e.rstrip("/") for e in [*entries, *dropped]} - forced, key=scan_order)
    for top in tops:
        if scan.top(top):
            return scan.found, True
    return scan.found, False


#: How a folder of the scan is opened: never through a link, never left open across an exec.
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class _Scan:
    """One scan of ignored files into :attr:`found` (see :func:`scan_ignored`).

    Each folder is opened relative to its parent's descriptor and each file is ``lstat``-ed
    relative to its folder's (``fstatat``): the kernel resolves one name per file, not the
    whole path, and no link on the way is followed."""

    def __init__(self, root: str, forced: set[str], limit: int, ref: dict[str, Fingerprint]):
        self.root = root
        self.forced = forced
        self.left = limit  # files the scan may still fingerprint
        self.ref = ref
        self.found: dict[str, Fingerprint] = {}

    def top(self, top: str) -> bool:
        """Fingerprint ``top`` when it is not a folder, else every non-folder beneath it (a
        link is not followed), in :func:`scan_order`; the forced paths are skipped. True when
        the limit was reached before the end (the scan is cut short)."""
        try:
            st = os.lstat(f"{self.root}/{top}")
        except OSError:
            return False
        if not stat.S_ISDIR(st.st_mode):
            if self.left <= 0:
                return True
            self._keep(top, fingerprint(st))
            return False
        try:
            fd = os.open(f"{self.root}/{top}", _DIR_FLAGS)
        except OSError:
            return False
        return self._folder(top, fd)

    def _keep(self, path: str, fp: Fingerprint) -> None:
        old = self.ref.get(path)
        self.found[path] = old if old == fp else fp
        self.left -= 1

    def _folder(self, top: str, fd: int) -> bool:
        """Walk the folder open as ``fd`` (closed here), its subfolders at their places."""
        stack = [(top, fd, iter(_sorted_entries(fd)))]
        found, ref, forced = self.found, self.ref, self.forced
        try:
            while stack:
                rel, fd, entries = stack[-1]
                for entry in entries:
                    name = entry.name
                    if entry.is_dir(follow_symlinks=False):  # walked at its place
                        try:
                            sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
                        except OSError:
                            continue
                        stack.append((f"{rel}/{name}", sub, iter(_sorted_entries(sub))))
                        break
                    path = f"{rel}/{name}"
                    if forced and path in forced:
                        continue
                    if self.left <= 0:
                        return True
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    fp = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_mode, st.st_ctime_ns)
                    old = ref.get(path)
                    found[path] = old if old == fp else fp
                    self.left -= 1
                else:
                    os.close(fd)
                    stack.pop()
        finally:
            for _, fd, _ in stack:
                os.close(fd)
        return False


def _sorted_entries(fd: int) -> list[os.DirEntry[str]]:
    """The entries of the folder open as ``fd``, names sorted (none when it cannot be read)."""
    try:
        with os.scandir(fd) as it:
            return sorted(it, key=_NAME)
    except OSError:
        return []


_NAME = attrgetter("name")


def fingerprint(st: os.stat_result) -> Fingerprint:
    """A file's fingerprint (see :data:`~agentci.change.baseline.Fingerprint`)."""
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_mode, st.st_ctime_ns)
