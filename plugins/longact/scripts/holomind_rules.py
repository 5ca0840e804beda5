"""Run HoloMind on pack episodes with a rule-following scripted model, to see its machinery on real episodes.

    python plugins/longact/scripts/holomind_rules.py [--limit 3] [--max-steps 3000] [--out runs/holomind-rules]

The scripted model (`scripted/holomind-rules`, `suite_longact.holomind.rules_model`, registered by the plugin, so
`suite run --agent holomind --model scripted/holomind-rules` does the same) plays every module by reading its prompt:
the goals are the instruction's clauses, each goal becomes find / pick / place or a state change, the executor
picks the best-matching listed instance, the critic reviews every plan as sound, passes what succeeded, asks for a
local refinement when the object was out of view or reach and for a replan otherwise, and the high-level planner
gives up a goal whose replans failed. It is a deterministic stand-in for a real model, not a baseline of any model.
"""

from __future__ import annotations

import argparse

from suite.cli.main import main as suite_main


def main() -> None:
    """Run `suite run --agent holomind` on the first pack episodes."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=3)
    ap.add_argument("--max-steps", type=int, default=3000)
    ap.add_argument("--out", default="runs/holomind-rules")
    args = ap.parse_args()
    tasks = ",".join(f"longact_{i:03d}" for i in range(args.limit))
    raise SystemExit(suite_main(["run", "--plugins", "longact", "--agent", "holomind", "--model",
                                 "scripted/holomind-rules", "--tasks", tasks, "--out", args.out,
                                 f"longact.max_steps={args.max_steps}", "longact.images=[]", "model.cache=false"]))


if __name__ == "__main__":
    main()
