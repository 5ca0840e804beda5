"""Write the HTML report: a static folder that opens from the file system (no server, no network).

Layout: `index.html` and `assets/` (the viewer's script and style, Plotly's basic bundle and its licence) are
copied from the package; `data/summary.js` holds the report's JSON (the same as `--format json`),
`data/index.js` one short row per episode, and `data/ep/<k>.js` the episodes in parts, files of at most
`CHUNK_BYTES` each (`suite.report.html.chunks`), loaded only when an episode or step in them is shown (a script tag,
since browsers refuse `fetch` on file:// pages). Episodes are read from the run store one at a time, so the build's
memory holds one episode, not the run. Frames stay in the run folders and are referenced by relative paths, so a
step's frames load only when it is shown.
"""

from __future__ import annotations

import shutil
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suite.report.html.chunks import CHUNK_BYTES, ChunkWriter, script_json, write_episode
from suite.report.html.episodes import INDEX_COLUMNS, iter_episodes

if TYPE_CHECKING:
    from suite.engine.host import PluginHost

ASSETS = Path(__file__).parent / "assets"
SHIPPED = ["boot.js", "report.js", "report.css", "plotly-basic.min.js", "plotly-LICENSE.txt"]
__all__ = ["build_site", "open_in_browser", "script_json"]


def metric_order(summary: dict[str, Any]) -> dict[str, list[str]]:
    """Each benchmark's headline metric names in its plugin's order (the data files are written with sorted keys)."""
    order: dict[str, list[str]] = {}
    for row in summary["rows"]:
        for bench, group in row["benchmarks"].items():
            names = order.setdefault(bench, [])
            names += [n for n in group["metrics"] if n not in names]
    return order


def build_site(host: PluginHost | None, summary: dict[str, Any], run_dirs: list[Path], out: Path,
               chunk_bytes: int = CHUNK_BYTES) -> Path:
    """Write the report site for these runs into `out` (created; files of an earlier report replaced); episode data
    files of at most `chunk_bytes` (but for a single step larger than that)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "assets").mkdir(exist_ok=True)
    for name in SHIPPED:
        shutil.copyfile(ASSETS / name, out / "assets" / name)
    shutil.copyfile(ASSETS / "index.html", out / "index.html")
    shutil.rmtree(out / "data", ignore_errors=True)
    (out / "data" / "ep").mkdir(parents=True)
    rows = []
    writer = ChunkWriter(out / "data" / "ep", chunk_bytes)
    for n, (index, episode) in enumerate(iter_episodes(host, summary, run_dirs, out)):
        rows.append([*index, write_episode(writer, n, episode)])
    writer.flush()
    (out / "data" / "summary.js").write_text(f"SUITE.summary = {script_json(summary)};\n", encoding="utf-8")
    index = {"columns": INDEX_COLUMNS, "rows": rows, "metric_order": metric_order(summary)}
    (out / "data" / "index.js").write_text(f"SUITE.index = {script_json(index)};\n", encoding="utf-8")
    return out / "index.html"


def open_in_browser(page: Path) -> bool:
    """Open the page in the user's browser; False when none is available (the caller prints the path)."""
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return False
    return bool(browser.open(page.resolve().as_uri()))
