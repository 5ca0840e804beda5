"""The HTML report at scale: a 10,000-episode site and a site of 5 episodes of 16,000 steps each (issue 37, 2).

Run: `python bench/report.py [--json] [--dir DIR] [--episodes 10000] [--steps 16000]` (needs chromium and
chromedriver). The run folders are synthetic but made through the real store API: a real run of the template
benchmark (examples/plugin-template, 12 episodes of its scripted model `scripted/counter-greedy`) is copied, and
its episodes are registered again (`RunStore.add_episodes`), their traces written again with `TraceWriter` (steps
with their prompts by hash) and their records stored with `RunStore.finish`, up to `--episodes` episodes. The long
run holds 5 episodes of `--steps` steps: per step a prompt of a fixed system message and a 1.5 kB user message
(the observation and a bounded action history, as LongAct's direct agent sends), a reply, an action, feedback and a
160x120 PNG frame (each step's its own file); the fifth episode's actions differ from the fourth's from step 12,345
(or 3/4 of the way) on.

Each site is built by `build_site` in a child process (so its peak resident memory, `ru_maxrss`, is the build's
alone, imports included, the report's summary too; `rss_before_mb` is the resident size after the imports), then
again with tracemalloc on for the site alone, after the summary: `site_peak_alloc_mb`, the peak of the Python
allocations of writing the site, which holds one episode at a time). Then headless chromium (Selenium)
opens the site and, best of 3 from setting the page's address, opens one episode: the last one of the 10k site; the
last step of the last long episode (the part holding it loaded on demand, its frame drawn), and the two differing
long episodes side by side at their last step with the first divergence found.

Printed (JSON keys, `10k` and `16k` for the two sites): `build_s_*`, `build_cpu_s_*`, `peak_rss_mb_*`,
`rss_before_mb_*`, `site_peak_alloc_mb_*`, `largest_file_bytes_*`, `data_files_*`, `episodes_*`, `steps_*` (steps
in the site), `open_episode_ms_*`, `page_load_ms_*` (navigation start until the page is ready), `side_by_side_ms_16k`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "examples" / "plugin-template"
PLUGIN = {"SUITE_PLUGIN_MODULES": "template=suite_template.plugin"}
LONG_EPISODES = 5


def _env() -> dict[str, str]:
    """The environment of a child process: the template plugin importable and registered."""
    path = os.pathsep.join(p for p in (str(TEMPLATE), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, **PLUGIN, "PYTHONPATH": path}


def _seed(out: Path) -> Path:
    """A real run of the template benchmark, 12 episodes (reused if there)."""
    if not (out / "run.sqlite").is_file():
        subprocess.run([sys.executable, "-m", "suite.cli.main", "run", "--plugins", "template", "--model",
                        "scripted/counter-greedy", "--limit", "12", "--out", str(out), "--no-report",
                        "model.cache=false"], check=True, env=_env(), stdout=subprocess.DEVNULL)
    return out


def _copy_run(seed: Path, out: Path) -> tuple[Any, list[dict[str, Any]]]:
    """A copy of the seed run opened as a store, and the seed's records (the copy's episodes)."""
    from suite.store.run_folder import RunStore

    shutil.copytree(seed, out)
    (out / ".lock").unlink(missing_ok=True)
    store = RunStore(out)
    return store, store.records()


def _add(store: Any, record: dict[str, Any], episode_id: str, events: list[dict[str, Any]]) -> None:
    """Register an episode, write its trace (steps with their prompts) and store its record."""
    from suite.contract.records import EpisodeRecord
    from suite.store.run_folder import safe_name
    from suite.store.traces import TraceWriter

    store.add_episodes([(episode_id, record["benchmark"], record["task_id"])])
    writer = TraceWriter(store.root, store.trace_path(episode_id), safe_name(episode_id))
    for event in events:
        if event["type"] == "step":
            writer.write_step(dict(event))
        else:
            writer.write({**event, **({"episode_id": episode_id} if event["type"] == "start" else {})})
    writer.close()
    store.finish(EpisodeRecord(**{**record, "episode_id": episode_id,
                                  "trace": str(store.trace_path(episode_id).relative_to(store.root))}))


def _wide_run(seed: Path, out: Path, episodes: int) -> Path:
    """`episodes` episodes: the seed's 12 and copies of them, each with its trace written again."""
    from suite.store.traces import read_trace

    if (out / "run.sqlite").is_file():
        return out
    store, records = _copy_run(seed, out)
    traces = [read_trace(store.trace_path(r["episode_id"])) for r in records]
    for n in range(len(records), episodes):
        k = n % len(records)
        _add(store, records[k], f"{records[k]['episode_id']}@{n}", traces[k])
    store.close()
    return out


