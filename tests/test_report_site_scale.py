"""The HTML report at scale and its episode views (issue 37 items 2 and 6): episode data files packed by size, a
long episode split into parts loaded as its steps are shown, every episode opening in a real browser with its
frames; LongAct's filmstrip showing the RGB frame, the side by side of text episodes of different lengths,
Shift+J/K stepping by 10, and a run whose every episode failed saying so instead of empty charts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from suite.cli.main import main
from suite.launch.reporting import report_settings
from suite.models import load_litellm, register_script
from suite.report import summarize
from suite.report.html import build_site
from suite.report.html.chunks import read_episode

from tests.test_report_html import _driver, _open, _screenshot

BUDGET = 12_000  # bytes: a LongAct step with its prompt is 2-3 kB, so its 17-step episode takes several files


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """LongAct (frames: RGB, depth, segmentation; a long and a one-step episode) and AgentVQA (one step, an image)
    episodes of a scripted model: episodes from 1 to 17 steps and from 4 kB to 60 kB."""
    run = tmp_path_factory.mktemp("mixed") / "run"
    assert main(["run", "--plugins", "longact,agentvqa", "--model", "scripted/random", "--limit", "2", "--out",
                 str(run), "--no-report", "model.cache=false"]) == 0
    return run


def _site(run: Path, out: Path, budget: int | None = None) -> Path:
    cfg = report_settings([run])
    summary = summarize(None, [run], cfg.bootstrap, cfg.confidence, cfg.seed)
    return build_site(None, summary, [run], out, **({"chunk_bytes": budget} if budget else {})).parent


@pytest.fixture(scope="module")
def small_site(mixed_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _site(mixed_run, tmp_path_factory.mktemp("site") / "small", BUDGET)


def _rows(site: Path) -> list[list[Any]]:
    return json.loads((site / "data" / "index.js").read_text(encoding="utf-8")
                      .removeprefix("SUITE.index = ").removesuffix(";\n"))["rows"]


def test_every_data_file_is_under_the_budget_and_holds_the_same_episodes(small_site: Path, mixed_run: Path,
                                                                         tmp_path: Path) -> None:
    files = sorted((small_site / "data" / "ep").iterdir())
    assert len(files) > 4 and all(f.stat().st_size <= BUDGET for f in files)
    whole = _site(mixed_run, tmp_path / "whole")  # the default budget: everything in one file
    assert len(list((whole / "data" / "ep").iterdir())) == 1
    rows = _rows(small_site)
    assert max(len(r[-1]) for r in rows) > 3  # the long episode is in parts over several files
    for n in range(len(rows)):
        split, one = read_episode(small_site, n), read_episode(whole, n)
        assert split["steps"] == one["steps"] and split["record"] == one["record"]
        assert len(split["steps"]) == split["step_count"] == len(split["outline"])
        used = {k for s in split["steps"] for k in s["messages"] or []}
        assert used <= set(split["messages"])


@pytest.fixture(scope="module")
def browser():
    driver = _driver()
    yield driver
    driver.quit()


def _wait(browser, condition, seconds: float = 20) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, seconds).until(condition)


def _label(browser) -> str:
    return browser.execute_script("const l = document.getElementById('step-label'); return l ? l.textContent : ''")


def test_browser_opens_every_episode_at_every_step_with_its_frames(browser, small_site: Path) -> None:
    """Each episode opens at its last step (the part holding it loaded on demand) with that step's frames, and its
    start; the filmstrip of LongAct shows the RGB frame of each step, never the segmentation mask."""
    rows = _rows(small_site)
    _open(browser, (small_site / "index.html").as_uri())
    for n, row in enumerate(rows):
        episode = read_episode(small_site, n)
        last = episode["step_count"]
        browser.execute_script(f"location.hash = 'episode={n}&step={last}'")
        title = f"Episode {episode['record']['episode_id']}"
        _wait(browser, lambda d, last=last, title=title: _label(d) == f"step {last} of {last}" and d.execute_script(
            "return document.querySelector('#episode h2').textContent") == title)
        want = [i["url"] for i in episode["steps"][-1]["images"] if i["url"]]
        shown = browser.execute_script(
            "return [...document.querySelectorAll('#step-body .frames img')].map(i => i.getAttribute('src'))")
        assert shown == want, row
        _wait(browser, lambda d: d.execute_script(
            "return [...document.querySelectorAll('#step-body .frames img')].every(i => i.complete && "
            "i.naturalWidth > 0)"))
        if row[0] == "longact" and last > 5:
            _wait(browser, lambda d: len(d.execute_script(
                "return document.querySelectorAll('#filmstrip .cell img')")) > 5)
            thumbs = browser.execute_script(
                "return [...document.querySelectorAll('#filmstrip .cell img')].map(i => i.getAttribute('src'))")
            assert thumbs and all(t.endswith("_0.png") for t in thumbs), thumbs  # rgb is image 0 of each step
            _screenshot(browser, "longact-filmstrip.png")
            body = browser.find_element("tag name", "body")
            browser.execute_script(f"location.hash = 'episode={n}&step=0'")
            _wait(browser, lambda d: _label(d).startswith("start"))
            from selenium.webdriver.common.action_chains import ActionChains
            from selenium.webdriver.common.keys import Keys

            body.click()
            ActionChains(browser).key_down(Keys.SHIFT).send_keys("j").key_up(Keys.SHIFT).perform()
            _wait(browser, lambda d, last=last: _label(d) == f"step 10 of {last}")
            ActionChains(browser).key_down(Keys.SHIFT).send_keys("J").key_up(Keys.SHIFT).perform()
            _wait(browser, lambda d, last=last: _label(d) == f"step {min(20, last)} of {last}")
            ActionChains(browser).key_down(Keys.SHIFT).send_keys("k").key_up(Keys.SHIFT).perform()
            _wait(browser, lambda d, last=last: _label(d) == f"step {min(20, last) - 10} of {last}")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_browser_side_by_side_of_text_episodes_of_different_lengths(browser, tmp_path: Path) -> None:
    """OmniEAR (text, no frames): the oracle's short episode beside a scripted model's longer one on the same task;
    each filmstrip cell names both episodes' actions, and says where the shorter ended, never `null`."""
    register_script("wander", lambda messages: "look around")
    oracle, other, site = tmp_path / "oracle", tmp_path / "other", tmp_path / "site"
    for out, how in ((oracle, ["--agent", "oracle"]), (other, ["--model", "scripted/wander"])):
        assert main(["run", "--plugins", "omniear", *how, "--limit", "1", "--out", str(out), "--no-report",
                     "model.cache=false", "omniear.max_steps=12"]) == 0
    assert main(["report", str(oracle), str(other), "--format", "html", "--out", str(site)]) == 0
    (short, long_) = sorted(range(2), key=lambda n: read_episode(site, n)["step_count"])
    n_short, n_long = (read_episode(site, n)["step_count"] for n in (short, long_))
    assert n_short < n_long
    _open(browser, (site / "index.html").as_uri())
    browser.execute_script(f"location.hash = 'compare={short},{long_}&step=0'")
    _wait(browser, lambda d: d.find_elements("id", "side-b"))
    browser.execute_script("document.getElementById('filmstrip').scrollLeft = 1e6")
    _wait(browser, lambda d: d.execute_script(
        f"return document.querySelectorAll('#filmstrip .cell[data-step=\"{n_long}\"] .cell-text').length") == 2)
    cells = browser.execute_script("return [...document.querySelectorAll('#filmstrip .cell')].slice(1).map("
                                   "c => [...c.querySelectorAll('.cell-text')].map(t => t.textContent))")
    shown = [c for c in cells if c]
    assert shown and all(len(c) == 2 for c in shown)
    assert not any("null" in t for c in shown for t in c)
    assert any(c[0] == f"(ended after {n_short})" and c[1] for c in shown)
    _screenshot(browser, "side-by-side-text.png")


