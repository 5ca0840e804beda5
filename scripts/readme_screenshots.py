"""Make the README's report screenshots from real runs (issue 37, 7): no made-up numbers, only metrics the
benchmarks have.

Run: `python scripts/readme_screenshots.py [--dir DIR] [--limit 2]` (needs chromium and chromedriver). It makes two
real runs of all five benchmarks on their generated packs, offline:

    suite run --plugins agentvqa,asgard,longact,omniear,vigil --agent oracle --limit 2 --out DIR/oracle
    suite run --plugins agentvqa,asgard,longact,omniear,vigil --model scripted/random --limit 2 --out DIR/random

(`--agent oracle`: the plugins' oracle agents, which use privileged state; `scripted/random`: a valid reply drawn at
random each step, through litellm), builds `suite report DIR/oracle DIR/random --format html --out DIR/site`, and
renders with headless chromium at 1,280 px:

- docs/img/report-overview.png: the top of the overview;
- docs/img/report-episode.png: the scripted/random LongAct episode with the most steps, at its middle step;
- docs/img/report-side-by-side.png: that LongAct task, oracle and scripted/random side by side at their first
  divergence.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "img"
BENCHMARKS = "agentvqa,asgard,longact,omniear,vigil"


def _runs(base: Path, limit: int) -> list[Path]:
    """The oracle's and scripted/random's runs (reused when there)."""
    from suite.cli.main import main

    runs = []
    for name, how in (("oracle", ["--agent", "oracle"]), ("random", ["--model", "scripted/random"])):
        out = base / name
        if not (out / "run.sqlite").is_file():
            main(["run", "--plugins", BENCHMARKS, *how, "--limit", str(limit), "--out", str(out), "--no-report",
                  "model.cache=false"])
        runs.append(out)
    return runs


def _driver(height: int):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", f"--window-size=1280,{height}"):
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "chromedriver"))


def _wait(driver, script: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 60).until(lambda d: d.execute_script(f"return {script}"))


def main() -> None:
    """Make the runs and the site, render the three screenshots into docs/img/."""
    from suite.cli.main import main as suite

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", help="keep the runs and the site here (the runs are reused on the next call)")
    parser.add_argument("--limit", type=int, default=2, help="episodes per benchmark and run (2)")
    args = parser.parse_args()
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="readme-shots-"))
    base.mkdir(parents=True, exist_ok=True)
    runs = _runs(base, args.limit)
    site = base / "site"
    assert suite(["report", *map(str, runs), "--format", "html", "--out", str(site)]) == 0
    index = json.loads((site / "data" / "index.js").read_text(encoding="utf-8")
                       .removeprefix("SUITE.index = ").removesuffix(";\n"))
    col = {c: i for i, c in enumerate(index["columns"])}
    rows = list(enumerate(index["rows"]))
    longact = [(n, r) for n, r in rows if r[col["benchmark"]] == "longact" and r[col["model"]] == "scripted/random"]
    n, row = max(longact, key=lambda nr: nr[1][col["steps"]])
    (m, _), *_ = [(k, r) for k, r in rows if r[col["benchmark"]] == "longact" and r[col["model"]] is None
                  and r[col["task_id"]] == row[col["task_id"]]]
    IMAGES.mkdir(parents=True, exist_ok=True)
    page = (site / "index.html").as_uri()
    driver = _driver(1100)
    try:
        driver.get(page)
        _wait(driver, "document.body.dataset.ready === '1'")
        driver.save_screenshot(str(IMAGES / "report-overview.png"))
        driver.execute_script(f"location.hash = 'episode={n}&step={max(1, row[col['steps']] // 2)}'")
        _wait(driver, "[...document.querySelectorAll('#step-body .frames img')].every(i => i.complete) && "
                      "document.querySelectorAll('#filmstrip img').length > 0")
        driver.save_screenshot(str(IMAGES / "report-episode.png"))
        driver.execute_script(f"location.hash = 'compare={m},{n}&step=0'")
        _wait(driver, "document.getElementById('divergence') !== null")
        if driver.execute_script("return document.getElementById('jump-divergence') !== null"):
            driver.execute_script("document.getElementById('jump-divergence').click()")
        _wait(driver, "document.getElementById('side-b') !== null && "
                      "[...document.querySelectorAll('#pair-body img')].every(i => i.complete)")
        driver.save_screenshot(str(IMAGES / "report-side-by-side.png"))
    finally:
        driver.quit()
    print(f"runs {', '.join(map(str, runs))}; site {site}; images in {IMAGES}")


if __name__ == "__main__":
    main()
