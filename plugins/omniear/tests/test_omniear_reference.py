"""The paper numbers OmniEAR ships as reference rows are Table 1 as the spec read it, in the detail table's columns."""

from __future__ import annotations

from pathlib import Path

import pytest
from suite.testing.reference import markdown_table, shipped_numbers
from suite_omniear.data import CATEGORIES

SPEC = Path(__file__).resolve().parents[3] / ".." / "shared" / "specs" / "omniear.md"
COLUMNS = {"Direct Cmd": "direct command", "Tool Use": "tool use", "Attr. Reas.": "attribute reasoning",
           "Comp. Reas.": "compound reasoning", "Expl. Coll.": "explicit collaboration",
           "Impl. Coll.": "implicit collaboration", "Comp. Coll.": "compound collaboration"}


def test_every_shipped_number_is_table_1_of_the_spec() -> None:
    if not SPEC.is_file():
        pytest.skip("../shared/specs is not present")
    head, rows = markdown_table(SPEC, "| Model | Direct Cmd")
    expected = {}
    for row in rows:
        for title, cell in zip(head[1:], row[1:], strict=True):
            sr, steps = (float(x) for x in cell.split("/"))
            expected[(row[0], COLUMNS[title], "success")] = sr
            expected[(row[0], COLUMNS[title], "steps")] = steps
    assert len(expected) == 140 and shipped_numbers("omniear") == expected


def test_the_columns_are_the_detail_tables_category_titles() -> None:
    assert {c for (_, c, _) in shipped_numbers("omniear")} == {c.replace("_", " ") for c in CATEGORIES}
