"""The learned text-only baseline (issue 34): a conditional logit over a question's options, fitted on part of the
pack and scored on the rest by `suite audit`, reading the prompt text only (never a pixel).

Everything it knows comes from the text the model is sent: goal, previous actions, question, options and the media
noun (`screenshot`, `images`, `video frames`: a single image or several, the image count as far as the text tells
it). Each option gets dense features (position, length and its rank, the words it shares with the other options and
with the question, goal and history, its kind, its number and that number's rank and spread, for points and boxes
the distance to the other options' and whether it is the medoid of them) crossed with the question's context (its
words, the media noun, the kind of the last previous action), so that one model holds a model per question template
(per dataset and category) with the pooled weights as fallback; and hashed words of the option, alone and crossed
with the question's words and the last action (answer-type and common-sense priors such as "what happened" ->
"picked up", "largest" -> "shelf"). The logit is fitted by a few hundred steps of Adam with L2, numpy only."""

from __future__ import annotations

import re
import zlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from suite.contract.records import FOLD_GROUP, Task
from suite.contract.registry import LearnedPolicy, Reading
from suite.validity.learned import assign_folds

from suite_agentvqa.data import LETTERS, Question
from suite_agentvqa.prompting import question_text

WORD = re.compile(r"[a-z]+|\d+")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
OPTION = re.compile(r"^([A-Z])\. (.*)$")
STOP = frozenset("a an the of to in on at is are was be it its this that and or for with by from which what where "
                 "who how do does did you your".split())
#: the kinds of option the text tells apart, in the order of their one-hot features
KINDS = ("tap", "box", "swipe", "done", "click", "type", "frame", "number", "phrase")
MEDIA = ("screenshot", "screenshots", "image", "images", "video frames", "video")
HASH_OPTION, HASH_CROSS, CONTEXT_WORDS = 256, 2048, 48


@dataclass(frozen=True)
class Parsed:
    """The parts of a prompt text: goal, previous actions, question, options and the media noun."""

    goal: str
    history: tuple[str, ...]
    has_history: bool
    question: str
    options: tuple[str, ...]
    media: str


def parse_text(text: str) -> Parsed:
    """Split a rendered AgentVQA prompt (prompts/question.txt and its sections) back into its parts."""
    lines = text.splitlines()
    goal, question, media = "", "", ""
    history: list[str] = []
    options: list[str] = []
    has_history = False
    section = ""
    for line in lines:
        if line.startswith("Goal: "):
            goal = line[6:]
        elif line.startswith("Previous actions:"):
            section, has_history = "history", True
        elif line.startswith("Question: "):
            question, section = line[10:], ""
        elif line.startswith("Options:"):
            section = "options"
        elif line.startswith("Look at the "):
            media = line[12:].split(" and weigh", 1)[0]
            section = ""
        elif section == "history" and re.match(r"^\d+\. ", line):
            history.append(line.split(". ", 1)[1])
        elif section == "options" and OPTION.match(line):
            options.append(OPTION.match(line).group(2))  # type: ignore[union-attr]
    return Parsed(goal, tuple(history), has_history, question, tuple(options), media)


def words(text: str) -> set[str]:
    """The content words of a text, lower case."""
    return {w for w in WORD.findall(text.lower()) if w not in STOP and not w.isdigit()}


def kind(option: str) -> str:
    """What sort of option it is: a tap at a point, a box, a swipe or scroll, done, a click on an element, typing,
    a frame, a number, or a phrase."""
    low = option.lower()
    if low.startswith("tap:"):
        return "tap"
    if re.match(r"^\(\s*\d+,\s*\d+,\s*\d+,\s*\d+\s*\)$", option.strip()):
        return "box"
    if low.startswith(("swipe", "scroll")):
        return "swipe"
    if "done" in low and len(low) < 25:
        return "done"
    if low.startswith(("click", "button")):
        return "click"
    if low.startswith("type"):
        return "type"
    if low.startswith(("frame", "image")):
        return "frame"
    if NUMBER.fullmatch(low.strip()):
        return "number"
    return "phrase"


def _h(text: str, size: int) -> int:
    return zlib.crc32(text.encode("utf-8")) % size


def _rank(values: np.ndarray) -> np.ndarray:
    """Each value's rank among the options, 0 (smallest) to 1 (largest); ties share the mean rank."""
    n = len(values)
    if n < 2:
        return np.zeros(n)
    order = np.array([(values < v).sum() + ((values == v).sum() - 1) / 2 for v in values], dtype=float)
    return order / (n - 1)


def _points(options: Sequence[str]) -> np.ndarray | None:
    """Each option's point (a tap's x, y; a box's centre), or None when they are not all points or boxes."""
    points = []
    for option in options:
        numbers = [float(x) for x in NUMBER.findall(option)]
        if kind(option) == "tap" and len(numbers) >= 2:
            points.append(numbers[:2])
        elif kind(option) == "box" and len(numbers) == 4:
            points.append([(numbers[0] + numbers[2]) / 2, (numbers[1] + numbers[3]) / 2])
        else:
            points.append([np.nan, np.nan])
    return np.array(points)


