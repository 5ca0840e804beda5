"""The HTML report: a static site built from the report's JSON, escaped, without secrets, and opened in a real
browser (Debian's chromium driven by Selenium) that checks the numbers, steps through an episode and runs nothing
a model wrote. Screenshots go to artifacts/browser/ (ignored by git) for CI to keep."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.models import register_script

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts" / "browser"
SECRET = "sk-test-0123456789abcdefSECRET"
PAYLOAD = ('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
           '<a id="evil" href="javascript:window.__pwned = 3">click</a> ACTION: DONE')
LABEL = '<img src=y onerror="window.__pwned = 4">'


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Path]]:
    """A small real oracle run, and a scripted model's run (an API key set) whose replies and label carry markup."""
    base = tmp_path_factory.mktemp("runs")
    register_script("html-payload", lambda messages: PAYLOAD)
    oracle, payload = base / "oracle", base / "payload"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SUITE_PLUGIN_MODULES", "template=suite_template.plugin")
        mp.setenv("SUITE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        mp.setenv("OPENAI_API_KEY", SECRET)
        assert main(["run", "--plugins", "template", "--agent", "oracle", "--limit", "4", "--out", str(oracle),
                     "--no-report"]) == 0
        assert main(["run", "--plugins", "template", "--model", "scripted/html-payload", "--limit", "4",
                     "--label", LABEL, "--out", str(payload), "--no-report", "model.cache=false",
                     f"model.params.api_key={SECRET}"]) == 0
        yield [oracle, payload]


@pytest.fixture(scope="module")
def site(runs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SUITE_PLUGIN_MODULES", "template=suite_template.plugin")
        assert main(["report", *map(str, runs), "--format", "html", "--out", str(out)]) == 0
    return out


def _json_report(runs: list[Path], capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["report", *map(str, runs), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_site_carries_the_json_report_and_every_episode(site: Path, runs: list[Path],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    summary = _json_report(runs, capsys)
    text = (site / "data" / "summary.js").read_text(encoding="utf-8")
    assert json.loads(text.removeprefix("SUITE.summary = ").removesuffix(";\n"))["rows"] == summary["rows"]
    index = (site / "data" / "index.js").read_text(encoding="utf-8")
    rows = json.loads(index.removeprefix("SUITE.index = ").removesuffix(";\n"))["rows"]
    lines = (site / "data" / "ep" / "0.js").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 8 and [line[:len("SUITE.part(0, 0, ")] for line in lines] == [
        f"SUITE.part({n}, 0, " for n in range(8)]
    assert (site / "assets" / "plotly-basic.min.js").is_file() and (site / "assets" / "plotly-LICENSE.txt").is_file()


def test_site_has_no_markup_from_runs_and_no_secret(site: Path) -> None:
    for path in site.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert SECRET not in text, path
            if path.parent.name != "assets" and path.name != "index.html":
                assert "<" not in text and ">" not in text, path  # data files hold markup only as \u escapes


def test_site_names_no_network_resource(site: Path) -> None:
    for path in [site / "index.html", *(site / "assets" / n for n in ("boot.js", "report.js", "report.css"))]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), path


def test_html_report_needs_an_out_folder(runs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(runs[0]), "--format", "html"]) == 2
    assert "--out" in capsys.readouterr().err


def test_view_builds_in_a_temporary_folder_and_prints_the_page(runs: list[Path],
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["view", str(runs[0]), "--no-open"]) == 0
    page = Path(capsys.readouterr().out.strip())
    assert page.name == "index.html" and (page.parent / "data" / "index.js").is_file()
    shutil.rmtree(page.parent)


# ---------- in a real browser ----------

def _driver():
    """Headless Debian chromium through Selenium; skipped where it is missing, except in CI (.ci/run installs it)."""
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        chromium = None
    if not (chromium and chromedriver):
        if os.environ.get("CI"):
            pytest.fail("CI needs chromium, chromedriver and selenium (.ci/run installs them)")
        pytest.skip("chromium, chromedriver or selenium is not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000"):
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))


@pytest.fixture(scope="module")
def browser():
    driver = _driver()
    yield driver
    driver.quit()


def _open(browser, url: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(url)
    WebDriverWait(browser, 20).until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))


def _screenshot(browser, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / name))


