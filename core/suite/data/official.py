"""Whether a data directory is a benchmark's official data: every data file in it is, byte for byte, a file of the
official release, as a manifest of that release's git blob ids says (the ids `suite data pull` checks).

A directory that passes is `official`; one with any other file (a hand-made subset of a generated pack, an edited
task, a different release) is `user` data; a benchmark without a manifest has no official data we can recognize,
so a directory for it is always `user` data. `python -m suite.data.official GIT_DIR REPO COMMIT PREFIX...` prints a
manifest from a clone of the upstream repository (how the plugins' `official_blobs.json` were written).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path, PurePosixPath

from suite.data.pull import git_blob_sha

#: Files in a data directory that are not data: licences, provenance notes, the pull's record, partial downloads.
NOT_DATA = frozenset({"LICENSE", "LICENSE.txt", "LICENSE.md", "SOURCE.md", "README.md", "PULLED.json"})


def load_blobs(manifest: Path) -> frozenset[str]:
    """The git blob ids of an official release's files, from its manifest (`{"repo", "commit", "blobs"}`)."""
    return frozenset(json.loads(Path(manifest).read_text(encoding="utf-8"))["blobs"])


def data_files(root: Path) -> list[Path]:
    """The files of a data directory that hold data (hidden files, `NOT_DATA` and `.part` downloads left out)."""
    return sorted(p for p in Path(root).rglob("*") if p.is_file() and p.name not in NOT_DATA
                  and not p.name.endswith(".part") and not any(s.startswith(".") for s in p.relative_to(root).parts))


def is_official(root: Path, blobs: frozenset[str]) -> bool:
    """Whether `root` holds data files and each is a file of the release whose blob ids are `blobs`."""
    files = data_files(root)
    return bool(files) and all(git_blob_sha(p.read_bytes()) in blobs for p in files)


def release_blobs(git_dir: Path, commit: str, prefixes: list[str]) -> list[str]:
    """The blob ids of the files under `prefixes` at `commit` of a git repository, a symbolic link counted as the
    file it points to (as a pull or `cp -L` copies it)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True,
                              text=True).stdout

    tree = {}
    for line in git("ls-tree", "-r", commit).splitlines():
        meta, path = line.split("\t", 1)
        mode, _, sha = meta.split()
        tree[path] = (mode, sha)
    out = set()
    for path, (mode, sha) in tree.items():
        if not path.startswith(tuple(prefixes)):
            continue
        if mode == "120000":
            target = git("cat-file", "-p", sha).strip()
            sha = tree[str(PurePosixPath(os.path.normpath(PurePosixPath(path).parent / target)))][1]
        out.add(sha)
    return sorted(out)


def manifest_text(repo: str, commit: str, prefixes: list[str], blobs: list[str]) -> str:
    """A manifest as JSON text, one blob id per line."""
    head = {"repo": repo, "commit": commit, "prefixes": prefixes,
            "note": "git blob ids of every file of the official release under these prefixes (symbolic links as "
                    "their targets); written by python -m suite.data.official"}
    return json.dumps(head, indent=1)[:-2] + ',\n "blobs": [\n' + ",\n".join(f'  "{b}"' for b in blobs) + "\n ]\n}\n"


if __name__ == "__main__":
    git_dir, repo, commit, *prefixes = sys.argv[1:]
    sys.stdout.write(manifest_text(repo, commit, prefixes, release_blobs(Path(git_dir), commit, prefixes)))
