"""What the fake model servers share: a loopback HTTP server that answers from a script.

:mod:`agentci.testing.fake_gemini` (the Gemini REST API) and
:mod:`agentci.testing.fake_openai` (OpenAI-compatible chat completions) are two dialects over
one machine: each generate call consumes the next turn of one script
(:mod:`agentci.testing.fake_script`) — or, for a model named in ``scripts``, the next turn of
that model's own script —, waits ``latency`` seconds (0 by default), and answers as the
dialect renders the turn. Every request is recorded for assertions. Streamed answers are
SSE over chunked HTTP/1.1 (TCP_NODELAY), with the script's stream faults (cut, malformed,
stall) applied between chunks.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, TypeVar

from agentci.testing.fake_script import Turn, load_script, parse_script


@dataclass
class RecordedRequest:
    """One request a fake received (``api_version`` and ``action`` as the dialect names them:
    ``v1beta``/``streamGenerateContent`` for Gemini, ``v1``/``chat.completions`` for OpenAI)."""

    method: str
    path: str
    api_version: str
    model: str
    action: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: dict[str, Any]
    turn: int | None = None
    #: bytes of the body as it arrived (its encoding: whitespace, escapes), before parsing
    size: int = 0

    @property
    def contents(self) -> list[dict[str, Any]]:
        """Gemini: the request's ``contents``."""
        return self.body.get("contents", [])

    @property
    def messages(self) -> list[dict[str, Any]]:
        """OpenAI: the request's ``messages``."""
        return self.body.get("messages", [])

    def parts(self, kind: str) -> list[dict[str, Any]]:
        """Gemini: all parts of a given key (``text``, ``functionCall``, ``functionResponse``...)."""
        return [p for c in self.contents for p in c.get("parts", []) if kind in p]


@dataclass
class ScriptState:
    """The script and what was asked of it, shared by the server's threads."""

    turns: list[Turn]
    latency: float = 0.0  # seconds each generate call waits before its answer
    by_model: dict[str, list[Turn]] = field(default_factory=dict)  # scripts of their own
    next_by_model: dict[str, int] = field(default_factory=dict)
    requests: list[RecordedRequest] = field(default_factory=list)
    next_turn: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    closing: threading.Event = field(default_factory=threading.Event)
    extra: dict[str, Any] = field(default_factory=dict)  # a dialect's own state (Gemini: caches)

    def take(self, rec: RecordedRequest) -> tuple[Turn | None, str | None]:
        """Record a generate call and consume its turn: ``(turn, None)``, or ``(None, why)``
        when the script has no turn left."""
        with self.lock:
            own = self.by_model.get(rec.model)  # this model's own script, when it has one
            turns = self.turns if own is None else own
            index = self.next_turn if own is None else self.next_by_model.get(rec.model, 0)
            rec.turn = index
            self.requests.append(rec)
            if own is None:
                self.next_turn += 1
            else:
                self.next_by_model[rec.model] = index + 1
        if index < len(turns):
            return turns[index], None
        return None, f"the script has no turn {index + 1} (it holds {len(turns)})"


class ScriptHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 plumbing of a dialect: JSON answers, SSE streams and stream faults."""

    protocol_version = "HTTP/1.1"
    server: ScriptServer
    #: The dialect's name in log lines.
    NAME: ClassVar[str] = "fake"
    #: An SSE event cut in the middle of its JSON (the ``malformed_after`` fault).
    MALFORMED: ClassVar[bytes] = b'data: {"broken": [{"te\r\n\r\n'

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        if self.server.verbose:
            sys.stderr.write(f"{self.NAME}: " + format % args + "\n")

    def read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def think(self) -> None:
        """A model's think time (benchmarks); stopping the server ends it."""
        state = self.server.state
        if state.latency:
            state.closing.wait(state.latency)

    def send_json(self, code: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def send_sse(self, turn: Turn, events: list[Any], done: bytes | None = None) -> None:
        """Stream ``events`` (each one ``data:`` line of JSON), then ``done`` (a last raw
        ``data:`` payload such as OpenAI's ``[DONE]``), applying the turn's faults."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i, event in enumerate(events):
            if self._fault(turn, i):
                return
            self._write_chunk(b"data: " + json.dumps(event).encode() + b"\r\n\r\n")
        if self._fault(turn, len(events)):
            return
        if done is not None:
            self._write_chunk(b"data: " + done + b"\r\n\r\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _fault(self, turn: Turn, sent: int) -> bool:
        """Apply the turn's stream fault before event ``sent``; True when the stream ends."""
        if turn.stall_after == sent:
            self.server.state.closing.wait(turn.stall_seconds)
        if turn.malformed_after == sent:
            self._write_chunk(self.MALFORMED)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            return True
        if turn.cut_after == sent:
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return True
        return False


class ScriptServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self, addr: tuple[str, int], state: ScriptState, verbose: bool, handler: type[ScriptHandler]
    ) -> None:
        self.state = state
        self.verbose = verbose
        super().__init__(addr, handler)


