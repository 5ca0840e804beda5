"""Assemble the generated pack: a plan of question makers per dataset (most of them make twins: four questions with
one text whose images alone tell the answers apart, issue 34), seeded answer positions, a rejection step that
redraws a single question while a text-only prior (suite_agentvqa.priors) would drift from chance on its dataset,
and the files (records.jsonl, PNG media, manifest.json with the seed, the generator version, the rejection counts
and every file's sha256)."""

from __future__ import annotations

import hashlib
import io
import json
import multiprocessing
import random
import shutil
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image
from suite.contract.records import FOLD_GROUP

from suite_agentvqa.data import LETTERS, RECORDS, Question
from suite_agentvqa.learned import Model, fit, model_hit, text_of
from suite_agentvqa.learned import features as learned_features
from suite_agentvqa.packgen import GENERATOR_VERSION
from suite_agentvqa.packgen.draft import Draft, Maker, Twins
from suite_agentvqa.packgen.egocentric import (
    event_frame_twins,
    object_counting,
    spatial_navigation_twins,
    what_happened_twins,
)
from suite_agentvqa.packgen.games import (
    action_prediction_twins,
    reward_detection_twins,
    reward_modeling_twins,
    world_modeling,
)
from suite_agentvqa.packgen.robotics import (
    depth_order_twins,
    object_grounding_twins,
    state_tracking_twins,
    task_estimation_twins,
)
from suite_agentvqa.packgen.spatial import entity_detection_twins, object_relation
from suite_agentvqa.packgen.web import ground_point_twins, next_action_twins
from suite_agentvqa.priors import PRIORS, prior_odds
from suite_agentvqa.taxonomy import DATASETS, DOMAIN_OF_DATASET

MANIFEST = "manifest.json"
MAX_ATTEMPTS = 400
NOTICE = ("GENERATED pack: questions made by suite_agentvqa.packgen with the embedded household simulator, in the "
          "AgentVQA record format. It is NOT the official AgentVQA data and its scores are not comparable to the "
          "paper's.")

#: The makers of each dataset's questions, used in turn (draw u uses maker u mod len): a `Twins` maker gives four
#: questions with the same text at once (issue 34: only the images tell their answers apart), any other one.
PLAN: dict[str, list[Maker | Twins]] = {
    "aitw": [next_action_twins(1)],
    "monday": [next_action_twins(0)],
    "mind2web": [next_action_twins(0, elements=True)],
    "screenspot": [ground_point_twins(small=False)],
    "screenspot_pro": [ground_point_twins(small=True)],
    "erqa": [task_estimation_twins()],
    "robo2vlm": [depth_order_twins(True, "pov_modeling"), state_tracking_twins()],
    "roborefit": [object_grounding_twins()],
    "vsi_bench": [spatial_navigation_twins(), object_counting()],
    "perception_test": [event_frame_twins(), what_happened_twins()],
    "gameqa": [world_modeling(), reward_modeling_twins()],
    "atari": [action_prediction_twins(), reward_detection_twins()],
    "space10": [entity_detection_twins()],
    "embspatial": [object_relation(), depth_order_twins(False, "object_scene_interaction")],
}
def maker_of(dataset: str, unit: int) -> Maker | Twins:
    """The maker of the dataset's `unit`-th draw (its plan's makers in turn)."""
    makers = PLAN[dataset]
    return makers[unit % len(makers)]


#: Seeded attempts at one set of twins (an attempt costs a few renders; the rarest twins come about once in 100).
TWIN_ATTEMPTS = 4000


#: How far a text-only prior's hits may stray from chance while a dataset is drawn: at most this many above the
#: chance count of the questions so far (so 100 questions end within chance + 1 point), and this many below.
PRIOR_SLACK_ABOVE = 1.0
PRIOR_SLACK_BELOW = 2.0
#: Valid drafts tried to also hold every prior up to chance; failing that, the first of them that keeps the priors
#: from rising above it is taken (a maker whose wrong options a prior never picks cannot hold it up, and trying
#: longer only costs time).
BOTH_WAYS_DRAFTS = 4


