"""The report as it goes into a paper or onto a slide, on real runs of all five benchmarks (an oracle run, then a
scripted model's): printed on A4 from Chromium, every number of the JSON report is in the PDF's text (no column
cut off, folded sections printed); at 1,280 px no table scrolls sideways and at 1,920 px the page uses the width;
the paired-differences chart is as tall as its labels need with level ticks; step counts are one unit; counts
print whole; detail rows, outcome bars and tables come in the command line's order of runs. The PDF's text comes
from poppler's `pdftotext` (Debian's poppler-utils, which .ci/run installs). Screenshots and the PDF go to
artifacts/browser/."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from decimal import ROUND_HALF_DOWN, ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main

from tests.test_report_html import ARTIFACTS, _driver, _open, _screenshot

PLUGINS = "asgard,longact,omniear,vigil,agentvqa"  # not sorted: the order of runs is what the report keeps
NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")  # signs apart: a chart's minus is U+2212


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Path]]:
    base = tmp_path_factory.mktemp("print-runs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SUITE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        assert main(["run", "--plugins", PLUGINS, "--agent", "oracle", "--limit", "3", "--out", str(base / "oracle"),
                     "--no-report"]) == 0
        assert main(["run", "--plugins", PLUGINS, "--model", "scripted/random", "--limit", "3", "--out",
                     str(base / "random"), "--no-report", "model.cache=false"]) == 0
        yield [base / "oracle", base / "random"]


def _report(runs: list[Path], fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["report", *map(str, runs), "--format", fmt]) == 0
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def site(runs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    assert main(["report", *map(str, runs), "--format", "html", "--out", str(out)]) == 0
    return out / "index.html"


@pytest.fixture(scope="module")
def browser():
    driver = _driver()
    yield driver
    driver.quit()


# ---------- what every table prints, from the JSON ----------

def _fixed(value: float, scale: float, sign: bool = False) -> str:
    """`(value * scale).toFixed(1)` as the page's script writes it (a tie goes up), without the sign."""
    d = Decimal(value * scale)
    return str(abs(d.quantize(Decimal("0.1"), ROUND_HALF_UP if d >= 0 else ROUND_HALF_DOWN)))


def _expected_numbers(report: dict[str, Any]) -> Counter[str]:
    """Every number the report's tables show, as often as they show it: headline means, intervals, episodes, infra
    failures, tokens and cost; outcome counts; every detail-table cell; every paired difference."""
    shown: list[str] = []

    def interval(m: dict[str, Any], mean: float, scale: float) -> None:
        shown.append(_fixed(mean, scale))
        if m.get("ci_low") is not None:
            shown.extend([_fixed(m["ci_low"], scale), _fixed(m["ci_high"], scale)])

    for row in report["rows"]:
        for group in row["benchmarks"].values():
            for m in group["metrics"].values():
                if m["mean"] is not None:
                    interval(m, m["mean"], 100 if m["percent"] else 1)
            shown += [str(group["episodes"]), str(group["infra_failures"]), f"{group['tokens']:,}",
                      f"{group['cost_usd']:.4f}", *map(str, group["outcomes"].values())]
    for tables in report["details"].values():
        for table in tables:
            shown += [f"{c:.1f}" if isinstance(c, float) else str(c) for line in table["rows"] for c in line
                      if c is not None]
    for c in report["comparisons"]:
        if c["mean_diff"] is not None:
            interval(c, c["mean_diff"], 100 if c["percent"] else 1)
        shown += [str(c["pairs"]), str(c["unpaired"])]
    return Counter(n for text in shown for n in NUMBER.findall(text))


def test_a4_print_holds_every_number_of_the_json_report(browser, site: Path, runs: list[Path],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    if not shutil.which("pdftotext"):
        if os.environ.get("CI"):
            pytest.fail("CI needs pdftotext (.ci/run installs poppler-utils)")
        pytest.skip("pdftotext (poppler-utils) is not installed")
    report = json.loads(_report(runs, "json", capsys))
    _open(browser, site.as_uri())
    pdf = base64.b64decode(browser.execute_cdp_cmd("Page.printToPDF", {
        "paperWidth": 8.27, "paperHeight": 11.69, "marginTop": 0.4, "marginBottom": 0.4, "marginLeft": 0.4,
        "marginRight": 0.4})["data"])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "report-a4.pdf").write_bytes(pdf)
    text = subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
    printed = Counter(NUMBER.findall(text))
    missing = {n: k - printed[n] for n, k in _expected_numbers(report).items() if printed[n] < k}
    assert not missing, f"numbers of the JSON report missing from the A4 PDF (number: times): {missing}"
    # the folded tables printed: the outcome taxonomy names outcomes no chart legend shows (none happened)
    assert "model_error" in text and "timeout" in text and "all differences in one table" in text
    # back on screen: folded again, charts as wide as their boxes
    assert browser.execute_script("return document.querySelectorAll('#overview details[open]').length") == 0
    widths = browser.execute_script("return [...document.querySelectorAll('#overview .plot')]"
                                    ".map(p => [p._fullLayout.width, p.clientWidth])")
    assert all(abs(w - box) <= 2 for w, box in widths)


