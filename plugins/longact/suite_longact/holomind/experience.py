"""HoloMind's experience carried across a run's episodes (`agent.holomind.shared_experience`, on in the paper's
protocol): the rules each episode's critic distils are appended to a file in the run folder, and an episode starts
from the rules of those before it. Episodes then depend on their order, so the setting needs one episode at a time
on the local executor (`--concurrency 1`), where episodes run in the run's task order: a run is reproducible, and a
resumed one continues from the rules its finished episodes left (an episode run again first drops the rules an
earlier attempt of it wrote)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from suite.contract.errors import ConfigError

POOL_FILE = "holomind-experience.jsonl"


def check_shared(cfg: Any) -> None:
    """Refuse shared experience unless episodes run one at a time in task order (before the run, one line)."""
    section = (cfg.get("agent") or {}).get("holomind") or {}
    if not section.get("shared_experience"):
        return
    concurrency, executor = int(cfg.run.concurrency), str(cfg.run.executor)
    if concurrency != 1 or executor != "local":
        raise ConfigError(f"agent.holomind.shared_experience=true carries the critic's rules from one episode to the "
                          f"next in task order, so episodes must run one at a time: pass --concurrency 1 with the "
                          f"local executor (got --concurrency {concurrency}, --executor {executor})")


class SharedExperience:
    """The run's rule pool as one episode sees it: the rules earlier episodes left, and the ones it adds."""

    def __init__(self, run_dir: Path, episode: str) -> None:
        self.path = run_dir / POOL_FILE
        self.episode = episode

    def start(self) -> list[str]:
        """The other episodes' rules in the order they were learnt, after dropping this episode's earlier attempt's."""
        lines = self.path.read_text(encoding="utf-8").splitlines() if self.path.is_file() else []
        entries = [json.loads(line) for line in lines if line.strip()]
        kept = [e for e in entries if e["episode"] != self.episode]
        if len(kept) != len(entries):
            self.path.write_text("".join(json.dumps(e) + "\n" for e in kept), encoding="utf-8")
        return list(dict.fromkeys(e["rule"] for e in kept))

    def add(self, rule: str) -> None:
        """Keep a rule this episode's critic distilled for the episodes after it."""
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"episode": self.episode, "rule": rule}) + "\n")
