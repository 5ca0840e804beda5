"""HTML report build time for 1,000 and 10,000 episodes, the page's load time for 10,000 (targets 3 s, 20 s,
1,500 ms), and the side-by-side view opening two models' 2,000-step episodes (target 1 s).

Run: `python bench/report.py [--json] [--dir DIR]`. It first makes two real runs of the template benchmark
(examples/plugin-template) with its scripted model `scripted/counter-greedy` through litellm, 1,008 and 10,008
episodes of 1 to 6 steps each (about 30 s and 5 min on 2 cores; kept in DIR and reused when DIR is given), then
times `suite report --format html` on each (report JSON, every trace read, one data file per episode) and opens
the 10k page in headless chromium (Selenium with the system chromium and chromedriver), from navigation start to
the overview and the episode browser drawn.

The side-by-side figure: a site of two 2,000-step episodes on one task and data (a frame, reply and action per step,
written as the site stores them; the second acts differently from step 1,234), timed in the page from asking for
the pair (`#compare=0,1`) until both columns, the filmstrip and the first divergence are drawn, best of 3.

Printed (JSON keys): `html_build_s_1k`, `html_build_s_10k`, `page_load_ms_10k`, `side_by_side_ms_2000`,
`episodes_1k`, `episodes_10k`,
and the build's CPU seconds `html_build_cpu_s_1k`, `html_build_cpu_s_10k` (the build reads one trace per episode: on a
busy disk the wall time can be mostly waiting).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "examples" / "plugin-template"
TASKS = 12  # the template's tasks


def _run(out: Path, episodes: int) -> Path:
    """A real run of the template benchmark with at least `episodes` episodes (reused if finished)."""
    from suite.cli.main import main

    if (out / "run.sqlite").is_file():
        return out
    repeats = -(-episodes // TASKS)
    assert main(["run", "--plugins", "template", "--model", "scripted/counter-greedy", "--repeats", str(repeats),
                 "--concurrency", "16", "--out", str(out), "--no-report", "model.cache=false"]) == 0
    return out


def _build(run: Path, site: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds to build the site of one run (summary and episodes), and its episode count."""
    from suite.engine.host import build_host
    from suite.launch.reporting import report_settings
    from suite.report import summarize
    from suite.report.html import build_site

    shutil.rmtree(site, ignore_errors=True)
    start, cpu = time.perf_counter(), time.process_time()
    cfg = report_settings([run])
    host = build_host()
    summary = summarize(host, [run], cfg.bootstrap, cfg.confidence, cfg.seed)
    build_site(host, summary, [run], site)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return elapsed, cpu, sum(g["episodes"] for r in summary["rows"] for g in r["benchmarks"].values())


PAIR_STEPS, DIVERGE = 2000, 1234


def _pair_site(site: Path) -> Path:
    """A site of two models' 2,000-step episodes of one task on the same data (see the module's docstring)."""
    from suite.report.html.site import INDEX_COLUMNS, build_site, script_json

    summary = {"confidence": 0.95, "outcomes": [], "runs": [], "details": {}, "comparisons": [], "notes": [],
               "rows": [{"model": m, "agent": "a", "data": {"longact": {"id": "same"}}, "benchmarks": {}}
                        for m in ("model-a", "model-b")]}
    page = build_site(None, summary, [], site)
    (site / "frames").mkdir(exist_ok=True)
    from PIL import Image

    Image.new("RGB", (320, 240), (90, 120, 150)).save(site / "frames" / "f.png")
    episodes = []
    for row in (0, 1):
        steps = [{"index": i - 1, "reply": f"reply {i}", "feedback": "ok", "observation": f"observation {i}",
                  "action": {"text": f"{'turn' if row and i >= DIVERGE else 'move'} {i}"}, "panels": [],
                  "images": [{"url": "frames/f.png", "label": None}]} for i in range(1, PAIR_STEPS + 1)]
        episodes.append({"record": {"episode_id": f"e{row}", "benchmark": "longact", "task_id": "t", "model":
                                    f"model-{'ab'[row]}", "agent": "a", "outcome": "success", "steps": PAIR_STEPS,
                                    "cost_usd": 0.0, "metrics": {}},
                         "start": {"observation": "start", "images": []}, "steps": steps, "end": {}, "panels": []})
    (site / "data" / "ep" / "0.js").write_text("".join(f"SUITE.loaded({n}, {script_json(e)});\n"
                                                       for n, e in enumerate(episodes)), encoding="utf-8")
    rows = [["longact", f"model-{'ab'[n]}", "a", "success", None, "t", PAIR_STEPS, 0.0, f"e{n}", n] for n in (0, 1)]
    index = {"columns": INDEX_COLUMNS, "rows": rows, "per_file": 50, "metric_order": {}}
    (site / "data" / "index.js").write_text(f"SUITE.index = {script_json(index)};\n", encoding="utf-8")
    return page