def test_print_media_opens_folds_and_fits_charts_to_the_paper(browser, site: Path) -> None:
    _open(browser, site.as_uri())
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(browser, 10).until(lambda d: d.execute_script(  # media change events come with the next frame
            "return [...document.querySelectorAll('#overview details')].every(d => d.open)"))
        sections = browser.execute_script("return [...document.querySelectorAll('section.bench')]"
                                          ".map(s => getComputedStyle(s).breakInside)")
        assert "avoid-page" not in sections  # a benchmark longer than what is left of a page starts on it
        charts = browser.execute_script("return [...document.querySelectorAll('#overview .plot')]"
                                        ".map(p => [p._fullLayout.width, p.getBoundingClientRect().width])")
        assert all(w <= box + 2 for w, box in charts)
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


def test_tables_fit_1280_px_and_the_page_uses_1920_px(browser, site: Path) -> None:
    try:
        for width in (1280, 1920):
            browser.set_window_size(width, 1000)
            _open(browser, site.as_uri())
            sideways = browser.execute_script(
                "return [...document.querySelectorAll('#overview .table-wrap')].filter(w => w.scrollWidth > "
                "w.clientWidth + 1).map(w => w.querySelector('table').id || w.previousElementSibling.textContent)")
            assert sideways == [], f"tables scrolling sideways at {width} px"
            assert browser.execute_script("return document.documentElement.scrollWidth") <= width
            page = browser.execute_script("return document.querySelector('main').getBoundingClientRect().width")
            assert page > width - 60
        _screenshot(browser, "overview-1920.png")
    finally:
        browser.set_window_size(1280, 1000)


def test_paired_differences_chart_is_sized_by_its_labels(browser, site: Path) -> None:
    _open(browser, site.as_uri())
    units = browser.execute_script("return [...document.querySelectorAll('#comparisons-section .unit h3')]"
                                   ".map(h => h.textContent)")
    assert units == ["in percentage points", "in steps", "in IR"]  # LongAct's Nav and Manip are steps
    sections = browser.execute_script("return [...document.querySelectorAll('section.bench')].map(s => s.id)")
    assert sections == [f"bench-{b}" for b in PLUGINS.split(",")] + ["comparisons-section"]
    charts = browser.execute_script("""return [...document.querySelectorAll('#comparisons-section .chart-diff')]
      .map(p => {
        const svg = p.querySelector('svg.main-svg').getBoundingClientRect();
        const title = p.querySelector('.g-xtitle text').getBoundingClientRect();
        const ticks = [...p.querySelectorAll('.xtick text')].map(t => t.getAttribute('transform') || '');
        return {labels: p.data[0].y.length, height: p.getBoundingClientRect().height,
                area: p._fullLayout.xaxis._length, rotated: ticks.some(t => /rotate\\((?!0\\))/.test(t)),
                title: title.left >= svg.left - 1 && title.right <= svg.right + 1};
      })""")
    points = charts[0]
    assert points["labels"] >= 15 and points["height"] >= 24 * points["labels"] and points["area"] > 400
    assert not any(c["rotated"] for c in charts) and all(c["title"] for c in charts)
    browser.execute_script("document.getElementById('comparisons-section').scrollIntoView()")
    _screenshot(browser, "paired-differences.png")


def test_one_order_of_rows_everywhere_and_counts_whole_on_the_page(browser, site: Path) -> None:
    _open(browser, site.as_uri())
    outcome = browser.execute_script(
        "const p = document.querySelector('#bench-asgard .chart-outcomes');"
        "return [p.data[0].y, [...p.querySelectorAll('.ytick text')]"
        ".map(t => [t.textContent, t.getBoundingClientRect().top])]")
    names, ticks = outcome
    tops = dict((name, top) for name, top in ticks)
    assert names[0].startswith("- / oracle") and tops[names[0]] < tops[names[1]]  # the first row on top
    longact = browser.execute_script(
        "const t = [...document.querySelectorAll('#bench-longact h3')].find(h => h.textContent.includes('Table 1'))"
        ".nextElementSibling.querySelector('table');"
        "return [...t.querySelectorAll('tbody tr')].map(r => [...r.cells].map(c => c.textContent))")
    assert [r[0] for r in longact] == ["oracle", "direct"]  # the command line's order, not the agents' alphabet
    assert all(r[2] == "3" for r in longact)  # n: a count, whole
    turns = browser.execute_script(
        "const t = [...document.querySelectorAll('#bench-asgard h3')].find(h => h.textContent.includes('Turns'))"
        ".nextElementSibling.querySelector('table');"
        "return [...t.querySelectorAll('tbody tr')].map(r => r.cells[3].textContent)")
    assert all(re.fullmatch(r"\d+", t) for t in turns)


