"""Test helpers for agentci and for users' recipe tests.

* :mod:`agentci.testing.fake_gemini` — a loopback HTTP server speaking the Gemini REST API,
  answering from a script (:mod:`agentci.testing.fake_script`).

Nothing here is imported by agentci itself.
"""