def test_browser_overview_shows_the_json_headline_numbers(browser, site: Path, runs: list[Path],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from selenium.webdriver.common.by import By

    summary = _json_report(runs, capsys)
    _open(browser, (site / "index.html").as_uri())
    cells = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
             for tr in browser.find_elements(By.CSS_SELECTOR, "#headline-counter tbody tr")]
    assert len(cells) == len(summary["rows"])
    for row, shown in zip(summary["rows"], cells, strict=True):
        (group,) = row["benchmarks"].values()
        m = group["metrics"]["success"]
        few = f" (n={m['n']})" if m["small_n"] else ""
        assert f"{m['mean'] * 100:.1f}{few} [{m['ci_low'] * 100:.1f}, {m['ci_high'] * 100:.1f}]" in shown
        assert str(group["episodes"]) in shown
    assert len(browser.find_elements(By.CSS_SELECTOR, "#overview .plot .main-svg")) >= 2  # Plotly drew the plots
    assert LABEL in browser.find_element(By.ID, "headline-counter").text  # the label shown as text
    assert browser.execute_script("return window.__pwned") is None
    resources = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert not [url for url in resources if not url.startswith("file:")]  # nothing from the network
    _screenshot(browser, "overview.png")


def test_browser_steps_through_an_episode_and_runs_no_reply(browser, site: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    _open(browser, (site / "index.html").as_uri() + "#episodes")
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element(By.ID, "filter-model")).select_by_visible_text("scripted/html-payload")
    rows = browser.find_elements(By.CSS_SELECTOR, "#episode-list tbody tr")
    assert len(rows) == 4
    rows[0].click()
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, "step-label"))
    assert browser.find_element(By.ID, "step-label").text.startswith("start")
    browser.find_element(By.TAG_NAME, "body").send_keys("j")
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, "reply"))
    assert browser.find_element(By.ID, "step-label").text.startswith("step 1")
    assert browser.find_element(By.ID, "reply").text == PAYLOAD
    assert browser.find_element(By.ID, "settlement").text
    browser.find_element(By.CSS_SELECTOR, "#prompt summary").click()
    assert browser.find_elements(By.CSS_SELECTOR, "#prompt pre")
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_LEFT)
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "step-label").text.startswith("start"))
    body.send_keys(Keys.ARROW_RIGHT)
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, "reply"))
    _screenshot(browser, "episode.png")
    injected = "#episode script, #episode img[onerror], a[href^='javascript:'], #evil"
    assert browser.execute_script(f"return document.querySelectorAll({injected!r}).length") == 0
    assert browser.execute_script("return window.__pwned") is None


