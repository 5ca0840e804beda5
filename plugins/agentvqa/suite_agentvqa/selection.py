"""Which questions a run asks: filters by dataset, domain and category, and a seeded sample per dataset."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from suite.contract.errors import ConfigError
from suite.data.sampling import stratified_sample

from suite_agentvqa.data import Question
from suite_agentvqa.taxonomy import CATEGORIES, DATASETS, DOMAIN_BY_KEY


def _checked(key: str, values: Iterable[str] | None, known: Sequence[str]) -> set[str] | None:
    if not values:
        return None
    wanted = {str(v) for v in values}
    unknown = sorted(wanted - set(known))
    if unknown:
        raise ConfigError(f"agentvqa.{key}: unknown {unknown}; choose from {', '.join(known)}")
    return wanted


def filter_questions(questions: list[Question], datasets: Iterable[str] | None = None,
                     domains: Iterable[str] | None = None, categories: Iterable[str] | None = None) -> list[Question]:
    """The questions whose dataset, domain and category are all among the wanted ones (None: any)."""
    keep_ds = _checked("datasets", datasets, DATASETS)
    keep_dom = _checked("domains", domains, tuple(DOMAIN_BY_KEY))
    keep_cat = _checked("categories", categories, tuple(CATEGORIES))
    return [q for q in questions
            if (keep_ds is None or q.dataset in keep_ds) and (keep_dom is None or q.domain in keep_dom)
            and (keep_cat is None or q.category in keep_cat)]


def sample_per_dataset(questions: list[Question], limit: int, seed: int) -> list[Question]:
    """At most `limit` questions of each dataset, stratified by sub-task category as the paper subsampled its
    sources (each category keeps its share of the dataset), with a seed per dataset; file order is kept."""
    if limit < 1:
        raise ConfigError(f"agentvqa.limit_per_dataset must be at least 1, not {limit}")
    by_dataset: dict[str, list[int]] = defaultdict(list)
    for index, question in enumerate(questions):
        by_dataset[question.dataset].append(index)
    keep: set[int] = set()
    for dataset, indices in by_dataset.items():
        picked = stratified_sample([questions[i].category for i in indices], limit, f"{seed}:{dataset}")
        keep.update(indices[p] for p in picked)
    return [q for i, q in enumerate(questions) if i in keep]
