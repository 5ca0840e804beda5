"""The benchmark's own agents: the oracle (reads the answer) and the constant-letter baseline; and the valid replies
of the offline baseline models."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from suite.contract.errors import ConfigError
from suite.contract.records import Action, Observation, StepRecord, Task
from suite.engine.agents import AgentContext, PolicyAgent

from suite_agentvqa.data import LETTERS, read_questions
from suite_agentvqa.options import shown_letter
from suite_agentvqa.priors import letter_priors, pick


def oracle_policy(task: Task, env: Any, observation: Observation, history: list[StepRecord]) -> Action:
    """The correct letter of the option order asked at this step."""
    order = task.data["orders"][len(history)]
    letter = shown_letter(order, task.data["question"].answer)
    return Action(value=letter, text=letter)


def oracle_agent(ctx: AgentContext) -> PolicyAgent:
    """The oracle agent: proves every question's answer maps through shuffles and rotations."""
    return PolicyAgent(oracle_policy)


def constant_agent(ctx: AgentContext) -> PolicyAgent:
    """The constant-letter baseline: always the letter `agentvqa.constant_letter` (the paper's "select all A")."""
    section = ctx.config.get("agentvqa") or {}
    letter = str(section.get("constant_letter") or "A").strip().upper()
    if letter not in LETTERS:
        raise ConfigError(f"agentvqa.constant_letter must be one letter A-Z, not {letter!r}")

    def policy(task: Task, env: Any, observation: Observation, history: list[StepRecord]) -> Action:
        return Action(value=letter, text=letter)

    return PolicyAgent(policy)


def prior_agent(name: str) -> Callable[[AgentContext], PolicyAgent]:
    """The text-only baseline agent of the prior `name` (suite_agentvqa.priors): it reads the question and its
    options from the task, never the images, and answers the shown letter of the option it picks."""
    def factory(ctx: AgentContext) -> PolicyAgent:
        def policy(task: Task, env: Any, observation: Observation, history: list[StepRecord]) -> Action:
            letter = shown_letter(task.data["orders"][len(history)], pick(name, task.data["question"]))
            return Action(value=letter, text=letter)

        return PolicyAgent(policy)

    return factory


@functools.lru_cache(maxsize=4)
def _letter_priors_of(data_dir: str) -> dict[str, int]:
    """The letter priors of a data dir, read once per process (an agent is made for every episode)."""
    return letter_priors(read_questions(data_dir))


def frequent_letter_agent(ctx: AgentContext) -> PolicyAgent:
    """The text-only baseline that always answers its dataset's most frequent correct letter in the data (a prior
    read off the labels, never the image or the question): it catches answer positions that are not balanced."""
    section = ctx.config.get("agentvqa") or {}
    favourite = _letter_priors_of(str(section.get("data_dir")))

    def policy(task: Task, env: Any, observation: Observation, history: list[StepRecord]) -> Action:
        letter = LETTERS[favourite[task.data["question"].dataset]]
        return Action(value=letter, text=letter)

    return PolicyAgent(policy)


def stop_reply(task: Task, observation: Observation) -> str:
    """Answer at once without looking: the first option (the generic `stop-at-once` baseline)."""
    return valid_reply(task, observation, None)


def valid_reply(task: Task, observation: Observation, rng: random.Random | None) -> str:
    """One of the question's option letters (`scripted/first-option`: always A, the paper's "select all A")."""
    letters = LETTERS[: len(task.data["question"].options)]
    return letters[0] if rng is None else rng.choice(letters)
