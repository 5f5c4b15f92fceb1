"""The Gemini provider's warm-up (run in a worker thread during setup and the baseline verify)
imports the SDK and builds the response models the first answer is read with, so reading it
does not build them on the way to the first tool call."""

from __future__ import annotations

import json
import subprocess
import sys

#: In a fresh interpreter: warm up, then the response models the first answer needs that are
#: still unbuilt.
WARM_THEN_UNBUILT = """\
import json
import pydantic
from agentci.providers.registry import warm_up
warm_up(["gemini-2.5-flash"])
from google.genai import types
needed = ["GenerateContentResponse", "Candidate", "Content", "Part", "FunctionCall",
          "GenerateContentResponseUsageMetadata", "ModalityTokenCount"]
print(json.dumps([n for n in needed if not getattr(types, n).__pydantic_complete__]))
"""


def test_warming_up_builds_the_models_of_a_streamed_answer() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WARM_THEN_UNBUILT], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
