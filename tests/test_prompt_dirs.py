"""A user's prompt folder replaces every template of each benchmark (`<benchmark>.prompt_dir`): with a folder holding
a marked copy of each of the benchmark's template files (a marker line, then the template as we ship it), the
prompts built across its variants read none of the plugin's own files and show every marker."""

from __future__ import annotations

import dataclasses
import json
import pathlib
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf
from suite.contract.records import StepRecord
from suite.engine.host import PluginHost, build_host, default_config

#: settings under which each benchmark's conditional templates are used (one prompt built per variant and task)
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "vigil": [{}, {"coords": "normalized_1000"}],
    "agentvqa": [{}],
    "asgard": [{"condition": c, "common_sense": True, "system_message": s}
               for c in ("baseline", "current_image_only", "text_only", "no_memory", "no_hand") for s in (True, False)],
    "omniear": [{"observation_mode": "explore"}, {"observation_mode": "global"}],
    "longact": [{}],
}


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return build_host()


def _messages_text(messages: list[dict[str, Any]]) -> str:
    out = []
    for m in messages:
        content = m.get("content")
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        out += [str(p.get("text", "")) for p in parts if isinstance(p, dict)]
    return "\n".join(out)


#: a previous reply with a suggested plan and things to remember (AsgardBench's notes quote them back)
REPLY = "Suggested plan sequence:\n1. find the mug\nThings to remember: the mug is on the table\nAction: look around"


def _tasks(host: PluginHost, bench: str, section: Any) -> list[Any]:
    """One task per category (the first in id order), so every kind of question or scene is built; for AgentVQA also
    a question whose action history is empty (the shipped pack has none: `no_history.txt`)."""
    seen: dict[str, Any] = {}
    for task in host.call("load_tasks", bench, config=section):
        seen.setdefault(str(task.category), task)
    tasks = list(seen.values())[:12]
    if bench == "agentvqa":
        task = next(t for t in tasks if t.data["question"].action_history)
        question = dataclasses.replace(task.data["question"], action_history=[])
        tasks.append(dataclasses.replace(task, data={**task.data, "question": question}))
    return tasks


def _histories(host: PluginHost, bench: str, task: Any) -> list[list[StepRecord]]:
    """No history, and one earlier step whose reply holds a plan and notes."""
    action = host.call("parse_action", bench, task=task, reply=REPLY)
    return [[], [StepRecord(0, action, reply=REPLY)]]


@pytest.mark.parametrize("bench", sorted(VARIANTS))
def test_a_prompt_folder_replaces_every_template(host: PluginHost, bench: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ours = Path(host.benchmark(bench).config_defaults).parent / "prompts"  # type: ignore[arg-type]
    mine = tmp_path / "prompts"
    mine.mkdir()
    markers = {}
    for file in sorted(ours.iterdir()):
        if file.suffix == ".txt":
            markers[file.name] = f"MARK-{file.stem}"
            # the marker, then our text: its placeholders and the parts other templates fill in stay
            (mine / file.name).write_text(markers[file.name] + "\n" + file.read_text(encoding="utf-8"),
                                          encoding="utf-8")
        else:  # data a template needs (e.g. phrasings in JSON) is copied: it must still parse
            (mine / file.name).write_bytes(file.read_bytes())
    read: list[Path] = []
    original = pathlib.Path.read_text

    def recording(self: Path, *args: Any, **kwargs: Any) -> str:
        read.append(Path(self).resolve())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "read_text", recording)
    shown = []
    for variant in VARIANTS[bench]:
        cfg = default_config([bench], host)
        pack = host.registry.data_sources[bench].pack_dir
        section = OmegaConf.merge(cfg[bench], {"prompt_dir": str(mine), "data_dir": str(pack), **variant})
        for task in _tasks(host, bench, section):
            env = host.call("make_env", bench, task=task, config=section)
            try:
                observation = env.reset()
                for history in _histories(host, bench, task):
                    shown.append(_messages_text(host.call("build_prompt", bench, task=task, observation=observation,
                                                          history=history)))
            finally:
                close = getattr(env, "close", None)
                if close is not None:
                    close()
    ours_read = sorted({p.name for p in read if p.parent == ours.resolve()})
    assert not ours_read, f"{bench} read its own {ours_read} although the prompt folder has them"
    text = "\n".join(shown)
    missing = [name for name, mark in markers.items() if mark not in text]
    assert not missing, f"{bench}: the prompts never showed the folder's {missing}"
    json.dumps(markers)  # the markers are plain text
