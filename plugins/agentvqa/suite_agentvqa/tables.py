"""The report's detail tables: the paper's dataset/domain layout (unevaluated counted wrong and left out),
sub-task categories, and the unevaluated answers."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from suite.contract.registry import DetailTable

from suite_agentvqa.aggregate import (
    accuracy_by,
    domain_scores,
    mean_of_domains,
    micro_accuracy,
    overall,
    percent_text,
    scored,
)
from suite_agentvqa.taxonomy import CATEGORIES, DATASET_TITLES, DOMAINS

Group = tuple[str, str, str]


def _groups(records: list[dict[str, Any]]) -> dict[Group, list[dict[str, Any]]]:
    groups: dict[Group, list[dict[str, Any]]] = defaultdict(list)
    for record in scored(records):
        groups[(record["model"] or "-", record["agent"], record["metrics"]["protocol"])].append(record)
    return dict(sorted(groups.items()))


def _paper_columns(present: set[str]) -> list[tuple[str, str, str]]:
    """(kind, key, title) per column: each domain's datasets then the domain score, as in the paper's Table 1."""
    columns = []
    for domain in DOMAINS:
        shown = [d for d in domain.datasets if d in present]
        if shown:
            columns += [("dataset", d, DATASET_TITLES[d]) for d in shown] + [("domain", domain.key, domain.title)]
    return columns


def _accuracy_table(groups: dict[Group, list[dict[str, Any]]], strict: bool, note: str) -> DetailTable:
    present = {r["metrics"]["dataset"] for recs in groups.values() for r in recs}
    columns = _paper_columns(present)
    rows = []
    for (model, agent, protocol), recs in groups.items():
        by_dataset = accuracy_by(recs, "dataset", strict)
        by_domain = domain_scores(by_dataset)
        cells = [percent_text((by_dataset if kind == "dataset" else by_domain).get(key)) for kind, key, _ in columns]
        evaluated = len(recs) if strict else sum(r["metrics"]["correct_evaluated"] is not None for r in recs)
        rows.append([model, agent, protocol, *cells, percent_text(overall(by_dataset)),
                     percent_text(mean_of_domains(by_dataset)), percent_text(micro_accuracy(recs, strict)), evaluated])
    how = "unevaluated answers counted wrong" if strict else "unevaluated answers left out, the paper's headline"
    return DetailTable(
        f"Accuracy % per dataset and domain ({how}; domain = mean of its datasets, overall = mean of datasets){note}",
        ["model", "agent", "options", *(t for _, _, t in columns), "overall", "mean of domains", "micro", "n"], rows)


def _category_columns(present: set[str]) -> list[tuple[str, str, str]]:
    """(kind, key, title) per column: each domain's categories then the domain score, as in the paper's Table 4."""
    columns = []
    for domain in DOMAINS:
        shown = [c for c in domain.categories if c in present]
        if shown:
            columns += [("category", c, CATEGORIES[c].abbr) for c in shown] + [("domain", domain.key, domain.title)]
    return columns


def _category_table(groups: dict[Group, list[dict[str, Any]]], note: str) -> DetailTable:
    columns = _category_columns({r["metrics"]["category"] for recs in groups.values() for r in recs})
    rows = []
    for (model, agent, protocol), recs in groups.items():
        by_category = accuracy_by(recs, "category", strict=False)
        by_domain = domain_scores(accuracy_by(recs, "dataset", strict=False))
        rows.append([model, agent, protocol, *(percent_text((by_category if kind == "category" else by_domain)
                                                            .get(key)) for kind, key, _ in columns)])
    return DetailTable(f"Accuracy % per sub-task category, then each domain's score (mean of its datasets), "
                       f"unevaluated answers left out: the paper's Table 4 layout{note}",
                       ["model", "agent", "options", *(t for _, _, t in columns)], rows)


def _unevaluated_table(groups: dict[Group, list[dict[str, Any]]], note: str) -> DetailTable:
    rows = []
    for (model, agent, protocol), recs in groups.items():
        missing = [r for r in recs if r["metrics"]["unevaluated"]]
        per_domain = {d.key: sum(r["metrics"]["domain"] == d.key for r in missing) for d in DOMAINS}
        rows.append([model, agent, protocol, len(recs), len(missing), percent_text(100 * len(missing) / len(recs)),
                     *(per_domain[d.key] for d in DOMAINS)])
    return DetailTable(f"Unevaluated answers (no single letter could be read from the reply){note}",
                       ["model", "agent", "options", "questions", "unevaluated", "%", *(d.title for d in DOMAINS)],
                       rows)


def detail_tables(records: list[dict[str, Any]]) -> list[DetailTable]:
    """The paper's Table 1 layout both ways (its own variant, unevaluated left out, first), the Table 4 layout and
    the unevaluated counts, per model, agent and option protocol."""
    groups = _groups(records)
    if not groups:
        return []
    generated = any(r["metrics"].get("generated") for recs in groups.values() for r in recs)
    note = " - GENERATED PACK, not the official AgentVQA data" if generated else ""
    return [_accuracy_table(groups, False, note), _accuracy_table(groups, True, note),
            _category_table(groups, note), _unevaluated_table(groups, note)]
