"""`suite report --format latex` compiles: every benchmark's tables (and the paired differences, the paper's rows and
a label full of symbols) go through pdflatex with only the packages the output's first line names, and fit the
page. Skipped where pdflatex is missing, except in CI (.ci/run installs TeX Live's base from Debian)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite.cli.main import main
from suite.models import register_script

BENCHMARKS = ["omniear", "asgard", "agentvqa", "longact", "vigil", "template"]
LABEL = "Δ±|ü ≥ 50% → 中 ▁▅█ {x}_y"


@pytest.fixture(scope="module")
def pdflatex() -> str:
    found = shutil.which("pdflatex")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs pdflatex with booktabs (.ci/run installs texlive-latex-base and -recommended)")
        pytest.skip("pdflatex is not installed")
    return found


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, list[Path]]]:
    """Per benchmark an oracle run of two tasks; the template's also a scripted model's run under a wild label."""
    base = tmp_path_factory.mktemp("latex-compile")
    out: dict[str, list[Path]] = {}
    register_script("latex-compile-stop", lambda messages: "ACTION: DONE")
    with pytest.MonkeyPatch.context() as mp:  # the template plugin and a cache of its own, as for every test
        mp.setenv("SUITE_PLUGIN_MODULES", "template=suite_template.plugin")
        mp.setenv("SUITE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        for bench in BENCHMARKS:
            assert main(["run", "--plugins", bench, "--agent", "oracle", "--limit", "2", "--out", str(base / bench),
                         "--no-report"]) == 0
            out[bench] = [base / bench]
        assert main(["run", "--plugins", "template", "--model", "scripted/latex-compile-stop", "--limit", "4",
                     "--label", LABEL, "--out", str(base / "labelled"), "--no-report", "model.cache=false"]) == 0
        out["template"].append(base / "labelled")
        yield out


@pytest.mark.parametrize("bench", BENCHMARKS)
def test_every_benchmarks_latex_compiles_and_fits_the_page(bench: str, pdflatex: str, runs: dict[str, list[Path]],
                                                           tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["report", *map(str, runs[bench]), "--reference", "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    assert latex.isascii()  # pdflatex's inputenc never meets a character it has no definition for
    packages = re.fullmatch(r"% embodied-suite report; needs (\\usepackage\{[\w,]+\})", latex.splitlines()[0])
    assert packages is not None
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\n" + packages.group(1) + "\n\\begin{document}\n"
                                      + latex + "\n\\end{document}\n", encoding="utf-8")
    done = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    log = (tmp_path / "doc.log").read_text(encoding="latin-1")
    assert done.returncode == 0, log[-3000:]
    assert "Overfull \\hbox" not in log, "a table is wider than the page"
    if bench == "template":
        assert "Paired differences" in latex and r"$\Delta$$\pm$$|$\"{u} $\geq$ 50\% $\rightarrow$ [U+4E2D]" in latex