DENSE = 40


def dense(parsed: Parsed) -> np.ndarray:
    """The options' dense features, options x DENSE."""
    options = parsed.options
    n = len(options)
    out = np.zeros((n, DENSE))
    ws = [words(o) for o in options]
    asked = words(parsed.question)
    goal = words(parsed.goal)
    hist = words(" ".join(parsed.history))
    lengths = np.array([len(o) for o in options], dtype=float)
    values = np.array([float(NUMBER.findall(o)[0]) if NUMBER.findall(o) else np.nan for o in options])
    numeric = ~np.isnan(values)
    points = _points(options)
    for i, option in enumerate(options):
        row = out[i]
        row[min(i, 3)] = 1.0  # position (letter)
        row[4] = 1.0  # bias: crossed with the context, the template's own weights
        others = [ws[j] for j in range(n) if j != i]
        jac = [len(ws[i] & o) / max(1, len(ws[i] | o)) for o in others] or [0.0]
        row[5], row[6] = max(jac), float(np.mean(jac))
        row[7] = sum(len(ws[i] & o) for o in others) / 3
        row[8] = len(ws[i] & asked) / max(1, len(ws[i]))
        row[9] = len(ws[i] & goal) / max(1, len(ws[i]))
        row[10] = len(ws[i] & hist) / max(1, len(ws[i]))
        row[11] = float(option in parsed.history)
        row[12] = float(bool(parsed.history) and option == parsed.history[-1])
        row[13 + KINDS.index(kind(option))] = 1.0  # 13..21
        row[22] = (lengths[i] - lengths.mean()) / (lengths.std() + 1.0)
        row[23] = _rank(lengths)[i]
        row[24] = float(lengths[i] == lengths.max())
        row[25] = float(lengths[i] == lengths.min())
        row[26] = float(sum(kind(o) == kind(option) for o in options) - 1) / 3  # how many share its kind
        if numeric[i] and numeric.sum() >= 2:
            vals = values[numeric]
            row[27] = _rank(vals)[[int(j) for j in np.flatnonzero(numeric)].index(i)]
            row[28] = float(values[i] == vals.max())
            row[29] = float(values[i] == vals.min())
            row[30] = (values[i] - vals.mean()) / (vals.std() + 1.0)
            row[31] = np.log1p(abs(values[i])) / 5
            row[32] = min(abs(values[i] - v) for j, v in enumerate(values) if j != i and numeric[j]) / (
                vals.std() + 1.0)
        if points is not None and not np.isnan(points[i]).any():
            near = [np.linalg.norm(points[i] - points[j]) for j in range(n) if j != i and not np.isnan(points[j]).any()]
            if near:
                scale = float(np.nanstd(points)) + 1.0
                row[33] = min(near) / scale
                row[34] = float(np.mean(near)) / scale
                row[35] = float(len(near))
                mean_near = [np.mean([np.linalg.norm(points[k] - points[j]) for j in range(n)
                                      if j != k and not np.isnan(points[j]).any()])
                             for k in range(n) if not np.isnan(points[k]).any()]
                row[36] = float(np.mean(near) == min(mean_near))  # the medoid of the points
                row[37] = float(min(near) == min(min(np.linalg.norm(points[k] - points[j]) for j in range(n)
                                                    if j != k and not np.isnan(points[j]).any())
                                                for k in range(n) if not np.isnan(points[k]).any()))
        row[38] = float(parsed.media.endswith("s") or parsed.media == "video frames")  # several images
        row[39] = float(len(ws[i]))
    return out


def context(parsed: Parsed) -> tuple[np.ndarray, str]:
    """The question's context vector (hashed question words, media noun, history, last action kind) and the
    last action's kind, the keys the dense features and option words are crossed with."""
    last = kind(parsed.history[-1]) if parsed.history else ("none" if parsed.has_history else "-")
    c = np.zeros(CONTEXT_WORDS + len(MEDIA) + len(KINDS) + 4)
    for w in words(parsed.question):
        c[_h(w, CONTEXT_WORDS)] = 1.0
    if parsed.media in MEDIA:
        c[CONTEXT_WORDS + MEDIA.index(parsed.media)] = 1.0
    base = CONTEXT_WORDS + len(MEDIA)
    if last in KINDS:
        c[base + KINDS.index(last)] = 1.0
    c[base + len(KINDS)] = float(parsed.has_history)
    c[base + len(KINDS) + 1] = float(bool(parsed.goal))
    c[base + len(KINDS) + 2] = min(len(parsed.history), 4) / 4
    c[base + len(KINDS) + 3] = 1.0
    return c, last