_F = TypeVar("_F", bound="FakeServer")


class FakeServer:
    """A fake model server; a context manager that serves from a background thread."""

    handler: ClassVar[type[ScriptHandler]] = ScriptHandler
    #: the variable of :meth:`env` that points a client here (printed by :func:`serve_main`)
    url_var: ClassVar[str] = ""

    def __init__(
        self,
        turns: list[Any] | None = None,
        *,
        port: int = 0,
        host: str = "127.0.0.1",
        verbose: bool = False,
        latency: float = 0.0,
        scripts: dict[str, list[Any]] | None = None,
    ) -> None:
        by_model = {m: parse_script(t) for m, t in (scripts or {}).items()}
        self._state = ScriptState(parse_script(turns or []), latency=latency, by_model=by_model)
        self._server = ScriptServer((host, port), self._state, verbose, self.handler)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order."""
        with self._state.lock:
            return list(self._state.requests)

    @property
    def generate_requests(self) -> list[RecordedRequest]:
        """Only the generate calls (one per consumed turn)."""
        return [r for r in self.requests if r.turn is not None]

    @property
    def turns_left(self) -> int:
        with self._state.lock:
            return max(0, len(self._state.turns) - self._state.next_turn)

    def add(self, *turns: Any) -> None:
        """Append turns to the script."""
        parsed = parse_script(list(turns))
        with self._state.lock:
            self._state.turns.extend(parsed)

    def env(self, api_key: str = "fake-key") -> dict[str, str]:
        """Environment for a client of this server."""
        raise NotImplementedError

    @classmethod
    def add_options(cls, ap: argparse.ArgumentParser) -> None:
        """Add this dialect's own options to :func:`serve_main`'s command line (none here)."""

    @classmethod
    def from_options(cls, args: argparse.Namespace) -> dict[str, Any]:
        """The constructor arguments of this dialect's own options."""
        return {}

    def start(self: _F) -> _F:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._state.closing.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self: _F) -> _F:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def serve_until_stopped(self, record: str | None = None) -> None:
        """Serve in this thread until SIGINT or SIGTERM (the command line); ``record``: write
        every request as JSONL there when stopped."""
        signal.signal(signal.SIGTERM, _interrupt)
        try:
            self._server.serve_forever(poll_interval=0.1)
        except KeyboardInterrupt:
            pass
        finally:
            self._state.closing.set()
            self._server.server_close()
            if record:
                with open(record, "w", encoding="utf-8") as f:
                    for r in self.requests:
                        line = {"path": r.path, "query": r.query, "body": r.body}
                        f.write(json.dumps(line) + "\n")


def serve_main(
    server: type[FakeServer], argv: list[str] | None, *, prog: str, description: str | None
) -> int:
    """The command line of a fake server (``python -m PROG --script turns.json --port N``):
    print the variable that points a client at it, then serve until SIGINT or SIGTERM."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("--script", required=True, help="JSON file: a list of turns")
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--record", help="write every request as JSONL here when stopped")
    ap.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    server.add_options(ap)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    fake = server(
        load_script(args.script),
        port=args.port,
        host=args.host,
        verbose=args.verbose,
        latency=args.latency,
        **server.from_options(args),
    )
    print(f"{server.url_var}={fake.env()[server.url_var]}", flush=True)
    fake.serve_until_stopped(args.record)
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
