"""Published reference numbers: each benchmark's paper rows (`paper: <model>`) beside the user's, never among them.

A plugin ships them as a JSON file valid against `core/suite/jsonschemas/reference.schema.json` and names it in its
`BenchmarkSpec(reference=...)`. Each table of the file goes under the plugin's detail table whose title starts with
its `attach` (or under the headline table, `attach: headline`), its numbers in the columns they name.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omegaconf import OmegaConf

from suite.contract.config import load_saved, plain
from suite.contract.errors import DataError
from suite.contract.schemas import read_json, validate
from suite.data.datadirs import describe_pack
from suite.store.run_folder import CONFIG_NAME

if TYPE_CHECKING:
    from suite.engine.host import PluginHost

SCHEMA = Path(__file__).resolve().parents[1] / "jsonschemas" / "reference.schema.json"
HEADLINE = "headline"
PREFIX = "paper: "


def load_reference(path: Path) -> dict[str, Any]:
    """A reference file, schema-checked, every entry's model declared under `models`."""
    data = read_json(path)
    validate(data, SCHEMA, path)
    for t, table in enumerate(data["tables"]):
        for e, entry in enumerate(table["entries"]):
            if entry["model"] not in data["models"]:
                raise DataError(path, f"/tables/{t}/entries/{e}/model", f"a model named under /models, not "
                                f"{entry['model']!r}")
    return data


def model_key(model: str | None) -> str:
    """A model string as matched against a paper's names: lower case, provider prefix dropped."""
    return re.sub(r"\s+", "-", str(model or "").rsplit("/", 1)[-1].strip().lower())


def paper_model(reference: dict[str, Any], model: str | None) -> str | None:
    """The paper's name for the user's model, if the file's `models` table lists it (or its own name matches)."""
    key = model_key(model)
    if not key:
        return None
    for name, aliases in reference["models"].items():
        if key == model_key(name) or key in {a.lower() for a in aliases}:
            return name
    return None


def _source(reference: dict[str, Any], table: dict[str, Any]) -> dict[str, Any]:
    paper = reference["paper"]
    return {"paper": paper["title"], "table": table["source"], "arxiv": paper["arxiv"],
            "arxiv_version": paper["arxiv_version"]}


def _cited(reference: dict[str, Any]) -> str:
    paper = reference["paper"]
    arxiv = (f"arXiv {paper['arxiv']}{paper['arxiv_version'] or ' (version not stated in the copy read)'}"
             if paper["arxiv"] else "not on arXiv")
    return f"{paper['title']} ({arxiv}; {', '.join(dict.fromkeys(t['source'] for t in reference['tables']))})"


def reference_section(host: PluginHost | None, summary: dict[str, Any]) -> dict[str, Any]:
    """Per benchmark of the report whose plugin ships reference numbers: the paper, its entries (flat, each with
    `reference: true` and its source), a caveat where the runs used other data than the paper, and which rows of
    the report name a model the paper reports."""
    out: dict[str, Any] = {}
    benches = sorted({b for row in summary["rows"] for b in row["benchmarks"]})
    for bench in benches:
        spec = host.registry.benchmarks.get(bench) if host else None
        path = getattr(spec, "reference", None)
        if path is None:
            continue
        ref = load_reference(Path(path))
        settings = _run_settings(summary, bench, ref["tables"])
        off = [_other_settings(t.get("config", {}), settings) for t in ref["tables"]]
        entries = [{"reference": True, "benchmark": bench, "model": e["model"], "condition": t["condition"],
                    "metric": e["metric"], "column": e["column"], "value": e["value"], "attach": t["attach"],
                    "agent": t.get("agent"), "comparable": not off[i], "source": _source(ref, t)}
                   for i, t in enumerate(ref["tables"]) for e in t["entries"]]
        kinds = {run.get("data", {}).get(bench, {}).get("kind") for run in summary["runs"]} - {None}
        other = sorted(k for k in kinds if k != ref["data"]["kind"])
        packs = sorted({describe_pack(d.get("pack"), d.get("sha256")) for run in summary["runs"]
                        if (d := run.get("data", {}).get(bench, {})).get("kind") == "generated"} - {""})
        caveat = (f"{bench}: the paper's numbers are on {ref['data']['description']}; these runs used "
                  f"{' and '.join(_data_kind(k) for k in other)}"
                  f"{' (' + '; '.join(packs) + ')' if packs else ''}, so "
                  "the paper rows are not like-for-like" if other else None)
        modelless = modelless_agents(host, bench)
        matches = {i: paper_model(ref, row["model"]) for i, row in enumerate(summary["rows"])
                   if row["agent"] not in modelless}
        out[bench] = {"paper": ref["paper"], "data": ref["data"], "models": ref["models"], "cited": _cited(ref),
                      "caveat": caveat,
                      "notes": list(dict.fromkeys(
                          [f"{t['source']}: {t['note']}" for t in ref["tables"] if t.get("note")]
                          + [f"{t['source']} ({t['condition']}): {diff}"
                             for t, diff in zip(ref["tables"], off, strict=True) if diff])),
                      "entries": entries, "matches": {str(i): m for i, m in matches.items() if m}}
    return out