def _frames(run: Path) -> list[Path]:
    """Two 160x120 PNG frames to copy per step."""
    from PIL import Image

    paths = []
    for n, colour in enumerate([(90, 120, 150), (150, 120, 90)]):
        path = run / f"frame{n}.png"
        Image.new("RGB", (160, 120), colour).save(path)
        paths.append(path)
    return paths


def _long_events(steps: int, differ_from: int | None, frames: list[bytes], run: Path,
                 stem: str) -> list[dict[str, Any]]:
    """A long episode's trace events (see the module's docstring); its frames written into the run folder."""
    system = {"role": "system", "content": "You control a household robot. " * 40}
    rooms = ["kitchen", "living room", "bedroom", "bathroom"]
    events: list[dict[str, Any]] = [{"type": "start", "benchmark": "counter", "task_id": "c00", "category": None,
                                     "max_steps": steps, "observation": "start", "images": []}]
    (run / "frames" / stem).mkdir(parents=True, exist_ok=True)
    for i in range(steps):
        move = "MoveAhead" if differ_from is None or i + 1 < differ_from else "RotateLeft"
        history = "\n".join(f"{j + 1}. {move} ok, now in the {rooms[j % 4]}" for j in range(max(0, i - 20), i))
        text = f"Step {i + 1} of {steps}. You are in the {rooms[i % 4]}.\nRecent actions:\n{history}\n"
        rel = f"frames/{stem}/{i:05d}_0.png"
        (run / rel).write_bytes(frames[i % 2])
        events.append({"type": "step", "index": i, "action": {"value": move, "text": f"{move} {i}",
                                                               "parse_error": None},
                       "reply": f"Thought: step {i + 1}.\nACTION: {move}", "feedback": f"ok, step {i + 1}",
                       "done": i == steps - 1, "info": {}, "observation": f"You are in the {rooms[i % 4]}.",
                       "usage": {"prompt_tokens": 400, "completion_tokens": 12, "cost_usd": 0.0, "cached": False,
                                 "latency_s": 0.5},
                       "agent_s": 0.5, "env_s": 0.01, "images": [{"path": rel, "label": "rgb"}], "note": None,
                       "prompt": [system, {"role": "user", "content": text}]})
    events.append({"type": "end", "end_reason": "done", "error": None, "settlement": None, "duration_s": 1.0})
    return events


