"""Prompt templates a user can replace: a plugin's own files, overridden file by file from a folder the user names
(`<benchmark>.prompt_dir`), e.g. to run a paper's exact prompt text where the plugin ships its own wording."""

from __future__ import annotations

from pathlib import Path


def read_template(name: str, ours: Path, prompt_dir: str | None = None) -> str:
    """The template file `name`: from `prompt_dir` when that folder holds a file of that name, else from `ours`."""
    if prompt_dir:
        custom = Path(prompt_dir) / name
        if custom.is_file():
            return custom.read_text(encoding="utf-8")
    return (ours / name).read_text(encoding="utf-8")