def test_browser_shows_the_paper_rows_with_reference(browser, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """`--reference` in the HTML report: the `paper:` rows under the detail table, the difference beside the user's
    cell, the caveat among the notes."""
    from selenium.webdriver.common.by import By

    register_script("gpt-4o", lambda messages: "DONE")
    run, site = tmp_path / "run", tmp_path / "site"
    assert main(["run", "--plugins", "omniear", "--model", "scripted/gpt-4o", "--limit", "2", "--out", str(run),
                 "--no-report", "model.cache=false"]) == 0
    assert main(["report", str(run), "--reference", "--format", "html", "--out", str(site)]) == 0
    capsys.readouterr()
    _open(browser, (site / "index.html").as_uri())
    text = browser.find_element(By.ID, "overview").text
    assert "paper: GPT-4o" in text and "96.6 / 12.9" in text and "(paper -" in text
    assert "CAVEAT omniear" in text and "arXiv 2508.05614" in text
    # OmniEAR's paper has no headline SR
    assert browser.find_element(By.ID, "headline-omniear").text.count("paper:") == 0
    _screenshot(browser, "reference.png")


def test_view_without_a_browser_still_gives_the_page(runs: list[Path], capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    opened = []
    monkeypatch.setattr("suite.cli.view.open_in_browser", lambda page: opened.append(page) or False)
    capsys.readouterr()
    assert main(["view", str(runs[0]), "--out", str(tmp_path / "site")]) == 0
    out, err = capsys.readouterr()
    assert Path(out.strip()) == tmp_path / "site" / "index.html" == opened[0]
    assert "no browser" in err


def _every_outcome_run(base: Path) -> Path:
    """A real scripted run of 8 template episodes whose stored records are then given every outcome of the
    taxonomy (two successes, one of each other outcome), so the report has all of them."""
    import sqlite3

    from suite.contract.records import OUTCOMES

    run = base / "every-outcome"
    assert main(["run", "--plugins", "template", "--model", "scripted/counter-greedy", "--limit", "8", "--out",
                 str(run), "--no-report"]) == 0
    db = sqlite3.connect(run / "run.sqlite")
    ids = [r[0] for r in db.execute("SELECT episode_id FROM episodes ORDER BY position")]
    for episode, outcome in zip(ids[1:], OUTCOMES[1:], strict=False):
        db.execute("UPDATE episodes SET record = json_set(record, '$.outcome', ?, '$.metrics.success', 0.0) "
                   "WHERE episode_id = ?", (outcome, episode))
    db.commit()
    db.close()
    return run


def test_browser_shows_every_outcome_and_headline_number_of_the_json_report(
        browser, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every outcome count and every headline number of `--format json` is in the rendered page with the same
    value: `agent_failure` included (the viewer once read an outcome named `failure` and showed `undefined`)."""
    from selenium.webdriver.common.by import By
    from suite.contract.records import OUTCOMES

    run, site = _every_outcome_run(tmp_path), tmp_path / "site"
    summary = _json_report([run], capsys)
    (row,) = summary["rows"]
    (group,) = row["benchmarks"].values()
    assert all(group["outcomes"][o] >= 1 for o in OUTCOMES) and group["infra_failures"] == 3
    assert main(["report", str(run), "--format", "html", "--out", str(site)]) == 0
    _open(browser, (site / "index.html").as_uri())

    header = [th.get_attribute("textContent") for th in browser.find_elements(By.CSS_SELECTOR, "#outcomes thead th")]
    (cells,) = [[td.get_attribute("textContent") for td in tr.find_elements(By.TAG_NAME, "td")]
                for tr in browser.find_elements(By.CSS_SELECTOR, "#outcomes tbody tr")]
    assert header[2:] == summary["outcomes"] == list(OUTCOMES) and sorted(group["outcomes"]) == sorted(OUTCOMES)
    table = dict(zip(header, cells, strict=True))
    assert table["benchmark"] == "counter"
    assert {o: table[o] for o in OUTCOMES} == {o: str(n) for o, n in group["outcomes"].items()}
    assert "undefined" not in browser.find_element(By.ID, "overview").text
    assert "; data: counter GENERATED pack at " in browser.find_element(By.ID, "overview").text  # which data

    head = [th.get_attribute("textContent")
            for th in browser.find_elements(By.CSS_SELECTOR, "#headline-counter thead th")]
    (shown,) = [[td.get_attribute("textContent") for td in tr.find_elements(By.TAG_NAME, "td")]
                for tr in browser.find_elements(By.CSS_SELECTOR, "#headline-counter tbody tr")]
    page = dict(zip(head, shown, strict=True))
    for m in group["metrics"].values():
        k = 100 if m["percent"] else 1
        few = f" (n={m['n']})" if m["small_n"] else ""
        assert page[m["label"]] == (f"{m['mean'] * k:.1f}{few} [{m['ci_low'] * k:.1f}, "
                                                  f"{m['ci_high'] * k:.1f}]")
    assert page["n"] == str(group["episodes"]) and page["infra"] == str(group["infra_failures"])
    assert page["tokens"] == f"{group['tokens']:,}" and page["cost $"] == f"{group['cost_usd']:.4f}"
    # the stacked bars: one trace per outcome, each with the JSON's count
    bars = browser.execute_script("return [...document.querySelectorAll('#overview .plot')].flatMap("
                                  "p => (p.data || []).filter(t => p.layout.barmode === 'stack')"
                                  ".map(t => [t.name, t.x[0]]))")
    assert dict(bars) == group["outcomes"]
    _screenshot(browser, "every-outcome.png")


def test_browser_says_where_each_episode_ran_as_the_json_report_does(
        browser, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Ray run's records name their node (and GPUs): the overview's "Where episodes ran" table holds the JSON's
    figures per node; a run without placements has no such table."""
    import sqlite3

    from selenium.webdriver.common.by import By

    run = _every_outcome_run(tmp_path)
    db = sqlite3.connect(run / "run.sqlite")
    ids = [r[0] for r in db.execute("SELECT episode_id FROM episodes ORDER BY position")]
    for n, episode in enumerate(ids):
        where = {"node": f"10.0.0.{1 + n % 2}", "node_id": f"n{n % 2}", **({"gpus": ["0"]} if n % 2 else {})}
        db.execute("UPDATE episodes SET record = json_set(record, '$.placement', json(?)) WHERE episode_id = ?",
                   (json.dumps(where), episode))
    db.commit()
    db.close()
    summary = _json_report([run], capsys)
    (group,) = summary["rows"][0]["benchmarks"].values()
    site = tmp_path / "site"
    assert main(["report", str(run), "--format", "html", "--out", str(site)]) == 0
    _open(browser, (site / "index.html").as_uri())
    rows = [[td.get_attribute("textContent") for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in browser.find_elements(By.CSS_SELECTOR, "#nodes tbody tr")]
    expected = [[node, str(seen["episodes"]), ", ".join(f"{o} {k}" for o, k in sorted(seen["outcomes"].items())),
                 ", ".join(seen["gpus"]) or "-"] for node, seen in sorted(group["nodes"].items())]
    assert [r[2:] for r in rows] == expected and len(expected) == 2
    assert sum(int(r[3]) for r in rows) == len(ids)
