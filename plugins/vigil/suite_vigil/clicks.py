"""Vigil's learned PG click (issue 34): a click prior learned per object word. It never looks at the frame: on the
training fold it finds, for each object word of the instructions ("the baseball bat"), the point of a grid over the
640x480 frame that lands on the target in most of that word's episodes (the pack's most common point for a word it
has not seen), and on a held-out episode it grounds that point for the instruction's word, then reports success.

Which grid points land on an episode's target is read once per episode from the simulator's instance buffer at the
start pose (the click's own rule: the object under the pixel, and the target within reach), so fitting a fold
costs no episode play."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence

from suite.contract.records import Task
from suite.contract.registry import LearnedPolicy, Reading, ShortcutBaseline

from suite_vigil import goals

#: the grid's points, native pixels of the 640x480 frame (the default `vigil.coords`): every 20 pixels, centred
GRID = tuple((x, y) for y in range(10, 480, 20) for x in range(10, 640, 20))
#: the kept PG episodes any one grid point may ground, at most (the generator's cap; it also keeps the points of a
#: word's episodes apart, so no point learnt on one episode of a word grounds another)
POINT_CAP = 3
_WORD = re.compile(r"find the (.+?) in your current view", re.IGNORECASE)
_HITS: dict[tuple[str, str], frozenset[tuple[int, int]]] = {}


def word_of(instruction: str) -> str:
    """The object word the instruction names, its head alone ("the shelf in view" and "the shelf" are both "shelf");
    '' when it names none in the PG wording."""
    found = _WORD.search(instruction)
    if not found:
        return ""
    head = re.sub(r"^(the|a|an) ", "", found.group(1).lower())
    return re.split(r" (?:in|on|at|near|with|that|next|by|under|beside|of)\b", head)[0].strip()


def task_hits(task: Task) -> frozenset[tuple[int, int]]:
    """The grid points whose click grounds the PG task's target at its start pose (kept for the other folds' fits)."""
    ep = task.data["episode"]
    key = (str(task.data["data_dir"]), ep["episode_id"])
    if key not in _HITS:
        from suite_vigil.plugin import make_env

        env = make_env("vigil", task, {"images": False})
        try:
            env.reset()
            target = ep["success_spec"]["target"]
            reach = env.sim.distance(target) <= goals.NEAR
            _HITS[key] = frozenset(p for p in GRID if reach and env.sim.object_at(*p) == target)
        finally:
            env.close()
    return _HITS[key]


def fit_pg(train: Sequence[Task]) -> LearnedPolicy:
    """Per object word, the grid point that grounds most of the word's training targets (ties: the one most
    training targets of any word share, then the grid's order); the pack-wide best point for an unseen word."""
    by_word: dict[str, Counter[tuple[int, int]]] = {}
    overall: Counter[tuple[int, int]] = Counter()
    for task in train:
        if task.category != "PG":
            continue
        hits = task_hits(task)
        by_word.setdefault(word_of(task.data["episode"]["instruction"]), Counter()).update(hits)
        overall.update(hits)
    order = {p: i for i, p in enumerate(GRID)}

    def best(counts: Counter[tuple[int, int]]) -> tuple[int, int]:
        return max(GRID, key=lambda p: (counts[p], overall[p], -order[p]))

    points = {word: best(counts) for word, counts in by_word.items()}
    fallback = best(overall)

    def policy(reading: Reading) -> str:
        if int(reading.step or 0) > 0:
            return json.dumps({"skill_name": "report", "arguments": {"status": "success", "summary": "done"}})
        x, y = points.get(word_of(reading.text or ""), fallback)
        return json.dumps({"skill_name": "interact_pixel", "arguments": {"intent": "ground", "x": x, "y": y}})

    policy.points = points  # type: ignore[attr-defined]
    policy.fallback = fallback  # type: ignore[attr-defined]
    return policy


def declared() -> ShortcutBaseline:
    """The learned PG click as `suite audit` runs it: cross-fitted over PG's episodes, reading the instruction and
    the step index, never a frame."""
    return ShortcutBaseline(
        "learned-click-PG", "never looks: grounds the point of a 20-pixel grid that landed on the target most often "
        "in the other folds' PG episodes of the instruction's object word (suite_vigil.clicks)",
        learner=fit_pg, reads=("text", "step"), config={"vigil.families": ["PG"], "vigil.coords": "native"},
        ceiling={"PG": 10.0}, chance={"PG": 0.0}, metric="B", blind=True)
