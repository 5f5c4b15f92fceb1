"""Open a page in headless Chromium and read back what a person would see.

Chromium is driven over its DevTools protocol on a pipe (``--remote-debugging-pipe``: the
browser reads commands on fd 3 and writes answers on fd 4, NUL-separated JSON), so no port is
opened and nothing but the browser itself is needed. :func:`render` returns the page's
``document.body.innerText`` (text hidden by CSS or a closed ``<details>`` is not in it), a
PNG screenshot of the window, and what a ``probe`` expression returned (a JSON string, parsed:
e.g. where elements are; DevTools evaluates it, the page's own policy forbids scripts).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    """The first Chromium-like browser on PATH."""
    return next((path for name in CANDIDATES if (path := shutil.which(name))), None)


@dataclass
class Rendered:
    text: str  # what is visible
    png: bytes  # the screenshot
    probed: Any = None  # the probe's answer


class _Pipe:
    def __init__(self, write_fd: int, read_fd: int) -> None:
        self.write_fd, self.read_fd = write_fd, read_fd
        self.buffer = b""
        self.next_id = 0
        self.seen: set[str] = set()  # events that came while waiting for an answer

    def _messages(self) -> Any:
        while True:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                yield json.loads(raw)
            data = os.read(self.read_fd, 1 << 20)
            if not data:
                raise RuntimeError("the browser closed its DevTools pipe")
            self.buffer += data

    def call(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> Any:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        for answer in self._messages():
            if "method" in answer:
                self.seen.add(answer["method"])
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def wait_for(self, event: str) -> None:
        if event in self.seen:
            return
        for message in self._messages():
            if message.get("method") == event:
                return


def render(
    browser: str, page: Path, profile: Path, *, width: int = 1200, probe: str = ""
) -> Rendered:
    """Load ``page`` (a file) in headless ``browser`` in a window ``width`` × 900 px; its
    visible text, a screenshot and the answer of ``probe`` (JavaScript giving a JSON string)."""
    commands_read, commands_write = os.pipe()
    answers_read, answers_write = os.pipe()

    def to_3_and_4() -> None:
        os.dup2(commands_read, 3)
        os.dup2(answers_write, 4)

    args = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--remote-debugging-pipe", f"--user-data-dir={profile}",
            f"--window-size={width},900", "about:blank"]  # fmt: skip
    proc = subprocess.Popen(
        args,
        pass_fds=(3, 4, commands_read, answers_write),
        preexec_fn=to_3_and_4,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(commands_read)
    os.close(answers_write)
    pipe = _Pipe(commands_write, answers_read)
    try:
        target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        pipe.call("Page.enable", session=session)
        pipe.call("Page.navigate", {"url": page.resolve().as_uri()}, session=session)
        pipe.wait_for("Page.loadEventFired")
        text = pipe.call(
            "Runtime.evaluate",
            {"expression": "document.body.innerText", "returnByValue": True},
            session=session,
        )["result"]["value"]
        probed = None
        if probe:
            probed = json.loads(
                pipe.call(
                    "Runtime.evaluate",
                    {"expression": probe, "returnByValue": True},
                    session=session,
                )["result"]["value"]
            )
        shot = pipe.call("Page.captureScreenshot", {"format": "png"}, session=session)
        pipe.call("Browser.close")
        proc.wait(timeout=30)
        return Rendered(text=text, png=base64.b64decode(shot["data"]), probed=probed)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(commands_write)
        os.close(answers_read)
