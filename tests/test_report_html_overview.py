"""The redesigned HTML overview and the episode views, in Chromium: one section per benchmark in headline order
(5 benchmarks x 3 models), rates on 0-100 axes, all-zero values not on -1..1, the outcome taxonomy as stacked bars,
paired differences grouped by unit, no horizontal scroll at 1,280 px, a print stylesheet; a 2,000-step episode's
filmstrip and keyboard, two models side by side with the first divergence, every model call of a step.
Screenshots go to artifacts/browser/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suite.report.html.chunks import ChunkWriter, write_episode
from suite.report.html.episodes import INDEX_COLUMNS
from suite.report.html.site import build_site, metric_order, script_json

from tests.test_report_html import _driver, _open, _screenshot

BENCHES = ["vigil", "longact", "asgard", "agentvqa", "omniear"]  # not sorted: the page sorts benchmarks
MODELS = ["openai/gpt-4o", "anthropic/claude-sonnet-4-5", "google/gemini-2.5-pro"]
# headline metrics in each plugin's order (not alphabetical), the last all zero and not a rate
METRICS = [("sr", "SR", True), ("gc", "GC", True), ("alpha", "steps", False)]


def _metric(mean: float, percent: bool) -> dict:
    return {"label": "", "percent": percent, "n": 30, "small_n": False, "mean": mean, "ci_low": max(0.0, mean - 0.1),
            "ci_high": mean + 0.1 if mean else 0.0}


def _summary() -> dict:
    rows = []
    for i, model in enumerate(MODELS):
        benchmarks = {}
        for j, bench in enumerate(BENCHES):
            metrics = {name: {**_metric(0.0 if not percent else 0.2 + 0.1 * i + 0.05 * j, percent), "label": label}
                       for name, label, percent in METRICS}
            outcomes = {"success": 10 + i, "agent_failure": 12 - i, "parse_failure": 3, "budget_exhausted": 5,
                        "model_error": 0, "env_error": 0, "timeout": 0}
            benchmarks[bench] = {"episodes": 30, "unfinished": 0, "metrics": metrics, "outcomes": outcomes,
                                 "infra_failures": 0, "tokens": 123456, "cost_usd": 1.5}
        rows.append({"model": model, "agent": "direct", "label": None, "data_tag": None, "runs": [],
                     "data": {b: {"kind": "generated", "id": "hash-" + b, "path": "/p"} for b in BENCHES},
                     "benchmarks": benchmarks})
    comparisons = [{"other_row": i, "benchmark": b, "metric": name, "label": label, "percent": percent, "pairs": 30,
                    "unpaired": 0, "small_n": False, "mean_diff": 0.1 * i if percent else 300.0,
                    "ci_low": 0.05 * i if percent else 250.0, "ci_high": 0.15 * i if percent else 350.0}
                   for i in (1, 2) for b in BENCHES for name, label, percent in METRICS]
    return {"format": "embodied-suite.report/1", "confidence": 0.95, "ci": {"method": "percentile bootstrap"},
            "outcomes": ["success", "agent_failure", "parse_failure", "budget_exhausted", "model_error", "env_error",
                         "timeout"], "runs": [], "rows": rows, "details": {}, "comparisons": comparisons, "notes": []}


def test_metric_order_keeps_each_benchmarks_headline_order() -> None:
    assert metric_order(_summary())["vigil"] == ["sr", "gc", "alpha"]


@pytest.fixture(scope="module")
def browser():
    driver = _driver()
    yield driver
    driver.quit()


def test_browser_overview_of_5_benchmarks_and_3_models_fits_1280_px(browser, tmp_path: Path) -> None:
    page = build_site(None, _summary(), [], tmp_path / "site")
    _open(browser, page.as_uri())
    sections = browser.execute_script("return [...document.querySelectorAll('#overview section.bench')]"
                                      ".map(s => s.id)")
    assert sections == [f"bench-{b}" for b in sorted(BENCHES)] + ["comparisons-section"]
    head = browser.execute_script("return [...document.querySelectorAll('#headline-vigil thead th')]"
                                  ".map(t => t.textContent)")
    assert head == ["model", "agent", "SR", "GC", "steps", "n", "infra", "tokens", "cost $"]
    assert browser.execute_script("return document.querySelectorAll('#headline-vigil tbody tr').length") == 3
    charts = browser.execute_script(
        "return [...document.querySelectorAll('#bench-vigil .plot')].map(p => [p.className, p.layout.yaxis.range,"
        " p.data.length, p.layout.barmode])")
    rates, values, outcomes = charts
    assert "chart-rates" in rates[0] and rates[1] == [0, 100] and rates[2] == 3  # a bar group per model
    assert "chart-values" in values[0] and values[1] == [0, 1]  # all zero: not drawn on -1..1
    assert "chart-outcomes" in outcomes[0] and outcomes[2:] == [7, "stack"]
    stacked = browser.execute_script("return document.querySelector('#bench-vigil .chart-outcomes').data"
                                     ".map(t => [t.name, t.orientation, t.x])")
    assert stacked[0] == ["success", "h", [10, 11, 12]]
    units = browser.execute_script("return [...document.querySelectorAll('#comparisons-section .unit h3')]"
                                   ".map(h => h.textContent)")
    assert units == ["in percentage points", "in steps"]
    diffs = browser.execute_script("return [...document.querySelectorAll('#comparisons-section .chart-diff')]"
                                   ".map(p => p.data[0].x.length)")
    assert diffs == [20, 10]
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 1280
    _screenshot(browser, "overview-5x3.png")
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        assert browser.execute_script("return getComputedStyle(document.querySelector('header nav')).display") == "none"
        _screenshot(browser, "overview-print.png")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


STEPS, DIVERGE = 2000, 1234


def _episode(site: Path, row: int, model: str) -> dict:
    """A 2,000-step episode as the site stores it: a frame, reply and action per step; the second model acts
    differently from step 1234 on; step 1 has two model calls of named modules, an empty observation and a
    float latency."""
    from PIL import Image, ImageDraw

    frames, shades = site / "frames", 50
    for k in range(shades):  # a few distinct frames, reused along the episode; model B's go red after diverging
        for tint, name in ((0, "a"), (1, "b")):
            image = Image.new("RGB", (160, 120), (60 + 150 * tint, 80 + 3 * k, 200 - 3 * k - 120 * tint))
            ImageDraw.Draw(image).rectangle((20 + k, 60, 60 + k, 100), fill=(240, 230, 200))
            image.save(frames / f"{name}{k}.png")
    steps = []
    for i in range(1, STEPS + 1):
        act = f"move {i}" if row == 0 or i < DIVERGE else f"turn {i}"
        steps.append({"index": i - 1, "reply": f"<b>{model}</b> {act}", "action": {"text": act}, "feedback": "ok",
                      "usage": {"latency_s": 1.1629767539998284}, "observation": "", "panels": [],
                      "images": [{"url": f"frames/{'b' if row and i >= DIVERGE else 'a'}{i % shades}.png",
                                  "label": None}],
                      "calls": [{"module": "planner", "model": model, "messages": [0, 2], "reply": "plan <i>"},
                                {"module": "critic", "model": model, "messages": [2, 3], "reply": "ok",
                                 "verdict": "accept"}] if i == 1 else None})
    record = {"episode_id": f"e{row}", "benchmark": "longact", "task_id": "t1", "model": model, "agent": "holomind",
              "outcome": "success", "steps": STEPS, "prompt_tokens": 1, "completion_tokens": 1, "cost_usd": 0.0,
              "metrics": {"gc": 0.5, "success": 1.0, **{f"extra_{k}": k for k in range(40)}, "notes": "<x>"}}
    return {"record": record, "run": "r", "trace_found": True, "messages": {}, "steps": steps, "panels": [],
            "start": {"observation": "", "images": [{"url": "frames/a0.png", "label": None}]}, "end": {}}


@pytest.fixture(scope="module")
def long_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site of two models on one 2,000-step LongAct episode (same task, same data)."""
    site = tmp_path_factory.mktemp("long")
    summary = _summary()
    build_site(None, summary, [], site)
    (site / "frames").mkdir()
    episodes = [_episode(site, row, MODELS[row]) for row in (0, 1)]
    writer = ChunkWriter(site / "data" / "ep")
    files = [write_episode(writer, n, e) for n, e in enumerate(episodes)]
    writer.flush()
    rows = [["longact", MODELS[n], "holomind", "success", None, "t1", STEPS, 0.0, f"e{n}", n, files[n]] for n in (0, 1)]
    index = {"columns": INDEX_COLUMNS, "rows": rows, "metric_order": metric_order(summary)}
    (site / "data" / "index.js").write_text(f"SUITE.index = {script_json(index)};\n", encoding="utf-8")
    return site


