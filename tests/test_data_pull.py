"""`suite data pull|list|where` against a loopback fake of GitHub (no test reaches the internet)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.testing.fake_github import FakeHub, fake_github
from suite_omniear.plugin import PACK_DIR, UPSTREAM, UPSTREAM_COMMIT


def _files() -> dict[str, bytes]:
    """An upstream-shaped tree: files of our generated pack, which has the official layout and formats (the fake
    serves them; the pull's checks are against what the fake serves, so a plain clone runs this test)."""
    split = PACK_DIR / "single-independent"
    return {
        "data/eval/single-independent/task/00001_task.json": (split / "task" / "00001_task.json").read_bytes(),
        "data/data-all/scene/00001_scene.json": (split / "scene" / "00001_scene.json").read_bytes(),
        "data/attribute_actions.csv": (PACK_DIR / "attribute_actions.csv").read_bytes(),
        "README.md": b"not pulled",
    }


@pytest.fixture
def github() -> Iterator[FakeHub]:
    link = {"data/eval/single-independent/scene/00001_scene.json": "../../../data-all/scene/00001_scene.json"}
    with fake_github(UPSTREAM, UPSTREAM_COMMIT, _files(), link) as hub:
        yield hub


def test_pull_verifies_resolves_links_and_resumes(github: FakeHub, capsys: pytest.CaptureFixture[str],
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


def test_pull_rejects_bad_checksums(github: FakeHub, capsys: pytest.CaptureFixture[str]) -> None:
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


def test_data_list_keeps_each_row_whole_at_80_columns(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """At 80 columns the list is one block per benchmark (no 'continued' table holding 'in use' apart)."""
    from suite.launch import consoles

    monkeypatch.setattr(consoles.console, "width", 80)
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    assert "continued" not in out
    assert max(len(line) for line in out.splitlines()) <= 80 or all(
        "/" in line for line in out.splitlines() if len(line) > 80)
    block = out.split("\nomniear\n", 1)[1].split("\n\n", 1)[0]
    assert "in use:" in block and "generated (pack)" in block
