"""Listeners that record whatever reaches them (for exfiltration tests): a loopback TCP port
and a Unix socket on the host."""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path


class Listener:
    """Accepts connections on 127.0.0.1 and keeps every byte received."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received = b""
        self.connections = 0
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.settimeout(1)
            try:
                while data := conn.recv(65536):
                    self.received += data
            except OSError:
                pass
            finally:
                conn.close()

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        self.sock.close()


class HostSocket:
    """A Unix socket on the host (think /var/run/docker.sock) that records what reaches it."""

    def __init__(self, path: Path, bind_at: Path | None = None) -> None:
        self.path = path
        self.got: list[bytes] = []
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(str(bind_at or path))
        if bind_at is not None:
            bind_at.rename(path)  # /proc/net/unix keeps the name it was bound with
        self.server.listen(5)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                self.got.append(conn.recv(100) or b"(connected)")

    def connect_command(self, data: str = "leak") -> str:
        """The model's command: connect to the socket and send ``data``."""
        return (
            f'{sys.executable} -c "import socket; s = socket.socket(socket.AF_UNIX); '
            f"s.connect('{self.path}'); s.sendall(b'{data}')\""
        )

    def close(self) -> None:
        self.server.close()
