"""The one door between the host and the workspace: what the host may do with workspace files.

After the first model call every byte of the workspace is attacker data to the host side, and
so is a committed file of a pull request. Every host-side read or write of a workspace path goes
through this module:

* paths are opened **beneath** a root (the workspace, or an output folder) and **no link is
  followed**, neither the last component nor a folder on the way: ``openat2`` with
  ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`` where the kernel has it,
  else a walk from the root one component at a time, each folder opened ``O_NOFOLLOW |
  O_DIRECTORY`` relative to the last one's descriptor;
* reads take **regular files only**: the file is opened ``O_NONBLOCK`` (a FIFO cannot hang the
  open) and checked with ``fstat``; FIFOs, devices, sockets and folders are refused, and so are
  hard-linked files (a hard link can make a file from elsewhere look like one of the workspace);
* sizes are **bounded**: a caller names the most bytes it takes;
* text headed for the model is **masked** as ``read_file`` masks it (:func:`agentci.tools.file_io.read_text_masked`:
  a repository config file loses its credentials, :func:`agentci.policy.gitconfig.sanitise`).

Every refusal is a :class:`UnsafePath`, a :class:`~agentci.errors.ToolFailure`: a tool shows it
to the model, and a host-side reader skips the file with its message.

``root`` is a folder path (trusted: it is resolved once) or an open descriptor of one.
``rel`` is a relative path below it; ``..`` and absolute paths are refused.

The parts: :mod:`~agentci.workspace_io.beneath` (opening beneath a root without links),
:mod:`~agentci.workspace_io.reading` (bounded reads of regular files, what a path is) and
:mod:`~agentci.workspace_io.changing` (atomic writes, deletes and moves; each one counted by
:mod:`~agentci.workspace_io.writes`, so a snapshot taken before it is known to be stale).
"""

from agentci.workspace_io.beneath import Root, UnsafePath, open_beneath
from agentci.workspace_io.changing import move, unlink, write_bytes
from agentci.workspace_io.reading import kind, read_bytes

__all__ = [
    "Root",
    "UnsafePath",
    "kind",
    "move",
    "open_beneath",
    "read_bytes",
    "unlink",
    "write_bytes",
]
