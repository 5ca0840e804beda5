"""Hostile model servers: a reply body that never ends, and one trickled a byte at a time, are bounded in bytes read
and in time, and end as the model's failure (`model_error`)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from suite.contract.errors import ModelError
from suite.models import ModelClient, RetryPolicy, vision
from suite.models.call_workers import CallWorkers

MSGS = [{"role": "user", "content": "ping"}]
HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
CHUNK = b"x" * 65536
#: what the kernel's socket buffers and the HTTP client's read-ahead hold on loopback beyond what was read
LOOPBACK_BUFFERS = 6_000_000


@dataclass
class Hostile:
    """A loopback HTTP server whose every reply is `mode`: `endless` (chunks as fast as the client takes them) or
    `trickle` (one byte a second); it counts the bytes of body the clients took and the requests."""

    mode: str
    port: int = 0
    sent: int = 0
    requests: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def api_base(self) -> str:
        """The base URL to pass as `api_base`."""
        return f"http://127.0.0.1:{self.port}/v1"

    def serve(self, conn: socket.socket) -> None:
        """Answer one connection: read the request, then send the hostile body until the client goes away."""
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = int(next((line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(
                b"content-length")), 0))
            while len(body) < length:
                body += conn.recv(65536)
            self.requests += 1
            try:
                conn.sendall(HEAD)
                while not self.stop.is_set():
                    piece = CHUNK if self.mode == "endless" else b"{"
                    conn.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.sent += len(piece)
                    if self.mode == "trickle":
                        time.sleep(1.0)
            except OSError:  # the client stopped reading
                pass


@pytest.fixture(params=["endless", "trickle"])
def hostile(request: pytest.FixtureRequest) -> Iterator[Hostile]:
    """A hostile server per test, of each kind."""
    state = Hostile(request.param)
    listener = socket.create_server(("127.0.0.1", 0))
    state.port = listener.getsockname()[1]

    def accept() -> None:
        while not state.stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
            threading.Thread(target=state.serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    yield state
    state.stop.set()
    listener.close()


def _client(server: Hostile, **kwargs: Any) -> ModelClient:
    return ModelClient("openai/local-model", api_base=server.api_base, api_key="sk-fake-0123456789abcdef",
                       retry=RetryPolicy(attempts=2, base_s=0.001, max_s=0.005), **kwargs)


def test_a_hostile_body_is_cut_in_bytes_and_time_and_ends_as_a_model_error(hostile: Hostile) -> None:
    client = _client(hostile, max_reply_bytes=1_000_000, call_deadline_s=2.0)
    with pytest.raises(ModelError) as caught:
        asyncio.run(client.complete(MSGS))
    if hostile.mode == "endless":  # the cap ends it at once and is not retried: the body would only come again
        assert "model.max_reply_bytes (1000000 bytes)" in str(caught.value)
        assert caught.value.attempts == 1 and hostile.requests == 1
        assert hostile.sent < 1_000_000 + LOOPBACK_BUFFERS  # the body stopped near the cap, not at the deadline
    else:  # the deadline ends each attempt; a passed deadline is transient: retried, then the model's failure
        assert "model.call_deadline_s (2 s)" in str(caught.value)
        assert caught.value.attempts == 2 and hostile.requests == 2


def test_the_bounds_hold_in_a_model_call_worker(hostile: Hostile) -> None:
    workers = CallWorkers(1)
    try:
        client = _client(hostile, max_reply_bytes=1_000_000, call_deadline_s=2.0)
        client.workers = workers
        with pytest.raises(ModelError, match="max_reply_bytes|call_deadline_s"):
            asyncio.run(client.complete(MSGS))
    finally:
        workers.close()


def test_the_checks_before_a_run_are_bounded_as_well(hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """The image probe and the served-context question reach the same server before the first episode."""
    monkeypatch.setattr(vision, "PROBE_TIMEOUT_S", 2.0)
    found = vision.model_vision("openai/local-model", "auto", {"api_base": hostile.api_base, "api_key": "sk-x"})
    assert found.takes_images is None and ("max_reply_bytes" in found.how or "call_deadline_s" in found.how)
    assert vision.served_context(hostile.api_base, timeout_s=2.0) is None
    assert hostile.sent < 2 * (10_000_000 + LOOPBACK_BUFFERS)  # the probe's body cap and the model list's
