#!/usr/bin/env python3
"""A stand-in for GitHub's ``gh`` command: records every call and answers like gh does, from a
small JSON state (pull requests, issue comments). Installed as ``gh`` on a test's PATH by
:func:`install_gh_stub`; ``GH_STUB_DIR`` names its folder (log.jsonl, state.json).

Like gh, ``pr create`` runs ``git`` from its ``PATH`` in its working directory, also with
``--repo`` and ``--head`` (gh's pkg/cmd/pr/create ``NewCreateContext``: ``git remote -v`` for
the remotes, ``git status --porcelain`` for the uncommitted-changes warning; failures are
ignored when ``--repo`` is given)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit


def _state(folder: Path) -> dict:
    path = folder / "state.json"
    return json.loads(path.read_text()) if path.exists() else {"prs": [], "comments": []}


def _opt(args: list[str], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args else None


def main(argv: list[str]) -> int:
    folder = Path(os.environ["GH_STUB_DIR"])
    stdin = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    with open(folder / "log.jsonl", "a") as fh:
        fh.write(json.dumps({"argv": argv, "stdin": stdin, "token": os.environ.get("GH_TOKEN"),
                             "env": sorted(os.environ)}) + "\n")  # fmt: skip
    state = _state(folder)
    repo = _opt(argv, "--repo")
    out: object = None
    if argv[:2] == ["pr", "list"]:
        head = _opt(argv, "--head")
        out = [{"number": p["number"], "url": p["url"]} for p in state["prs"]
               if p["head"] == head and p["repo"] == repo and p["state"] == "open"]  # fmt: skip
    elif argv[:2] == ["pr", "create"]:
        _git_as_gh_does()
        if any(p["head"] == _opt(argv, "--head") and p["state"] == "open" for p in state["prs"]):
            print("a pull request for branch already exists", file=sys.stderr)
            return 1
        number = len(state["prs"]) + 1
        url = f"https://github.com/{repo}/pull/{number}"
        state["prs"].append({"number": number, "url": url, "repo": repo, "state": "open",
                             "head": _opt(argv, "--head"), "base": _opt(argv, "--base"),
                             "title": _opt(argv, "--title"),
                             "body": Path(_opt(argv, "--body-file") or "").read_text()})  # fmt: skip
        print(url)
    elif argv[:2] == ["pr", "edit"]:
        pr = next(p for p in state["prs"] if p["number"] == int(argv[2]))
        pr["title"] = _opt(argv, "--title")
        pr["body"] = Path(_opt(argv, "--body-file") or "").read_text()
    elif argv[:2] == ["workflow", "run"]:
        state.setdefault("dispatches", []).append({"workflow": argv[2], "ref": _opt(argv, "--ref")})
    elif argv[0] == "api":
        method = _opt(argv, "--method") or "GET"
        path = next(a for a in argv[1:] if a.startswith("repos/"))
        parts = urlsplit(path)
        segs = parts.path.split("/")
        if method == "GET" and segs[3:] == ["issues", segs[4], "comments"]:
            q = parse_qs(parts.query)
            per, page = int(q.get("per_page", ["30"])[0]), int(q.get("page", ["1"])[0])
            mine = [c for c in state["comments"] if c["issue"] == int(segs[4])]
            out = mine[(page - 1) * per : page * per]
        elif method == "POST" and segs[5:] == ["comments"]:
            cid = 1000 + len(state["comments"])
            body = json.loads(stdin)["body"]
            url = f"https://github.com/{segs[1]}/{segs[2]}/issues/{segs[4]}#issuecomment-{cid}"
            state["comments"].append({"id": cid, "issue": int(segs[4]), "body": body,
                                      "html_url": url})  # fmt: skip
            out = state["comments"][-1]
        elif method == "PATCH" and segs[3:5] == ["issues", "comments"]:
            comment = next(c for c in state["comments"] if c["id"] == int(segs[5]))
            comment["body"] = json.loads(stdin)["body"]
            out = comment
        else:
            print(f"gh: unknown api call {method} {path}", file=sys.stderr)
            return 1
    else:
        print(f"gh: unknown command {argv}", file=sys.stderr)
        return 1
    (folder / "state.json").write_text(json.dumps(state))
    if out is not None:
        print(json.dumps(out))
    return 0


def _git_as_gh_does() -> None:
    git = shutil.which("git")
    for args in (["remote", "-v"], ["status", "--porcelain"]):
        if git:
            subprocess.run([git, *args], capture_output=True, stdin=subprocess.DEVNULL)


def install_gh_stub(bin_dir: Path, folder: Path) -> None:
    """Put this stub on ``bin_dir`` as ``gh``; its log and state go to ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    gh = bin_dir / "gh"
    gh.write_text(
        f"#!/bin/sh\nGH_STUB_DIR='{folder}' exec '{sys.executable}' '{__file__}' \"$@\"\n"
    )
    gh.chmod(0o755)


def calls(folder: Path) -> list[dict]:
    """Every call recorded so far."""
    log = folder / "log.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def state(folder: Path) -> dict:
    """Pull requests and comments as the stub's GitHub holds them."""
    return _state(folder)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
