"""The two-agent (centralized) executor: how a pair of commands runs and how the results are combined."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

PARSE_FAILED = "PARSE_FAILED"
COOP_MISMATCH = "Cooperation commands must be issued simultaneously and consistently"


class ActionResult(NamedTuple):
    """One executed command's status and message; `coop_attribute` marks a CORP_<VERB> action."""

    status: str
    message: str
    coop_attribute: bool = False


Runner = Callable[[str, str], ActionResult]
IDLE = ActionResult("SUCCESS", "DONE")


def _worst(results: list[ActionResult]) -> str:
    statuses = {r.status for r in results}
    if statuses == {"SUCCESS"}:
        return "SUCCESS"
    return "FAILURE" if "FAILURE" in statuses else "INVALID"


def _prefixed(ids: list[str], results: list[ActionResult]) -> str:
    return "; ".join([f"{ids[n]}: {r.message}" for n, r in enumerate(results)])


def combine(ids: list[str], results: list[ActionResult], one_corp: bool) -> ActionResult:
    """The overall result of a sequentially executed pair, as the reference's centralized agent reports it."""
    for index, result in enumerate(results):
        if result.coop_attribute and result.status == "SUCCESS":
            others = [
                f"; {ids[j]}: {r.message}"
                for j, r in enumerate(results)
                if j != index and r.status == "SUCCESS"
            ]
            return ActionResult("SUCCESS", result.message + "".join(others))
    if not one_corp:
        return ActionResult(_worst(results), _prefixed(ids, results))
    statuses = [r.status for r in results]
    status = "FAILURE" if "FAILURE" in statuses else ("SUCCESS" if "SUCCESS" in statuses else "INVALID")
    order = [i for i, s in enumerate(statuses) if s == status] + [
        i for i, s in enumerate(statuses) if s != status
    ]
    return ActionResult(status, _prefixed([ids[i] for i in order], [results[i] for i in order]))


def run_pair(
    ids: list[str], commands: list[str], run: Runner, any_case_done: bool = False
) -> tuple[list[ActionResult], ActionResult, bool]:
    """Execute two agents' stripped commands; return per-agent results, the overall result, termination.

    Both DONE (any case) executes nothing; the harness ends the episode only on exactly `DONE`/`DONE`
    unless `any_case_done` (the `strict_done` fix).
    """
    c1, c2 = commands
    if c1.upper() == "DONE" and c2.upper() == "DONE":
        overall = ActionResult("SUCCESS", f"Both agents completed: {ids[0]}=DONE, {ids[1]}=DONE")
        return [IDLE, IDLE], overall, any_case_done or (c1 == "DONE" and c2 == "DONE")
    if PARSE_FAILED in (c1, c2):
        results = [
            ActionResult("FAILURE", f"LLM response parsing failed: Agent_{n}_Action not found")
            for n in (1, 2)
        ]
        overall = ActionResult(
            "FAILURE", "LLM response parsing failed: unable to extract Agent_1_Action and Agent_2_Action"
        )
        return results, overall, False
    corp1, corp2 = c1.startswith("CORP_"), c2.startswith("CORP_")
    if corp1 and corp2:
        if c1.split()[0] != c2.split()[0]:
            failed = ActionResult("FAILURE", COOP_MISMATCH)
            return [failed, failed], failed, False
        result = run(ids[0], c1)
        if result.coop_attribute and result.status == "SUCCESS":
            return [result, result], ActionResult("SUCCESS", result.message), False
        return [result, result], ActionResult(result.status, _prefixed(ids, [result, result])), False
    results = [IDLE if c.upper() == "DONE" else run(ids[n], c) for n, c in enumerate(commands)]
    return results, combine(ids, results, corp1 != corp2), False
