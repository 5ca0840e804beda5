"""`suite data pull|list|where` against a loopback fake of GitHub (no test reaches the internet)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from suite.cli import main
from suite.pull import git_blob_sha
from suite_omniear.plugin import UPSTREAM, UPSTREAM_COMMIT


def _files(shared: Path) -> dict[str, bytes]:
    eval_dir = shared / "omniear" / "data" / "eval" / "single-independent"
    return {
        "data/eval/single-independent/task/00001_task.json": (eval_dir / "task" / "00001_task.json").read_bytes(),
        "data/data-all/scene/00001_scene.json": (eval_dir / "scene" / "00001_scene.json").read_bytes(),
        "data/attribute_actions.csv": (shared / "omniear" / "data" / "attribute_actions.csv").read_bytes(),
        "README.md": b"not pulled",
    }


def _entry(path: str, mode: str, body: bytes) -> dict[str, str]:
    return {"path": path, "type": "blob", "mode": mode, "sha": git_blob_sha(body)}


class FakeGitHub(BaseHTTPRequestHandler):
    """Serves a tree (with one symlink) and raw files of one commit; `corrupt` flips served bytes."""

    files: dict[str, bytes] = {}
    link = ("data/eval/single-independent/scene/00001_scene.json", "../../../data-all/scene/00001_scene.json")
    corrupt = False
    hits: list[str] = []

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: bytes, code: int = 200) -> None:
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self.hits.append(self.path)
        if self.path.startswith(f"/api/repos/{UPSTREAM}/git/trees/{UPSTREAM_COMMIT}"):
            tree = [_entry(p, "100644", b) for p, b in self.files.items()]
            tree.append(_entry(self.link[0], "120000", self.link[1].encode()))
            return self._send(json.dumps({"tree": tree}).encode())
        prefix = f"/raw/{UPSTREAM}/{UPSTREAM_COMMIT}/"
        path = self.path.removeprefix(prefix)
        if path == self.link[0]:
            return self._send(self.link[1].encode())
        if path in self.files:
            body = self.files[path]
            return self._send(body[:-1] + b"X" if self.corrupt else body)
        return self._send(b"not found", 404)


@pytest.fixture
def github(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[type[FakeGitHub]]:
    FakeGitHub.files, FakeGitHub.corrupt, FakeGitHub.hits = _files(shared_data), False, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeGitHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("SUITE_GITHUB_API", f"{base}/api")
    monkeypatch.setenv("SUITE_GITHUB_RAW", f"{base}/raw")
    yield FakeGitHub
    server.shutdown()


def test_pull_verifies_resolves_links_and_resumes(github: type[FakeGitHub], capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    assert main(["data", "pull", "omniear"]) == 0
    assert "3 files fetched" in capsys.readouterr().err
    assert main(["data", "where", "omniear"]) == 0
    where = capsys.readouterr().out
    assert "official (cache)" in where
    cache = Path(where.split(": ", 1)[1].strip())
    scene = cache / "eval" / "single-independent" / "scene" / "00001_scene.json"
    assert scene.read_bytes() == github.files["data/data-all/scene/00001_scene.json"]
    assert not (cache / "README.md").exists()
    assert main(["data", "pull", "omniear"]) == 0
    assert "0 files fetched, 3 already present" in capsys.readouterr().err
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--out", str(tmp_path / "r"), "--no-report"]) == 0
    assert main(["data", "list"]) == 0
    assert "not pulled" not in capsys.readouterr().out.split("omniear", 1)[1].split("\n", 1)[0]


def test_pull_rejects_bad_checksums(github: type[FakeGitHub], capsys: pytest.CaptureFixture[str]) -> None:
    github.corrupt = True
    assert main(["data", "pull", "omniear"]) == 2
    assert "checksum mismatch" in capsys.readouterr().err


def test_pull_offline_says_so(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SUITE_GITHUB_API", "http://127.0.0.1:9/api")
    assert main(["data", "pull", "omniear"]) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot reach 127.0.0.1:9" in err and "offline" in err and len(err.splitlines()) == 1


def test_where_defaults_to_the_generated_pack(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "where", "omniear"]) == 0
    assert "generated (pack)" in capsys.readouterr().out
