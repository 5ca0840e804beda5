"""Convert a release of AgentVQA (or any multiple-choice set shaped like it) into our data directory format.

    python -m suite_agentvqa.convert SRC --out DIR [--field ours=theirs ...] [--dataset KEY]
        [--category-map theirs=ours ...] [--answer-base 0|1] [--media-root DIR] [--link]

SRC is a .jsonl or .json file (a list, or {"data": [...]}) or a folder of them (e.g. one file per subset, the
file name then naming the dataset). Each record's fields are found under their usual names (see FIELDS) or
the ones given with --field. Options may be a list, a {"A": ...} dict or "A. ..." lines; the answer a letter,
an index or the option's text. Images, videos and frames are paths (relative to the source file or
--media-root) or {"bytes": base64, "path": ...} dicts; they are copied (or linked) under DIR/media/<dataset>/.
The result is checked with the plugin's loader before the command ends.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from suite.contract.errors import DataError

from suite_agentvqa.data import LETTERS, RECORDS, read_questions
from suite_agentvqa.taxonomy import CATEGORIES, DOMAIN_OF_CATEGORY, DOMAIN_OF_DATASET, dataset_key

#: Our field -> the names a release may use for it, tried in order.
FIELDS: dict[str, tuple[str, ...]] = {
    "id": ("id", "question_id", "qid", "sample_id", "uid", "index"),
    "dataset": ("dataset", "source", "subset", "source_dataset", "dataset_name"),
    "category": ("category", "sub_task", "subtask", "sub_task_category", "task_type", "question_type"),
    "goal": ("goal", "episode_goal", "instruction", "task_goal"),
    "action_history": ("action_history", "history", "previous_actions", "actions"),
    "question": ("question", "query", "prompt", "text"),
    "options": ("options", "choices", "candidates", "answers"),
    "answer": ("answer", "label", "gt", "ground_truth", "correct_answer", "answer_letter"),
    "images": ("images", "image", "image_path", "image_paths", "screenshot", "screenshots"),
    "video": ("video", "video_path"),
    "frames": ("frames", "frame_paths", "video_frames"),
}
#: The action keyword of a web answer gives its category (the paper's rule for the web domain).
WEB_KEYWORDS = (("type", "typing"), ("swipe", "scroll"), ("scroll", "scroll"), ("button", "press"),
                ("press", "press"), ("tap", "tap"), ("click", "tap"))
OPTION_LINE = re.compile(r"^\s*\(?([A-Za-z])[).:]\s*(.+?)\s*$")


def source_files(src: Path) -> list[Path]:
    """The record files to read: SRC itself, or the .jsonl/.json files under the folder, sorted."""
    if src.is_file():
        return [src]
    return sorted(p for p in src.rglob("*") if p.suffix in (".jsonl", ".json") and p.name != "manifest.json")


def read_records(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, record) for each record of a .jsonl or .json file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                yield f"{path}:{number}", json.loads(line)
        return
    data = json.loads(text)
    items = data.get("data", data.get("questions", [])) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise DataError(path, "/", 'a list of records, or {"data": [...]} / {"questions": [...]}')
    for index, item in enumerate(items):
        yield f"{path}#{index}", item


class Converter:
    """Maps release records onto ours and gathers their media under the output folder."""

    def __init__(self, out: Path, fields: dict[str, str], dataset: str | None, categories: dict[str, str],
                 answer_base: int, media_root: Path | None, link: bool) -> None:
        self.out, self.dataset, self.categories = out, dataset, categories
        self.fields = {k: ((fields[k],) if k in fields else names) for k, names in FIELDS.items()}
        self.answer_base, self.media_root, self.link = answer_base, media_root, link

    def get(self, raw: dict[str, Any], field: str) -> Any:
        """The record's value for one of our fields (None when absent)."""
        return next((raw[name] for name in self.fields[field] if raw.get(name) not in (None, "")), None)

    def convert(self, raw: dict[str, Any], where: str, path: Path, index: int) -> dict[str, Any]:
        """One record in our format (media copied); a DataError names the source line and what is wrong."""
        dataset = self._dataset(raw, where, path)
        options = self._options(self.get(raw, "options"), where)
        answer = self._answer(self.get(raw, "answer"), options, where)
        qid = str(self.get(raw, "id") if self.get(raw, "id") is not None else index)
        qid = qid if qid.startswith(dataset + "/") else f"{dataset}/{qid}"
        history = self.get(raw, "action_history")
        if isinstance(history, str):
            history = [line.strip() for line in history.splitlines() if line.strip()]
        return {
            "id": re.sub(r"[^A-Za-z0-9_.:/-]", "_", qid), "dataset": dataset, "domain": DOMAIN_OF_DATASET[dataset],
            "category": self._category(raw, dataset, options[LETTERS.index(answer)], where),
            "goal": self.get(raw, "goal"), "action_history": history,
            "question": str(self.get(raw, "question") or ""), "options": options, "answer": answer,
            "media": self._media(raw, dataset, qid, path, where),
            "meta": {"source": where},
        }

    def _dataset(self, raw: dict[str, Any], where: str, path: Path) -> str:
        name = self.dataset or self.get(raw, "dataset") or path.stem
        key = dataset_key(str(name))
        if key is None:
            raise DataError(where, "/dataset", f"one of the 14 datasets (got {name!r}; pass --dataset KEY)")
        return key

    def _options(self, value: Any, where: str) -> list[str]:
        if isinstance(value, dict):
            value = [value[k] for k in sorted(value)]
        if isinstance(value, str):
            value = [m.group(2) for line in value.splitlines() if (m := OPTION_LINE.match(line))]
        if not isinstance(value, list) or not 2 <= len(value) <= len(LETTERS):
            raise DataError(where, "/options", f"2 to {len(LETTERS)} options (got {value!r:.80})")
        found = [OPTION_LINE.match(str(v)) for v in value]
        if all(m and m.group(1).upper() == LETTERS[i] for i, m in enumerate(found)):  # "A. ...", "B. ...", ...
            return [m.group(2) for m in found if m]
        return [str(v) for v in value]

    def _answer(self, value: Any, options: list[str], where: str) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            index = value - self.answer_base
        elif isinstance(value, str) and value.strip().strip("().").upper() in LETTERS and len(value.strip("(). ")) == 1:
            index = LETTERS.index(value.strip().strip("().").upper())
        elif isinstance(value, str) and value in options:
            index = options.index(value)
        else:
            index = -1
        if not 0 <= index < len(options):
            raise DataError(where, "/answer", f"a letter, an index or an option's text (got {value!r})")
        return LETTERS[index]

    def _category(self, raw: dict[str, Any], dataset: str, answer_text: str, where: str) -> str:
        value = self.get(raw, "category")
        domain = DOMAIN_OF_DATASET[dataset]
        if value is None and domain == "web_agents":
            lowered = answer_text.lower()
            value = next((cat for word, cat in WEB_KEYWORDS if lowered.startswith(word)), "tap")
        name = self.categories.get(str(value), str(value))
        key = re.sub(r"[\s\-]+", "_", name.strip().lower())
        by_abbr = {c.abbr.lower(): c.key for c in CATEGORIES.values() if DOMAIN_OF_CATEGORY[c.key] == domain}
        by_name = {c.name.lower().replace(" ", "_").replace("-", "_"): c.key for c in CATEGORIES.values()}
        key = key if key in CATEGORIES else by_abbr.get(key) or by_name.get(key, key)
        if DOMAIN_OF_CATEGORY.get(key) != domain:
            raise DataError(where, "/category", f"a {domain} category (got {value!r}; map it with --category-map)")
        return key

    def _media(self, raw: dict[str, Any], dataset: str, qid: str, path: Path, where: str) -> dict[str, Any]:
        for kind in ("frames", "video", "images"):
            value = self.get(raw, kind)
            if value is None:
                continue
            items = value if isinstance(value, list) else [value]
            stored = [self._store(item, dataset, qid, k, path, where) for k, item in enumerate(items)]
            return {kind: stored[0] if kind == "video" else stored}
        raise DataError(where, "/", "images, a video or frames")

    def _store(self, item: Any, dataset: str, qid: str, k: int, path: Path, where: str) -> str:
        name = qid.replace("/", "_")
        if isinstance(item, dict) and item.get("bytes"):
            suffix = Path(str(item.get("path") or "x.png")).suffix or ".png"
            rel = f"media/{dataset}/{name}_{k:02d}{suffix}"
            (self.out / rel).parent.mkdir(parents=True, exist_ok=True)
            data = item["bytes"]
            (self.out / rel).write_bytes(base64.b64decode(data) if isinstance(data, str) else bytes(data))
            return rel
        source = Path(str(item["path"] if isinstance(item, dict) else item))
        source = source if source.is_absolute() else (self.media_root or path.parent) / source
        if not source.is_file():
            raise DataError(where, "/media", f"an existing media file ({source})")
        rel = f"media/{dataset}/{name}_{k:02d}{source.suffix}"
        target = self.out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() or target.is_symlink():
            target.unlink()
        if self.link:
            target.symlink_to(source.resolve())
        else:
            shutil.copyfile(source, target)
        return rel


