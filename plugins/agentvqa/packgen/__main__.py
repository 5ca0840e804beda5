"""`python -m suite_agentvqa.packgen [--out DIR] [--seed N] [--per-dataset N]`: write the generated pack."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from suite_agentvqa.data import read_questions
from suite_agentvqa.packgen.build import build_pack

PACK_DIR = Path(__file__).resolve().parents[1] / "pack"


def main(argv: list[str] | None = None) -> int:
    """Generate the pack, read it back through the loader, and print what was written."""
    parser = argparse.ArgumentParser(prog="python -m suite_agentvqa.packgen", description=__doc__)
    parser.add_argument("--out", type=Path, default=PACK_DIR, help=f"pack folder (default {PACK_DIR})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-dataset", type=int, default=10, dest="per_dataset")
    args = parser.parse_args(argv)
    started = time.monotonic()
    manifest = build_pack(args.out, args.seed, args.per_dataset)
    questions = read_questions(args.out)
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"{len(questions)} questions in {args.out} ({size / 1e6:.2f} MB, seed {args.seed}, generator "
          f"v{manifest['generator_version']}, {time.monotonic() - started:.1f} s); answers {manifest['answers']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
