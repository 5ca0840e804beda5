"""The paper numbers AsgardBench ships as reference rows are Table 6's columns whose condition the text pins down."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite.report.reference import load_reference
from suite.testing.reference import markdown_table, shipped_numbers
from suite_asgard.plugin import HERE

SPEC = Path(__file__).resolve().parents[3] / ".." / "shared" / "specs" / "asgard.md"
CONDITIONS = ["baseline", "detailed_feedback", "no_feedback", "no_hand", "no_memory", "current_image_only",
              "text_only", "text_only_detailed", "text_only_no_feedback"]
# The paper's text names the best baseline (76.5) and the text-only best (36.1, GPT-4o 4.2): those two columns'
# conditions are read, the other seven are the spec's inference and are not shipped.
READ = {"baseline", "text_only"}


def test_every_shipped_number_is_table_6_of_the_spec() -> None:
    if not SPEC.is_file():
        pytest.skip("../shared/specs is not present")
    _, rows = markdown_table(SPEC, "| Model | c1 |")
    expected = {(row[0], CONDITIONS[i], "success"): float(cell)
                for row in rows for i, cell in enumerate(row[1:]) if cell not in ("–", "-") and CONDITIONS[i] in READ}
    assert len(expected) == 18 and shipped_numbers("asgard") == expected


def test_the_inferred_column_mapping_is_said() -> None:
    note = load_reference(HERE / "reference.json")["tables"][0]["note"]
    assert "inferred" in note and "left out" in note  # every report that shows these rows prints it


def test_the_rows_go_under_the_table_comparable_with_the_paper() -> None:
    from suite_asgard.scoring import detail_tables

    attach = load_reference(HERE / "reference.json")["tables"][0]["attach"]
    titles = [t.title for t in detail_tables([]) if t.title.startswith(attach)]
    assert len(titles) == 1 and "harness's denominator" in titles[0]
