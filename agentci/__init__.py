"""agentci: run an LLM coding agent headlessly in pipelines.

Importing this package has no side effects: it defines the version and nothing else,
so that `agentci --version` stays fast (no google-genai import).
"""

__version__ = "0.1.0"
