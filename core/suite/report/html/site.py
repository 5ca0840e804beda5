"""Write the HTML report: a static folder that opens from the file system (no server, no network).

Layout: `index.html` and `assets/` (the viewer's script and style, Plotly's basic bundle and its licence) are
copied from the package; `data/summary.js` holds the report's JSON (the same as `--format json`),
`data/index.js` one short row per episode, and `data/ep/<n // 50>.js` the steps of 50 episodes each, loaded only
when one of them is opened (a script tag, since browsers refuse `fetch` on file:// pages; 50 to a file keeps a
10,000-episode site at 200 files). Frames stay in the run folders and are
referenced by relative paths.
"""

from __future__ import annotations

import json
import shutil
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suite.report.html.episodes import INDEX_COLUMNS, iter_episodes

if TYPE_CHECKING:
    from suite.engine.host import PluginHost

ASSETS = Path(__file__).parent / "assets"
SHIPPED = ["boot.js", "report.js", "report.css", "plotly-basic.min.js", "plotly-LICENSE.txt"]
EPISODES_PER_FILE = 50


def script_json(value: Any) -> str:
    """JSON inside a script file: `<`, `>`, `&` and line separators as \\u escapes, so no text can close a tag."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def episode_file(n: int) -> str:
    """The path of the data file holding episode `n`, relative to the site."""
    return f"data/ep/{n // EPISODES_PER_FILE}.js"


def metric_order(summary: dict[str, Any]) -> dict[str, list[str]]:
    """Each benchmark's headline metric names in its plugin's order (the data files are written with sorted keys)."""
    order: dict[str, list[str]] = {}
    for row in summary["rows"]:
        for bench, group in row["benchmarks"].items():
            names = order.setdefault(bench, [])
            names += [n for n in group["metrics"] if n not in names]
    return order


def build_site(host: PluginHost | None, summary: dict[str, Any], run_dirs: list[Path], out: Path) -> Path:
    """Write the report site for these runs into `out` (created; files of an earlier report replaced)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "assets").mkdir(exist_ok=True)
    for name in SHIPPED:
        shutil.copyfile(ASSETS / name, out / "assets" / name)
    shutil.copyfile(ASSETS / "index.html", out / "index.html")
    shutil.rmtree(out / "data", ignore_errors=True)
    (out / "data" / "ep").mkdir(parents=True)
    rows, chunk = [], []
    for n, (index, episode) in enumerate(iter_episodes(host, summary, run_dirs, out)):
        rows.append(index)
        chunk.append(f"SUITE.loaded({n}, {script_json(episode)});\n")
        if len(chunk) == EPISODES_PER_FILE:
            (out / episode_file(n)).write_text("".join(chunk), encoding="utf-8")
            chunk = []
    if chunk:
        (out / episode_file(len(rows) - 1)).write_text("".join(chunk), encoding="utf-8")
    (out / "data" / "summary.js").write_text(f"SUITE.summary = {script_json(summary)};\n", encoding="utf-8")
    index = {"columns": INDEX_COLUMNS, "rows": rows, "per_file": EPISODES_PER_FILE,
             "metric_order": metric_order(summary)}
    (out / "data" / "index.js").write_text(f"SUITE.index = {script_json(index)};\n", encoding="utf-8")
    return out / "index.html"


def open_in_browser(page: Path) -> bool:
    """Open the page in the user's browser; False when none is available (the caller prints the path)."""
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return False
    return bool(browser.open(page.resolve().as_uri()))
