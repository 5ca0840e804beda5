"""`python -m suite_agentvqa.packgen [--out DIR] [--seed N] [--per-dataset N] [--workers N] [--no-audit]`: write
the generated pack, then audit it (`suite audit`'s figures go into its manifest)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from suite.contract.records import FOLD_GROUP
from suite.engine.host import default_config

from suite_agentvqa.data import read_questions
from suite_agentvqa.learned import cross_fitted, scores_by
from suite_agentvqa.packgen.build import MANIFEST, build_pack

PACK_DIR = Path(__file__).resolve().parents[1] / "pack"


def main(argv: list[str] | None = None) -> int:
    """Generate the pack, read it back through the loader, and print what was written."""
    parser = argparse.ArgumentParser(prog="python -m suite_agentvqa.packgen", description=__doc__)
    parser.add_argument("--out", type=Path, default=PACK_DIR, help=f"pack folder (default {PACK_DIR})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-dataset", type=int, default=100, dest="per_dataset")
    parser.add_argument("--workers", type=int, default=2, help="processes drawing the datasets (default 2)")
    parser.add_argument("--no-audit", action="store_true", dest="no_audit",
                        help="do not run the shortcut audit and store its figures in the manifest")
    args = parser.parse_args(argv)
    started = time.monotonic()
    earlier = earlier_figures(args.out / MANIFEST)
    manifest = build_pack(args.out, args.seed, args.per_dataset, args.workers)
    check = learned_check(args.out, args.seed)
    manifest.update(learned_check=check, earlier=earlier)
    (args.out / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    over = [key for key, row in check["rows"].items() if row["verdict"] == "fail"]
    print(f"learned text-only check (cross-fitted, {check['folds']} folds): {check['rows']['*']['score']:.1f}% "
          f"overall; over the ceiling: {', '.join(over) or 'none'}")
    if not args.no_audit:
        audit = audit_pack(args.out)
        print(f"shortcut audit {'passed' if audit['passed'] else 'FAILED'}: oracle {audit['oracle']:.1f}%, " +
              ", ".join(f"{b['name']} {b['rows'][0]['score']:.1f}%" for b in audit["baselines"]))
    questions = read_questions(args.out)
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"{len(questions)} questions in {args.out} ({size / 1e6:.2f} MB, seed {args.seed}, generator "
          f"v{manifest['generator_version']}, {time.monotonic() - started:.1f} s); answers {manifest['answers']}")
    return 1 if over else 0


#: The learned check's ceiling: chance + 5 points, overall and per dataset and category; a row fails when its 95 %
#: interval lies wholly above it (as in `suite audit`).
LEARNED_CEILING = 30.0
#: The verdict of a category row whose questions come in twins: shown, not judged. Twins share one text and each
#: answer kind is right in one of them, so a text-only policy gets exactly one of four in every group, and its
#: score in a category that is a kind of answer (press: Done) is only how often it prefers that kind (answering
#: Done every time scores 100 % on press and 0 % on tap and scroll in the same groups).
TWINS = "twins: not judged"


def learned_check(pack: Path, seed: int, folds: int = 5) -> dict[str, Any]:
    """The learned text-only baseline cross-fitted over the whole pack (seeded folds, as `suite audit --seed`
    deals them): its score overall, per dataset and per dataset/category, each with its interval and verdict (a
    category of twins is not judged: see TWINS)."""
    from suite.validity.auditor import wilson

    questions = read_questions(pack)
    rows = scores_by(questions, cross_fitted(questions, folds, seed))
    twins = {f"{q.dataset}/{q.category}" for q in questions if q.meta.get(FOLD_GROUP)}
    for key, row in rows.items():
        low, high = wilson(row["score"], int(row["n"])) or (0.0, 100.0)
        row.update(ci95=[round(low, 2), round(high, 2)], ceiling=LEARNED_CEILING,
                   verdict=TWINS if key in twins else "fail" if low > LEARNED_CEILING else
                   "pass" if high <= LEARNED_CEILING else "too few")
    return {"baseline": "learned-text", "folds": folds, "seed": seed, "rows": rows}


def earlier_figures(manifest: Path) -> dict[str, Any]:
    """The audit figures of the pack being replaced (and of the packs before it), kept for the record."""
    if not manifest.is_file():
        return {}
    old = json.loads(manifest.read_text(encoding="utf-8"))
    kept = dict(old.get("earlier") or {})
    kept[f"agentvqa-pack/{old.get('generator_version')}"] = {
        key: old[key] for key in ("audit", "learned_check", "questions", "seed") if key in old}
    return kept


def audit_pack(pack: Path) -> dict:
    """Run `suite audit` on the pack and store its figures in the manifest."""
    from suite.engine.host import build_host
    from suite.validity.auditor import pack_audit

    host = build_host()
    return pack_audit(host, default_config(sorted(host.registry.benchmarks)), "agentvqa", pack)


if __name__ == "__main__":
    raise SystemExit(main())
