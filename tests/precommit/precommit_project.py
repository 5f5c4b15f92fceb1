"""A small project whose "linter" (ci/lint.py) refuses lines marked BAD, with a pre-commit recipe
(.agentci/pre-commit.yaml) whose scripted model removes the marker from app.py."""

from __future__ import annotations

LINT = """\
import sys

bad = [f"{name}:{n}: BAD marker" for name in sys.argv[1:]
       for n, line in enumerate(open(name), 1) if "BAD" in line]
print("\\n".join(bad))
sys.exit(1 if bad else 0)
"""

RECIPE = """\
version: 1
name: fix-markers
model: {name: "scripted:replies.yaml"}
parameters:
  files: {type: list}
prompt: "Remove the BAD markers from {{ files }}: {{ verify.output }}"
workspace: {path: ., isolation: none}
verify: {command: "python ci/lint.py {{ files }}", attempts: 1}
policy: {mode: auto_edit}
budget: {max_turns: 5}
"""

FIX_APP = """\
- calls: [{name: replace, args: {file_path: app.py, old_string: "  # BAD", new_string: ""}}]
- text: Removed the marker.
"""

#: The model also rewrites a file that is not being committed.
FIX_APP_AND_TOUCH_OTHER = """\
- calls:
  - {name: replace, args: {file_path: app.py, old_string: "  # BAD", new_string: ""}}
  - {name: write_file, args: {file_path: other.py, content: "y = 3\\n"}}
- text: Removed the marker and tidied other.py.
"""

FILES = {
    "app.py": "x = 1  # BAD\n",
    "other.py": "y = 2\n",
    "ci/lint.py": LINT,
    ".agentci/pre-commit.yaml": RECIPE,
    ".agentci/replies.yaml": FIX_APP,
    ".gitignore": ".agentci/pre-commit-out/\n",
}

#: No key in any of the variables agentci reads.
NO_KEY = {"GEMINI_API_KEY": "", "GOOGLE_API_KEY": "", "GOOGLE_GENAI_USE_VERTEXAI": ""}
