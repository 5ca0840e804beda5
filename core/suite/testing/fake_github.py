"""A loopback fake of GitHub's tree API and raw files, to test `suite data pull` offline.

    with fake_github("owner/repo", COMMIT, {"data/a.json": b"{}"}, links={"data/b.json": "a.json"}) as hub:
        ...  # SUITE_GITHUB_API / SUITE_GITHUB_RAW point at it; hub.corrupt = True serves wrong bytes
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

from suite.data.pull import API_ENV, RAW_ENV, git_blob_sha


@dataclass
class FakeHub:
    """What the fake serves: files of one commit, symlinks (path -> relative target), and a corruption switch."""

    repo: str
    commit: str
    files: dict[str, bytes]
    links: dict[str, str] = field(default_factory=dict)
    corrupt: bool = False
    hits: list[str] = field(default_factory=list)

    def tree(self) -> bytes:
        """The recursive tree listing of the commit, with git blob hashes."""
        entries = [_entry(p, "100644", b) for p, b in self.files.items()]
        entries += [_entry(p, "120000", t.encode()) for p, t in self.links.items()]
        return json.dumps({"tree": entries}).encode()

    def raw(self, path: str) -> bytes | None:
        """A raw file (a symlink's raw content is its target path), corrupted on request."""
        if path in self.links:
            return self.links[path].encode()
        body = self.files.get(path)
        return body[:-1] + b"X" if body is not None and self.corrupt else body


def _entry(path: str, mode: str, body: bytes) -> dict[str, str]:
    return {"path": path, "type": "blob", "mode": mode, "sha": git_blob_sha(body)}


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, body: bytes | None) -> None:
            self.send_response(200 if body is not None else 404)
            body = body if body is not None else b"not found"
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802
            hub.hits.append(self.path)
            if self.path.startswith(f"/api/repos/{hub.repo}/git/trees/{hub.commit}"):
                return self._send(hub.tree())
            return self._send(hub.raw(unquote(self.path.removeprefix(f"/raw/{hub.repo}/{hub.commit}/"))))

    return Handler


@contextmanager
def fake_github(repo: str, commit: str, files: dict[str, bytes], links: dict[str, str] | None = None
                ) -> Iterator[FakeHub]:
    """Serve `files` on 127.0.0.1 and point the puller's SUITE_GITHUB_API / SUITE_GITHUB_RAW at it."""
    hub = FakeHub(repo, commit, dict(files), dict(links or {}))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    saved = {k: os.environ.get(k) for k in (API_ENV, RAW_ENV)}
    os.environ[API_ENV], os.environ[RAW_ENV] = f"{base}/api", f"{base}/raw"
    try:
        yield hub
    finally:
        server.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
