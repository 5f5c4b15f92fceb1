"""The sandbox's seccomp filter: no Unix socket of the host is reachable, by construction.

A host's Unix sockets (``/var/run/docker.sock`` is root on the runner) can sit anywhere in the
file system, under any name, renamed after bind, inside a folder the sandbox must show (a
virtualenv, the toolchain). Hiding them one by one is a list that is always incomplete. So,
unless the recipe opens them (``host_sockets: true``), commands in the sandbox cannot make a
socket that could reach one:

* ``socket(AF_UNIX, …)`` fails with ``EAFNOSUPPORT`` ("Address family not supported by
  protocol": no path, no abstract name can be connected to);
* ``socketpair(AF_UNIX, …)`` works for stream and seqpacket pairs (asyncio and multiprocessing
  use them) but not for datagram pairs, which ``connect``/``sendto`` could point at a host
  datagram socket;
* ``io_uring_setup`` fails with ``EPERM`` (io_uring can open and connect sockets without the
  ``socket`` system call).

TCP/UDP over ``AF_INET``/``AF_INET6`` is the separate ``network`` switch (a network
namespace). The price: a program that makes its own Unix socket in the sandbox (Python's
``multiprocessing`` forkserver, the default from Python 3.14, or a ``Manager``; a test server on
a socket path) fails too; such a project's verify needs ``verify.host_sockets: true``. The filter is built with libseccomp (through ``pyseccomp``), which also handles
the architecture check: a system call of another ABI (32-bit x86, x32) kills the process
instead of slipping past the filter.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import socket
import tempfile
from typing import Any

#: ``type & SOCK_TYPE_MASK`` is the socket type without SOCK_CLOEXEC / SOCK_NONBLOCK.
SOCK_TYPE_MASK = 0xF
#: An ``int`` argument as the kernel sees it: the low 32 bits of the register.
INT_MASK = 0xFFFF_FFFF


class SocketFilterUnavailable(RuntimeError):
    """libseccomp cannot be loaded or cannot build the filter here."""


#: The libraries pyseccomp loads, by the names the dynamic loader knows them under.
_SONAMES = {"c": "libc.so.6", "seccomp": "libseccomp.so.2"}


def _import_pyseccomp() -> Any:
    """``pyseccomp``, imported without the two ``ldconfig -p`` it would run.

    It looks up libc and libseccomp with :func:`ctypes.util.find_library`, which on Linux
    starts ``/sbin/ldconfig -p`` for each name (two processes on every sandboxed run). The
    dynamic loader finds a library by its soname by itself: while pyseccomp is imported, a
    name whose soname loads is answered with that soname, any other with the real lookup."""
    real = ctypes.util.find_library

    def by_soname(name: str) -> str | None:
        soname = _SONAMES.get(name)
        if soname is not None:
            try:
                ctypes.CDLL(soname)
            except OSError:
                pass
            else:
                return soname
        return real(name)

    ctypes.util.find_library = by_soname
    try:
        # deferred: optional; only the sandbox's socket filter needs it
        import pyseccomp  # type: ignore[import-untyped]
    finally:
        ctypes.util.find_library = real
    return pyseccomp


@functools.lru_cache(maxsize=1)
def _program() -> bytes | str:
    try:
        sc = _import_pyseccomp()
    except (ImportError, OSError, RuntimeError) as exc:  # libseccomp.so.2 is missing
        return f"libseccomp cannot be loaded ({exc}); install libseccomp2"
    try:
        f = sc.SyscallFilter(sc.ALLOW)
        # The kernel reads the family as a 32-bit int: compare the low 32 bits only, or
        # socket(0x1_0000_0001, …) would be AF_UNIX to the kernel and not to the filter.
        unix = sc.Arg(0, sc.MASKED_EQ, INT_MASK, int(socket.AF_UNIX))
        f.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), "socket", unix)
        datagram = sc.Arg(1, sc.MASKED_EQ, SOCK_TYPE_MASK, int(socket.SOCK_DGRAM))
        f.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), "socketpair", unix, datagram)
        f.add_rule(sc.ERRNO(errno.EPERM), "io_uring_setup")
        with tempfile.TemporaryFile() as out:
            f.export_bpf(out)
            out.seek(0)
            return out.read()
    except (OSError, RuntimeError, ValueError) as exc:
        return f"libseccomp could not build the socket filter: {exc}"


def socket_filter_problem() -> str | None:
    """Why the filter cannot be built here, or None."""
    program = _program()
    return program if isinstance(program, str) else None


def socket_filter() -> bytes:
    """The BPF program (``struct sock_filter`` array) for bubblewrap's ``--seccomp FD``."""
    program = _program()
    if isinstance(program, str):
        raise SocketFilterUnavailable(program)
    return program


def filter_fd() -> int:
    """A fresh pipe holding the filter, read end returned (the caller closes it): bwrap reads
    ``--seccomp FD`` to its end, so each sandboxed process gets its own."""
    program = socket_filter()
    read, write = os.pipe()
    try:
        os.write(write, program)  # a few hundred bytes: far below the pipe's buffer
    finally:
        os.close(write)
    return read