def _side_by_side_ms(driver, page: Path) -> float:
    """Milliseconds in the page from asking for the pair until both columns and the divergence are drawn (best of 3;
    the episodes' data file is loaded afresh each time)."""
    from selenium.webdriver.support.ui import WebDriverWait

    best = float("inf")
    for _ in range(3):
        driver.get("about:blank")
        driver.get(page.as_uri())
        WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
        driver.execute_script("window.__t0 = performance.now(); location.hash = 'compare=0,1&step=0'")
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(
            "return document.querySelector('#side-b') && document.getElementById('divergence')"))
        best = min(best, driver.execute_script("return performance.now() - window.__t0"))
    return best


def _driver():
    """Headless Debian chromium through Selenium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000"):
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "chromedriver"))


def _page_load_ms(driver, page: Path) -> float:
    """Milliseconds from navigation start until the page says it is ready, in headless chromium (best of 3)."""
    from selenium.webdriver.support.ui import WebDriverWait

    best = float("inf")
    for _ in range(3):
        driver.get("about:blank")
        driver.get(page.as_uri())
        WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
        best = min(best, driver.execute_script("return Number(document.body.dataset.readyMs)"))
    return best


def main() -> None:
    """Make the runs, time the builds and the page load, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--dir", help="keep the runs and sites here (reused on the next call)")
    args = parser.parse_args()
    sys.path.insert(0, str(TEMPLATE))
    os.environ["SUITE_PLUGIN_MODULES"] = "template=suite_template.plugin"
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench-report-"))
    base.mkdir(parents=True, exist_ok=True)
    figures = {}
    for name, episodes in (("1k", 1000), ("10k", 10000)):
        run = _run(base / f"run{name}", episodes)
        build = _build(run, base / f"site{name}")
        figures[f"html_build_s_{name}"], figures[f"html_build_cpu_s_{name}"], figures[f"episodes_{name}"] = build
    driver = _driver()
    try:
        figures["page_load_ms_10k"] = _page_load_ms(driver, base / "site10k" / "index.html")
        figures["side_by_side_ms_2000"] = _side_by_side_ms(driver, _pair_site(base / "pair"))
    finally:
        driver.quit()
    figures = {k: round(v, 3) if isinstance(v, float) else v for k, v in figures.items()}
    if args.json:
        print(json.dumps(figures))
    else:
        for name, target in (("1k", 3), ("10k", 20)):
            print(f"HTML build, {figures['episodes_' + name]} episodes: {figures['html_build_s_' + name]} s, "
                  f"{figures['html_build_cpu_s_' + name]} s CPU (target {target} s)")
        print(f"page load, 10k episodes: {figures['page_load_ms_10k']} ms (target 1,500 ms)")
        print(f"side by side, two 2,000-step episodes: {figures['side_by_side_ms_2000']} ms (target 1,000 ms)")


if __name__ == "__main__":
    main()