def _pairs(items: list[str], flag: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"{flag} takes key=value, not {item!r}")
        out[key.strip()] = value.strip()
    return out


def main(argv: list[str] | None = None) -> int:
    """Convert SRC into DIR/records.jsonl plus media, then load DIR with the plugin's loader."""
    parser = argparse.ArgumentParser(prog="python -m suite_agentvqa.convert", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("src", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--field", action="append", default=[], help="ours=theirs, e.g. options=choices")
    parser.add_argument("--dataset", help="the dataset key of every record (e.g. aitw)")
    parser.add_argument("--category-map", action="append", default=[], dest="category_map", help="theirs=ours")
    parser.add_argument("--answer-base", type=int, default=0, dest="answer_base", help="first index of integer answers")
    parser.add_argument("--media-root", type=Path, dest="media_root", help="media paths are relative to this")
    parser.add_argument("--link", action="store_true", help="symlink media instead of copying them")
    args = parser.parse_args(argv)
    fields = _pairs(args.field, "--field")
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise SystemExit(f"--field: unknown field(s) {sorted(unknown)}; ours are {', '.join(FIELDS)}")
    converter = Converter(args.out, fields, args.dataset, _pairs(args.category_map, "--category-map"),
                          args.answer_base, args.media_root, args.link)
    args.out.mkdir(parents=True, exist_ok=True)
    lines = []
    for path in source_files(args.src):
        for index, (where, raw) in enumerate(read_records(path)):
            lines.append(converter.convert(raw, where, path, index))
    (args.out / RECORDS).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), "utf-8")
    questions = read_questions(args.out)
    counts = Counter(q.dataset for q in questions)
    print(f"{len(questions)} questions written to {args.out}: {dict(sorted(counts.items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