def _long_run(seed: Path, out: Path, steps: int) -> Path:
    """5 episodes of `steps` steps each (the seed's own episodes left out of the store's finished ones)."""
    from suite.store.run_folder import safe_name

    if (out / "run.sqlite").is_file():
        return out
    store, records = _copy_run(seed, out)
    store.db.execute("DELETE FROM episodes")  # only the long ones
    frames = [p.read_bytes() for p in _frames(out)]
    differ = min(12345, steps * 3 // 4)
    for n in range(LONG_EPISODES):
        episode_id = f"counter/long{n}"
        events = _long_events(steps, differ if n == LONG_EPISODES - 1 else None, frames, out, safe_name(episode_id))
        record = {**records[0], "steps": steps, "metrics": {**records[0]["metrics"], "steps": steps}}
        _add(store, record, episode_id, events)
    store.close()
    return out


def _rss_mb() -> float:
    """This process's resident memory now, MB."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def build(run: Path, site: Path) -> dict[str, float]:
    """(In the child process) build the site of one run; its wall and CPU seconds and memory."""
    from suite.engine.host import build_host
    from suite.launch.reporting import report_settings
    from suite.report import summarize
    from suite.report.html import build_site

    shutil.rmtree(site, ignore_errors=True)
    host = build_host()
    before = _rss_mb()
    start, cpu = time.perf_counter(), time.process_time()
    cfg = report_settings([run])
    summary = summarize(host, [run], cfg.bootstrap, cfg.confidence, cfg.seed)
    build_site(host, summary, [run], site)
    figures = {"build_s": time.perf_counter() - start, "build_cpu_s": time.process_time() - cpu,
               "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3, "rss_before_mb": before}
    tracemalloc.start()  # again, the site alone (the summary made): its peak of Python allocations
    build_site(host, summary, [run], site.with_name(site.name + "-again"))
    figures["site_peak_alloc_mb"] = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    shutil.rmtree(site.with_name(site.name + "-again"))
    return figures


def _build(run: Path, site: Path) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--build", str(run), str(site)], check=True,
                         env=_env(), capture_output=True, text=True).stdout
    figures = json.loads(out.strip().splitlines()[-1])
    files = list((site / "data" / "ep").iterdir())
    index = json.loads((site / "data" / "index.js").read_text(encoding="utf-8")
                       .removeprefix("SUITE.index = ").removesuffix(";\n"))
    steps = index["columns"].index("steps")
    return {**figures, "largest_file_bytes": max(f.stat().st_size for f in files), "data_files": len(files),
            "episodes": len(index["rows"]), "steps": sum(r[steps] for r in index["rows"])}


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


def _fresh(driver, page: Path) -> float:
    """Load the page afresh (no episode file in memory); milliseconds until it said it was ready."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("about:blank")
    driver.get(page.as_uri())
    WebDriverWait(driver, 120).until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
    return float(driver.execute_script("return Number(document.body.dataset.readyMs)"))


def _timed(driver, page: Path, hash_: str, done: str) -> tuple[float, float]:
    """Best of 3: page load, and milliseconds from setting `hash_` until the script `done` is true."""
    from selenium.webdriver.support.ui import WebDriverWait

    best_load, best = float("inf"), float("inf")
    for _ in range(3):
        best_load = min(best_load, _fresh(driver, page))
        driver.execute_script(f"window.__t0 = performance.now(); location.hash = {hash_!r}")
        WebDriverWait(driver, 120, poll_frequency=0.005).until(lambda d: d.execute_script(f"return {done}"))
        best = min(best, driver.execute_script("return performance.now() - window.__t0"))
    return best_load, best


FRAME_SHOWN = ("[...document.querySelectorAll('#step-body .frames img')].length > 0 && [...document.querySelectorAll("
               "'#step-body .frames img')].every(i => i.complete && i.naturalWidth > 0)")


def main() -> None:
    """Make the runs, build the sites, open episodes in them, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--dir", help="keep the runs and sites here (the runs are reused on the next call)")
    parser.add_argument("--episodes", type=int, default=10000, help="episodes of the wide site (10,000)")
    parser.add_argument("--steps", type=int, default=16000, help="steps of each long episode (16,000)")
    parser.add_argument("--build", nargs=2, help=argparse.SUPPRESS)  # the child process: RUN SITE
    args = parser.parse_args()
    sys.path.insert(0, str(TEMPLATE))
    os.environ.update(PLUGIN)
    if args.build:
        print(json.dumps(build(Path(args.build[0]), Path(args.build[1]))))
        return
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench-report-"))
    base.mkdir(parents=True, exist_ok=True)
    seed = _seed(base / "seed")
    wide = _wide_run(seed, base / f"wide{args.episodes}", args.episodes)
    long_ = _long_run(seed, base / f"long{args.steps}", args.steps)
    figures: dict[str, float] = {}
    for name, run in (("10k", wide), ("16k", long_)):
        figures.update({f"{k}_{name}": v for k, v in _build(run, base / f"site-{name}").items()})
    driver = _driver()
    try:
        last = figures["episodes_10k"] - 1
        figures["page_load_ms_10k"], figures["open_episode_ms_10k"] = _timed(
            driver, base / "site-10k" / "index.html", f"episode={last}&step=1",
            "(document.getElementById('step-label') || {}).textContent === 'step 1 of ' + (SUITE.episodes["
            f"{last}] || {{}}).step_count")
        n, steps = LONG_EPISODES - 1, args.steps
        page = base / "site-16k" / "index.html"
        figures["page_load_ms_16k"], figures["open_episode_ms_16k"] = _timed(
            driver, page, f"episode={n}&step={steps}",
            f"(document.getElementById('step-label') || {{}}).textContent === 'step {steps} of {steps}' && "
            + FRAME_SHOWN)
        figures["side_by_side_ms_16k"] = _timed(
            driver, page, f"compare={n - 1},{n}&step={steps}",
            "Boolean(document.querySelector('#side-b .action') && document.getElementById('divergence'))")[1]
    finally:
        driver.quit()
    figures = {k: round(v, 3) if isinstance(v, float) else v for k, v in figures.items()}
    if args.json:
        print(json.dumps(figures))
        return
    for name in ("10k", "16k"):
        print(f"site of {figures['episodes_' + name]} episodes, {figures['steps_' + name]} steps: build "
              f"{figures['build_s_' + name]} s ({figures['build_cpu_s_' + name]} s CPU), peak memory "
              f"{figures['peak_rss_mb_' + name]} MB ({figures['rss_before_mb_' + name]} MB before the build; the site "
              f"alone allocates at most {figures['site_peak_alloc_mb_' + name]} MB), "
              f"{figures['data_files_' + name]} data files, the largest {figures['largest_file_bytes_' + name]:,} "
              f"bytes; page load {figures['page_load_ms_' + name]} ms, one episode opened in "
              f"{figures['open_episode_ms_' + name]} ms")
    print(f"side by side, two {args.steps}-step episodes at their last step: {figures['side_by_side_ms_16k']} ms")


if __name__ == "__main__":
    main()
