"""The GitHub workflow ``agentci init`` writes: the Action running the starter recipe.

Safe defaults, as in examples/workflows/: read-only ``permissions``, ``persist-credentials:
false`` (no token left in ``.git`` for the agent's commands), the project's own Python, and the
API key from a secret. It runs on demand (``workflow_dispatch``) and, for the test fixer, on a
pull request labelled ``agentci-fix``.
"""

from __future__ import annotations

import json

#: Where the Action lives; ``agentci init --action`` names another copy or version.
DEFAULT_ACTION = "OWNER/agentci@v0"

_TEMPLATE = """\
# Written by `agentci init`: runs @RECIPE@ with the agentci Action.
# Needs the repository secret GEMINI_API_KEY. The outputs (patch, report.html, summary) are
# uploaded as the job's artifact; the summary is on the job's page.
name: agentci @NAME@
on:
  workflow_dispatch:@TRIGGER@
permissions:
  contents: read
jobs:
  agentci:@IF@
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
        with:
          persist-credentials: false # the agent's commands must not find a GitHub token in .git
      # The project's own Python: setup and verify use it; agentci installs itself apart.
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - uses: @ACTION@
        id: agentci
        with:
          recipe: @RECIPE@
          # Install the project and the tools verify runs (adapt to yours).
          setup: @SETUP@
        env:
          GEMINI_API_KEY: ${{ secrets.GEMINI_API_KEY }}
"""

_LABEL_TRIGGER = """
  pull_request:
    types: [labeled]"""
_LABEL_IF = (
    "\n    if: github.event_name == 'workflow_dispatch' || github.event.label.name == 'agentci-fix'"
)


def render_workflow(*, name: str, recipe: str, setup: str, action: str, on_label: bool) -> str:
    """The workflow text (``recipe``: the recipe's path from the repository root)."""
    text = _TEMPLATE.replace("@TRIGGER@", _LABEL_TRIGGER if on_label else "")
    text = text.replace("@IF@", _LABEL_IF if on_label else "")
    for key, value in (("@NAME@", name), ("@ACTION@", action)):
        text = text.replace(key, value)
    return text.replace("@RECIPE@", recipe).replace("@SETUP@", json.dumps(setup))
