"""`suite report --format latex`: every headline number, paper row and paired difference equals the JSON report's,
in each benchmark's headline order, and text from runs is escaped so it typesets literally."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.engine.host import build_host
from suite.models import register_script
from suite.report.latex import tex
from suite.report.terminal import key_columns

LABEL = r"v2_&%$#{}~^\end{document}"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """An OmniEAR oracle run and a scripted model's run with a label full of LaTeX specials."""
    base = tmp_path_factory.mktemp("latex")
    register_script("latex-done", lambda messages: "DONE")
    oracle, scripted = base / "oracle", base / "scripted"
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--limit", "3", "--out", str(oracle),
                 "--no-report"]) == 0
    assert main(["run", "--plugins", "omniear", "--model", "scripted/latex-done", "--limit", "3", "--label", LABEL,
                 "--out", str(scripted), "--no-report", "model.cache=false"]) == 0
    return [oracle, scripted]


def _report(runs: list[Path], fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["report", *map(str, runs), "--reference", "--format", fmt]) == 0
    return capsys.readouterr().out


def _body_rows(latex: str, caption_start: str, keys: int = 2) -> list[list[str]]:
    """The cells of the table whose caption starts so (header row first), its parts (which each repeat the first
    `keys` columns) joined."""
    merged: list[list[str]] = []
    for part in latex.split(r"\caption{" + caption_start)[1:]:
        table = part.split(r"\end{tabular}", 1)[0]
        rows = [line.removesuffix(r" \\").split(" & ") for line in table.splitlines() if line.endswith(r" \\")]
        merged = [m + r[keys:] for m, r in zip(merged, rows, strict=True)] if merged else rows
    return merged


def _expected(m: dict, mean: float, k: int) -> str:
    """A metric's or difference's cell as the JSON numbers say it should read."""
    if m["ci_low"] is None:
        return f"{mean * k:.1f} ({m['no_interval']})"
    return f"{mean * k:.1f} [{m['ci_low'] * k:.1f}, {m['ci_high'] * k:.1f}]"


def test_latex_numbers_equal_the_json_numbers(runs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    summary = json.loads(_report(runs, "json", capsys))
    latex = _report(runs, "latex", capsys)
    header, *rows = _body_rows(latex, "omniear: headline metrics")
    order = [m.name for m in build_host().registry.benchmarks["omniear"].headline]  # the JSON sorts its keys
    metrics = [summary["rows"][0]["benchmarks"]["omniear"]["metrics"][n] for n in order]
    assert header == ["model", "agent", *(m["label"] + (r" (\%)" if m["percent"] else "") for m in metrics), "n"]
    for row, cells in zip(summary["rows"], rows, strict=False):
        group = row["benchmarks"]["omniear"]
        for m, cell in zip([group["metrics"][n] for n in order], cells[2:-1], strict=True):
            k = 100 if m["percent"] else 1
            assert cell == _expected(m, m["mean"], k)
        assert cells[-1] == str(group["episodes"])
    # the paper's rows of the headline table (OmniEAR's paper has none) and of its Table 1 layout, as printed
    keys = key_columns(next(t for t in summary["details"]["omniear"] if "Table 1" in t["title"]))
    papers = [r for r in _body_rows(latex, "omniear: SR", keys) if r[0].startswith("paper: ")]
    table1 = next(t for t in summary["details"]["omniear"] if "Table 1" in t["title"])
    assert papers == [[tex(c) for c in r] for r in table1["reference_rows"]] and len(papers) >= 5
    ours = _body_rows(latex, "omniear: SR", keys)[1:1 + len(table1["rows"])]
    assert ours == [[tex("-" if c is None else f"{c:.1f}" if isinstance(c, float) else c) for c in r]
                    for r in table1["rows"]]
    (diff_header, *diffs) = _body_rows(latex, "Paired differences")
    assert len(diffs) == len(summary["comparisons"]) >= 1
    for c, cells in zip(summary["comparisons"], diffs, strict=True):
        k = 100 if c["percent"] else 1
        assert cells[5] == (_expected(c, c["mean_diff"], k) if c["mean_diff"] is not None else "-")
        assert cells[4] == ("points" if c["percent"] else tex(c["label"])) and cells[6] == str(c["pairs"])


def test_latex_escapes_text_from_runs(runs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    latex = _report(runs, "latex", capsys)
    assert LABEL not in latex and r"\end{document}" not in latex
    assert tex(LABEL) == (r"v2\_\&\%\$\#\{\}\textasciitilde{}\textasciicircum{}\textbackslash{}end\{document\}")
    assert tex(LABEL) in latex
    # every & outside the escaped text separates cells: the same count on each row of a table
    for table in re.findall(r"\\begin\{tabular\}\{(l+)\}(.*?)\\end\{tabular\}", latex, re.S):
        width, body = len(table[0]), table[1]
        for line in body.splitlines():
            if line.endswith(r" \\"):
                assert len(re.findall(r"(?<!\\)&", line)) == width - 1, line


def test_latex_writes_symbols_in_math_and_every_other_character_in_ascii() -> None:
    assert tex("Δ W") == r"$\Delta$ W" and tex("P(rep|W=0)") == r"P(rep$|$W=0)" and tex("±¬") == r"$\pm$$\neg$"
    assert tex("Müller, façade, ω") == r'M\"{u}ller, fa\c{c}ade, $\omega$' and tex("动作") == "[U+52A8][U+4F5C]"
    curve = tex("  ▁█")  # a score curve: a bar per character, blanks empty, full height 2ex
    assert curve == r"\mbox{\rule{.2em}{0.00ex}\rule{.2em}{0.00ex}\rule{.2em}{0.25ex}\rule{.2em}{2.00ex}}"


def test_a_wide_latex_table_is_split_into_parts_that_repeat_the_key_columns() -> None:
    from suite.report.latex import PART_WIDTH, _table

    columns = ["model", "agent", *(f"metric {i}" for i in range(12))]
    lines = _table("wide", columns, [["m", "a", *(["100.0 [100.0, 100.0]"] * 12)]], keys=2)
    parts = [line for line in lines if line.startswith(r"\caption{")]
    assert len(parts) > 1 and parts[0] == rf"\caption{{wide (part 1 of {len(parts)})}}"
    headers = [line for line in lines if line.startswith("model & agent & ")]
    assert len(headers) == len(parts)  # every part repeats the key columns
    assert sum(h.count("metric") for h in headers) == 12
    for header in headers:  # a part holds what fits in PART_WIDTH, and is scaled to the line if wider still
        assert len(header) < PART_WIDTH
    assert lines.count(r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%") == len(parts)


def test_a_row_off_the_papers_protocol_is_marked_and_its_settings_named(
        runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The LaTeX table marks a row whose run departed from the paper's protocol with a dagger and names the
    settings in the caption; a `--protocol paper` row carries no mark."""
    paper = tmp_path / "paper"
    assert main(["run", "--plugins", "omniear", "--agent", "oracle", "--limit", "1", "--protocol", "paper",
                 "--label", "paper", "--out", str(paper), "--no-report"]) == 0
    latex = _report([runs[0], paper], "latex", capsys)
    header, *rows = _body_rows(latex, "omniear: headline metrics")
    agents = [row[1] for row in rows]
    assert agents[0] == r"oracle $^\dagger$" and agents[1] == "oracle (paper)"
    caption = latex.split(r"\caption{omniear: headline metrics", 1)[1].split("}\n", 1)[0]
    assert (r"$^\dagger$ not the paper's protocol (- / oracle: omniear.exclude\_scalar\_max\_size=false "
            r"(the paper's: true))") in caption
