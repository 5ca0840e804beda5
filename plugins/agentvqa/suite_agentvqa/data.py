"""Read an AgentVQA data directory: `records.jsonl` (one question a line) with the media files beside it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from suite.contract.errors import DataError
from suite.contract.schemas import decode_utf8, parse_json, validate

from suite_agentvqa.taxonomy import DOMAIN_OF_CATEGORY, DOMAIN_OF_DATASET

SCHEMA = Path(__file__).parent / "schemas" / "record.schema.json"
RECORDS = "records.jsonl"
#: Option letters: a question has 2 to 26 options, shown as A, B, ... (the paper's are all A-D).
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Question:
    """One multiple-choice question as loaded: media paths are absolute, the answer is the option index."""

    id: str
    dataset: str
    domain: str
    category: str
    goal: str | None
    action_history: tuple[str, ...] | None
    question: str
    options: tuple[str, ...]
    answer: int
    media_kind: str
    media: tuple[Path, ...]
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def answer_letter(self) -> str:
        """The correct option's letter in the file's option order."""
        return LETTERS[self.answer]


def is_data_dir(path: Path) -> bool:
    """Whether `path` holds an AgentVQA data directory (a records.jsonl file)."""
    return (Path(path) / RECORDS).is_file()


def _check_answer(raw: dict[str, Any], source: str) -> None:
    n = len(raw["options"])
    if LETTERS.index(raw["answer"]) >= n:
        raise DataError(source, "/answer", f"one of {', '.join(LETTERS[:n])} (the question has {n} options)")


def _check_taxonomy(raw: dict[str, Any], source: str) -> None:
    if DOMAIN_OF_DATASET[raw["dataset"]] != raw["domain"]:
        raise DataError(source, "/domain", f"{DOMAIN_OF_DATASET[raw['dataset']]!r} (the domain of {raw['dataset']})")
    if DOMAIN_OF_CATEGORY[raw["category"]] != raw["domain"]:
        raise DataError(source, "/category", f"a category of the {raw['domain']} domain, not {raw['category']!r}")


def _media(raw: dict[str, Any], root: Path, source: str) -> tuple[str, tuple[Path, ...]]:
    kind, value = next(iter(raw["media"].items()))
    rels = [value] if isinstance(value, str) else list(value)
    paths = []
    for i, rel in enumerate(rels):
        path = root / rel
        if not path.is_file():
            pointer = f"/media/{kind}" + ("" if isinstance(value, str) else f"/{i}")
            raise DataError(source, pointer, f"an existing media file ({path} is missing)")
        paths.append(path)
    return kind, tuple(paths)


def question_from_record(raw: dict[str, Any], root: Path, source: str) -> Question:
    """Validate one record (schema, taxonomy, media files) and build its Question."""
    validate(raw, SCHEMA, source)
    _check_answer(raw, source)
    _check_taxonomy(raw, source)
    kind, media = _media(raw, root, source)
    history = raw["action_history"]
    return Question(
        id=raw["id"], dataset=raw["dataset"], domain=raw["domain"], category=raw["category"], goal=raw["goal"],
        action_history=None if history is None else tuple(history), question=raw["question"],
        options=tuple(raw["options"]), answer=LETTERS.index(raw["answer"]), media_kind=kind, media=media,
        meta=dict(raw.get("meta") or {}),
    )


def read_questions(data_dir: str | Path) -> list[Question]:
    """Every question of `<data_dir>/records.jsonl`, validated, in file order; ids must be unique."""
    root = Path(data_dir)
    path = root / RECORDS
    if not path.is_file():
        raise DataError(path, "/", "an AgentVQA records file (records.jsonl; see plugins/agentvqa/README.md)")
    questions: list[Question] = []
    seen: set[str] = set()
    for number, line in enumerate(decode_utf8(path.read_bytes(), path).splitlines(), 1):
        if not line.strip():
            continue
        source = f"{path}:{number}"
        question = question_from_record(parse_json(line, source), root, source)
        if question.id in seen:
            raise DataError(source, "/id", f"a unique id ({question.id!r} appears twice)")
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise DataError(path, "/", "at least one question")
    return questions