def features(text: str) -> np.ndarray:
    """The options' features of one prompt text, options x width."""
    parsed = parse_text(text)
    d = dense(parsed)
    c, last = context(parsed)
    crossed = np.einsum("od,c->odc", d, c).reshape(len(parsed.options), -1)
    hashed = np.zeros((len(parsed.options), HASH_OPTION + HASH_CROSS), dtype=float)
    asked = words(parsed.question) | {f"last:{last}"}
    for i, option in enumerate(parsed.options):
        ow = words(option) | {f"kind:{kind(option)}"}
        for w in ow:
            hashed[i, _h(w, HASH_OPTION)] += 1.0
            for q in asked:
                hashed[i, HASH_OPTION + _h(f"{w}|{q}", HASH_CROSS)] += 1.0
    return np.concatenate([d, crossed, hashed], axis=1).astype(np.float32)


def text_of(question: Question, prompt_dir: str | None = None) -> str:
    """The text the policy reads for a question (the env renders the options in file order)."""
    return question_text(question, tuple(range(len(question.options))), prompt_dir)


def task_text(task: Task) -> str:
    """The text the policy reads at a task's first step (the env renders the options in file order)."""
    return text_of(task.data["question"], task.data["prompt"].get("prompt_dir"))


#: a fitted model: its weights, and the mean and scale of the features it was fitted on
Model = tuple[np.ndarray, np.ndarray, np.ndarray]


def model_hit(model: Model, x: np.ndarray, answer: int) -> bool:
    """Whether the model scores the right option of a question (its features `x`) best."""
    w, mean, scale = model
    return int(np.argmax(((x - mean) / scale) @ w)) == answer


def fit(xs: list[np.ndarray], ys: Sequence[int], steps: int = 300, l2: float = 3e-3,
        rate: float = 0.05) -> Model:
    """A conditional logit (softmax over each question's options) fitted by Adam with L2; the features are scaled
    by their spread over the training options. Returns (weights, mean, scale)."""
    width = xs[0].shape[1]
    flat = np.concatenate(xs)
    mean = flat.mean(0)
    scale = flat.std(0) + 1e-3
    sizes = {x.shape[0] for x in xs}
    groups = {size: [k for k, x in enumerate(xs) if x.shape[0] == size] for size in sizes}
    stacked = {size: np.stack([(xs[k] - mean) / scale for k in ks]).astype(np.float32) for size, ks in groups.items()}
    labels = {size: np.array([ys[k] for k in ks]) for size, ks in groups.items()}
    w = np.zeros(width, dtype=np.float32)
    m, v = np.zeros_like(w), np.zeros_like(w)
    total = len(xs)
    for step in range(1, steps + 1):
        grad = l2 * w
        for size, x in stacked.items():
            logits = x @ w
            p = np.exp(logits - logits.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            y = labels[size]
            grad -= (x[np.arange(len(y)), y] - np.einsum("no,nod->nd", p, x)).sum(0) / total
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    return w, mean, scale


def learn_text_only(train: Sequence[Task]) -> LearnedPolicy:
    """Fit the text-only conditional logit on the training tasks; its policy answers the letter of the option it
    scores best from the prompt text alone."""
    xs = [features(task_text(t)) for t in train]
    w, mean, scale = fit(xs, [t.data["question"].answer for t in train])

    def policy(reading: Reading) -> str:
        x = (features(reading.text or "") - mean) / scale
        return LETTERS[int(np.argmax(x @ w))] if len(x) else "A"

    return policy


def cross_fitted(questions: Sequence[Question], folds: int = 5, seed: int = 0) -> dict[str, bool]:
    """Whether the text-only model got each question right when fitted on the other folds (the folds `suite audit`
    deals with `run.seed` = `seed`, twins of one group in one fold): the generator's check of a whole pack, without
    the runner."""
    xs = {q.id: features(text_of(q)) for q in questions}
    groups = {q.id: str(q.meta[FOLD_GROUP]) for q in questions if q.meta.get(FOLD_GROUP) is not None}
    fold_of = assign_folds([q.id for q in questions], folds, seed, groups)
    right: dict[str, bool] = {}
    for k in range(folds):
        train = [q for q in questions if fold_of[q.id] != k]
        model = fit([xs[q.id] for q in train], [q.answer for q in train])
        for q in questions:
            if fold_of[q.id] == k:
                right[q.id] = model_hit(model, xs[q.id], q.answer)
    return right


def scores_by(questions: Sequence[Question], right: dict[str, bool]) -> dict[str, dict[str, Any]]:
    """Per key ("*", each dataset, each dataset/category): the percent right and the number of questions."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for q in questions:
        for key in ("*", q.dataset, f"{q.dataset}/{q.category}"):
            groups[key].append(right[q.id])
    return {key: {"score": round(100 * sum(hits) / len(hits), 2), "n": len(hits)}
            for key, hits in sorted(groups.items())}