def _data_kind(kind: str) -> str:
    """How the caveat names data of a kind other than the paper's."""
    if kind == "generated":
        return "a GENERATED pack"
    if kind == "user":
        return "USER data (not verified as the official release)"
    return f"{kind} data"


_ABSENT = object()


def _run_settings(summary: dict[str, Any], bench: str, tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The saved config section of `bench` of every run in the report that ran it, plus the settings outside it that
    the tables' `config` names by a dotted path from the config's root (such as `agent.holomind.ablate`)."""
    out = []
    for run in summary["runs"]:
        config = Path(run["path"]) / CONFIG_NAME
        if bench in run.get("data", {}) and config.is_file():
            whole = load_saved(config)
            settings = plain(whole.get(bench))
            for key in (k for t in tables for k in t.get("config", {}) if "." in k):  # agent.holomind.ablate...
                value = OmegaConf.select(whole, key, default=_ABSENT)
                if value is not _ABSENT:
                    settings[key] = OmegaConf.to_container(value) if OmegaConf.is_config(value) else value
            out.append(settings)
    return out


def _other_settings(wanted: dict[str, Any], settings: list[dict[str, Any]]) -> str | None:
    """A line saying where the runs' settings differ from the paper's (None when they agree)."""
    mine = sorted({f"{k}={s[k]}" for s in settings for k, v in wanted.items() if k in s and s[k] != v})
    if not mine:
        return None
    theirs = ", ".join(f"{k}={v}" for k, v in sorted(wanted.items()))
    return f"the paper ran {theirs}, these runs {', '.join(mine)}: no differences to it are shown"


def _by_model(entries: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, list[dict[str, Any]]]]:
    """(paper model, condition) -> column -> entries, in file order."""
    rows: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = {}
    for e in entries:
        rows.setdefault((e["model"], e["condition"]), {}).setdefault(e["column"], []).append(e)
    return rows


def _number(value: Any) -> float | None:
    """The primary number of a detail cell (a Cell's first value, a plain number), None for text."""
    if isinstance(value, dict):
        value = next(iter(value.values()), None)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def modelless_agents(host: PluginHost | None, bench: str) -> set[str]:
    """The agents of `bench` that use no model (an oracle, a baseline): a row of theirs is never the paper's model,
    whatever model string the run recorded."""
    if host is None:
        return set()
    return {name for (name, b), spec in host.registry.agents.items() if b in (None, bench) and not spec.uses_model
            and host.registry.agent(name, bench) is spec}


def attach_to_details(section: dict[str, Any], bench: str, tables: list[dict[str, Any]],
                      modelless: Collection[str] = ()) -> None:
    """Add `reference_rows` (text, `paper: <model>` first) and `reference_diff` (the user's primary number minus
    the paper's, per cell; null where either is missing, or where the row's agent uses no model) to each detail
    table a reference table attaches to."""
    ref = section.get(bench)
    if not ref:
        return
    for table in tables:
        mine = [e for e in ref["entries"] if e["attach"] != HEADLINE and table["title"].startswith(e["attach"])]
        if not mine:
            continue
        columns = table["columns"]
        keys = _key_columns(columns)
        paper_rows = _by_model(mine)
        table["reference_rows"] = [_paper_row(columns, keys, model, condition, cells)
                                   for (model, condition), cells in paper_rows.items()]
        primary = {(m, cells[c][0]["agent"], c): cells[c][0]["value"] for (m, _), cells in paper_rows.items()
                   for c in cells if cells[c][0]["comparable"]}
        grid = table.get("values", table["rows"])
        table["reference_diff"] = [[_diff(_number(cell), _paper_number(primary, ref, row, keys, col))
                                    if col not in keys and _agent_of(row, keys) not in modelless else None
                                    for col, cell in zip(columns, row, strict=True)]
                                   for row in grid]


def _key_columns(columns: list[str]) -> dict[str, int]:
    """Where a detail table keeps the model and the agent: the columns so named, else the first two."""
    return {"model": columns.index("model") if "model" in columns else 0,
            "agent": columns.index("agent") if "agent" in columns else 1}


def _paper_row(columns: list[str], keys: dict[str, int], model: str, condition: str,
               cells: dict[str, list[dict[str, Any]]]) -> list[str]:
    """A `paper: <model>` row of a detail table: the condition where the agent goes, the numbers in their columns
    (several metrics of one column joined with ` / `, as the paper prints them)."""
    row = [" / ".join(printed(e["value"]) for e in cells[c]) if c in cells else "-" for c in columns]
    row[keys["model"]] = f"{PREFIX}{model}"
    if keys["agent"] < len(row) and columns[keys["agent"]] not in cells:
        row[keys["agent"]] = condition
    return row


def _paper_number(primary: dict[tuple[str, str | None, str], float], ref: dict[str, Any], row: list[Any],
                  keys: dict[str, int], column: str) -> float | None:
    """The paper's number for a detail row's model and agent (its label aside) in `column`."""
    name = row[keys["model"]]
    model = paper_model(ref, name if isinstance(name, str) else None)
    agent = _agent_of(row, keys)
    if model is None:
        return None
    return primary.get((model, agent, column), primary.get((model, None, column)))


def _agent_of(row: list[Any], keys: dict[str, int]) -> str | None:
    """The agent of a detail row, its label and data letter aside."""
    return str(row[keys["agent"]]).split(" ", 1)[0] if keys["agent"] < len(row) else None


def _diff(mine: float | None, paper: float | None) -> float | None:
    return None if mine is None or paper is None else round(mine - paper, 6)


def printed(value: float | None) -> str:
    """A number as the paper prints it: one decimal unless it has more (`29.79`), step counts whole (`2598`); `-` for
    none."""
    if value is None:
        return "-"
    if value == int(value) and abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if round(value, 1) == value else f"{value:g}"


def add_reference(host: PluginHost | None, summary: dict[str, Any]) -> None:
    """Put the reference section into the summary (`reference`), the paper rows beside the detail tables they
    attach to, and under each headline metric of a row whose model the paper reports, the paper's number and the
    difference (`paper`: model, value, diff)."""
    section = reference_section(host, summary)
    summary["reference"] = section
    summary["notes"] = [*summary.get("notes", []), *reference_notes(section)]
    for bench, tables in summary["details"].items():
        attach_to_details(section, bench, tables, modelless_agents(host, bench))
    for i, row in enumerate(summary["rows"]):
        for bench, ref in section.items():
            model = ref["matches"].get(str(i))
            group = row["benchmarks"].get(bench)
            if not model or group is None:
                continue
            for e in ref["entries"]:
                m = group["metrics"].get(e["metric"])
                if (e["attach"] == HEADLINE and e["comparable"] and e["model"] == model and m and m["mean"] is not None
                        and e["agent"] in (None, row["agent"])):
                    mine = m["mean"] * (100 if m["percent"] else 1)
                    m["paper"] = {"model": model, "condition": e["condition"], "value": e["value"],
                                  "diff": round(mine - e["value"], 6)}


def headline_rows(section: dict[str, Any]) -> list[dict[str, Any]]:
    """The paper rows of the headline table: per benchmark, paper model and condition, the headline metrics' values."""
    rows: dict[tuple[str, str, str], dict[str, float]] = {}
    for bench, ref in section.items():
        for e in ref["entries"]:
            if e["attach"] == HEADLINE:
                rows.setdefault((bench, e["model"], e["condition"]), {})[e["metric"]] = e["value"]
    return [{"benchmark": b, "model": f"{PREFIX}{m}", "condition": c, "metrics": v} for (b, m, c), v in rows.items()]


def reference_notes(section: dict[str, Any]) -> list[str]:
    """One line per benchmark naming the paper, then its caveats (other data, table notes)."""
    lines = []
    for bench, ref in sorted(section.items()):
        lines.append(f"paper rows: {bench}: {ref['cited']}; no confidence intervals; never paired with the runs")
        lines += [f"paper rows: {bench}: {n}" for n in ref["notes"]]
        if ref["caveat"]:
            lines.append(f"paper rows: CAVEAT {ref['caveat']}")
    return lines
