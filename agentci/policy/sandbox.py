"""The bubblewrap sandbox: the one place where content of the workspace is executed.

Everything that can run what the agent wrote runs in it (docs/policy.md, "The execution
boundary"): the model's shell commands, ``verify``, ``setup`` of every task after the first,
and the agent's own ``git``. Inside:

* the root file system read-only, the workspace writable except its protected paths
  (``.git``, ``.agentci``, ``.github/workflows``, hook scripts, the recipe), mounted read-only
  over it — also when they do not exist yet: an empty read-only placeholder is mounted, so
  ``git init`` or ``mkdir -p .github/workflows`` cannot create them (:meth:`Sandbox.cleanup`
  removes the placeholders agentci made); every folder between the workspace and such a
  path is a mount point there too (:meth:`Sandbox.pinned_folders`), so renaming a folder above
  it cannot move the protected path away and put a writable one in its place;
* a private ``/tmp`` (holding only, read-only, the virtualenv or tool folders under ``/tmp``
  that ``PATH``/``VIRTUAL_ENV`` name: :mod:`agentci.policy.private_tmp`, and the bytecode store
  at the ``PYTHONPYCACHEPREFIX`` folder: :mod:`agentci.policy.pyc_cache`), ``/proc`` in a new PID namespace (agentci's environment and processes are
  not visible), a user namespace where the kernel allows one, and **no capabilities**
  (``--cap-drop ALL``: even as root, nothing can be unmounted or remounted writable);
* without network (``--unshare-net``: loopback only) unless ``network`` asks for it;
* without host Unix sockets unless ``host_sockets`` asks for them: a seccomp filter
  (:mod:`agentci.policy.socket_filter`) refuses to make the sockets that could connect to
  one, wherever it lies and whatever it is called — a second switch, independent of the
  network;
* the repository's config files, when they hold credentials (``actions/checkout``'s
  ``extraheader``), covered with sanitised copies — its submodules' and worktrees' too, and the
  files they include wherever they lie (:func:`agentci.policy.gitconfig.config_files`);
* a new session (no terminal injection) and ``--die-with-parent``: nothing outlives agentci.

A line made only of built-in read-only commands sees less (:meth:`Sandbox.confined`): not the
host's root but the system's folders, the tools and the workspace
(:mod:`agentci.policy.confined`), so a committed link to a host folder dangles in it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentci.errors import InvalidInput
from agentci.hostprog import host_program
from agentci.policy.confined import repository_folders, root_args, tool_folders
from agentci.policy.gitconfig import sanitised_copies
from agentci.policy.paths import is_below
from agentci.policy.private_tmp import tool_dirs_under_tmp
from agentci.policy.pyc_cache import SANDBOX_PREFIX, store_dir
from agentci.policy.socket_filter import filter_fd, socket_filter_problem

#: Protected folders mounted read-only, created as empty placeholders when absent.
PROTECTED_DIRS: tuple[str, ...] = (".git", ".agentci")
WORKFLOWS_DIR = ".github/workflows"
#: What follows the socket filter on every bwrap command line, before ``--chdir``.
_CLOSING = ("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL",
            "--die-with-parent", "--new-session")  # fmt: skip


@dataclass(frozen=True)
class Sandbox:
    """How to wrap a command in bubblewrap."""

    workspace: Path
    network: bool = False
    host_sockets: bool = False
    readonly: tuple[Path, ...] = field(default_factory=tuple)
    writable: tuple[Path, ...] = field(default_factory=tuple)  # outside the workspace
    bwrap: str = "bwrap"
    placeholders: tuple[Path, ...] = field(default_factory=tuple)  # made by agentci
    overlays: tuple[tuple[Path, Path], ...] = field(default_factory=tuple)  # (copy, original)
    tmp_tools: tuple[Path, ...] = field(default_factory=tuple)  # kept from the host's /tmp
    binds: tuple[tuple[Path, Path], ...] = field(default_factory=tuple)  # (private, target)
    pycache: Path | None = None  # the bytecode store, read-only at SANDBOX_PREFIX
    pycache_view: Path | None = None  # instead: this writable view there, the store read-only
    #: None: the host's whole root, read-only; else the confined root (system folders) and
    #: these ``(source, target)`` folders read-only (:mod:`agentci.policy.confined`)
    shown: tuple[tuple[Path, Path], ...] | None = None
    #: the confined views made from this sandbox, by what they depend on (:meth:`confined`)
    _views: dict[tuple[str, ...], Sandbox] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def but(
        self,
        *,
        network: bool | None = None,
        host_sockets: bool | None = None,
        writable: Sequence[Path] = (),
        binds: Sequence[tuple[Path, Path]] = (),
    ) -> Sandbox:
        """The same sandbox with other switches, more writable folders and/or more
        ``(source, target)`` writable binds (mounted last, over everything else)."""
        return dataclasses.replace(
            self,
            network=self.network if network is None else network,
            host_sockets=self.host_sockets if host_sockets is None else host_sockets,
            writable=(*self.writable, *writable),
            binds=(*self.binds, *binds),
        )

    def confined(self, env: Mapping[str, str]) -> Sandbox:
        """This sandbox for a line made only of built-in read-only commands: instead of the
        host's file system, the system's folders, the tools on ``PATH`` and, for a pinned
        git (``GIT_DIR`` in ``env``, the command's environment), its repository
        (:mod:`agentci.policy.confined`); a committed link to any other host folder dangles.
        Made once per ``PATH`` and repository, like the mounts of any sandbox."""
        key = tuple(env.get(k, "") for k in ("PATH", "GIT_DIR", "GIT_WORK_TREE"))
        view = self._views.get(key)
        if view is None:
            ws = self.workspace
            shown = (*tool_folders(env, ws), *repository_folders(env, ws))
            view = self._views[key] = dataclasses.replace(self, shown=shown)
        return view

    @contextlib.contextmanager
    def launch(self, argv: Sequence[str], cwd: Path) -> Iterator[tuple[list[str], tuple[int, ...]]]:
        """The bwrap command line for ``argv`` in ``cwd`` and the file descriptors the process
        must inherit (the socket filter's pipe), closed again when the block ends."""
        fd = None if self.host_sockets else filter_fd()
        try:
            yield self.wrap(argv, cwd, seccomp_fd=fd), (() if fd is None else (fd,))
        finally:
            if fd is not None:
                os.close(fd)

    def wrap(self, argv: Sequence[str], cwd: Path, *, seccomp_fd: int | None = None) -> list[str]:
        """The bwrap command line that runs ``argv`` in ``cwd`` inside the sandbox; without
        ``host_sockets`` it needs ``seccomp_fd``, a file descriptor holding the socket filter
        (:meth:`launch` makes one). Only the filter's descriptor, ``cwd`` and ``argv`` change
        from one command to the next: the mounts and switches are worked out once per sandbox
        (:attr:`_mounts`)."""
        if not self.host_sockets and seccomp_fd is None:
            raise ValueError("the sandbox needs the socket filter (host_sockets is off)")
        args = list(self._mounts)
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        args += _CLOSING
        args += ["--chdir", str(cwd), "--", *argv]
        return args

    @functools.cached_property
    def _mounts(self) -> tuple[str, ...]:
        """bwrap and its arguments up to the socket filter: the mounts in their order and the
        network switch. The sandbox is frozen, so this never changes once made."""
        ws = str(self.workspace)
        args = [self.bwrap, "--unshare-user-try"]
        args += ["--ro-bind", "/", "/"] if self.shown is None else root_args(self.shown)
        args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        for p in self.tmp_tools:  # before the workspace: a workspace inside stays writable
            args += ["--ro-bind", str(p), str(p)]
        if self.pycache is not None and self.pycache_view is not None:
            args += ["--ro-bind", str(self.pycache), str(self.pycache)]
            args += ["--bind", str(self.pycache_view), SANDBOX_PREFIX]
        elif self.pycache is not None:
            args += ["--ro-bind", str(self.pycache), SANDBOX_PREFIX]
        args += ["--bind", ws, ws]
        for p in self.writable:
            args += ["--bind", str(p), str(p)]
        for p in self.pinned_folders():
            args += ["--bind", str(p), str(p)]
        for p in self.readonly:
            args += ["--ro-bind", str(p), str(p)]
        for copy, original in self.overlays:
            args += ["--ro-bind", str(copy), str(original)]
        for source, target in self.binds:
            args += ["--bind", str(source), str(target)]
        if self.shown is not None:
            args += ["--remount-ro", "/"]  # the confined root is bwrap's own tmpfs
        if not self.network:
            args.append("--unshare-net")
        return tuple(args)

    def pinned_folders(self) -> list[Path]:
        """The workspace's folders above a read-only path or a covered config file, parents
        first. Each is mounted onto itself, so it is a mount point in the sandbox, which
        cannot be renamed: a mount moves with a renamed folder above it, and code in the
        sandbox could otherwise rename ``backend`` and make a new ``backend/.venv`` (or
        ``.github/workflows``) under the protected name."""
        folders: set[Path] = set()
        for p in (*self.readonly, *(original for _, original in self.overlays)):
            if p != self.workspace and is_below(p, self.workspace):
                folders.update(
                    a for a in p.parents if a != self.workspace and is_below(a, self.workspace)
                )
        return sorted(folders, key=lambda a: (len(a.parts), str(a)))

    def cleanup(self) -> None:
        """Remove the empty placeholders agentci created (those still empty) and the
        sanitised copies of git config files."""
        for copy, _ in self.overlays:
            with contextlib.suppress(OSError):
                copy.unlink()
        for p in reversed(self.placeholders):
            with contextlib.suppress(OSError):
                p.rmdir()


def _missing_parts() -> str | None:
    """Why bubblewrap cannot even be tried here (not installed, no socket filter), or None."""
    if host_program("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    problem = socket_filter_problem()
    if problem is not None:
        return f"the sandbox's socket filter cannot be made: {problem}"
    return None


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot be used here, or None when it works (checked once: a probe
    starts it)."""
    problem = _missing_parts()
    if problem is not None:
        return problem
    exe = host_program("bwrap") or "bwrap"
    probe = [exe, "--unshare-user-try", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    probe += ["--tmpfs", "/tmp", "--unshare-net", "--unshare-pid", "--cap-drop", "ALL"]
    fd = filter_fd()
    probe += ["--seccomp", str(fd), "--die-with-parent", "--new-session", "true"]
    try:
        done = subprocess.run(
            probe, capture_output=True, timeout=10, stdin=subprocess.DEVNULL, pass_fds=(fd,)
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap does not start: {exc}"
    finally:
        os.close(fd)
    if done.returncode != 0:
        msg = done.stderr.decode(errors="replace").strip().splitlines()
        return "bubblewrap does not work here: " + (msg[-1] if msg else f"exit {done.returncode}")
    return None


def under_ci() -> bool:
    """Whether agentci runs in a CI job (``CI`` or ``GITHUB_ACTIONS`` set and not false)."""
    return any(
        os.environ.get(k, "").lower() not in ("", "0", "false") for k in ("CI", "GITHUB_ACTIONS")
    )


def check_sandbox_mode(mode: str, *, probe: bool = True) -> str | None:
    """Raise :class:`InvalidInput` when ``mode`` cannot be honoured here; else the reason
    bubblewrap is unusable (``auto`` then runs without a sandbox, outside CI) or None. Without
    ``probe``, bubblewrap is not started to see whether it works (:func:`bwrap_problem`): only
    a missing program or socket filter is a reason."""
    if mode == "none":
        return None
    if mode not in ("auto", "bwrap"):
        raise InvalidInput(f"unknown sandbox mode {mode!r} (auto, bwrap or none)")
    problem = bwrap_problem() if probe else _missing_parts()
    if problem is not None:
        if mode == "bwrap":
            raise InvalidInput(f"sandbox: bwrap was asked for, but {problem}")
        if under_ci():
            raise InvalidInput(
                f"sandbox: auto under CI without a working sandbox: {problem}. Without it the agent's commands "
                "could read agentci's secrets; install bubblewrap (apt-get install bubblewrap; "
                "on Ubuntu 24.04 also allow unprivileged user namespaces) or, accepting the "
                "risk, set `sandbox: none` in the recipe"
            )
    return problem


def _placeholder(path: Path, workspace: Path, made: list[Path]) -> None:
    """Create ``path`` (and missing parents) as empty folders, remembering which — only when
    the existing part is really inside the workspace (a planted ``.github`` symlink is not)."""
    missing = []
    p = path
    while not p.exists() and not p.is_symlink():
        missing.append(p)
        p = p.parent
    if p.is_symlink() or not is_below(Path(os.path.realpath(p)), workspace):
        return
    for m in reversed(missing):
        m.mkdir()
        made.append(m)


def make_sandbox(
    mode: str,
    *,
    workspace: Path,
    network: bool,
    host_sockets: bool = False,
    readonly: Sequence[Path] = (),
    protect_workflows: bool = True,
    env: Mapping[str, str] | None = None,
    probe: bool = True,
) -> tuple[Sandbox | None, str | None]:
    """Pick the sandbox for a task; call it after setup (protected paths are decided then).

    ``mode`` is the recipe's ``sandbox``: ``none`` → no sandbox; ``bwrap`` → bubblewrap or
    :class:`InvalidInput`; ``auto`` → bubblewrap when it works, else no sandbox and a
    warning (the ``sandbox_unavailable`` event's text) — except under CI (``CI`` or
    ``GITHUB_ACTIONS`` set), where that is :class:`InvalidInput` too. ``readonly`` lists
    protected paths to mount read-only; ``.git``, ``.agentci`` and (with
    ``protect_workflows``) ``.github/workflows`` are added, as placeholders when absent.
    Folders under /tmp that ``PATH``/``VIRTUAL_ENV`` of ``env`` (default: agentci's own, which
    the tools inherit) name are carried into the private /tmp read-only. ``network`` and
    ``host_sockets`` are the two switches (module docstring). ``probe=False`` skips starting
    bubblewrap once to see that it works (:func:`check_sandbox_mode`): only for a caller to
    whom any failure of the command it then runs means "cannot say" (the pre-commit hook's
    clean path, which then leaves the decision to the run).
    """
    if mode == "none":
        return None, None
    problem = check_sandbox_mode(mode, probe=probe)
    if problem is not None:
        return None, f"{problem}; tool commands run without a sandbox"
    ws = Path(os.path.realpath(workspace))
    names = [*PROTECTED_DIRS, *([WORKFLOWS_DIR] if protect_workflows else [])]
    made: list[Path] = []
    for name in names:
        p = ws / name
        if not p.exists() and not p.is_symlink():
            with contextlib.suppress(OSError):
                _placeholder(p, ws, made)
    ro: list[Path] = []
    for p in [*readonly, *(ws / n for n in names)]:
        real = Path(os.path.realpath(p))
        if real.exists() and real != ws and real not in ro and is_below(real, ws):
            ro.append(real)
    exe = host_program("bwrap") or "bwrap"
    box = Sandbox(
        ws,
        network=network,
        host_sockets=host_sockets,
        readonly=tuple(ro),
        bwrap=exe,
        placeholders=tuple(made),
        overlays=tuple(sanitised_copies(ws)),
        tmp_tools=tool_dirs_under_tmp(os.environ if env is None else env),
        pycache=_usable_store(ws),
    )
    return box, None


def _usable_store(workspace: Path) -> Path | None:
    """The bytecode store (:mod:`agentci.policy.pyc_cache`), unless it lies in the workspace
    or the workspace in it (the sandbox could write it there)."""
    store = store_dir()
    if store is None or is_below(store, workspace) or is_below(workspace, store):
        return None
    return store
