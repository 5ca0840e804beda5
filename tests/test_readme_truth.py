"""The README tells the truth (issue 37, 7): the AgentVQA pack's size as its manifest gives it, and the report
screenshots made from real runs by a script in the repository, which the README names."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SCRIPT = ROOT / "scripts" / "readme_screenshots.py"


def test_the_agentvqa_pack_size_is_the_manifests() -> None:
    manifest = json.loads((ROOT / "plugins" / "agentvqa" / "suite_agentvqa" / "pack" / "manifest.json")
                          .read_text(encoding="utf-8"))
    said = re.findall(r"\(([\d,]+) questions whose answers", README)
    assert said and all(int(n.replace(",", "")) == manifest["questions"] for n in said)


def test_report_screenshots_come_from_the_script_the_readme_names() -> None:
    images = re.findall(r"\((docs/img/report-[\w-]+\.png)\)", README)
    assert len(images) == 3 and all((ROOT / i).is_file() for i in images)
    assert "scripts/readme_screenshots.py" in README and SCRIPT.is_file()
    source = SCRIPT.read_text(encoding="utf-8")
    assert all(Path(i).name in source for i in images)
    assert "scripted/random" in source and "--agent\", \"oracle\"" in source
