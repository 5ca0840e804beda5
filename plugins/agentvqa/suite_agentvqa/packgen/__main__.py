"""`python -m suite_agentvqa.packgen [--out DIR] [--seed N] [--per-dataset N] [--workers N] [--no-audit]`: write
the generated pack, then audit it (`suite audit`'s figures go into its manifest)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from suite.engine.host import default_config

from suite_agentvqa.data import read_questions
from suite_agentvqa.packgen.build import build_pack

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
    manifest = build_pack(args.out, args.seed, args.per_dataset, args.workers)
    if not args.no_audit:
        audit = audit_pack(args.out)
        print(f"shortcut audit {'passed' if audit['passed'] else 'FAILED'}: oracle {audit['oracle']:.1f}%, " +
              ", ".join(f"{b['name']} {b['rows'][0]['score']:.1f}%" for b in audit["baselines"]))
    questions = read_questions(args.out)
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"{len(questions)} questions in {args.out} ({size / 1e6:.2f} MB, seed {args.seed}, generator "
          f"v{manifest['generator_version']}, {time.monotonic() - started:.1f} s); answers {manifest['answers']}")
    return 0


def audit_pack(pack: Path) -> dict:
    """Run `suite audit` on the pack and store its figures in the manifest."""
    from suite.engine.host import build_host
    from suite.validity.auditor import pack_audit

    host = build_host()
    return pack_audit(host, default_config(sorted(host.registry.benchmarks)), "agentvqa", pack)


if __name__ == "__main__":
    raise SystemExit(main())