def keeps_priors_at_chance(hits: dict[str, float], odds: dict[str, float], count: int, chance: float,
                           both_ways: bool = True) -> bool:
    """Whether a candidate keeps every text-only prior near chance: with it, each prior's expected hits over the
    `count` questions so far (`odds_correct` summed) are at most chance * count + PRIOR_SLACK_ABOVE and
    (`both_ways`) at least chance * count - PRIOR_SLACK_BELOW."""
    expected = chance * count
    low = expected - PRIOR_SLACK_BELOW if both_ways else -1.0
    return all(low <= hits[name] + odds[name] <= expected + PRIOR_SLACK_ABOVE for name in hits)


def as_question(raw: dict[str, Any]) -> Question:
    """A record as the loader's Question, without media (what the text-only priors read)."""
    return Question(id=raw["id"], dataset=raw["dataset"], domain=raw["domain"], category=raw["category"],
                    goal=raw["goal"], action_history=None if raw["action_history"] is None else
                    tuple(raw["action_history"]), question=raw["question"], options=tuple(raw["options"]),
                    answer=LETTERS.index(raw["answer"]), media_kind="images", media=())


def drafted_question(raw: dict[str, Any], draft: Draft) -> Question:
    """A drafted record as the loader's Question with as many (placeholder) media as it will have frames: what the
    learned text-only baseline reads (the media noun tells one image from several)."""
    return replace(as_question(raw), media_kind=draft.media_kind,
                   media=tuple(Path(f"{k}.png") for k in range(len(draft.frames))))


#: The learned text-only baseline's name in the rejection's hits.
LEARNED = "learned-text"
#: Valid drafts tried, when an adversary is given, for one it does not answer right more often than chance; failing
#: that, the first draft that holds the fixed priors is taken (a maker whose every draft the text gives away cannot
#: be mended by rejection: its construction must change, and the pack's final check reports it).
ADVERSARY_DRAFTS = 6


