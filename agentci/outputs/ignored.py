"""Ignored files: the baseline's ignore rules, frozen, and fingerprints of the files they ignore.

An agent that edits a ``.gitignore`` changes nothing about which files are the change
(:func:`freeze_rules`); files the baseline's rules ignore are fingerprinted, never stored
(:func:`scan_ignored`), so that writes to them are reported and never published.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentci.outputs.baseline import MAX_IGNORED_SCAN, Baseline, Fingerprint
from agentci.outputs.privgit import GITLINK, PrivateGit, encode_paths, split_z


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


def scan_ignored(
    b: Baseline, pg: PrivateGit, specs: list[str], dropped: list[str], forced: set[str]
) -> tuple[dict[str, Fingerprint], bool]:
    """Fingerprints of every file the baseline's rules ignore (at most MAX_IGNORED_SCAN)."""
    entries = _not_excluded(b, split_z(pg.out(["ls-files", "-o", "-i", "--exclude-standard",
                                                "--directory", "-z", "--", *specs])))  # fmt: skip
    found: dict[str, Fingerprint] = {}
    for entry in [*entries, *dropped]:
        if entry in forced:
            continue
        if len(found) >= MAX_IGNORED_SCAN:
            return found, True
        path = entry.rstrip("/")
        full = b.work_tree / path
        try:
            st = full.lstat()
        except OSError:
            continue
        if not full.is_dir() or full.is_symlink():
            found[path] = _fp(st)
            continue
        for root, dirs, files in os.walk(full):
            dirs.sort()
            rel_root = Path(root).relative_to(b.work_tree).as_posix()
            for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
                rel = f"{rel_root}/{name}"
                if rel in forced:
                    continue
                try:
                    found[rel] = _fp(os.lstat(os.path.join(root, name)))
                except OSError:
                    continue
                if len(found) >= MAX_IGNORED_SCAN:
                    return found, True
    return found, False


def _fp(st: os.stat_result) -> Fingerprint:
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_mode)
