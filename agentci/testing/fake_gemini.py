"""A loopback HTTP server that speaks the Gemini REST API and answers from a script.

Point the real google-genai SDK (or agentci, or Gemini CLI) at it with
``GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT`` and any ``GEMINI_API_KEY``. It serves
``POST /{v1,v1beta,v1alpha}/models/{model}:generateContent`` (and Vertex AI's
``/v1beta1/[projects/P/locations/L/]publishers/google/models/{model}:…``),
``:streamGenerateContent?alt=sse`` (SSE over chunked HTTP/1.1, TCP_NODELAY) and ``:countTokens``;
each generate call consumes the next turn of the script (:mod:`agentci.testing.fake_script`)
— or, for a model named in ``scripts``, the next turn of that model's own script, so tasks
running at once can each have their conversation —, after ``latency`` seconds (0 by default;
benchmarks give the model a think time), and every request is recorded for assertions.

In tests::

    with FakeGemini([{"text": "Hello"}]) as fake:
        env = fake.env()          # GOOGLE_GEMINI_BASE_URL + GEMINI_API_KEY
        ...
        assert fake.requests[0].body["contents"][0]["parts"][0]["text"] == "hi"

From a shell::

    python -m agentci.testing.fake_gemini --script turns.json --port 8765
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import socket
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from agentci.testing.fake_script import ErrorSpec, Turn, UsageSpec, load_script, parse_script

# Gemini API: /v1beta/models/M:action; Vertex AI: /v1beta1/[projects/P/locations/L/]publishers/
# google/models/M:action (express mode, with an API key, has no project part)
_PATH = re.compile(
    r"^/(v1|v1beta|v1alpha|v1beta1)/"
    r"(?:projects/[^/]+/locations/[^/]+/)?(?:publishers/google/)?models/([^/:]+):(\w+)$"
)


@dataclass
class RecordedRequest:
    """One request the fake received."""

    method: str
    path: str
    api_version: str
    model: str
    action: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: dict[str, Any]
    turn: int | None = None

    @property
    def contents(self) -> list[dict[str, Any]]:
        return self.body.get("contents", [])

    def parts(self, kind: str) -> list[dict[str, Any]]:
        """All parts of a given key (``text``, ``functionCall``, ``functionResponse``...)."""
        return [p for c in self.contents for p in c.get("parts", []) if kind in p]


@dataclass
class _State:
    turns: list[Turn]
    latency: float = 0.0  # seconds each generate call waits before its answer
    by_model: dict[str, list[Turn]] = field(default_factory=dict)  # scripts of their own
    next_by_model: dict[str, int] = field(default_factory=dict)
    requests: list[RecordedRequest] = field(default_factory=list)
    next_turn: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    closing: threading.Event = field(default_factory=threading.Event)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        if self.server.verbose:
            sys.stderr.write("fake_gemini: " + format % args + "\n")

    # --------------------------------------------------------------- dispatch

    def do_POST(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        m = _PATH.match(url.path)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._json(400, ErrorSpec(code=400, message="fake_gemini: body is not JSON").body())
            return
        if not m:
            self._json(404, ErrorSpec(code=404, message=f"fake_gemini: no route {url.path}").body())
            return
        version, model, action = m.groups()
        rec = RecordedRequest(
            "POST",
            url.path,
            version,
            model,
            action,
            parse_qs(url.query),
            {k.lower(): v for k, v in self.headers.items()},
            body,
        )
        state = self.server.state
        if action == "countTokens":
            with state.lock:
                state.requests.append(rec)
            self._json(200, {"totalTokens": max(1, len(raw) // 4)})
            return
        if action not in ("generateContent", "streamGenerateContent"):
            self._json(404, ErrorSpec(code=404, message=f"fake_gemini: no action {action}").body())
            return
        with state.lock:
            own = state.by_model.get(model)  # this model's own script, when it has one
            turns = state.turns if own is None else own
            index = state.next_turn if own is None else state.next_by_model.get(model, 0)
            rec.turn = index
            state.requests.append(rec)
            turn = turns[index] if index < len(turns) else None
            if own is None:
                state.next_turn += 1
            else:
                state.next_by_model[model] = index + 1
        if turn is None:
            msg = f"fake_gemini: the script has no turn {index + 1} (it holds {len(turns)})"
            self._json(400, ErrorSpec(code=400, status="FAILED_PRECONDITION", message=msg).body())
            return
        if turn.error is not None:
            headers = {}
            if turn.error.retry_after is not None:
                headers["Retry-After"] = f"{turn.error.retry_after:g}"
            self._json(turn.error.code, turn.error.body(), headers)
            return
        if state.latency:  # a model's think time (benchmarks); stopping the server ends it
            state.closing.wait(state.latency)
        usage = UsageSpec(prompt=max(1, len(raw) // 4), output=8)
        chunks = turn.build_chunks(usage, model)
        if action == "generateContent":
            self._json(200, _merge(chunks))
        else:
            self._sse(turn, chunks)

    # --------------------------------------------------------------- writers

    def _json(self, code: int, obj: Any, headers: dict[str, str] | None = None) -> None:
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

    def _sse(self, turn: Turn, chunks: list[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i, chunk in enumerate(chunks):
            if self._fault(turn, i):
                return
            self._write_chunk(b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n")
        if self._fault(turn, len(chunks)):
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _fault(self, turn: Turn, sent: int) -> bool:
        """Apply the turn's stream fault before chunk ``sent``; True when the stream ends."""
        if turn.stall_after == sent:
            self.server.state.closing.wait(turn.stall_seconds)
        if turn.malformed_after == sent:
            self._write_chunk(b'data: {"candidates": [{"content": {"parts": [{"te\r\n\r\n')
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            return True
        if turn.cut_after == sent:
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return True
        return False


