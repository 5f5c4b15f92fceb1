"""Test helpers for agentci and for users' recipe tests.

* :mod:`agentci.testing.case` — a whole run as a test case: a git workspace, a scripted model,
  a recipe, ``agentci run`` in a subprocess (:mod:`agentci.testing.cli`).
* :mod:`agentci.testing.repo` — real git repositories made and committed for tests.
* :mod:`agentci.testing.processes` — the processes a test looks for in ``/proc``: by a marker
  in their command line, and whether one still runs.
* :mod:`agentci.testing.fake_gemini` — a loopback HTTP server speaking the Gemini REST API,
  answering from a script (:mod:`agentci.testing.fake_script`).
* :mod:`agentci.testing.fake_openai` — the same for OpenAI-compatible chat completions, from
  the same script format (both on :mod:`agentci.testing.fake_server`).

Nothing here is imported by agentci itself.
"""