def _wait(browser, script: str):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, 20).until(lambda d: d.execute_script(script))


def test_browser_filmstrip_and_keys_over_2000_steps(browser, long_site: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _open(browser, (long_site / "index.html").as_uri() + "#episode=0&step=0")
    _wait(browser, "return document.querySelectorAll('#filmstrip img').length > 0")
    made = browser.execute_script("return document.querySelectorAll('#filmstrip .cell').length")
    loaded = browser.execute_script("return document.querySelectorAll('#filmstrip img').length")
    assert 0 < loaded <= made < 200  # cells and thumbnails made as they scroll into view, not all 2,001 at once
    assert browser.execute_script("return document.querySelector('#filmstrip .track').offsetWidth") == 2001 * 63
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.END)
    _wait(browser, "return document.getElementById('step-label').textContent === 'step 2000 of 2000'")
    body.send_keys(Keys.SHIFT, Keys.ARROW_LEFT)
    _wait(browser, "return document.getElementById('step-label').textContent === 'step 1990 of 2000'")
    assert browser.execute_script("return document.querySelector('#filmstrip .current').dataset.step") == "1990"
    _wait(browser, "return [...document.querySelectorAll('#filmstrip img')].some(i => i.alt === 'step 1990')")
    browser.find_element(By.CSS_SELECTOR, "#filmstrip .cell[data-step='1']").click()
    _wait(browser, "return document.getElementById('step-label').textContent === 'step 1 of 2000'")
    # every model call of the step in order, with its module; no empty observation box; latencies rounded
    heads = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#calls .call-head")]
    assert heads[0].startswith("1. planner (openai/gpt-4o)") and heads[1].startswith("2. critic")
    assert "verdict: accept" in heads[1]
    assert not browser.find_elements(By.CSS_SELECTOR, "#step-body .observation")
    assert "null" not in browser.find_element(By.ID, "step-body").text
    assert "1.16 s" in browser.find_element(By.ID, "step-body").text
    assert "1.1629767539998284" not in browser.find_element(By.ID, "step-body").text
    groups = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#metrics .metric-group > summary, "
                                                                     "#metrics .metric-group > h4")]
    assert groups == ["headline metrics", "other numbers (41)", "text, lists and objects (1)"]
    assert browser.execute_script("return window.__pwned") is None
    assert not browser.find_elements(By.CSS_SELECTOR, "#episode b, #episode i")  # replies shown as text
    browser.execute_script("document.getElementById('filmstrip').scrollIntoView()")
    _screenshot(browser, "filmstrip.png")


