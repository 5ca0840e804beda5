"""The data label is earned: a data directory is `official` only when every data file in it is a file of the
benchmark's official release (its git blob ids, `official_blobs.json`); a directory that is neither that nor a
generated pack is `user` data, in run metadata, the report's notes and the paper rows' caveat. LongAct and Vigil
have no official data at all."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.data.datadirs import choose
from suite.engine.host import build_host
from suite.store.run_folder import RunStore


@pytest.fixture
def sources() -> dict:
    return build_host().registry.data_sources


def _copy_without_manifest(source, dest: Path) -> Path:
    shutil.copytree(source.pack_dir, dest)
    (dest / source.pack_manifest).unlink()
    return dest


def test_the_official_releases_are_recognized_by_their_hashes(sources: dict, shared_data: Path,
                                                               tmp_path: Path) -> None:
    assert choose(sources["omniear"], str(shared_data / "omniear" / "data")).kind == "official"
    assert choose(sources["asgard"], str(shared_data / "asgardbench")).kind == "official"
    plans = shared_data / "asgardbench" / "Generated" / "magt_benchmark"
    assert choose(sources["asgard"], str(plans)).kind == "official"
    subset = tmp_path / "subset" / "single-independent"  # a part of the release is still official data
    shutil.copytree(shared_data / "omniear" / "data" / "eval" / "single-independent", subset)
    assert choose(sources["omniear"], str(subset.parent)).kind == "official"
    task = subset / "task" / "00001_task.json"  # one edited task: no longer the release
    task.write_text(task.read_text(encoding="utf-8").replace("}", " }", 1), encoding="utf-8")
    assert choose(sources["omniear"], str(subset.parent)).kind == "user"
    (subset.parent / "notes.txt").write_text("mine")
    task.unlink()
    shutil.copy(shared_data / "omniear" / "data" / "eval" / "single-independent" / "task" / "00001_task.json", task)
    assert choose(sources["omniear"], str(subset.parent)).kind == "user"  # a file the release does not have


@pytest.mark.parametrize("bench", ["omniear", "asgard", "longact", "vigil", "agentvqa", "counter"])
def test_a_copy_of_a_pack_without_its_manifest_is_user_data(sources: dict, bench: str, tmp_path: Path) -> None:
    """A hand-made subset of our own pack is not the paper's data (LongAct, Vigil, AgentVQA and the template have
    no official data to match at all)."""
    source = sources[bench]
    assert choose(source, None).kind == "generated"  # the pack, where the suite put it
    if (source.pack_dir / source.pack_manifest).is_file():
        data = _copy_without_manifest(source, tmp_path / "mine")
    else:
        data = Path(shutil.copytree(source.pack_dir, tmp_path / "mine"))
    assert choose(source, str(data)).kind == "user"


def test_user_data_is_named_in_the_run_and_the_paper_caveat(sources: dict, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    data = _copy_without_manifest(sources["omniear"], tmp_path / "mine")
    run = tmp_path / "run"
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--limit", "1", "--data-dir", str(data),
                 "--out", str(run), "--no-report"]) == 0
    capsys.readouterr()
    assert RunStore(run).meta()["data"]["omniear"]["kind"] == "user"
    assert main(["report", str(run), "--reference", "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    caveat = summary["reference"]["omniear"]["caveat"]
    assert "these runs used USER data (not verified as the official release)" in caveat
    assert main(["report", str(run), "--reference"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "data: omniear: USER data (neither a generated pack nor verified as the official release)" in text
    assert "official data" not in text.replace("the official data", "").replace("official release", "")


def test_a_generated_packs_version_is_read_from_its_manifest(sources: dict, tmp_path: Path) -> None:
    from suite.data.datadirs import describe_pack, pack_version

    vigil = sources["vigil"]
    manifest = json.loads((vigil.pack_dir / vigil.pack_manifest).read_text())
    pack = pack_version(vigil, vigil.pack_dir)
    assert pack == {"generator": manifest["generator"], "generator_version": manifest["generator_version"],
                    "seed": manifest["seed"]}
    assert describe_pack(pack, "0123456789abcdef") == (
        f"generator {manifest['generator']} version {manifest['generator_version']}, seed {manifest['seed']}, "
        "data sha256 0123456789ab")
    assert describe_pack({"generator": "g", "seed": 14}, None) == "generator g, seed 14"  # no version stated
    assert pack_version(vigil, _copy_without_manifest(vigil, tmp_path / "user")) is None