@dataclass
class DatasetDraw:
    """The questions of one dataset drawn so far, with each text-only prior's hits and the drafts rejected; with an
    `adversary` (the learned text-only model fitted on an earlier draw of the pack), its hits too."""

    dataset: str
    seed: int
    adversary: Model | None = None
    hits: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PRIORS, 0.0))
    rejected: int = 0

    def odds(self, raw: dict[str, Any], draft: Draft) -> dict[str, float]:
        """Each fixed prior's odds of answering the draft right, and the adversary's hit (1 or 0) when there is one."""
        odds = prior_odds(as_question(raw))
        if self.adversary is not None:
            question = drafted_question(raw, draft)
            odds[LEARNED] = float(model_hit(self.adversary, learned_features(text_of(question)), question.answer))
            self.hits.setdefault(LEARNED, 0.0)
        return odds

    def next(self, index: int, letter: str, unit: int) -> tuple[Draft, dict[str, Any]]:
        """The dataset's `index`-th question with its answer at `letter`: the first valid draft of its maker over
        seeded attempts on which no text-only prior drifts from chance (`keeps_priors_at_chance`), or, when none
        of the first BOTH_WAYS_DRAFTS valid drafts holds them up to it, the first of those that keeps them from
        rising above it (else the next such draft)."""
        maker = maker_of(self.dataset, unit)
        assert not isinstance(maker, Twins), "twins are drawn by DatasetDraw.twins"
        fallback = None
        valid = 0
        for attempt in range(MAX_ATTEMPTS):
            draft = maker(random.Random(f"{self.seed}:{self.dataset}:{index}:{attempt}"), self.seed)
            if draft is None or not draft.valid():
                continue
            valid += 1
            rng = random.Random(f"{self.seed}:{self.dataset}:{index}:options")
            raw = record(self.dataset, index, draft, placed(draft, letter, rng), self.seed)
            odds = self.odds(raw, draft)
            if keeps_priors_at_chance(self.hits, odds, index + 1, 1 / PACK_OPTIONS):
                return self._take(draft, raw, odds, valid - 1)
            fixed = {name: self.hits[name] for name in PRIORS}
            if fallback is None and keeps_priors_at_chance(fixed, odds, index + 1, 1 / PACK_OPTIONS, False):
                fallback = (draft, raw, odds)
            enough = ADVERSARY_DRAFTS if self.adversary is not None else BOTH_WAYS_DRAFTS
            if fallback is not None and valid >= enough:
                return self._take(*fallback, valid - 1)
        raise RuntimeError(f"no {self.dataset} question {index} in {MAX_ATTEMPTS} attempts (seed {self.seed}) that "
                           "keeps the text-only priors at chance")

    def _take(self, draft: Draft, raw: dict[str, Any], odds: dict[str, float],
              passed_over: int) -> tuple[Draft, dict[str, Any]]:
        """Count the chosen draft's odds into the hits and the valid drafts passed over as rejected."""
        self.rejected += passed_over
        for name, hit in odds.items():
            self.hits[name] += hit
        return draft, raw

    def twins(self, unit: int, first: int) -> list[tuple[Draft, dict[str, Any]]]:
        """The `unit`-th draw of the dataset when its maker makes twins: the four twin drafts as questions `first`..
        `first` + 3 in a seeded order, the options in one seeded order for all four (so each letter is right once),
        sharing the fold group `<dataset>/twins-<unit>`; their priors' odds are counted (they sum to exactly one hit
        a prior, the chance share, since the four texts are the same)."""
        maker = maker_of(self.dataset, unit)
        assert isinstance(maker, Twins), "single questions are drawn by DatasetDraw.next"
        for attempt in range(TWIN_ATTEMPTS):
            drafts = maker(random.Random(f"{self.seed}:{self.dataset}:twins-{unit}:{attempt}"), self.seed)
            if drafts is None:
                continue
            rng = random.Random(f"{self.seed}:{self.dataset}:twins-{unit}:options")
            options = [drafts[0].correct, *drafts[0].wrong]
            rng.shuffle(options)
            rng.shuffle(drafts)
            self.rejected += attempt
            taken = []
            for k, draft in enumerate(drafts):
                raw = record(self.dataset, first + k, draft, options, self.seed, f"{self.dataset}/twins-{unit:03d}")
                for name, hit in self.odds(raw, draft).items():
                    self.hits[name] += hit
                taken.append((draft, raw))
            return taken
        raise RuntimeError(f"no {self.dataset} twins {unit} in {TWIN_ATTEMPTS} attempts (seed {self.seed})")


def placed(draft: Draft, letter: str, rng: random.Random) -> list[str]:
    """The draft's options with the wrong ones shuffled and the correct one at `letter`."""
    wrong = list(draft.wrong)
    rng.shuffle(wrong)
    wrong.insert(LETTERS.index(letter), draft.correct)
    return wrong


def record(dataset: str, index: int, draft: Draft, options: list[str], seed: int,
           group: str | None = None) -> dict[str, Any]:
    """The question's JSONL record with the options in the order given (`group`: its twins' fold group)."""
    height, width = draft.frames[0].shape[:2]
    return {
        "id": f"{dataset}/{index:03d}", "dataset": dataset, "domain": DOMAIN_OF_DATASET[dataset],
        "category": draft.category, "goal": draft.goal, "action_history": draft.history, "question": draft.question,
        "options": options, "answer": LETTERS[options.index(draft.correct)], "media": {draft.media_kind: []},
        "meta": {"generated": f"agentvqa-pack/{GENERATOR_VERSION}", "seed": seed, "width": width, "height": height,
                 **({FOLD_GROUP: group} if group is not None else {}), **draft.meta},
    }


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


@dataclass
class DatasetPart:
    """One dataset's share of the pack: its records, its media files, and its draw's rejection figures."""

    records: list[dict[str, Any]]
    files: dict[str, bytes]
    rejected: int
    hits: dict[str, float]
    drafted: list[Question]


def unit_sizes(dataset: str, per_dataset: int) -> list[int]:
    """How many questions each draw of the dataset gives (4 for twins, else 1), the last cut to the count."""
    sizes: list[int] = []
    while sum(sizes) < per_dataset:
        size = 4 if isinstance(maker_of(dataset, len(sizes)), Twins) else 1
        sizes.append(min(size, per_dataset - sum(sizes)))
    return sizes


