"""Assemble the generated pack: a plan of question makers per dataset, seeded answer positions, and the files
(records.jsonl, PNG media, manifest.json with the seed, the generator version and every file's sha256)."""

from __future__ import annotations

import hashlib
import io
import json
import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image
from suite_agentvqa.data import LETTERS, RECORDS
from suite_agentvqa.packgen import GENERATOR_VERSION
from suite_agentvqa.packgen.draft import Draft, Maker
from suite_agentvqa.packgen.egocentric import event_frame, object_counting, spatial_navigation, what_happened
from suite_agentvqa.packgen.games import action_prediction, reward_detection, reward_modeling, world_modeling
from suite_agentvqa.packgen.robotics import depth_order, object_grounding, state_tracking, task_estimation
from suite_agentvqa.packgen.spatial import entity_detection, object_relation, object_sizing
from suite_agentvqa.packgen.web import ground_point, next_action
from suite_agentvqa.taxonomy import DATASETS, DOMAIN_OF_DATASET

MANIFEST = "manifest.json"
MAX_ATTEMPTS = 400
NOTICE = ("GENERATED pack: questions made by suite_agentvqa.packgen with the embedded household simulator, in the "
          "AgentVQA record format. It is NOT the official AgentVQA data and its scores are not comparable to the "
          "paper's.")

#: The makers of each dataset's questions, used in turn (question i uses maker i mod len).
PLAN: dict[str, list[Maker]] = {
    "aitw": [next_action("tap", 1), next_action("scroll", 1)],
    "monday": [next_action("tap", 0), next_action("press", 0)],
    "mind2web": [next_action("tap", 0, elements=True), next_action("scroll", 0, elements=True),
                 next_action("press", 0, elements=True)],
    "screenspot": [ground_point(small=False)],
    "screenspot_pro": [ground_point(small=True)],
    "erqa": [task_estimation()],
    "robo2vlm": [depth_order(True, "pov_modeling"), state_tracking()],
    "roborefit": [object_grounding()],
    "vsi_bench": [spatial_navigation(), object_counting()],
    "perception_test": [event_frame(), what_happened()],
    "gameqa": [world_modeling(), reward_modeling()],
    "atari": [action_prediction(), reward_detection()],
    "space10": [entity_detection(), object_sizing()],
    "embspatial": [object_relation(), depth_order(False, "object_scene_interaction")],
}


def draft_for(dataset: str, index: int, seed: int) -> Draft:
    """The dataset's `index`-th question: the first valid draft of its maker over seeded attempts."""
    maker = PLAN[dataset][index % len(PLAN[dataset])]
    for attempt in range(MAX_ATTEMPTS):
        draft = maker(random.Random(f"{seed}:{dataset}:{index}:{attempt}"), seed)
        if draft is not None and draft.valid():
            return draft
    raise RuntimeError(f"no {dataset} question {index} in {MAX_ATTEMPTS} attempts (seed {seed})")


#: Every generated question has four options, as the paper's do.
PACK_OPTIONS = 4


def answer_letters(dataset: str, count: int, seed: int) -> list[str]:
    """Where each question's correct option goes: every letter equally often, the remainder drawn, shuffled."""
    rng = random.Random(f"{seed}:{dataset}:letters")
    shown = LETTERS[:PACK_OPTIONS]
    letters = list(shown) * (count // len(shown)) + rng.sample(shown, count % len(shown))
    rng.shuffle(letters)
    return letters


def png(frame: np.ndarray) -> bytes:
    """A frame as PNG bytes (fixed settings, so the same pixels give the same bytes)."""
    out = io.BytesIO()
    Image.fromarray(frame).save(out, format="PNG", compress_level=6)
    return out.getvalue()


def record(dataset: str, index: int, draft: Draft, letter: str, seed: int, rng: random.Random,
           media: list[str]) -> dict[str, Any]:
    """The question's JSONL record with the correct option placed at `letter`."""
    wrong = list(draft.wrong)
    rng.shuffle(wrong)
    options = wrong[:]
    options.insert(LETTERS.index(letter), draft.correct)
    height, width = draft.frames[0].shape[:2]
    return {
        "id": f"{dataset}/{index:03d}", "dataset": dataset, "domain": DOMAIN_OF_DATASET[dataset],
        "category": draft.category, "goal": draft.goal, "action_history": draft.history, "question": draft.question,
        "options": options, "answer": letter, "media": {draft.media_kind: media},
        "meta": {"generated": f"agentvqa-pack/{GENERATOR_VERSION}", "seed": seed, "width": width, "height": height,
                 **draft.meta},
    }


def build_pack(out: Path, seed: int = 0, per_dataset: int = 10) -> dict[str, Any]:
    """Write the pack into `out` (its records, media and manifest are replaced) and return the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "media", ignore_errors=True)
    files: dict[str, bytes] = {}
    lines = []
    for dataset in DATASETS:
        letters = answer_letters(dataset, per_dataset, seed)
        for index in range(per_dataset):
            draft = draft_for(dataset, index, seed)
            media = []
            for k, frame in enumerate(draft.frames):
                rel = f"media/{dataset}/{index:03d}_{k:02d}.png"
                files[rel] = png(frame)
                media.append(rel)
            rng = random.Random(f"{seed}:{dataset}:{index}:options")
            lines.append(record(dataset, index, draft, letters[index], seed, rng, media))
    files[RECORDS] = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines).encode("utf-8")
    manifest = {
        "name": "AgentVQA generated pack", "kind": "generated", "notice": NOTICE,
        "generator": "suite_agentvqa.packgen", "generator_version": GENERATOR_VERSION, "seed": seed,
        "per_dataset": per_dataset, "questions": len(lines),
        "datasets": dict(Counter(r["dataset"] for r in lines)),
        "categories": dict(sorted(Counter(r["category"] for r in lines).items())),
        "answers": dict(sorted(Counter(r["answer"] for r in lines).items())),
        "sha256": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
    }
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest
