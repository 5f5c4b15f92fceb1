"""The Gemini provider's warm-up, run in a worker thread while a run's workspace, setup and
baseline verify are prepared (:meth:`agentci.run.runner.Runner` starts it through
``PROVIDER.warm_up``): the private path's HTTP library and its TLS context (loading the CA
bundle mostly releases the GIL), so the first model call finds them ready. A run on Vertex AI
imports google-genai here instead, which its calls go through."""

from __future__ import annotations

import contextlib
import os

from agentci.providers.gemini_keys import uses_vertex_ai
from agentci.providers.gemini_rest import tls_context


def warm_up() -> None:
    """Make the TLS context of the Developer API's calls, or import google-genai for Vertex AI
    (errors are left for the first call)."""
    with contextlib.suppress(Exception):
        if uses_vertex_ai(os.environ):
            # deferred: google-genai is slow to import (seconds); only Vertex AI calls need it
            import google.genai  # noqa: F401
        else:
            tls_context()
