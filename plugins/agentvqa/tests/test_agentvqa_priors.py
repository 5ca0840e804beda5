"""Text-only option priors (AgentVQA's shortcut baselines) and the generator's rejection step that keeps them at
chance, with hand-computed cases."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from suite.cli.main import main
from suite_agentvqa.data import Question
from suite_agentvqa.packgen import build
from suite_agentvqa.packgen.build import DatasetDraw, keeps_priors_at_chance
from suite_agentvqa.packgen.draft import Draft
from suite_agentvqa.plugin import PACK_DIR
from suite_agentvqa.priors import letter_priors, odds_correct, pick, prior_odds
from suite_agentvqa.taxonomy import DATASETS


def _question(options: tuple[str, ...], answer: int, text: str = "Which one?", dataset: str = "aitw",
              goal: str | None = None) -> Question:
    return Question(id="q", dataset=dataset, domain="web_agents", category="tap", goal=goal, action_history=None,
                    question=text, options=options, answer=answer, media_kind="images", media=())


def test_longest_option_and_its_odds() -> None:
    q = _question(("red mug", "a very long option", "cup", "bowl"), answer=1)
    assert pick("longest-option", q) == 1 and odds_correct("longest-option", q) == 1.0
    tied = _question(("abcd", "wxyz", "ab", "cd"), answer=1)
    assert pick("longest-option", tied) == 0  # the first of equals
    assert odds_correct("longest-option", tied) == 0.5  # one of two best
    assert odds_correct("longest-option", _question(("abcd", "wxyz", "ab", "cd"), answer=2)) == 0.0


def test_question_overlap_counts_shared_words_of_question_and_goal() -> None:
    q = _question(("the sofa", "red mug", "the fridge door", "lamp"), answer=2, text="Where is the fridge?",
                  goal="Open the door")
    assert pick("question-overlap", q) == 2  # fridge and door ("the" is a stop word)
    assert prior_odds(q) == {"longest-option": 1.0, "question-overlap": 1.0}


def test_most_frequent_letter_per_dataset() -> None:
    qs = [_question(("a", "b", "c", "d"), answer, dataset=ds) for ds, answer in
          [("aitw", 2), ("aitw", 2), ("aitw", 0), ("erqa", 1), ("erqa", 3)]]
    assert letter_priors(qs) == {"aitw": 2, "erqa": 1}  # erqa: a tie goes to the earlier letter


def test_keeps_priors_within_the_slack_of_chance() -> None:
    hits = {"p": 2.0}
    # 8 questions at chance 1/4: 2 expected; at most 3 (2 + 1 above), at least 0 (2 - 2 below)
    assert keeps_priors_at_chance(hits, {"p": 1.0}, 8, 0.25)
    assert not keeps_priors_at_chance({"p": 3.0}, {"p": 1.0}, 8, 0.25)
    assert not keeps_priors_at_chance({"p": 0.0}, {"p": 0.0}, 12, 0.25)  # 3 expected, 0 is too far below
    assert keeps_priors_at_chance({"p": 0.0}, {"p": 0.0}, 12, 0.25, both_ways=False)


def _sizing_drafts(monkeypatch: pytest.MonkeyPatch, longest_correct_until: int) -> list[int]:
    """Replace the aitw plan with a maker whose correct option is the unique longest one for its first attempts."""
    calls: list[int] = []

    def maker(rng: random.Random, seed: int) -> Draft:
        calls.append(1)
        correct = "a much longer answer" if len(calls) <= longest_correct_until else "ok"
        return Draft("tap", "Pick one.", correct, ["xx", "yy", "zz"], [np.zeros((2, 2, 3), np.uint8)])

    monkeypatch.setitem(build.PLAN, "aitw", [maker])
    return calls


def test_a_candidate_a_prior_would_answer_above_chance_is_redrawn(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _sizing_drafts(monkeypatch, longest_correct_until=3)
    draw = DatasetDraw("aitw", 0)
    draft, raw = draw.next(0, "A", 0)  # one question: 0.25 expected + 1 slack, so a sure longest-option hit ...
    assert draw.rejected == 0 and draft.correct == "a much longer answer"  # ... is still within it
    draft, raw = draw.next(1, "B", 1)  # two: 0.5 + 1, so a second sure hit (2) is not; "ok" ties all four options
    assert draw.rejected == 2 and draft.correct == "ok" and len(calls) == 4
    assert raw["options"][1] == "ok" and draw.hits["longest-option"] == 1.25  # 1 + 1/4


def test_the_generator_gives_up_with_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _sizing_drafts(monkeypatch, longest_correct_until=10**9)
    monkeypatch.setattr(build, "MAX_ATTEMPTS", 6)
    draw = DatasetDraw("aitw", 0)
    draw.next(0, "A", 0)
    with pytest.raises(RuntimeError, match="keeps the text-only priors at chance"):
        draw.next(1, "A", 1)


def test_declared_ceilings_are_chance_plus_five_per_dataset() -> None:
    from suite.engine.host import build_host

    spec = build_host().benchmark("agentvqa")
    priors = {b.name: b for b in spec.baselines}
    for name in ("most-frequent-letter", "longest-option", "question-overlap"):
        assert priors[name].ceiling_for("*") == 30.0 and priors[name].chance_for("*") == 25.0
        assert all(priors[name].ceiling_for(d) == 30.0 for d in DATASETS)
    assert {b.agent for b in priors.values()} >= {"longest-option", "question-overlap", "most-frequent-letter"}


def test_shipped_pack_passes_its_recorded_audit() -> None:
    audit = json.loads((PACK_DIR / "manifest.json").read_text())["audit"]
    assert audit["oracle"] == 100.0 and audit["sample"]["episodes"] == 14 * 100
    # the fixed baselines pass; the learned one does not yet (test_agentvqa_learned.py holds it as an open target)
    assert all(b["passed"] for name, b in audit["baselines"].items() if b["kind"] == "fixed")
    assert "learned-text" in audit["baselines"]
    for name in ("most-frequent-letter", "longest-option", "question-overlap"):
        rows = audit["baselines"][name]["rows"]
        assert set(rows) == {"*", *DATASETS}
        assert all(row["n"] >= 100 and row["score"] <= row["chance"] + 5 for row in rows.values()), name


def test_audit_of_a_hand_made_data_dir_runs_the_text_priors(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "--plugins", "agentvqa", "--data-dir", str(tiny), "--format", "json",
                 "--baselines", "longest-option,most-frequent-letter"])
    result = json.loads(capsys.readouterr().out)["benchmarks"][0]
    assert code == 1  # four questions cannot hold a prior at chance: most-frequent-letter is right on each dataset
    by_name = {b["name"]: b for b in result["baselines"]}
    assert by_name["most-frequent-letter"]["rows"][0]["score"] == 100.0
    # options w/x/y/z tie in length: the first (A) is picked; only aitw/1 has A as its answer -> 1 of 4 datasets
    assert by_name["longest-option"]["rows"][0]["score"] == 25.0
