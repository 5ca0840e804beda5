"""The learned text-only baseline (issue 34): it finds a leak a fixed prior misses, stays at chance where the text
holds no answer, and reads only the prompt text."""

from __future__ import annotations

import json
import random
from pathlib import Path

from suite.contract.records import Task
from suite.contract.registry import Reading
from suite_agentvqa.data import Question, read_questions
from suite_agentvqa.learned import cross_fitted, features, learn_text_only, parse_text, scores_by, text_of
from suite_agentvqa.plugin import PACK_DIR, PRIOR_BASELINES
from suite_agentvqa.priors import odds_correct

OBJECTS = ["mug", "lamp", "sofa", "fridge", "kettle", "towel", "plate", "chair", "pillow", "vase", "book", "pan"]
VERBS = ["opened", "closed", "picked up", "turned on", "turned off", "broke"]


def _questions(leaky: bool, count: int = 240, seed: int = 3) -> list[Question]:
    """`leaky`: distractors built around the answer (one shares its object, one its verb, as the issue found: the
    option sharing most words with the others is right); else every option names a verb and an object of its own."""
    rng = random.Random(seed)
    out = []
    for n in range(count):
        objects = rng.sample(OBJECTS, 4)
        verbs = rng.sample(VERBS, 4)
        if leaky:
            options = [f"{verbs[0]} the {objects[0]}", f"{verbs[1]} the {objects[0]}", f"{verbs[0]} the {objects[1]}",
                       f"{verbs[2]} the {objects[2]}"]
        else:
            options = [f"{v} the {o}" for v, o in zip(verbs, objects, strict=True)]
        order = list(range(4))
        rng.shuffle(order)
        shown = tuple(options[i] for i in order)
        out.append(Question(id=f"q{n:03d}", dataset="erqa", domain="robotics", category="task_estimation", goal=None,
                            action_history=None, question="What did the robot do?", options=shown,
                            answer=order.index(0),
                            media_kind="images", media=()))
    if not leaky:  # the answer anywhere, drawn apart from the options
        out = [Question(**{**q.__dict__, "answer": rng.randrange(4)}) for q in out]
    return out


def test_the_learner_finds_distractors_built_around_the_answer() -> None:
    questions = _questions(leaky=True)
    # the fixed priors miss it: every option is about as long and none shares the question's words
    assert sum(odds_correct("question-overlap", q) for q in questions) / len(questions) < 0.3
    scores = scores_by(questions, cross_fitted(questions))
    assert scores["*"]["score"] > 60 and scores["*"]["n"] == 240


def test_the_learner_stays_at_chance_without_a_leak() -> None:
    questions = _questions(leaky=False)
    assert scores_by(questions, cross_fitted(questions))["*"]["score"] < 35


def test_the_policy_reads_the_prompt_text_only() -> None:
    questions = _questions(leaky=True, count=80)
    tasks = [Task("agentvqa", q.id, {"question": q, "prompt": {}}) for q in questions]
    policy = learn_text_only(tasks[:60])
    answers = [policy(Reading(text=text_of(q))) for q in questions[60:]]
    assert set(answers) <= set("ABCD")
    assert sum(a == q.answer_letter for a, q in zip(answers, questions[60:], strict=True)) >= 12
    (learned,) = [b for b in PRIOR_BASELINES if b.kind == "learned"]
    assert learned.reads == ("text",) and not learned.sees_frames


def test_the_prompt_text_parses_back_into_its_parts() -> None:
    q = Question(id="w", dataset="monday", domain="web_agents", category="press", goal="Open the book.",
                 action_history=("Tap: [3, 4]",), question="What is the next action?",
                 options=("Tap: [3, 4]", "Button: Press Done", "Tap: [5, 9]", "Swipe: Up (look up 30°)"), answer=1,
                 media_kind="images", media=(Path("shot.png"),))
    parsed = parse_text(text_of(q))
    assert (parsed.goal, parsed.history, parsed.question, parsed.options, parsed.media) == (
        q.goal, q.action_history, q.question, q.options, "screenshot")
    assert features(text_of(q)).shape[0] == 4


def test_the_shipped_pack_records_its_learned_check() -> None:
    manifest = json.loads((PACK_DIR / "manifest.json").read_text())
    check = manifest["learned_check"]
    rows = check["rows"]
    assert (check["baseline"], check["folds"], rows["*"]["n"]) == ("learned-text", 5, 1400)
    questions = read_questions(PACK_DIR)
    assert set(rows) == {"*"} | {q.dataset for q in questions} | {f"{q.dataset}/{q.category}" for q in questions}
    for row in rows.values():
        assert row["ci95"][0] <= row["score"] <= row["ci95"][1] and row["ceiling"] == 30.0
    assert {"agentvqa-pack/2", "agentvqa-pack/3"} <= set(manifest["earlier"])  # replaced packs, kept


def test_the_shipped_pack_holds_the_learned_baseline_to_chance() -> None:
    rows = json.loads((PACK_DIR / "manifest.json").read_text())["learned_check"]["rows"]
    assert rows["*"]["verdict"] == "pass" and rows["*"]["ci95"][1] <= 30.0  # chance + 5, interval included
    assert not [key for key, row in rows.items() if row["verdict"] == "fail"]
    # every dataset's own check on the monday questions alone (the most leaky dataset of v3, 75 %)
    questions = [q for q in read_questions(PACK_DIR) if q.dataset == "monday"]
    right = cross_fitted(questions)
    assert 100 * sum(right.values()) / len(right) <= 30