def test_browser_two_models_side_by_side_from_the_first_divergence(browser, long_site: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _open(browser, (long_site / "index.html").as_uri() + "#episode=0&step=0")
    _wait(browser, "return document.getElementById('compare-with') !== null")
    Select(browser.find_element(By.ID, "compare-with")).select_by_value("1")
    _wait(browser, "return document.getElementById('divergence') !== null")
    assert browser.find_element(By.ID, "divergence").text.strip() == f"first divergence at step {DIVERGE}"
    assert "null" not in browser.find_element(By.ID, "pair-body").text
    browser.find_element(By.ID, "jump-divergence").click()
    _wait(browser, f"return document.getElementById('step-label').textContent.startsWith('step {DIVERGE} of')")
    assert "first divergence" in browser.find_element(By.ID, "step-label").text
    a, b = (browser.find_element(By.CSS_SELECTOR, f"#side-{s} .action").text for s in "ab")
    assert (a, b) == (f"move {DIVERGE}", f"turn {DIVERGE}")
    assert "pair differs" in browser.find_element(By.ID, "pair-body").get_attribute("class")
    srcs = [browser.find_element(By.CSS_SELECTOR, f"#side-{s} .frames img").get_attribute("src") for s in "ab"]
    assert srcs[0].endswith(f"/frames/a{DIVERGE % 50}.png") and srcs[1].endswith(f"/frames/b{DIVERGE % 50}.png")
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 1280
    _screenshot(browser, "side-by-side.png")
    browser.find_element(By.TAG_NAME, "body").send_keys("j")  # the keys step both episodes at once
    _wait(browser, f"return document.getElementById('step-label').textContent.startsWith('step {DIVERGE + 1} of')")
    assert browser.find_element(By.CSS_SELECTOR, "#side-b .action").text == f"turn {DIVERGE + 1}"
    assert json.loads(json.dumps(browser.execute_script("return window.__pwned"))) is None


def test_browser_outcome_bars_stay_apart_when_long_names_are_cut(browser, tmp_path: Path) -> None:
    summary = _summary()
    for row, label in zip(summary["rows"], ("first variant of the prompt", "second variant of the prompt", None),
                          strict=True):
        row["model"], row["label"] = "anthropic/claude-sonnet-4-5", label
    _open(browser, build_site(None, summary, [], tmp_path / "site").as_uri())
    labels = browser.execute_script("return document.querySelector('#bench-vigil .chart-outcomes').data[0].y")
    assert len(set(labels)) == 3 and all(len(n) < 40 for n in labels)


def test_browser_says_no_interval_instead_of_drawing_one(browser, tmp_path: Path) -> None:
    summary = _summary()
    alone = {"ci_low": None, "ci_high": None, "no_interval": "no interval: one task", "n": 3, "tasks": 1}
    summary["rows"][0]["benchmarks"]["vigil"]["metrics"]["sr"].update(alone, mean=0.5)
    summary["comparisons"][0].update(alone, mean_diff=-0.25)
    page = build_site(None, summary, [], tmp_path / "site")
    _open(browser, page.as_uri())
    cells = browser.execute_script("return [...document.querySelectorAll('#headline-vigil tbody td')]"
                                   ".map(t => t.textContent)")
    assert "50.0 (no interval: one task)" in cells
    diffs = browser.execute_script("return [...document.querySelectorAll('#comparisons-section td')]"
                                   ".map(t => t.textContent)")
    assert "-25.0 (no interval: one task)" in diffs and not any("NaN" in d for d in diffs)
    bars = browser.execute_script("return document.querySelector('#bench-vigil .chart-rates').data[0].error_y.array")
    assert bars[0] is None  # no error bar where there is no interval
