"""One question's verdict: the answer of every order asked, correct only when all are right."""

from __future__ import annotations

from typing import Any

from suite.contract.records import Settlement, Task, Trajectory
from suite.engine.outcomes import PARSE_FAILURE, failure_outcome

from suite_agentvqa.data import LETTERS, Question
from suite_agentvqa.options import file_index, shown_letter


def settle(task: Task, trajectory: Trajectory) -> Settlement:
    """Score the answers step by step against the order asked at that step; an unparsed one leaves it unevaluated.

    `answers` and `gold` list the letters per order asked (`-`: unparsed), e.g. `CB-A` against `CBAD`;
    `answers_as_filed` maps each answer back to the option's letter in the file's order. The outcome follows the
    taxonomy's precedence (`suite.engine.outcomes`): `parse_failure` only when no answer parsed; a circular question
    with some answers parsed and one not is an `agent_failure` of category `unevaluated`."""
    question: Question = task.data["question"]
    orders = task.data["orders"]
    steps = trajectory.steps[: len(orders)]
    answers = [s.action.value if s.action.ok else None for s in steps]
    golds = [shown_letter(order, question.answer) for order in orders]
    evaluated = len(answers) == len(orders) and all(a is not None for a in answers)
    right = sum(a == g for a, g in zip(answers, golds, strict=False))
    correct = evaluated and right == len(orders)
    metrics: dict[str, Any] = {
        "correct": correct,
        "correct_evaluated": correct if evaluated else None,
        "unevaluated": not evaluated,
        "dataset": question.dataset,
        "domain": question.domain,
        "category": question.category,
        "protocol": task.data["protocol"],
        "answers": "".join(a or "-" for a in answers),
        "gold": "".join(golds),
        "answers_as_filed": "".join(LETTERS[file_index(o, a)] if a else "-" for o, a in zip(orders, answers,
                                                                                             strict=False)),
        "generated": bool(question.meta.get("generated")),
    }
    if correct:
        return Settlement("success", metrics)
    if not evaluated:
        unparsed = [s.action.parse_error for s in steps if not s.action.ok]
        outcome = failure_outcome(len(steps), len(unparsed), False)
        reason = unparsed[0] if outcome == PARSE_FAILURE else f"{len(unparsed)} of {len(orders)} answers unparsed"
        return Settlement(outcome, metrics, reason or "no answer was given", "unevaluated")
    if len(orders) > 1 and right:
        return Settlement("agent_failure", metrics, f"right in {right} of {len(orders)} orders", "inconsistent")
    return Settlement("agent_failure", metrics, f"answered {answers[0]}, correct {golds[0]}", "wrong_answer")
