"""AgentVQA's numbers: accuracy per dataset, a domain as the unweighted mean of its datasets, overall as the
mean over datasets (the paper's headline), with unevaluated answers counted wrong or left out."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from decimal import ROUND_HALF_UP, Decimal
from statistics import fmean
from typing import Any

from suite.contract.records import INFRA_OUTCOMES
from suite.contract.registry import Cell

from suite_agentvqa.taxonomy import DATASETS, DOMAINS


def scored(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The episode records that count: infra failures (model, env, timeout) are never scored."""
    return [r for r in records if r["outcome"] not in INFRA_OUTCOMES]


def _verdict(record: dict[str, Any], strict: bool) -> float | None:
    metrics = record["metrics"]
    if strict:
        return float(bool(metrics.get("correct")))
    value = metrics.get("correct_evaluated")
    return None if value is None else float(value)


def accuracy_by(records: Iterable[dict[str, Any]], key: str, strict: bool = True) -> dict[str, float]:
    """Accuracy in % per value of `metrics[key]` (strict: unevaluated = wrong; else unevaluated left out)."""
    groups: dict[str, list[float]] = defaultdict(list)
    for record in records:
        verdict = _verdict(record, strict)
        if verdict is not None:
            groups[record["metrics"][key]].append(verdict)
    return {k: 100 * fmean(v) for k, v in groups.items()}


def micro_accuracy(records: Iterable[dict[str, Any]], strict: bool = True) -> float | None:
    """Accuracy in % over all questions alike (the paper reports the mean over datasets instead)."""
    verdicts = [v for r in records if (v := _verdict(r, strict)) is not None]
    return 100 * fmean(verdicts) if verdicts else None


def domain_scores(dataset_accuracy: Mapping[str, float]) -> dict[str, float]:
    """Each domain's score: the unweighted mean of the accuracies of its datasets present."""
    out = {}
    for domain in DOMAINS:
        values = [dataset_accuracy[d] for d in domain.datasets if d in dataset_accuracy]
        if values:
            out[domain.key] = fmean(values)
    return out


def overall(dataset_accuracy: Mapping[str, float]) -> float | None:
    """The headline: the mean over the datasets present (all 14: the paper's overall accuracy)."""
    values = [dataset_accuracy[d] for d in DATASETS if d in dataset_accuracy]
    return fmean(values) if values else None


def mean_of_domains(dataset_accuracy: Mapping[str, float]) -> float | None:
    """The mean of the domain scores (reported beside the headline; the paper does not use it)."""
    values = list(domain_scores(dataset_accuracy).values())
    return fmean(values) if values else None


def percent_text(value: float | None) -> Cell | str:
    """A percentage as the paper prints it: one decimal, halves rounded up; `-` when there is none (a report cell
    that carries the unrounded value)."""
    if value is None:
        return "-"
    return Cell(str(Decimal(repr(round(value, 9))).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)), percent=value)
