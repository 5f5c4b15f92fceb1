"""One sticky comment with summary.md on the triggering pull request or issue.

The comment carries a hidden marker naming the recipe (``<!-- agentci:comment RECIPE -->``);
a later run edits that comment instead of adding another. Several recipes in one workflow
keep one comment each.
"""

from __future__ import annotations

import json

from agentci.delivery.context import DeliveryError, GitHubContext
from agentci.delivery.gh import Gh
from agentci.delivery.pull_request import clip

PAGE = 100
MAX_PAGES = 30  # 3,000 comments: a lookup always ends, whatever gh answers


def marker(recipe: str) -> str:
    """The hidden line that identifies agentci's comment for ``recipe``."""
    return f"<!-- agentci:comment {recipe} -->"


def _find(gh: Gh, ctx: GitHubContext, number: int, mark: str) -> int | None:
    for page in range(1, MAX_PAGES + 1):
        path = f"repos/{ctx.repository}/issues/{number}/comments?per_page={PAGE}&page={page}"
        comments = gh.json_list("api", path)
        for c in comments:
            if mark in str(c.get("body", "")):
                found = c.get("id")
                if not isinstance(found, int) or isinstance(found, bool):
                    raise DeliveryError(
                        f"gh api answered a comment without a numeric id: {found!r}"
                    )
                return found
        if len(comments) < PAGE:
            return None
    raise DeliveryError(
        f"more than {MAX_PAGES * PAGE} comments on #{number}: stopped looking for agentci's "
        "comment (edit or delete it by hand, or turn comment off)"
    )


def sticky_comment(gh: Gh, ctx: GitHubContext, number: int, recipe: str, body: str) -> str:
    """Post or edit the comment; returns its URL."""
    mark = marker(recipe)
    text = clip(f"{mark}\n{body}")
    existing = _find(gh, ctx, number, mark)
    if existing is None:
        made = gh.json_object("api", "--method", "POST", f"repos/{ctx.repository}/issues/{number}/comments",
                       "--input", "-", stdin=_json_body(text))  # fmt: skip
    else:
        made = gh.json_object("api", "--method", "PATCH",
                       f"repos/{ctx.repository}/issues/comments/{existing}",
                       "--input", "-", stdin=_json_body(text))  # fmt: skip
    return str(made.get("html_url", ""))


def _json_body(text: str) -> str:
    return json.dumps({"body": text})
