"""A damaged run folder is one line naming the file and the problem, exit 2, for every command that reads it; `suite
runs` lists the others beside it; reading a folder never resolves or runs anything it holds (issue 36 item 6)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.contract.errors import ConfigError, DataError
from suite.store.run_folder import DB_NAME

READERS = (["report"], ["export"], ["replay"], ["run", "--resume"], ["view", "--no-open", "--out", "{tmp}/site"])
BUT_EXPORT = tuple(c for c in READERS if c != ["export"])  # what reads more than the records


def _run(root: Path) -> Path:
    assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "2", "--out", str(root)]) == 0
    return root


def _sql(root: Path, *statements: str, args: tuple[object, ...] = ()) -> None:
    with sqlite3.connect(root / DB_NAME) as db:
        for statement in statements:
            db.execute(statement, args if "?" in statement else ())


def _record_without_outcome(root: Path) -> None:
    with sqlite3.connect(root / DB_NAME) as db:
        record = json.loads(db.execute("SELECT record FROM episodes WHERE status='done'").fetchone()[0])
    del record["outcome"]
    _sql(root, "UPDATE episodes SET record=? WHERE rowid=1", args=(json.dumps(record),))


def _trace(root: Path) -> Path:
    return sorted((root / "traces").glob("*.jsonl"))[0]


def _config(root: Path) -> Path:
    return root / "config.yaml"


# (case, damage, the file the error names, the problem it names, the commands that read what was damaged)
CASES: list[tuple[str, Callable[[Path], None], Callable[[Path], Path], str, tuple[list[str], ...]]] = [
    ("yaml tag", lambda r: _config(r).write_text(_config(r).read_text().replace(
        "label: null", "label: !!python/object/apply:os.system [touch PWNED]", 1)), _config, "tag",
     BUT_EXPORT),
    ("interpolation", lambda r: _config(r).write_text(_config(r).read_text().replace(
        "  seed: 0\n", "  seed: ${oc.env:HOME}\n")), _config, "${oc.env:HOME}",
     BUT_EXPORT),
    ("record not an object", lambda r: _sql(r, "UPDATE episodes SET record='[1, 2]' WHERE rowid=1"),
     lambda r: r / DB_NAME, "is not of type 'object'", READERS),
    ("record without outcome", _record_without_outcome, lambda r: r / DB_NAME, "'outcome' is a required", READERS),
    ("metadata not JSON", lambda r: _sql(r, "UPDATE meta SET value='[[[' WHERE key='model'"),
     lambda r: r / DB_NAME, "at metadata 'model': a JSON value", BUT_EXPORT),
    ("truncated database", lambda r: (r / DB_NAME).write_bytes((r / DB_NAME).read_bytes()[:9000]),
     lambda r: r / DB_NAME, "malformed", READERS),
    ("binary trace", lambda r: _trace(r).write_bytes(bytes(range(256)) * 8), _trace, "line 1", READERS[2::2]),
    ("deep trace", lambda r: _trace(r).write_text("[" * 200_000 + "]" * 200_000 + "\n"), _trace, "line 1",
     READERS[2::2]),
]


@pytest.mark.parametrize(("damage", "named", "problem", "commands"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_reading_command_names_the_damaged_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        damage: Callable[[Path], None], named: Callable[[Path], Path], problem: str,
        commands: tuple[list[str], ...]) -> None:
    root = _run(tmp_path / "r")
    damage(root)
    monkeypatch.chdir(tmp_path)
    for command in commands:
        capsys.readouterr()
        assert main([*(a.format(tmp=tmp_path) for a in command), str(root)]) == 2, command
        err = capsys.readouterr().err.strip()
        last = err.splitlines()[-1]
        assert last.startswith(f"error: {named(root)}") and problem in last and "Traceback" not in err, (command, err)
    assert not (tmp_path / "PWNED").exists()


def test_a_saved_config_is_read_as_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An interpolation is the text it is (a label may hold `${`), never resolved; a tag is refused."""
    from suite.contract.config import load_saved

    monkeypatch.setenv("SUITE_SECRET_MARKER", "resolved")
    path = tmp_path / "config.yaml"
    path.write_text("run:\n  label: ${oc.env:SUITE_SECRET_MARKER}\n  note: a \\${x} b\n")
    run = load_saved(path).run
    assert (run.label, run.note) == ("${oc.env:SUITE_SECRET_MARKER}", "a \\${x} b")
    path.write_text("run: !!python/name:os.system\n")
    with pytest.raises(ConfigError, match="config.yaml: not a readable saved config"):
        load_saved(path)


def test_an_endless_view_in_place_of_the_episodes_table_is_refused_not_run(tmp_path: Path) -> None:
    root = _run(tmp_path / "r")
    _sql(root, "ALTER TABLE episodes RENAME TO kept",
         "CREATE VIEW episodes AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n)"
         " SELECT kept.* FROM kept, n")
    for command in (["report"], ["replay"], ["run", "--resume"], ["runs"]):
        proc = subprocess.run([sys.executable, "-m", "suite.cli.main", *command, str(root if command != ["runs"]
                               else tmp_path)], capture_output=True, text=True, timeout=60, env=os.environ)
        assert proc.returncode == 2, (command, proc.stderr)
        assert f"{root / DB_NAME}: damaged run database (it holds a view 'episodes'" in proc.stderr


@pytest.mark.usefixtures("wide_console")
def test_runs_lists_the_other_folders_beside_a_damaged_one(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    good, broken, bad_results = (_run(tmp_path / name) for name in ("good", "broken", "results"))
    _sql(broken, "UPDATE episodes SET record='[1, 2]' WHERE rowid=1")
    (bad_results / "results.json").write_text('{"rows": [1]}')
    capsys.readouterr()
    assert main(["runs", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    rows = {name: next(line for line in out.splitlines() if f"/{name} " in line) for name in ("good", "broken")}
    assert "complete" in rows["good"] and "counter SR 100.0" in rows["good"]
    assert "damaged" in rows["broken"]
    assert f"warning: {broken / DB_NAME} (record of episode" in err
    assert f"warning: {bad_results / 'results.json'}: at /rows" in err
    assert "results.json damaged" in out and "Traceback" not in err


@pytest.mark.parametrize("change", [{}, {"steps": "4"}, {"steps": True}, {"steps": 4.0}, {"cost_usd": float("nan")},
                                    {"outcome": "won"}, {"model": None}, {"unknown": 1}, {"task_category": 3}])
def test_the_quick_record_check_agrees_with_the_schema_at_the_top_level(change: dict[str, object]) -> None:
    """Stored records are read back with a quick check of their top level; it passes what the schema passes."""
    from suite.contract.schemas import top_level_valid, validate
    from suite.store.run_folder import RECORD_SCHEMA

    record = {"episode_id": "b/t", "benchmark": "b", "task_id": "t", "task_category": None, "agent": "a",
              "model": "m", "seed": 0, "outcome": "success", "failure_category": None, "failure_reason": None,
              "metrics": {}, "steps": 4, "end_reason": "done", "prompt_tokens": 0, "completion_tokens": 0,
              "cached_prompt_tokens": 0, "cached_completion_tokens": 0, "cost_usd": 0.0, "duration_s": 1.0,
              "trace": "traces/t.jsonl", "data_source": "generated", **change}
    try:
        validate(record, RECORD_SCHEMA, "record")
        valid = True
    except DataError:
        valid = False
    assert top_level_valid(record, RECORD_SCHEMA) == valid