def test_browser_says_no_scored_episodes_and_why(browser, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every episode a model_error: the benchmark's section says so with the outcome counts at its top, and draws no
    empty metric chart or header-only detail table."""
    def down(messages: list[dict[str, Any]]) -> str:
        raise load_litellm().ServiceUnavailableError("down", llm_provider="scripted", model="down")

    register_script("all-down", down)
    run, site = tmp_path / "run", tmp_path / "site"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SUITE_PLUGIN_MODULES", "template=suite_template.plugin")
        assert main(["run", "--plugins", "template", "--model", "scripted/all-down", "--limit", "5", "--out", str(run),
                     "--no-report", "model.retries=1", "model.backoff_base_s=0.01", "model.backoff_max_s=0.02",
                     "model.cache=false"]) == 5
        assert main(["report", str(run), "--format", "html", "--out", str(site)]) == 0
    capsys.readouterr()
    _open(browser, (site / "index.html").as_uri())
    note = browser.find_element("id", "no-scores-counter")
    assert note.text == "no scored episodes: 5 model_error"
    section = browser.find_element("id", "bench-counter")
    assert section.find_elements("css selector", "h2 + p.no-scores")  # at the top, under the heading
    assert not section.find_elements("css selector", ".chart-rates, .chart-values, h3")
    _screenshot(browser, "no-scored-episodes.png")


def test_parts_with_many_messages_stay_under_the_budget(tmp_path: Path) -> None:
    """Every step with a prompt message of its own: each file, its line and the messages' keys counted, within the
    budget; the episode read back whole."""
    from suite.report.html.chunks import ChunkWriter, write_episode

    steps = [{"index": i, "action": {"text": f"go {i}"}, "messages": [f"{i:016x}", "0" * 16]} for i in range(150)]
    messages = {f"{i:016x}": {"role": "user", "content": f"step {i} " * 20} for i in range(150)}
    messages["0" * 16] = {"role": "system", "content": "rules " * 100}
    episode = {"record": {"episode_id": "e"}, "start": {}, "end": {}, "panels": [], "steps": steps,
               "messages": messages}
    (tmp_path / "data" / "ep").mkdir(parents=True)
    writer = ChunkWriter(tmp_path / "data" / "ep", 5_000)
    files = write_episode(writer, 0, dict(episode))
    writer.flush()
    index = {"columns": ["files"], "rows": [[files]]}
    (tmp_path / "data" / "index.js").write_text(f"SUITE.index = {json.dumps(index)};\n", encoding="utf-8")
    sizes = [f.stat().st_size for f in (tmp_path / "data" / "ep").iterdir()]
    assert len(sizes) > 10 and max(sizes) <= 5_000
    back = read_episode(tmp_path, 0)
    assert back["steps"] == steps and back["messages"] == messages