def build_dataset(dataset: str, seed: int, per_dataset: int, adversary: Model | None = None) -> DatasetPart:
    """Draw one dataset's questions (independent of every other dataset, so workers may build them apart): its
    makers in turn, a single question's rejecting against the fixed priors and the `adversary` when given, with
    the single questions' answers spread evenly over the letters; a twin maker's four questions at once (their
    answers take each letter once; the last twins cut to the count)."""
    sizes = unit_sizes(dataset, per_dataset)
    letters = iter(answer_letters(dataset, sizes.count(1), seed))
    draw = DatasetDraw(dataset, seed, adversary)
    files: dict[str, bytes] = {}
    records: list[dict[str, Any]] = []
    drafted: list[Question] = []
    for unit, size in enumerate(sizes):
        index = len(records)
        if isinstance(maker_of(dataset, unit), Twins):
            taken = draw.twins(unit, index)[:size]
        else:
            taken = [draw.next(index, next(letters), unit)]
        for k, (draft, raw) in enumerate(taken, index):
            media = []
            for n, frame in enumerate(draft.frames):
                rel = f"media/{dataset}/{k:03d}_{n:02d}.png"
                files[rel] = png(frame)
                media.append(rel)
            raw["media"] = {draft.media_kind: media}
            records.append(raw)
            drafted.append(drafted_question(raw, draft))
    return DatasetPart(records, files, draw.rejected, draw.hits, drafted)


def draw_datasets(seed: int, per_dataset: int, workers: int, adversary: Model | None) -> dict[str, DatasetPart]:
    """Every dataset's part, drawn by `workers` processes (the result does not depend on how many)."""
    jobs = [(dataset, seed, per_dataset, adversary) for dataset in DATASETS]
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            return dict(zip(DATASETS, pool.starmap(build_dataset, jobs), strict=True))
    return {job[0]: build_dataset(*job) for job in jobs}


#: Draws of the pack: the first rejects against the fixed priors only; each later one also against the learned
#: text-only model fitted on the draw before it (adversarial filtering, issue 34).
ROUNDS = 2


def fit_adversary(parts: dict[str, DatasetPart]) -> Model:
    """The learned text-only model fitted on every question of a draw."""
    questions = [q for part in parts.values() for q in part.drafted]
    return fit([learned_features(text_of(q)) for q in questions], [q.answer for q in questions])


def build_pack(out: Path, seed: int = 0, per_dataset: int = 10, workers: int = 1,
               rounds: int = ROUNDS) -> dict[str, Any]:
    """Write the pack into `out` (its records, media and manifest are replaced) and return the manifest; `workers`
    processes draw the datasets (the bytes do not depend on how many); `rounds` draws, each after the first
    rejecting against the learned model fitted on the one before."""
    adversary = None
    for round_ in range(rounds):
        parts = draw_datasets(seed, per_dataset, workers, adversary)
        if round_ < rounds - 1:
            adversary = fit_adversary(parts)
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "media", ignore_errors=True)
    files = {name: data for part in parts.values() for name, data in part.files.items()}
    lines = [raw for part in parts.values() for raw in part.records]
    files[RECORDS] = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines).encode("utf-8")
    manifest = {
        "name": "AgentVQA generated pack", "kind": "generated", "notice": NOTICE,
        "generator": "suite_agentvqa.packgen", "generator_version": GENERATOR_VERSION, "seed": seed,
        "per_dataset": per_dataset, "questions": len(lines),
        "datasets": dict(Counter(r["dataset"] for r in lines)),
        "categories": dict(sorted(Counter(r["category"] for r in lines).items())),
        "answers": dict(sorted(Counter(r["answer"] for r in lines).items())),
        "prior_rejection": {"rejected": {d: parts[d].rejected for d in DATASETS},
                            "expected_hits": {d: {k: round(v, 2) for k, v in parts[d].hits.items()} for d in DATASETS},
                            "slack": {"above": PRIOR_SLACK_ABOVE, "below": PRIOR_SLACK_BELOW},
                            "rounds": rounds, "adversary_drafts": ADVERSARY_DRAFTS},
        "sha256": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
    }
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest
