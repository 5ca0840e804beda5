"""`suite data pull`: fetch a benchmark's official data from its upstream repository into the user cache.

Files come from a pinned commit, each checked against its git blob hash; files already present with the
right hash are skipped, so an interrupted pull resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from suite.contract.errors import SuiteError
from suite.contract.registry import DataSource

API_ENV = "SUITE_GITHUB_API"
RAW_ENV = "SUITE_GITHUB_RAW"


def git_blob_sha(data: bytes) -> str:
    """The git object id of a blob with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class TreeEntry:
    """One file of the upstream tree (a symlink carries its target's path)."""

    path: str
    sha: str
    link_target: str | None = None


def _get(url: str, timeout: float = 30.0) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "embodied-suite"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read()
    except urllib.error.HTTPError as exc:
        raise SuiteError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SuiteError(f"cannot reach {url.split('/')[2]} ({reason}); are you offline? "
                         "Use --data-dir with a copy of the data, or the generated pack") from None


@dataclass
class GitHubSnapshot:
    """Files under the `prefixes` of `repo` at `commit`, written to the destination without `strip`."""

    repo: str
    commit: str
    prefixes: tuple[str, ...]
    strip: str = ""
    api_base: str = "https://api.github.com"
    raw_base: str = "https://raw.githubusercontent.com"

    def _bases(self) -> tuple[str, str]:
        return os.environ.get(API_ENV, self.api_base), os.environ.get(RAW_ENV, self.raw_base)

    def entries(self) -> list[TreeEntry]:
        """The files to fetch, from the repository tree at the pinned commit."""
        api, raw = self._bases()
        tree = json.loads(_get(f"{api}/repos/{self.repo}/git/trees/{self.commit}?recursive=1"))
        blobs = {e["path"]: e for e in tree["tree"] if e["type"] == "blob"}
        out = []
        for path, entry in sorted(blobs.items()):
            if not path.startswith(self.prefixes):
                continue
            if entry.get("mode") == "120000":
                target_rel = _get(f"{raw}/{self.repo}/{self.commit}/{urllib.parse.quote(path)}").decode().strip()
                target = str(PurePosixPath(os.path.normpath(PurePosixPath(path).parent / target_rel)))
                if target not in blobs:
                    raise SuiteError(f"{self.repo}@{self.commit[:8]}: {path} links to missing {target}")
                out.append(TreeEntry(path, blobs[target]["sha"], target))
            else:
                out.append(TreeEntry(path, entry["sha"]))
        return out

    def __call__(self, dest: Path, console: Console) -> None:
        """Download every file into `dest`, verifying each, skipping those already present."""
        _, raw = self._bases()
        entries = self.entries()
        if not entries:
            raise SuiteError(f"{self.repo}@{self.commit[:8]} has no files under {', '.join(self.prefixes)}")
        fetched = skipped = 0
        with Progress(TextColumn("[bold]pull"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                      console=console) as progress:
            task = progress.add_task("", total=len(entries))
            for entry in entries:
                target = dest / entry.path.removeprefix(self.strip)
                if target.is_file() and git_blob_sha(target.read_bytes()) == entry.sha:
                    skipped += 1
                else:
                    where = urllib.parse.quote(entry.link_target or entry.path)  # plan folders have spaces
                    data = _get(f"{raw}/{self.repo}/{self.commit}/{where}")
                    if git_blob_sha(data) != entry.sha:
                        raise SuiteError(f"{entry.path}: checksum mismatch (expected git blob {entry.sha})")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    partial = target.with_name(target.name + ".part")
                    partial.write_bytes(data)
                    partial.replace(target)
                    fetched += 1
                progress.update(task, advance=1, description=entry.path[-50:])
        (dest / "PULLED.json").write_text(json.dumps(
            {"repo": self.repo, "commit": self.commit, "prefixes": self.prefixes, "files": len(entries)}, indent=2))
        console.print(f"{dest}: {fetched} files fetched, {skipped} already present and verified", highlight=False)


def pull(source: DataSource, dest: Path, console: Console) -> None:
    """Pull a benchmark's official data into `dest`, or say why it cannot be pulled."""
    if source.pull is None:
        raise SuiteError(f"{source.benchmark}: the official data cannot be pulled ({source.official}); "
                         "pass --data-dir, or run on the generated pack")
    dest.mkdir(parents=True, exist_ok=True)
    source.pull(dest, console)


