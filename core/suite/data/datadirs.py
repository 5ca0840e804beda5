"""Which data a benchmark runs on: --data-dir, SUITE_DATA_DIR, pulled official data, or the generated pack."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from suite.contract.errors import DataError
from suite.contract.registry import DataSource
from suite.contract.schemas import read_json, validate
from suite.data.official import is_official, load_blobs

PACK_MANIFEST_SCHEMA = Path(__file__).parents[1] / "jsonschemas" / "pack_manifest.schema.json"

DATA_ENV = "SUITE_DATA_DIR"
CACHE_ENV = "SUITE_CACHE_DIR"


def cache_root() -> Path:
    """The user cache of embodied-suite: $SUITE_CACHE_DIR, else ~/.cache/embodied-suite."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "embodied-suite"


def official_cache_dir(benchmark: str) -> Path:
    """Where `suite data pull` puts a benchmark's official data."""
    return cache_root() / "data" / benchmark


@dataclass
class DataChoice:
    """The data a benchmark will run on, and how it was chosen."""

    path: Path
    kind: str  # "official" (matches the official release), "generated" (a pack) or "user" (neither)
    origin: str  # "--data-dir", "SUITE_DATA_DIR", "cache", "pack"

    @property
    def label(self) -> str:
        """How run metadata and reports name this data."""
        return f"{self.kind}:{self.path}"


def choose(source: DataSource, configured: str | None) -> DataChoice:
    """Pick a benchmark's data: configured dir, then SUITE_DATA_DIR/<benchmark>, the pulled cache, the pack."""
    if configured:
        path = Path(configured).expanduser()
        if not path.is_dir():
            raise DataError(path, "/", f"a data directory for {source.benchmark} (it does not exist)")
        return DataChoice(path.resolve(), _kind(source, path), "--data-dir")
    env = os.environ.get(DATA_ENV)
    if env and (Path(env) / source.benchmark).is_dir():
        path = (Path(env) / source.benchmark).resolve()
        return DataChoice(path, _kind(source, path), DATA_ENV)
    cached = official_cache_dir(source.benchmark)
    if cached.is_dir() and (source.is_data_dir is None or source.is_data_dir(cached)):
        return DataChoice(cached, "official", "cache")
    if source.pack_dir is None:
        raise DataError(cached, "/", f"data for {source.benchmark}: run `suite data pull {source.benchmark}` "
                        "or pass --data-dir")
    _kind(source, source.pack_dir)
    return DataChoice(source.pack_dir, "generated", "pack")


def _kind(source: DataSource, path: Path) -> str:
    """`generated` for a folder holding a valid pack manifest (a broken one fails); `official` for one whose every
    data file is a file of the benchmark's official release (`DataSource.official_blobs`); `user` otherwise."""
    manifest = path / source.pack_manifest
    if manifest.is_file():
        validate(read_json(manifest), PACK_MANIFEST_SCHEMA, manifest)
        return "generated"
    if source.official_blobs is not None and is_official(path, load_blobs(source.official_blobs)):
        return "official"
    return "user"


def pack_version(source: DataSource | None, path: Path) -> dict[str, object] | None:
    """The version of a generated pack from its manifest (generator, its version where stated, seed), or None for
    a folder that is not a generated pack."""
    manifest = path / (source.pack_manifest if source else "PACK.json")
    if not manifest.is_file():
        return None
    data = read_json(manifest)
    keys = ("generator", "generator_version", "seed")
    return {k: data[k] for k in keys if k in data}


def describe_pack(pack: dict[str, object] | None, sha256: str | None) -> str:
    """A generated pack's version in words: 'generator suite_x.gen version 3, seed 0, data sha256 0123abcd4567'."""
    parts = []
    if pack and pack.get("generator"):
        version = f" version {pack['generator_version']}" if pack.get("generator_version") else ""
        parts.append(f"generator {pack['generator']}{version}")
    if pack and pack.get("seed") is not None:
        parts.append(f"seed {pack['seed']}")
    if sha256:
        parts.append(f"data sha256 {sha256[:12]}")
    return ", ".join(parts)


def tree_hash(root: Path) -> str:
    """A sha256 over every file's relative path and bytes under `root` (sorted), for run metadata."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()
