"""`python -m agentci` is the `agentci` command.

``python -m`` puts the working directory first on ``sys.path``. agentci usually runs with the
workspace as its working directory, and the agent writes files there: a module imported later
(lazily, after the agent's first write — the Markdown renderer, a provider's SDK) would be the
agent's ``mdurl.py`` rather than the installed one, run inside agentci's process with its
secrets. So that entry is dropped before anything else is imported (``-P``/``PYTHONSAFEPATH``
does the same on 3.11+; this also covers 3.10). A developer running from a source checkout
loses nothing: the ``agentci`` package is already imported, its submodules resolve through
its own ``__path__``, and its dependencies come from site-packages.
"""

import os
import sys


def _drop_working_directory() -> None:
    """Remove the entry ``python -m`` put first on ``sys.path`` (the working directory)."""
    if getattr(sys.flags, "safe_path", False):
        return  # -P / PYTHONSAFEPATH: nothing was added
    if not sys.path:
        return
    first = sys.path[0]
    try:
        here = os.getcwd()
    except OSError:
        here = None
    if first in ("", ".") or (
        here is not None and os.path.realpath(first) == os.path.realpath(here)
    ):
        del sys.path[0]


_drop_working_directory()

from agentci.cli import console  # noqa: E402  (after the sys.path fix, by design)

if __name__ == "__main__":
    console()