def _merge(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """A non-streamed answer: the chunks' parts joined, the last chunk's metadata."""
    out: dict[str, Any] = {}
    parts: list[dict[str, Any]] = []
    cand: dict[str, Any] = {}
    for c in chunks:
        for k, v in c.items():
            if k != "candidates":
                out[k] = v
        for cd in c.get("candidates", [])[:1]:
            parts.extend(cd.get("content", {}).get("parts", []))
            cand.update({k: v for k, v in cd.items() if k != "content"})
    if parts or cand:
        out["candidates"] = [{**cand, "content": {"role": "model", "parts": parts}}]
    return out


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr: tuple[str, int], state: _State, verbose: bool) -> None:
        self.state = state
        self.verbose = verbose
        super().__init__(addr, _Handler)


class FakeGemini:
    """The fake server; a context manager that serves from a background thread."""

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
        self._state = _State(parse_script(turns or []), latency=latency, by_model=by_model)
        self._server = _Server((host, port), self._state, verbose)
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
        """Environment for a client of this server (SDK, agentci, Gemini CLI)."""
        return {"GOOGLE_GEMINI_BASE_URL": self.base_url, "GEMINI_API_KEY": api_key}

    def start(self) -> FakeGemini:
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

    def __enter__(self) -> FakeGemini:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """``python -m agentci.testing.fake_gemini --script turns.json --port N``"""
    ap = argparse.ArgumentParser(prog="python -m agentci.testing.fake_gemini", description=__doc__)
    ap.add_argument("--script", required=True, help="JSON file: a list of turns")
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--record", help="write every request as JSONL here when stopped")
    ap.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    fake = FakeGemini(
        load_script(args.script),
        port=args.port,
        host=args.host,
        verbose=args.verbose,
        latency=args.latency,
    )
    signal.signal(signal.SIGTERM, _interrupt)
    print(f"GOOGLE_GEMINI_BASE_URL={fake.base_url}", flush=True)
    try:
        fake._server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        fake._state.closing.set()
        fake._server.server_close()
        if args.record:
            with open(args.record, "w", encoding="utf-8") as f:
                for r in fake.requests:
                    f.write(json.dumps({"path": r.path, "query": r.query, "body": r.body}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
