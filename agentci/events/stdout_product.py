"""What ``agentci run`` delivers on stdout, and whether it arrived.

With ``--prompt`` the model's answer, with ``--format jsonl`` the events, are products of the
run on stdout (``> answer.md``, ``| jq``). A reader that goes away (a closed pipe, EPIPE:
``| head -1``) took what it wanted: that changes nothing. Any other write error (a full disk,
an I/O error) means the product was lost, and a pipeline must not read success from a missing
answer: the run ends with exit 70 and one line on stderr (docs/exit-codes.md).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass

#: The exit code of a run whose stdout product was lost: internal_error's ("an output that
#: cannot be written"), unless the run failed already (its own code then).
LOST_EXIT = 70


@dataclass
class StdoutProduct:
    """The first write error of the product on stdout that is not a closed pipe."""

    what: str = "the output"
    lost: OSError | None = None

    def failed(self, err: OSError) -> None:
        """Note a write error of the product (a closed pipe, EPIPE, is not a loss)."""
        if err.errno != errno.EPIPE and self.lost is None:
            self.lost = err

    def exit_code(self, code: int) -> int:
        """The process exit code for a run that ended with ``code``."""
        return (code or LOST_EXIT) if self.lost is not None else code

    def line(self) -> str:
        """The stderr line that says the product was lost."""
        err = self.lost
        why = (err.strerror or str(err)) if err is not None else ""
        return f"agentci: error: {self.what} could not be written to stdout ({why})"
