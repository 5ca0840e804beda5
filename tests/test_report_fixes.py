"""The report says which reference quirks a run kept and which fixes it had on (issue 16 item 3)."""

from __future__ import annotations

from pathlib import Path

from suite.report.selection import fixes_note, run_fixes
from suite.store.run_folder import CONFIG_NAME


def test_fixes_are_read_from_the_saved_config(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).write_text("omniear:\n  fixes: [strict_done, spawn_room]\nasgard:\n  condition: x\n")
    assert run_fixes(tmp_path, ["omniear", "asgard"]) == {"omniear": ["spawn_room", "strict_done"]}
    assert fixes_note("omniear", ["strict_done"]) == "fixes: omniear: strict_done on (the other reference quirks kept)"
    assert fixes_note("omniear", []) == "fixes: omniear: none (every reference quirk kept; see omniear.fixes)"
