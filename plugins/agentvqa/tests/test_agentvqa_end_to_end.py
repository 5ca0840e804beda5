"""AgentVQA through the whole suite: CLI runs on the generated pack with the oracle, the constant-letter agent and
scripted litellm models; circular evaluation and shuffles; the report; the data commands."""

from __future__ import annotations

import base64
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from suite.cli.main import main
from suite.models import register_script
from suite.store.run_folder import RunStore
from suite_agentvqa.data import read_questions
from suite_agentvqa.plugin import PACK_DIR

QUESTIONS = read_questions(PACK_DIR)
SHARE = {letter: sum(q.answer_letter == letter for q in QUESTIONS) / len(QUESTIONS) for letter in "ABCD"}


def _run(out: Path, *argv: str) -> list[dict[str, Any]]:
    flags = [a for a in argv if a.startswith("-") or "=" not in a]
    overrides = [a for a in argv if a not in flags]
    assert main(["run", "--plugins", "agentvqa", "--out", str(out), "--no-report", *flags, "model.cache=false",
                 *overrides]) == 0
    return RunStore(out).records()


def _accuracy(records: list[dict[str, Any]]) -> float:
    return sum(r["metrics"]["correct"] for r in records) / len(records)


def _report(out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_oracle_solves_every_question(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = _run(tmp_path / "run", "--agent", "oracle")
    assert len(records) == len(QUESTIONS) and all(r["outcome"] == "success" for r in records)
    report = _report(tmp_path / "run", capsys)
    headline = report["rows"][0]["benchmarks"]["agentvqa"]["metrics"]
    assert headline["correct"]["mean"] == 1.0 and headline["unevaluated"]["mean"] == 0.0
    assert report["runs"][0]["data"]["agentvqa"]["kind"] == "generated"
    tables = report["details"]["agentvqa"]
    assert "GENERATED PACK" in tables[0]["title"] and tables[0]["rows"][0][-4:] == ["100.0", "100.0", "100.0", 1400]


def test_constant_letter_scores_the_share_of_its_letter(tmp_path: Path) -> None:
    records = _run(tmp_path / "a", "--agent", "constant")
    assert _accuracy(records) == pytest.approx(SHARE["A"]) and 0.2 < _accuracy(records) < 0.3
    records = _run(tmp_path / "d", "--agent", "constant", "agentvqa.constant_letter=d")
    assert _accuracy(records) == pytest.approx(SHARE["D"])


def test_always_b_model_scores_exactly_the_share_of_b(tmp_path: Path) -> None:
    prompts: list[list[dict[str, Any]]] = []

    def always_b(messages: list[dict[str, Any]]) -> str:
        prompts.append(messages)
        return "B"

    register_script("agentvqa-always-b", always_b)
    out = tmp_path / "run"
    records = _run(out, "--model", "scripted/agentvqa-always-b", "--concurrency", "16")
    assert _accuracy(records) == pytest.approx(SHARE["B"]) and len(prompts) == len(QUESTIONS)
    parts = prompts[0][0]["content"]
    assert parts[-1]["type"] == "text" and parts[-1]["text"].endswith("Answer:")
    image = next(p for p in parts if p["type"] == "image_url")["image_url"]["url"]
    assert Image.open(io.BytesIO(base64.b64decode(image.split(",", 1)[1]))).size == (160, 120)
    assert list((out / "frames").rglob("*.png"))
    video = next(r for r in records if r["metrics"]["dataset"] == "vsi_bench")
    trace = RunStore(out).read_trace(video["episode_id"])
    assert trace[0]["images"][0]["label"].startswith("Frame 1 of ")


def test_unevaluated_replies_are_reported_both_ways(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = {f"agentvqa/{q.id}": q.answer_letter for q in QUESTIONS}

    def web_refuses(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
        episode = metadata["episode"]
        if episode.startswith("agentvqa/aitw/"):
            return "I cannot tell from this screenshot."
        return f"Looking closely, option A seems off.\nFinal answer: {answers[episode]}"

    register_script("agentvqa-web-refuses", web_refuses)
    out = tmp_path / "run"
    records = _run(out, "--model", "scripted/agentvqa-web-refuses")
    refused = [r for r in records if r["metrics"]["dataset"] == "aitw"]
    assert all(r["outcome"] == "parse_failure" and r["metrics"]["correct_evaluated"] is None for r in refused)
    report = _report(out, capsys)
    headline = report["rows"][0]["benchmarks"]["agentvqa"]["metrics"]
    assert headline["correct"]["mean"] == pytest.approx(13 / 14, abs=1e-6)
    assert headline["correct_evaluated"]["mean"] == 1.0
    assert headline["unevaluated"]["mean"] == pytest.approx(1 / 14, abs=1e-6)
    excluded, strict, _, unevaluated = report["details"]["agentvqa"]
    assert "the paper's headline" in excluded["title"]
    assert dict(zip(strict["columns"], strict["rows"][0], strict=True))["AitW"] == "0.0"
    assert dict(zip(excluded["columns"], excluded["rows"][0], strict=True))["AitW"] == "-"
    assert dict(zip(unevaluated["columns"], unevaluated["rows"][0], strict=True))["Web"] == 100  # aitw's 100


def test_headline_is_the_mean_over_datasets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = {f"agentvqa/{q.id}": q.answer_letter for q in QUESTIONS}

    def right_on_aitw_only(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
        right = answers[metadata["episode"]]
        return right if "/aitw/" in metadata["episode"] else "ABCD"[("ABCD".index(right) + 1) % 4]

    register_script("agentvqa-aitw-only", right_on_aitw_only)
    ids = [q.id for q in QUESTIONS if q.dataset == "aitw"] + ["erqa/000", "erqa/001"]
    out = tmp_path / "run"
    records = _run(out, "--model", "scripted/agentvqa-aitw-only", "--tasks", ",".join(ids))
    assert _accuracy(records) == pytest.approx(100 / 102)  # the pack's 100 aitw questions right, 2 erqa wrong
    headline = _report(out, capsys)["rows"][0]["benchmarks"]["agentvqa"]["metrics"]["correct"]
    assert headline["mean"] == 0.5 and headline["n"] == 102


def test_circular_and_shuffled(tmp_path: Path) -> None:
    subset = ["agentvqa.limit_per_dataset=2", "agentvqa.circular=true", "agentvqa.shuffle=true",
              "agentvqa.shuffle_seed=5"]
    oracle = _run(tmp_path / "o", "--agent", "oracle", *subset)
    assert len(oracle) == 28 and all(r["outcome"] == "success" and r["steps"] == 4 for r in oracle)
    assert {r["metrics"]["protocol"] for r in oracle} == {"circular, shuffled (seed 5)"}
    assert all(len(set(r["metrics"]["gold"])) == 4 for r in oracle)
    filed = {f"agentvqa/{q.id}": q.answer_letter for q in QUESTIONS}
    assert all(r["metrics"]["answers_as_filed"] == filed[r["episode_id"]] * 4 for r in oracle)
    constant = _run(tmp_path / "c", "--agent", "constant", *subset)
    assert _accuracy(constant) == 0 and {r["failure_category"] for r in constant} == {"inconsistent"}

    def first_then_refuse(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
        return "A" if metadata["step"] == 0 else "no idea"

    register_script("agentvqa-gives-up", first_then_refuse)
    gave_up = _run(tmp_path / "g", "--model", "scripted/agentvqa-gives-up", *subset)
    # one answer parsed: unevaluated, but no parse failure (the taxonomy's precedence, docs/plugins.md)
    assert all((r["outcome"], r["failure_category"], r["steps"]) == ("agent_failure", "unevaluated", 4)
               for r in gave_up)
    assert {r["metrics"]["answers"] for r in gave_up} == {"A---"}
    assert all(r["metrics"]["unevaluated"] and r["metrics"]["correct_evaluated"] is None for r in gave_up)


def test_limit_per_dataset_and_filters(tmp_path: Path) -> None:
    records = _run(tmp_path / "run", "--agent", "oracle", "agentvqa.limit_per_dataset=3",
                   "agentvqa.domains=[games,spatial_understanding]")
    datasets = sorted(r["metrics"]["dataset"] for r in records)
    assert datasets == sorted(["gameqa", "atari", "space10", "embspatial"] * 3)


def test_bad_options_and_data_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--plugins", "agentvqa", "--agent", "oracle", "--out", str(tmp_path / "r"),
                 "agentvqa.datasets=[imagenet]"]) == 2
    assert "agentvqa.datasets[0]: 'imagenet' is not one of aitw," in capsys.readouterr().err
    assert main(["data", "pull", "agentvqa"]) == 2
    err = capsys.readouterr().err
    assert "NOT PUBLISHED" in err and "--data-dir" in err


def test_limit_is_stratified_by_dataset_and_category(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--limit 28` of the 1,400 questions: two per dataset, each category near its share (the paper's sampling)."""
    records = _run(tmp_path / "run", "--agent", "oracle", "--limit", "28")
    capsys.readouterr()
    assert main(["report", str(tmp_path / "run")]) == 0
    assert " ".join(capsys.readouterr().out.split()).count("a seeded stratified") == 1
    per_dataset = Counter(r["metrics"]["dataset"] for r in records)
    assert len(records) == 28 and set(per_dataset.values()) == {2} and len(per_dataset) == 14
    share = Counter(q.category for q in QUESTIONS)
    taken = Counter(r["metrics"]["category"] for r in records)
    assert all(abs(taken[c] - 28 * n / len(QUESTIONS)) < 2 for c, n in share.items())


def test_the_headline_leaves_unevaluated_questions_out_as_the_paper() -> None:
    """The paper skips a question whose answer cannot be read: its variant is the first headline metric."""
    from suite.contract.registry import Registry
    from suite_agentvqa.plugin import register

    registry = Registry()
    register(registry)
    metrics = [(m.name, m.label) for m in registry.benchmarks["agentvqa"].headline]
    assert metrics[:2] == [("correct_evaluated", "overall acc"), ("correct", "acc, unevaluated wrong")]
