"""HTML report build time for 1,000 and 10,000 episodes, and the page's load time for 10,000 (targets 3 s, 20 s,
1,500 ms).

Run: `python bench/report.py [--json] [--dir DIR]`. It first makes two real runs of the template benchmark
(examples/plugin-template) with its scripted model `scripted/counter-greedy` through litellm, 1,008 and 10,008
episodes of 1 to 6 steps each (about 30 s and 5 min on 2 cores; kept in DIR and reused when DIR is given), then
times `suite report --format html` on each (report JSON, every trace read, one data file per episode) and opens
the 10k page in headless chromium (Selenium with the system chromium and chromedriver), from navigation start to
the overview and the episode browser drawn.

Printed (JSON keys): `html_build_s_1k`, `html_build_s_10k`, `page_load_ms_10k`, `episodes_1k`, `episodes_10k`,
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
    from suite.cli import main

    if (out / "run.sqlite").is_file():
        return out
    repeats = -(-episodes // TASKS)
    assert main(["run", "--plugins", "template", "--model", "scripted/counter-greedy", "--repeats", str(repeats),
                 "--concurrency", "16", "--out", str(out), "--no-report", "model.cache=false"]) == 0
    return out


def _build(run: Path, site: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds to build the site of one run (summary and episodes), and its episode count."""
    from suite.commands import _report_settings
    from suite.plugins import build_host
    from suite.report import summarize
    from suite.report.html import build_site

    shutil.rmtree(site, ignore_errors=True)
    start, cpu = time.perf_counter(), time.process_time()
    cfg = _report_settings([run])
    host = build_host()
    summary = summarize(host, [run], cfg.bootstrap, cfg.confidence, cfg.seed)
    build_site(host, summary, [run], site)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return elapsed, cpu, sum(g["episodes"] for r in summary["rows"] for g in r["benchmarks"].values())


def _page_load_ms(page: Path) -> float:
    """Milliseconds from navigation start until the page says it is ready, in headless chromium (best of 3)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "chromedriver"))
    best = float("inf")
    try:
        for _ in range(3):
            driver.get("about:blank")
            driver.get(page.as_uri())
            WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
            best = min(best, driver.execute_script("return Number(document.body.dataset.readyMs)"))
    finally:
        driver.quit()
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
    figures["page_load_ms_10k"] = _page_load_ms(base / "site10k" / "index.html")
    figures = {k: round(v, 3) if isinstance(v, float) else v for k, v in figures.items()}
    if args.json:
        print(json.dumps(figures))
    else:
        for name, target in (("1k", 3), ("10k", 20)):
            print(f"HTML build, {figures['episodes_' + name]} episodes: {figures['html_build_s_' + name]} s, "
                  f"{figures['html_build_cpu_s_' + name]} s CPU (target {target} s)")
        print(f"page load, 10k episodes: {figures['page_load_ms_10k']} ms (target 1,500 ms)")


if __name__ == "__main__":
    main()
