"""A toy 4-way multiple-choice benchmark for the learned-baseline audit (tests/test_audit_learned.py), a plugin module
(`build_host(extra={"toy": toy_choice})` or SUITE_PLUGIN_MODULES=toy=toy_choice).

Each task asks about a picture (`Observation.data["picture"]`, which only the oracle reads) and offers four options.
`toy-leaky` gives the answer away in its text: the right option is always the longest and the only one sharing words
with the question. `toy-clean` draws every option the same way whatever its truth, so no text feature predicts the
answer. Both declare one learned baseline, `text-learner`: a numpy conditional logit over per-option text features
(length, words shared with the question), fitted on the training folds, reading the observation's text only.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from suite.contract.hookspecs import hookimpl
from suite.contract.records import Action, Observation, Settlement, StepResult, Task
from suite.contract.registry import AgentSpec, BenchmarkSpec, LearnedPolicy, Metric, Reading, ShortcutBaseline
from suite.engine.agents import PolicyAgent

LEAKY, CLEAN = "toy-leaky", "toy-clean"
LETTERS = "ABCD"
WORDS = [f"{a}{b}" for a in ("ka", "lo", "mi", "ne", "pu", "ro", "sa", "ti") for b in ("b", "d", "g", "k", "m", "n")]
TASKS = 400
#: (fit index, the ids it was fitted on) per fit, and (task id, fit index) per step a policy took: the tests read them
FITS: list[tuple[int, frozenset[str]]] = []
SCORED: list[tuple[str, int]] = []


def make_tasks(benchmark: str, count: int = TASKS, seed: int = 7) -> list[Task]:
    """The toy's tasks: a 6-word question and 4 options; the answer's position uniform."""
    rng = random.Random(f"{benchmark}:{seed}")
    tasks = []
    for n in range(count):
        question = rng.sample(WORDS, 6)
        others = [w for w in WORDS if w not in question]
        answer = rng.randrange(4)
        if benchmark == LEAKY:  # the right option: longest, and made of the question's words
            options = [" ".join(rng.sample(question, 4) + rng.sample(others, 1)) if i == answer
                       else " ".join(rng.sample(others, rng.choice((2, 3)))) for i in range(4)]
        else:  # every option alike: 2 to 5 words of the whole vocabulary, whatever its truth
            options = [" ".join(rng.sample(WORDS, rng.randint(2, 5))) for _ in range(4)]
        task_id = f"q{n:03d}"
        tasks.append(Task(benchmark, task_id, {"id": task_id, "question": " ".join(question), "options": options,
                                               "answer": answer}, category=None, max_steps=1))
    return tasks


def render(data: dict[str, Any]) -> str:
    """The observation's text: the question and its lettered options."""
    lines = [f"Question {data['id']}: {data['question']}"]
    lines += [f"{letter}) {text}" for letter, text in zip(LETTERS, data["options"], strict=True)]
    return "\n".join(lines + ["Answer with ANSWER: <letter>."])


def features(text: str) -> np.ndarray:
    """Per option of a rendered question: its length in words and the words it shares with the question."""
    lines = text.splitlines()
    question = set(lines[0].split(":", 1)[1].split())
    options = [line[3:].split() for line in lines[1:5]]
    return np.array([[len(o), len(question & set(o))] for o in options], dtype=float)


def fit_text_learner(train: Sequence[Task]) -> LearnedPolicy:
    """A conditional logit over the options' text features, fitted by gradient ascent on the training tasks."""
    fit = len(FITS)
    FITS.append((fit, frozenset(t.id for t in train)))
    x = np.stack([features(render(t.data)) for t in train])  # tasks x 4 options x 2 features
    mean, scale = x.reshape(-1, 2).mean(0), x.reshape(-1, 2).std(0) + 1e-9
    x = (x - mean) / scale
    y = np.array([t.data["answer"] for t in train])
    w = np.zeros(2)
    for _ in range(300):
        logits = x @ w
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        grad = (x[np.arange(len(y)), y] - (p[..., None] * x).sum(1)).mean(0)
        w += 0.5 * grad

    def policy(reading: Reading) -> str:
        text = reading.text or ""
        SCORED.append((re.findall(r"Question (\w+)", text)[0], fit))
        return f"ANSWER: {LETTERS[int(np.argmax(((features(text) - mean) / scale) @ w))]}"

    return policy


def oracle(task: Task, env: Any, observation: Observation, history: list[Any]) -> Action:
    """Reads the picture."""
    return Action(value=observation.data["picture"], text=LETTERS[observation.data["picture"]])


class ToyEnv:
    """One question, one answer."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.chosen: int | None = None

    def reset(self) -> Observation:
        """The question, its options, and the picture holding the answer."""
        return Observation(text=render(self.task.data), data={"picture": self.task.data["answer"]})

    def step(self, action: int) -> StepResult:
        """Record the answer and end."""
        self.chosen = action
        return StepResult(Observation(), done=True)

    def close(self) -> None:
        """Nothing to release."""



@hookimpl
def register(registry: Any) -> None:
    """Both benchmarks, each with the learned text baseline, and their oracle."""
    for name in (LEAKY, CLEAN):
        registry.add_benchmark(BenchmarkSpec(
            name, "a toy picture question", [Metric("correct", "accuracy")], chance=25.0,
            baselines=[ShortcutBaseline("text-learner", "a conditional logit over the options' text; never "
                                        "sees the picture", learner=fit_text_learner, reads=("text",),
                                        ceiling=35.0, chance=25.0)]))
    registry.add_agent(AgentSpec("oracle", lambda ctx: PolicyAgent(oracle), "reads the picture",
                                 benchmarks=(LEAKY, CLEAN)))


@hookimpl
def load_tasks(benchmark: str, config: Any) -> list[Task]:
    """The seeded tasks."""
    return make_tasks(benchmark)


@hookimpl
def make_env(benchmark: str, task: Task, config: Any) -> ToyEnv:
    """One question."""
    return ToyEnv(task)


@hookimpl
def build_prompt(benchmark: str, task: Task, observation: Observation, history: list[Any]) -> list[dict[str, Any]]:
    """The question as one message."""
    return [{"role": "user", "content": observation.text}]


@hookimpl
def parse_action(benchmark: str, task: Task, reply: str) -> Action:
    """The letter after ANSWER:."""
    found = re.search(r"ANSWER:\s*([ABCD])", reply or "")
    if not found:
        return Action.failure("no 'ANSWER: <letter>'", text=reply or "")
    return Action(value=LETTERS.index(found.group(1)), text=found.group(1))


@hookimpl
def settle(benchmark: str, task: Task, trajectory: Any, env: ToyEnv) -> Settlement:
    """Correct when the chosen option is the answer."""
    correct = env.chosen == task.data["answer"]
    return Settlement("success" if correct else "agent_failure", {"correct": correct},
                      None if correct else "wrong option")
