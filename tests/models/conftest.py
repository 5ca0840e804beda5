"""Shared fixtures: no network beyond loopback, fast retries, and an OpenAI-compatible loopback server."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from suite.models import RetryPolicy

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@pytest.fixture
def fast_retry() -> RetryPolicy:
    """Four attempts with millisecond backoff."""
    return RetryPolicy(attempts=4, base_s=0.001, max_s=0.005)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Refuse any connection or name lookup beyond loopback, and fail the test if one was tried."""
    tried: list[str] = []
    real_connect, real_connect_ex, real_getaddrinfo = (
        socket.socket.connect,
        socket.socket.connect_ex,
        socket.getaddrinfo,
    )

    def refuse(what: Any) -> None:
        if isinstance(what, tuple) and what[0] not in LOOPBACK:
            tried.append(repr(what))
            raise ConnectionRefusedError(f"tests may not reach {what!r}")

    def connect(self: socket.socket, address: Any) -> Any:
        refuse(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> Any:
        refuse(address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None:
            refuse((host,))
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield
    assert not tried, f"the test tried to reach the network: {tried}"


@dataclass
class Planned:
    """One planned answer of the loopback server."""

    status: int = 200
    text: str = "pong"
    delay_s: float = 0.0
    error: str = ""
    finish_reason: str = "stop"
    body: str | None = None  # a raw JSON body to answer with instead (malformed replies)


@dataclass
class LoopbackServer:
    """An OpenAI-compatible /v1/chat/completions on 127.0.0.1 that answers from a plan."""

    port: int
    plan: list[Planned] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    context: int | None = None  # the `max_model_len` its GET /v1/models says (as vLLM's does)

    def then(
        self, status: int = 200, text: str = "pong", delay_s: float = 0.0, error: str = "", finish_reason: str = "stop",
        body: str | None = None,
    ) -> LoopbackServer:
        """Plan the next answer (unplanned requests get a 200 "pong"); `body` is sent as is."""
        self.plan.append(Planned(status, text, delay_s, error, finish_reason, body))
        return self

    @property
    def api_base(self) -> str:
        """The base URL to pass as `api_base`."""
        return f"http://127.0.0.1:{self.port}/v1"


def _handler(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            entry = {"id": "local", "object": "model"}
            if server.context is not None:
                entry["max_model_len"] = server.context
            data = json.dumps({"object": "list", "data": [entry]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server.requests.append(
                {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
            )
            planned = server.plan.pop(0) if server.plan else Planned()
            time.sleep(planned.delay_s)
            if planned.status == 200:
                payload: dict[str, Any] = {
                    "id": "chatcmpl-loopback",
                    "object": "chat.completion",
                    "created": 1,
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": planned.text},
                            "finish_reason": planned.finish_reason,
                        }
                    ],
                    "usage": {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9},
                }
            else:
                payload = {
                    "error": {"message": planned.error or "planned failure", "type": "test", "code": None}
                }
            data = planned.body.encode() if planned.body is not None else json.dumps(payload).encode()
            try:
                self.send_response(planned.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (a timeout test)
                pass

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def openai_server() -> Iterator[LoopbackServer]:
    """A fresh loopback server per test."""
    state = LoopbackServer(port=0)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()