def test_episode_metrics_rounded_in_the_plugins_order_and_a_zero_curve_on_0_1(browser, site: Path) -> None:
    _open(browser, site.as_uri())
    index = browser.execute_script("return SUITE.index.rows.findIndex(r => r[0] === 'longact' && r[1] !== null)")
    _open(browser, site.as_uri() + f"#episode={index}&step=0")
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 20).until(lambda d: d.execute_script("return document.getElementById('metrics') !== null"))
    head = browser.execute_script("return [...document.querySelectorAll('#metrics .metric-group')[0]"
                                  ".querySelectorAll('tbody tr')].map(r => r.cells[0].textContent)")
    order = ["gc_se", "gc_object", "gc", "success", "nav_steps", "manip_steps", "ir"]
    assert head == order[:len(head)] and len(head) >= 5
    values = browser.execute_script("return [...document.querySelectorAll('#metrics td')].map(c => c.textContent)")
    assert not [v for v in values if re.fullmatch(r"-?\d+\.\d{4,}", v)]
    # a random agent's checklist score curve is all zero: drawn on 0..1, not -1..1
    curve = browser.execute_script("return document.querySelector('#settlement .plot')._fullLayout.yaxis.range")
    assert curve == [0, 1]


# ---------- the terminal, Markdown and LaTeX tables ----------

def _longact_table_1(text: str, fmt: str) -> list[str]:
    """The row lines of LongAct's Table 1 layout in a rendered report."""
    lines = text[text.index("LongAct Table 1"):].splitlines()[1:]
    ends = {"md": "\n", "latex": "\\end{", "table": "└"}  # md: a blank line
    lines = lines[:next(i for i, line in enumerate(lines) if i and (line.strip() or "\n").startswith(ends[fmt]))]
    return [line for line in lines if "oracle" in line or "direct" in line]


@pytest.mark.parametrize("fmt", ["table", "md", "latex"])
def test_text_tables_keep_the_command_lines_order_and_whole_counts(runs: list[Path], fmt: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for order in (runs, runs[::-1]):
        lines = _longact_table_1(_report(order, fmt, capsys), fmt)
        first = ["oracle", "direct"] if order == runs else ["direct", "oracle"]
        assert [("oracle" if "oracle" in line else "direct") for line in lines] == first
    text = _report(runs, fmt, capsys)
    turns = text[text.index("Turns"):].splitlines()[:14]
    assert not any(re.search(r"baseline\W+\d+\.0\b", line) for line in turns)  # turns counted whole


def test_report_json_gives_each_detail_cell_as_printed_and_the_unit_of_each_difference(
        runs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    report = json.loads(_report(runs, "json", capsys))
    table = next(t for t in report["details"]["longact"] if "Table 1" in t["title"])
    assert [r[0] for r in table["rows"]] == ["oracle", "direct"]
    assert [r[2] for r in table["text"]] == ["3", "3"]
    units = {c["label"]: c["unit"] for c in report["comparisons"] if c["benchmark"] == "longact"}
    assert units == {"GC-SE": "percentage points", "GC": "percentage points", "GC items": "percentage points",
                     "SR": "percentage points",
                     "Nav": "steps", "Manip": "steps", "IR": "IR"}
    assert report["benchmarks"] == PLUGINS.split(",")
    assert list(dict.fromkeys(c["benchmark"] for c in report["comparisons"])) == PLUGINS.split(",")


@pytest.mark.parametrize("fmt", ["table", "md", "latex"])
def test_benchmarks_in_the_command_lines_order_in_every_format(runs: list[Path], fmt: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    text = _report(runs, fmt, capsys)
    titles = [text.index(f"{b}: ") for b in PLUGINS.split(",")]  # each benchmark's first detail table
    assert titles == sorted(titles)
    if fmt != "latex":
        outcomes = text[text.index("Outcomes"):]
        first = [outcomes.index(f" {b} ") for b in PLUGINS.split(",")]  # the oracle's outcome lines
        assert first == sorted(first)
